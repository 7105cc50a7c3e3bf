package ontology

// Namespaces and IRIs of the W3C vocabularies PERFONTO is written in.
const (
	// RDFNamespace is the RDF namespace.
	RDFNamespace = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
	// RDFSNamespace is the RDF Schema namespace.
	RDFSNamespace = "http://www.w3.org/2000/01/rdf-schema#"
	// OWLNamespace is the OWL namespace.
	OWLNamespace = "http://www.w3.org/2002/07/owl#"
	// XSDNamespace is the XML Schema datatypes namespace.
	XSDNamespace = "http://www.w3.org/2001/XMLSchema#"

	// RDFType is rdf:type.
	RDFType = RDFNamespace + "type"
	// RDFLangString is rdf:langString, the datatype of language-tagged
	// literals.
	RDFLangString = RDFNamespace + "langString"
	// RDFDirLangString is rdf:dirLangString (RDF 1.2), the datatype of
	// language-tagged literals with a base direction.
	RDFDirLangString = RDFNamespace + "dirLangString"
	// RDFReifies is rdf:reifies (RDF 1.2), relating a reifier to the
	// triple term it reifies.
	RDFReifies = RDFNamespace + "reifies"
	// RDFSLiteral is rdfs:Literal.
	RDFSLiteral = RDFSNamespace + "Literal"
	// RDFSLabel is rdfs:label.
	RDFSLabel = RDFSNamespace + "label"
	// RDFSComment is rdfs:comment.
	RDFSComment = RDFSNamespace + "comment"
	// RDFSSubClassOf is rdfs:subClassOf.
	RDFSSubClassOf = RDFSNamespace + "subClassOf"
	// RDFSSubPropertyOf is rdfs:subPropertyOf.
	RDFSSubPropertyOf = RDFSNamespace + "subPropertyOf"
	// RDFSDomain is rdfs:domain.
	RDFSDomain = RDFSNamespace + "domain"
	// RDFSRange is rdfs:range.
	RDFSRange = RDFSNamespace + "range"
	// OWLClass is owl:Class.
	OWLClass = OWLNamespace + "Class"
	// OWLObjectProperty is owl:ObjectProperty.
	OWLObjectProperty = OWLNamespace + "ObjectProperty"
	// OWLDatatypeProperty is owl:DatatypeProperty.
	OWLDatatypeProperty = OWLNamespace + "DatatypeProperty"
	// OWLAnnotationProperty is owl:AnnotationProperty.
	OWLAnnotationProperty = OWLNamespace + "AnnotationProperty"
	// OWLTransitiveProperty is owl:TransitiveProperty.
	OWLTransitiveProperty = OWLNamespace + "TransitiveProperty"
	// OWLFunctionalProperty is owl:FunctionalProperty.
	OWLFunctionalProperty = OWLNamespace + "FunctionalProperty"
	// OWLInverseOf is owl:inverseOf.
	OWLInverseOf = OWLNamespace + "inverseOf"
	// OWLNamedIndividual is owl:NamedIndividual.
	OWLNamedIndividual = OWLNamespace + "NamedIndividual"

	// XSDString is xsd:string.
	XSDString = XSDNamespace + "string"
	// XSDDouble is xsd:double.
	XSDDouble = XSDNamespace + "double"
	// XSDLong is xsd:long.
	XSDLong = XSDNamespace + "long"
	// XSDInteger is xsd:integer.
	XSDInteger = XSDNamespace + "integer"
	// XSDDecimal is xsd:decimal.
	XSDDecimal = XSDNamespace + "decimal"
	// XSDBoolean is xsd:boolean.
	XSDBoolean = XSDNamespace + "boolean"
	// XSDDateTime is xsd:dateTime.
	XSDDateTime = XSDNamespace + "dateTime"
	// XSDFloat is xsd:float.
	XSDFloat = XSDNamespace + "float"
	// XSDInt is xsd:int.
	XSDInt = XSDNamespace + "int"
	// XSDShort is xsd:short.
	XSDShort = XSDNamespace + "short"
	// XSDByte is xsd:byte.
	XSDByte = XSDNamespace + "byte"
	// XSDUnsignedLong is xsd:unsignedLong.
	XSDUnsignedLong = XSDNamespace + "unsignedLong"
	// XSDUnsignedInt is xsd:unsignedInt.
	XSDUnsignedInt = XSDNamespace + "unsignedInt"
	// XSDUnsignedShort is xsd:unsignedShort.
	XSDUnsignedShort = XSDNamespace + "unsignedShort"
	// XSDUnsignedByte is xsd:unsignedByte.
	XSDUnsignedByte = XSDNamespace + "unsignedByte"
	// XSDPositiveInteger is xsd:positiveInteger.
	XSDPositiveInteger = XSDNamespace + "positiveInteger"
	// XSDNonPositiveInteger is xsd:nonPositiveInteger.
	XSDNonPositiveInteger = XSDNamespace + "nonPositiveInteger"
	// XSDNegativeInteger is xsd:negativeInteger.
	XSDNegativeInteger = XSDNamespace + "negativeInteger"
	// XSDNonNegativeInteger is xsd:nonNegativeInteger.
	XSDNonNegativeInteger = XSDNamespace + "nonNegativeInteger"
	// XSDDate is xsd:date.
	XSDDate = XSDNamespace + "date"
	// XSDTime is xsd:time.
	XSDTime = XSDNamespace + "time"
	// XSDDateTimeStamp is xsd:dateTimeStamp.
	XSDDateTimeStamp = XSDNamespace + "dateTimeStamp"
	// XSDDuration is xsd:duration.
	XSDDuration = XSDNamespace + "duration"
	// XSDDayTimeDuration is xsd:dayTimeDuration.
	XSDDayTimeDuration = XSDNamespace + "dayTimeDuration"
	// XSDGYear is xsd:gYear.
	XSDGYear = XSDNamespace + "gYear"
	// XSDAnyURI is xsd:anyURI.
	XSDAnyURI = XSDNamespace + "anyURI"

	// RDFFirst is rdf:first.
	RDFFirst = RDFNamespace + "first"
	// RDFRest is rdf:rest.
	RDFRest = RDFNamespace + "rest"
	// RDFNil is rdf:nil.
	RDFNil = RDFNamespace + "nil"
	// RDFProperty is rdf:Property.
	RDFProperty = RDFNamespace + "Property"
	// RDFStatement is rdf:Statement.
	RDFStatement = RDFNamespace + "Statement"
	// RDFSubject is rdf:subject.
	RDFSubject = RDFNamespace + "subject"
	// RDFPredicate is rdf:predicate.
	RDFPredicate = RDFNamespace + "predicate"
	// RDFObject is rdf:object.
	RDFObject = RDFNamespace + "object"
	// RDFValue is rdf:value.
	RDFValue = RDFNamespace + "value"
	// RDFXMLLiteral is rdf:XMLLiteral.
	RDFXMLLiteral = RDFNamespace + "XMLLiteral"
	// RDFSClass is rdfs:Class.
	RDFSClass = RDFSNamespace + "Class"
)

// NamespacePrefix is a prefix name and the namespace IRI it stands for.
type NamespacePrefix struct{ Prefix, Namespace string }

// commonPrefixes is the one prefix table of perfkb: what Turtle, TriG,
// RDF/XML and JSON-LD output declare, what rule files and RDQL queries may
// use undeclared, and what the query page offers.
var commonPrefixes = [...]NamespacePrefix{
	{"rdf", RDFNamespace},
	{"rdfs", RDFSNamespace},
	{"xsd", XSDNamespace},
	{"owl", OWLNamespace},
	{Prefix, Namespace},
}

// CommonPrefixes returns the common prefixes (rdf, rdfs, xsd, owl,
// perfonto) in the order output declares them; the slice is a fresh copy.
func CommonPrefixes() []NamespacePrefix { return append([]NamespacePrefix(nil), commonPrefixes[:]...) }

// CommonPrefixMap returns the common prefixes as a fresh map from prefix
// to namespace.
func CommonPrefixMap() map[string]string {
	m := make(map[string]string, len(commonPrefixes))
	for _, p := range commonPrefixes {
		m[p.Prefix] = p.Namespace
	}
	return m
}
