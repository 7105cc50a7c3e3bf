package function

import (
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
)

const xsdNS = ontology.XSDNamespace

// builtinDefs are the SPARQL 1.1 built-in calls (§17.4, grammar rule
// BuiltInCall) other than the aggregates and [NOT] EXISTS, which have
// grammar of their own.
var builtinDefs = []Def{
	{Name: string(algebra.BuiltinStr), Min: 1, Max: 1, Doc: "the lexical form of a literal or the IRI as a simple literal"},
	{Name: string(algebra.BuiltinLang), Min: 1, Max: 1, Doc: "the language tag of a literal, empty when it has none"},
	{Name: string(algebra.BuiltinLangMatches), Min: 2, Max: 2, Doc: "whether a language tag matches a language range (RFC 4647 basic filtering)"},
	{Name: string(algebra.BuiltinDatatype), Min: 1, Max: 1, Doc: "the datatype IRI of a literal"},
	{Name: string(algebra.BuiltinBound), Min: 1, Max: 1, Special: true, Doc: "whether a variable is bound (the argument must be a variable)"},
	{Name: string(algebra.BuiltinIRI), Min: 1, Max: 1, Aliases: []string{"URI"}, Doc: "an IRI from an IRI or a string, resolved against the base IRI"},
	{Name: string(algebra.BuiltinBNode), Min: 0, Max: 1, Volatile: true, Doc: "a fresh blank node, the same one for the same string within a solution"},
	{Name: string(algebra.BuiltinRand), Min: 0, Max: 0, Volatile: true, Doc: "a pseudo-random xsd:double in [0, 1)"},
	{Name: string(algebra.BuiltinAbs), Min: 1, Max: 1, Doc: "the absolute value of a number"},
	{Name: string(algebra.BuiltinCeil), Min: 1, Max: 1, Doc: "the smallest integer not less than a number"},
	{Name: string(algebra.BuiltinFloor), Min: 1, Max: 1, Doc: "the largest integer not greater than a number"},
	{Name: string(algebra.BuiltinRound), Min: 1, Max: 1, Doc: "the nearest integer, halves rounded up"},
	{Name: string(algebra.BuiltinConcat), Min: 0, Max: Variadic, Doc: "the concatenation of strings"},
	{Name: string(algebra.BuiltinStrLen), Min: 1, Max: 1, Doc: "the number of characters of a string"},
	{Name: string(algebra.BuiltinUCase), Min: 1, Max: 1, Doc: "a string in upper case"},
	{Name: string(algebra.BuiltinLCase), Min: 1, Max: 1, Doc: "a string in lower case"},
	{Name: string(algebra.BuiltinEncodeForURI), Min: 1, Max: 1, Doc: "a string percent-encoded for use in a URI"},
	{Name: string(algebra.BuiltinContains), Min: 2, Max: 2, Doc: "whether the first string contains the second"},
	{Name: string(algebra.BuiltinStrStarts), Min: 2, Max: 2, Doc: "whether the first string starts with the second"},
	{Name: string(algebra.BuiltinStrEnds), Min: 2, Max: 2, Doc: "whether the first string ends with the second"},
	{Name: string(algebra.BuiltinStrBefore), Min: 2, Max: 2, Doc: "the part of the first string before the second"},
	{Name: string(algebra.BuiltinStrAfter), Min: 2, Max: 2, Doc: "the part of the first string after the second"},
	{Name: string(algebra.BuiltinYear), Min: 1, Max: 1, Doc: "the year of an xsd:dateTime"},
	{Name: string(algebra.BuiltinMonth), Min: 1, Max: 1, Doc: "the month of an xsd:dateTime"},
	{Name: string(algebra.BuiltinDay), Min: 1, Max: 1, Doc: "the day of an xsd:dateTime"},
	{Name: string(algebra.BuiltinHours), Min: 1, Max: 1, Doc: "the hours of an xsd:dateTime"},
	{Name: string(algebra.BuiltinMinutes), Min: 1, Max: 1, Doc: "the minutes of an xsd:dateTime"},
	{Name: string(algebra.BuiltinSeconds), Min: 1, Max: 1, Doc: "the seconds of an xsd:dateTime, as xsd:decimal"},
	{Name: string(algebra.BuiltinTimezone), Min: 1, Max: 1, Doc: "the timezone of an xsd:dateTime as xsd:dayTimeDuration"},
	{Name: string(algebra.BuiltinTZ), Min: 1, Max: 1, Doc: "the timezone of an xsd:dateTime as written"},
	{Name: string(algebra.BuiltinNow), Min: 0, Max: 0, Doc: "the time of the query, the same for every call"},
	{Name: string(algebra.BuiltinUUID), Min: 0, Max: 0, Volatile: true, Doc: "a fresh urn:uuid: IRI"},
	{Name: string(algebra.BuiltinStrUUID), Min: 0, Max: 0, Volatile: true, Doc: "a fresh UUID string"},
	{Name: string(algebra.BuiltinMD5), Min: 1, Max: 1, Doc: "the MD5 hash of a string, in hex"},
	{Name: string(algebra.BuiltinSHA1), Min: 1, Max: 1, Doc: "the SHA-1 hash of a string, in hex"},
	{Name: string(algebra.BuiltinSHA256), Min: 1, Max: 1, Doc: "the SHA-256 hash of a string, in hex"},
	{Name: string(algebra.BuiltinSHA384), Min: 1, Max: 1, Doc: "the SHA-384 hash of a string, in hex"},
	{Name: string(algebra.BuiltinSHA512), Min: 1, Max: 1, Doc: "the SHA-512 hash of a string, in hex"},
	{Name: string(algebra.BuiltinCoalesce), Min: 0, Max: Variadic, Special: true, Doc: "the first argument that has a value"},
	{Name: string(algebra.BuiltinIf), Min: 3, Max: 3, Special: true, Doc: "the second argument if the first is true, else the third"},
	{Name: string(algebra.BuiltinStrLang), Min: 2, Max: 2, Doc: "a literal with a language tag"},
	{Name: string(algebra.BuiltinStrDT), Min: 2, Max: 2, Doc: "a literal with a datatype"},
	{Name: string(algebra.BuiltinSameTerm), Min: 2, Max: 2, Doc: "whether two terms are the same RDF term"},
	{Name: string(algebra.BuiltinIsIRI), Min: 1, Max: 1, Aliases: []string{"ISURI"}, Doc: "whether a term is an IRI"},
	{Name: string(algebra.BuiltinIsBlank), Min: 1, Max: 1, Doc: "whether a term is a blank node"},
	{Name: string(algebra.BuiltinIsLiteral), Min: 1, Max: 1, Doc: "whether a term is a literal"},
	{Name: string(algebra.BuiltinIsNumeric), Min: 1, Max: 1, Doc: "whether a term is a numeric literal with a valid lexical form"},
	{Name: string(algebra.BuiltinRegex), Min: 2, Max: 3, Doc: "whether a string matches an XPath regular expression, with flags"},
	{Name: string(algebra.BuiltinSubstr), Min: 2, Max: 3, Doc: "the substring from a 1-based position, of a length or to the end"},
	{Name: string(algebra.BuiltinReplace), Min: 3, Max: 4, Doc: "a string with the matches of a regular expression replaced"}}

// castDefs are the XSD constructor functions (§17.5): the casts SPARQL
// requires and the types derived from xsd:integer, which cast like it and
// check their range.
var castDefs = []Def{
	{Name: ontology.XSDBoolean, Min: 1, Max: 1, Doc: "cast to xsd:boolean"},
	{Name: ontology.XSDDouble, Min: 1, Max: 1, Doc: "cast to xsd:double"},
	{Name: ontology.XSDFloat, Min: 1, Max: 1, Doc: "cast to xsd:float"},
	{Name: ontology.XSDDecimal, Min: 1, Max: 1, Doc: "cast to xsd:decimal"},
	{Name: ontology.XSDInteger, Min: 1, Max: 1, Doc: "cast to xsd:integer"},
	{Name: ontology.XSDDateTime, Min: 1, Max: 1, Doc: "cast to xsd:dateTime"},
	{Name: ontology.XSDString, Min: 1, Max: 1, Doc: "cast to xsd:string"},
	{Name: ontology.XSDNonPositiveInteger, Min: 1, Max: 1, Doc: "cast to xsd:nonPositiveInteger"},
	{Name: ontology.XSDNegativeInteger, Min: 1, Max: 1, Doc: "cast to xsd:negativeInteger"},
	{Name: ontology.XSDLong, Min: 1, Max: 1, Doc: "cast to xsd:long"},
	{Name: ontology.XSDInt, Min: 1, Max: 1, Doc: "cast to xsd:int"},
	{Name: ontology.XSDShort, Min: 1, Max: 1, Doc: "cast to xsd:short"},
	{Name: ontology.XSDByte, Min: 1, Max: 1, Doc: "cast to xsd:byte"},
	{Name: ontology.XSDNonNegativeInteger, Min: 1, Max: 1, Doc: "cast to xsd:nonNegativeInteger"},
	{Name: ontology.XSDUnsignedLong, Min: 1, Max: 1, Doc: "cast to xsd:unsignedLong"},
	{Name: ontology.XSDUnsignedInt, Min: 1, Max: 1, Doc: "cast to xsd:unsignedInt"},
	{Name: ontology.XSDUnsignedShort, Min: 1, Max: 1, Doc: "cast to xsd:unsignedShort"},
	{Name: ontology.XSDUnsignedByte, Min: 1, Max: 1, Doc: "cast to xsd:unsignedByte"},
	{Name: ontology.XSDPositiveInteger, Min: 1, Max: 1, Doc: "cast to xsd:positiveInteger"},
}
