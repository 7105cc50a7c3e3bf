package ontology

import (
	_ "embed" // for the embedded perfonto.ttl
	"io"
	"strings"
)

//go:generate go run ./internal/vocabgen -out .

// Namespace is the PERFONTO namespace; every class, property and individual
// IRI of the ontology starts with it, so the dissertation's queries and rules
// (prefix perfonto:) run unchanged.
const Namespace = "http://www.par.univie.ac.at/project/scalea/perfonto#"

// OntologyIRI is the IRI of the owl:Ontology resource of PERFONTO.
const OntologyIRI = "http://www.par.univie.ac.at/project/scalea/perfonto"

// Prefix is the conventional prefix name of Namespace.
const Prefix = "perfonto"

//go:embed perfonto.ttl
var turtle string

// Turtle returns the complete PERFONTO ontology as OWL 2 in Turtle syntax.
func Turtle() string { return turtle }

// TurtleReader returns a reader over the Turtle text of PERFONTO, ready for
// a loader.
func TurtleReader() io.Reader { return strings.NewReader(turtle) }

// LocalName returns the part of a PERFONTO IRI after the namespace, and false
// when iri is not in the PERFONTO namespace.
func LocalName(iri string) (string, bool) {
	if !strings.HasPrefix(iri, Namespace) {
		return "", false
	}
	return iri[len(Namespace):], true
}

// MetricInfo is one entry of the performance metrics catalog (5.5.1,
// Appendix C.2/C.3): the unique name used with hasMetricName, the data type
// and unit, the meaning, the metric class (TimingMetric, CounterMetric,
// HardwareCounterMetric, OverheadMetric or RatioMetric) and the utility
// (HigherIsBetter, LowerIsBetter or NominalIsBetter).
type MetricInfo struct {
	Name          string // mnemonic, e.g. "wtime", "L2_TCM", "oall_ident"
	IRI           string // the catalog individual, e.g. MetricWtime
	DataType      string // as the catalog names it: "double" or "int64"
	ValueDatatype string // XSD datatype IRI of hasMetricValue literals
	Unit          string // e.g. "microsecond", "counter", "byte", "ratio"
	Description   string
	Class         string // class IRI of the metric kind
	Utility       string // individual IRI of the utility
	Overhead      string // overhead class IRI for overhead metrics, else ""
}

// Metrics returns the whole metrics catalog in catalog order.
func Metrics() []MetricInfo {
	out := make([]MetricInfo, len(metricCatalog))
	copy(out, metricCatalog[:])
	return out
}

// LookupMetric returns the catalog entry of the metric named name (case
// sensitive, as names are mnemonics).
func LookupMetric(name string) (MetricInfo, bool) {
	for _, m := range metricCatalog {
		if m.Name == name {
			return m, true
		}
	}
	return MetricInfo{}, false
}

// CodeRegionType is one code region mnemonic of Appendix C.1 with the
// PERFONTO class that carries it (perfonto:crMnemonic) and the family
// (GenericCodeRegion, MPCodeRegion, SMCodeRegion, HPFCodeRegion or
// OtherCodeRegion) the class belongs to.
type CodeRegionType struct {
	Mnemonic    string // e.g. "CR_MPIP2P"
	Class       string // class IRI, e.g. MPIPointToPointRegion
	Description string // as in Table C.1
	Family      string // family class IRI
}

// CodeRegionTypes returns the code region types of Appendix C.1 in table
// order.
func CodeRegionTypes() []CodeRegionType {
	out := make([]CodeRegionType, len(codeRegionTypes))
	copy(out, codeRegionTypes[:])
	return out
}

// LookupCodeRegionType returns the code region type of a mnemonic such as
// "CR_MPIP2P".
func LookupCodeRegionType(mnemonic string) (CodeRegionType, bool) {
	for _, t := range codeRegionTypes {
		if t.Mnemonic == mnemonic {
			return t, true
		}
	}
	return CodeRegionType{}, false
}
