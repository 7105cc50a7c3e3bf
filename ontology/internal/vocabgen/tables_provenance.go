package main

// Terms of statement-level provenance: RDF 1.2 annotations on the
// statements that carry measured values (a reifier, rdf:reifies the triple
// term of (metric, hasMetricValue, value), holds them). They have no
// domain: their subject is the reifier, not the metric or its experiment.
func init() {
	properties = append(properties, []property{
		{Name: "measuredBy", Kind: datatypeProp, Range: "xsd:string", Label: "measured by", Comment: "On a reifier of a metric value statement (RDF 1.2 rdf:reifies): the tool, with its version where the input says it, that measured or computed the value, e.g. \"TAU\" or \"CUBE 4.8.2\"."},
		{Name: "valueCompensationBound", Kind: datatypeProp, Range: "xsd:string", Label: "value compensation bound", Comment: "On a reifier of a compensated metric value statement: which end of the bounds of Wolf et al. eq. (11) the overhead compensation chose, \"lower\" or \"upper\" (the experiment's compensationBound, stated on the value)."},
		{Name: "valuePerEventOverhead", Kind: datatypeProp, Range: "xsd:double", Label: "value per-event overhead", Comment: "On a reifier of a compensated metric value statement: the calibrated per-event overhead O, in microseconds, that the compensation removed (the experiment's perEventOverhead, stated on the value)."},
	}...)
}
