package shacl

import "github.com/perfkb/perfkb/ontology"

// sh names a term of the SHACL vocabulary.
func sh(local string) string { return ontology.SHNamespace + local }

var (
	rdfType       = ontology.RDFType
	rdfFirst      = ontology.RDFFirst
	rdfRest       = ontology.RDFRest
	rdfNil        = ontology.RDFNil
	rdfsSubClass  = ontology.RDFSSubClassOf
	rdfsClass     = ontology.RDFSClass
	rdfLangString = ontology.RDFLangString
	xsdBoolean    = ontology.XSDBoolean
	xsdString     = ontology.XSDString

	shNodeShape     = sh("NodeShape")
	shPropertyShape = sh("PropertyShape")
	shPath          = sh("path")
	shDeactivated   = sh("deactivated")
	shSeverity      = sh("severity")
	shMessage       = sh("message")
	shViolation     = sh("Violation")

	shTargetNode       = sh("targetNode")
	shTargetClass      = sh("targetClass")
	shTargetSubjectsOf = sh("targetSubjectsOf")
	shTargetObjectsOf  = sh("targetObjectsOf")

	shInversePath     = sh("inversePath")
	shAlternativePath = sh("alternativePath")
	shZeroOrMorePath  = sh("zeroOrMorePath")
	shOneOrMorePath   = sh("oneOrMorePath")
	shZeroOrOnePath   = sh("zeroOrOnePath")

	shValidationReport = sh("ValidationReport")
	shValidationResult = sh("ValidationResult")
	shConforms         = sh("conforms")
	shResult           = sh("result")
	shFocusNode        = sh("focusNode")
	shResultPath       = sh("resultPath")
	shValue            = sh("value")
	shSourceShape      = sh("sourceShape")
	shSourceComponent  = sh("sourceConstraintComponent")
	shSourceConstraint = sh("sourceConstraint")
	shResultSeverity   = sh("resultSeverity")
	shResultMessage    = sh("resultMessage")

	shIRI                = sh("IRI")
	shBlankNode          = sh("BlankNode")
	shLiteral            = sh("Literal")
	shBlankNodeOrIRI     = sh("BlankNodeOrIRI")
	shBlankNodeOrLiteral = sh("BlankNodeOrLiteral")
	shIRIOrLiteral       = sh("IRIOrLiteral")
)
