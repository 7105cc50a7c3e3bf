package ontology

import (
	"errors"
	"go/ast"
	"go/parser"
	"go/token"
	"io"
	"strconv"
	"strings"
	"testing"

	"github.com/knakk/rdf"
)

// graph is the parsed ontology: subject -> predicate -> objects.
type graph map[string]map[string][]rdf.Term

func (g graph) objects(s, p string) []rdf.Term { return g[s][p] }

func (g graph) has(s, p, o string) bool {
	for _, t := range g[s][p] {
		if t.String() == o {
			return true
		}
	}
	return false
}

func loadOntology(t *testing.T) graph {
	t.Helper()
	dec := rdf.NewTripleDecoder(TurtleReader(), rdf.Turtle)
	g := graph{}
	n := 0
	for {
		tr, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("perfonto.ttl: parse error after %d triples: %v", n, err)
		}
		n++
		s, p := tr.Subj.String(), tr.Pred.String()
		if g[s] == nil {
			g[s] = map[string][]rdf.Term{}
		}
		g[s][p] = append(g[s][p], tr.Obj)
	}
	if n < 1000 {
		t.Fatalf("perfonto.ttl: only %d triples parsed", n)
	}
	return g
}

func TestRequiredNamesDeclared(t *testing.T) {
	g := loadOntology(t)
	classes := []string{
		"Application", "Version", "SourceFile", "CodeRegion", "Experiment", "RegionInstance", "RegionSummary",
		"PerformanceMetric", "Event", "EnterEvent", "ExitEvent", "EventAttribute", "ProcessingUnit", "Site",
		"Cluster", "SMPCluster", "ComputationalNode", "SMPComputationalNode", "Network", "EthernetNetwork",
		"MyrinetNetwork", "NodeSharedMemoryPerf", "NetworkMPColPerf", "NetworkMPP2PPerf",
		"MPCodeRegion", "SMCodeRegion", "HPFCodeRegion", "GenericCodeRegion", "MPIPointToPointRegion",
		"TemporalOverhead", "DataMovementOverhead", "SynchronizationOverhead", "ControlOfParallelismOverhead",
		"AdditionalComputationOverhead", "LossOfParallelismOverhead", "UnidentifiedOverhead",
		"Sensor", "SystemSensor", "ApplicationSensor", "SensorInstance", "SensorMeasurement", "PathBandwidthMeasurement",
		"MetricDefinition", "TimingMetric", "CounterMetric", "OverheadMetric", "RatioMetric", "MetricUtility",
		"PerformanceProblem", "BigMessage", "HighCommunicationRatio", "PoorCacheBehaviour", "HighIdentifiedOverhead",
		"LargeUnidentifiedOverhead", "SynchronizationDominated", "LoadImbalance", "IODominated", "LateSender",
		"WaitAtBarrier", "LowNetworkBandwidth",
	}
	objectProps := []string{
		"inProcessingUnit", "ofCodeRegion", "hasChildRS", "hasParentRS", "hasAncestorRS", "hasDescendantRS",
		"hasChildRI", "hasParentRI", "hasAncestorRI", "hasDescendantRI", "hasMetric", "hasEvent", "hasEventAttr",
		"hasProblem", "problemOf", "triggeredByMetric", "hasUtility", "hasCluster", "hasNode", "hasNetwork",
		"hasMPP2PPerf", "hasMPColPerf", "hasSharedMemoryPerf", "producedBy", "instanceOfSensor",
	}
	datatypeProps := []string{
		"hasMetricName", "hasMetricValue", "atEventTime", "hasAttrName", "hasAttrValue", "inNode", "hasCrType",
		"startTime", "endTime", "commandLine", "compiler", "compilerOptions", "cpuType", "physicalMemory",
		"networkBandwidth", "networkLatency", "severity", "severityClass", "problemDescription", "bandwidth",
		"metricUnit", "metricDataType", "metricDescription", "metricMnemonic",
	}
	type want struct{ name, typ string }
	var cases []want
	for _, c := range classes {
		cases = append(cases, want{c, OWLClass})
	}
	for _, p := range objectProps {
		cases = append(cases, want{p, OWLObjectProperty})
	}
	for _, p := range datatypeProps {
		cases = append(cases, want{p, OWLDatatypeProperty})
	}
	cases = append(cases,
		want{"crMnemonic", OWLAnnotationProperty},
		want{"hasAncestorRS", OWLTransitiveProperty},
		want{"hasDescendantRS", OWLTransitiveProperty},
		want{"hasAncestorRI", OWLTransitiveProperty},
		want{"HigherIsBetter", MetricUtility},
		want{"LowerIsBetter", MetricUtility},
		want{"NominalIsBetter", MetricUtility},
		want{"metric_wtime", TimingMetric},
		want{"metric_L2_TCM", HardwareCounterMetric},
		want{"metric_oall_ident", OverheadMetric},
		want{"metric_AvgMessageLength", RatioMetric},
	)
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			iri := Namespace + c.name
			if !g.has(iri, RDFType, c.typ) {
				t.Errorf("%s is not declared a %s", c.name, c.typ)
			}
			if len(g.objects(iri, RDFSLabel)) == 0 {
				t.Errorf("%s has no rdfs:label", c.name)
			}
			if len(g.objects(iri, RDFSComment)) == 0 {
				t.Errorf("%s has no rdfs:comment", c.name)
			}
		})
	}
}

// TestEveryTermLabelled checks every class and property in the namespace
// has a label, a comment, and (for properties) declared domain/range terms.
func TestEveryTermLabelled(t *testing.T) {
	g := loadOntology(t)
	declared := func(iri string) bool {
		if !strings.HasPrefix(iri, Namespace) {
			return true
		}
		return len(g.objects(iri, RDFType)) > 0
	}
	for s := range g {
		if !strings.HasPrefix(s, Namespace) {
			continue
		}
		if len(g.objects(s, RDFSLabel)) != 1 {
			t.Errorf("%s: want exactly one rdfs:label, have %d", s, len(g.objects(s, RDFSLabel)))
		}
		if len(g.objects(s, RDFSComment)) != 1 {
			t.Errorf("%s: want exactly one rdfs:comment, have %d", s, len(g.objects(s, RDFSComment)))
		}
		for _, p := range []string{RDFSDomain, RDFSRange, RDFSSubClassOf, RDFSSubPropertyOf, OWLInverseOf} {
			for _, o := range g.objects(s, p) {
				if !declared(o.String()) {
					t.Errorf("%s %s %s: object not declared", s, p, o)
				}
			}
		}
	}
}

func TestAxioms(t *testing.T) {
	g := loadOntology(t)
	tests := []struct{ s, p, o string }{
		{HasChildRS, OWLInverseOf, HasParentRS},
		{HasChildRI, OWLInverseOf, HasParentRI},
		{HasAncestorRS, OWLInverseOf, HasDescendantRS},
		{HasAncestorRI, OWLInverseOf, HasDescendantRI},
		{HasProblem, OWLInverseOf, ProblemOf},
		{HasParentRS, RDFSSubPropertyOf, HasAncestorRS},
		{HasChildRS, RDFSSubPropertyOf, HasDescendantRS},
		{HasParentRI, RDFSSubPropertyOf, HasAncestorRI},
		{InProcessingUnit, RDFSDomain, DynamicRegion},
		{RegionSummary, RDFSSubClassOf, DynamicRegion},
		{InProcessingUnit, RDFSRange, ProcessingUnit},
		{OfCodeRegion, RDFSRange, CodeRegion},
		{HasMetric, RDFSRange, PerformanceMetric},
		{Severity, RDFSRange, XSDDecimal},
		{MPIPointToPointRegion, RDFSSubClassOf, MPICodeRegion},
		{MPICodeRegion, RDFSSubClassOf, MPCodeRegion},
		{SMPCluster, RDFSSubClassOf, Cluster},
		{MyrinetNetwork, RDFSSubClassOf, Network},
		{BigMessage, RDFSSubClassOf, PerformanceProblem},
		{SendOverhead, RDFSSubClassOf, PointToPointCommunicationOverhead},
		{MetricOdataSend, MeasuresOverhead, SendOverhead},
		{MetricWtime, HasUtility, LowerIsBetter},
		{MetricWtime, ValueDatatype, XSDDouble},
		{MetricL2TCM, ValueDatatype, XSDLong},
	}
	for _, tc := range tests {
		if !g.has(tc.s, tc.p, tc.o) {
			t.Errorf("missing axiom %s %s %s", tc.s, tc.p, tc.o)
		}
	}
	if len(g.objects(HasMetric, RDFSDomain)) != 0 {
		t.Errorf("hasMetric must have no domain: experiments and code regions carry metrics too (speedup, efficiency)")
	}
	if len(g.objects(HasProblem, RDFSRange)) != 0 {
		t.Errorf("hasProblem must have no range (its object may be a problem class)")
	}
}

// TestCodeRegionMnemonics checks every Appendix C.1 mnemonic is attached to
// exactly one class.
func TestCodeRegionMnemonics(t *testing.T) {
	g := loadOntology(t)
	owner := map[string]string{}
	for s := range g {
		for _, o := range g.objects(s, CrMnemonic) {
			lit, ok := o.(rdf.Literal)
			if !ok {
				t.Fatalf("%s crMnemonic %v: not a literal", s, o)
			}
			if prev, dup := owner[lit.String()]; dup {
				t.Errorf("mnemonic %s on both %s and %s", lit, prev, s)
			}
			owner[lit.String()] = s
		}
	}
	for _, ct := range CodeRegionTypes() {
		if owner[ct.Mnemonic] != ct.Class {
			t.Errorf("%s: attached to %q, want %q", ct.Mnemonic, owner[ct.Mnemonic], ct.Class)
		}
		if !g.has(ct.Class, RDFType, OWLClass) {
			t.Errorf("%s: class %s not declared", ct.Mnemonic, ct.Class)
		}
	}
	for _, m := range []string{"CR_P", "CR_L", "CR_MPIP2P", "CR_MPISEND", "CR_MPIRECV", "CR_MPIBA", "CR_MPICOL", "CR_OMPPD", "CR_OMPALL", "CR_HPFALL", "CR_OTHERSEQ", "CR_COMALL"} {
		if _, ok := owner[m]; !ok {
			t.Errorf("mnemonic %s not attached to any class", m)
		}
	}
}

// TestMetricCatalog checks each catalog entry is an individual with name,
// unit, data type, description, class and utility, and spot-checks names.
func TestMetricCatalog(t *testing.T) {
	g := loadOntology(t)
	for _, m := range Metrics() {
		for _, p := range []string{MetricMnemonic, MetricUnit, MetricDataType, MetricDescription, ValueDatatype, HasUtility} {
			if len(g.objects(m.IRI, p)) != 1 {
				t.Errorf("%s: want one %s", m.Name, p)
			}
		}
		if !g.has(m.IRI, MetricMnemonic, m.Name) || !g.has(m.IRI, RDFType, m.Class) || !g.has(m.IRI, HasUtility, m.Utility) {
			t.Errorf("%s: catalog entry disagrees with the Turtle", m.Name)
		}
	}
	for _, name := range []string{"wtime", "utime", "stime", "ncalls", "L2_TCM", "L2_TCA", "L1_DCM", "TOT_CYC", "odata_send", "odata_recv", "odata_p2p", "odata_col", "osync", "osync_mpbar", "octrp_fkjn", "oall_ident", "oall_unid", "oall", "AvgMessageLength"} {
		if _, ok := LookupMetric(name); !ok {
			t.Errorf("metric %s missing from the catalog", name)
		}
	}
}

// TestVocabConstantsDeclared parses vocab.go and checks every constant is
// declared in the Turtle, and every term in the Turtle has a constant.
func TestVocabConstantsDeclared(t *testing.T) {
	g := loadOntology(t)
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, "vocab.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	constants := map[string]string{}
	for _, decl := range f.Decls {
		gd, ok := decl.(*ast.GenDecl)
		if !ok || gd.Tok != token.CONST {
			continue
		}
		for _, spec := range gd.Specs {
			vs := spec.(*ast.ValueSpec)
			bin, ok := vs.Values[0].(*ast.BinaryExpr)
			if !ok {
				t.Fatalf("%s: constant %s is not Namespace + \"...\"", fset.Position(vs.Pos()), vs.Names[0])
			}
			lit := bin.Y.(*ast.BasicLit)
			local, err := strconv.Unquote(lit.Value)
			if err != nil {
				t.Fatal(err)
			}
			constants[Namespace+local] = vs.Names[0].Name
		}
	}
	if len(constants) < 300 {
		t.Fatalf("only %d constants found in vocab.go", len(constants))
	}
	for iri, name := range constants {
		if len(g.objects(iri, RDFType)) == 0 {
			t.Errorf("constant %s = %s is not declared in perfonto.ttl", name, iri)
		}
	}
	for s := range g {
		if strings.HasPrefix(s, Namespace) {
			if _, ok := constants[s]; !ok {
				t.Errorf("%s is declared in perfonto.ttl but has no constant", s)
			}
		}
	}
}
