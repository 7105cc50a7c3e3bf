package main

// Terms added for SCALEA-G sensor data (6.2.3) and fuzzy rule-based
// monitoring (6.2.3.7, Fig. 6.7, Appendix F).
// Each area keeps its additions in its own file so that work on different
// areas never edits the same table; main.go reads the merged tables.
func init() {
	coreClasses = append(coreClasses, []class{
		{Name: "LinguisticVariable", Comment: "A fuzzy (linguistic) variable over a measured quantity, divided into states given by fuzzy sets, e.g. the bandwidth of a network path in five states (6.2.3.7, Fig. 6.7)."},
		{Name: "LinguisticTerm", Comment: "A term (state) of a linguistic variable, such as VERYLOW; a fuzzy set described by a membership function (Appendix F.2)."},
		{Name: "FuzzyMembership", Comment: "The degree in [0,1] to which a measured value belongs to the fuzzy set of a linguistic term (Appendix F.2, A = {(x, mu_A(x))})."},
		{Name: "SensorField", Comment: "One leaf of the data of a sensor that has no specific mapping, kept as a name/value pair so that unknown sensor data is never dropped (6.2.3.6)."},
	}...)
	properties = append(properties, []property{
		{Name: "hasFuzzyMembership", Kind: objectProp, Range: "FuzzyMembership", Comment: "A fuzzy membership of the subject's measured value in a linguistic term."},
		{Name: "membershipTerm", Kind: objectProp, Domain: "FuzzyMembership", Range: "LinguisticTerm", Functional: true, Comment: "The linguistic term whose fuzzy set the membership degree is about."},
		{Name: "membershipDegree", Kind: datatypeProp, Domain: "FuzzyMembership", Range: "xsd:double", Functional: true, Comment: "The membership degree mu(x) in [0,1]; 0 is no membership, 1 full membership."},
		{Name: "termOfVariable", Kind: objectProp, Domain: "LinguisticTerm", Range: "LinguisticVariable", Functional: true, Label: "term of variable", Comment: "The linguistic variable the term is a state of."},
		{Name: "termName", Kind: datatypeProp, Domain: "LinguisticTerm", Range: "xsd:string", Functional: true, Comment: "The name of the term as written in the rule set, e.g. \"VERYLOW\"."},
		{Name: "membershipFunction", Kind: datatypeProp, Domain: "LinguisticTerm", Range: "xsd:string", Comment: "The membership function of the term's fuzzy set as written in ABLE's rule language, e.g. \"Triangle(1, 1.5, 2)\"."},
		{Name: "universeMin", Kind: datatypeProp, Domain: "LinguisticVariable", Range: "xsd:double", Comment: "The lower end of the universe of discourse of the variable."},
		{Name: "universeMax", Kind: datatypeProp, Domain: "LinguisticVariable", Range: "xsd:double", Comment: "The upper end of the universe of discourse of the variable."},
		{Name: "hasSensorField", Kind: objectProp, Range: "SensorField", Comment: "A name/value leaf of sensor data or of a sensorinit message's parameters."},
		{Name: "fieldName", Kind: datatypeProp, Domain: "SensorField", Range: "xsd:string", Functional: true, Comment: "The slash-separated element path of the leaf within the sensor data, with @name for an attribute, e.g. \"sample/load@unit\"."},
		{Name: "fieldValue", Kind: datatypeProp, Domain: "SensorField", Range: "xsd:string", Functional: true, Comment: "The text of the leaf, as sent."},
		{Name: "rawEventTime", Kind: datatypeProp, Domain: "SensorMeasurement", Range: "xsd:long", Functional: true, Comment: "The eventtime value exactly as the sensor sent it (milliseconds since the Unix epoch; values below 10^11 are seconds)."},
		{Name: "sensorSchema", Kind: datatypeProp, Domain: "SensorInstance", Range: "xsd:string", Comment: "The XML schema of the data a sensor instance produces, as sent in its sensorinit message (6.2.3.6)."},
		{Name: "instanceDescription", Kind: datatypeProp, Domain: "SensorInstance", Range: "xsd:string", Comment: "The description a sensor instance sent in its sensorinit message."},
		{Name: "instanceStarted", Kind: datatypeProp, Domain: "SensorInstance", Range: "xsd:boolean", Comment: "True when the sensor instance's sensorinit message was received (the initialization phase of 6.2.3.6)."},
		{Name: "instanceFinished", Kind: datatypeProp, Domain: "SensorInstance", Range: "xsd:boolean", Comment: "True when the sensor instance's sensorfinal message was received (the final phase of 6.2.3.6)."},
	}...)
	bw := func(term, goName, fn string) individual {
		return individual{Name: "bandwidth_" + term, GoName: goName, Types: []string{"LinguisticTerm"}, Label: "bandwidth " + term,
			Comment: "State " + term + " of the network path bandwidth variable of Fig. 6.7: " + fn + " over MB/s.",
			Extra: [][2]string{{"perfonto:termOfVariable", "perfonto:BandwidthStatus"}, {"perfonto:termName", `"` + term + `"`},
				{"perfonto:membershipFunction", `"` + fn + `"`}}}
	}
	individuals = append(individuals, []individual{
		{Name: "BandwidthStatus", Types: []string{"LinguisticVariable"}, Label: "bandwidth status",
			Comment: "The fuzzy variable describing the status of the bandwidth of a network path in the Austrian Grid, whose measured maximum never exceeded 5 MB/s (Fig. 6.7).",
			Extra:   [][2]string{{"perfonto:universeMin", `"0.0"^^xsd:double`}, {"perfonto:universeMax", `"5.0"^^xsd:double`}}},
		bw("VERYLOW", "BandwidthVeryLow", "Shoulder(0, 1, Left)"),
		bw("LOW", "BandwidthLow", "Triangle(1, 1.5, 2)"),
		bw("MEDIUM", "BandwidthMedium", "Trapezoid(2, 2.2, 2.8, 3)"),
		bw("HIGH", "BandwidthHigh", "Triangle(3, 3.5, 4)"),
		bw("VERYHIGH", "BandwidthVeryHigh", "Shoulder(4, 5, Right)"),
	}...)
}
