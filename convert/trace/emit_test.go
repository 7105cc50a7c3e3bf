package trace

import (
	"context"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

// sliceSink collects statements.
type sliceSink struct{ qs []kb.TermQuad }

func (s *sliceSink) Add(_ context.Context, q kb.TermQuad) error {
	s.qs = append(s.qs, q)
	return nil
}

// load stores the collected statements in a fresh memory dataset.
func (s *sliceSink) load(t *testing.T) *native.MemStore {
	t.Helper()
	ds := native.OpenMemory()
	i := 0
	_, err := rdfio.LoadQuads(context.Background(), ds, func() (kb.TermQuad, error) {
		if i == len(s.qs) {
			return kb.TermQuad{}, io.EOF
		}
		i++
		return s.qs[i-1], nil
	}, rdfio.LoadOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return ds
}

// objects returns the objects of (s, p).
func (s *sliceSink) objects(subj, pred string) []kb.Term {
	var out []kb.Term
	for _, q := range s.qs {
		if q.S.Value == subj && q.P.Value == pred {
			out = append(out, q.O)
		}
	}
	return out
}

// findings runs the shipped PERFONTO rules (without the ontology) and
// returns the subjects of findings of the given problem class.
func findings(t *testing.T, ds kb.Dataset, class string, defines map[string]string) []string {
	t.Helper()
	prog, err := reasoner.LoadProgram([]string{"PERFONTO"}, reasoner.ParseOptions{Defines: defines})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Run(context.Background(), ds, prog, reasoner.Options{NoDerivations: true}); err != nil {
		t.Fatal(err)
	}
	fs, err := reasoner.Findings(context.Background(), ds, reasoner.FindingFilter{Type: class})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.Subject.Value)
	}
	sort.Strings(out)
	return slices.Compact(out)
}

const testBase = "http://example.org/t/"
const testExp = testBase + "exp/valid"

func TestEmitSummaryShapeAndFig630(t *testing.T) {
	m := readTrace(t, "testdata/valid.trace")
	s, err := Summarize(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	sink := &sliceSink{}
	if _, err := EmitSummary(context.Background(), sink, s, EmitOptions{Base: testBase, Experiment: testExp}); err != nil {
		t.Fatal(err)
	}
	nm := Names{testBase, testExp}
	send := nm.RS(0, 0, []int{0, 1})
	recv := nm.RS(1, 0, []int{0, 2})
	// The fixed contract: ofCodeRegion → regionName, inProcessingUnit →
	// processID/threadID, inExperiment, wtime (µs, xsd:double), ncalls.
	if got := sink.objects(send, ontology.OfCodeRegion); len(got) != 1 || got[0].Value != nm.Region("MPI_Send") {
		t.Fatalf("ofCodeRegion = %v", got)
	}
	if got := sink.objects(nm.Region("MPI_Send"), ontology.RegionName); len(got) != 1 || got[0] != kb.String("MPI_Send") {
		t.Errorf("regionName = %v", got)
	}
	types := sink.objects(nm.Region("MPI_Send"), ontology.RDFType)
	for _, want := range []string{ontology.MPISendRegion, ontology.MPCodeRegion} {
		if !slices.Contains(types, kb.IRI(want)) {
			t.Errorf("MPI_Send types %v lack %s", types, want)
		}
	}
	pu := sink.objects(recv, ontology.InProcessingUnit)
	if len(pu) != 1 || !slices.Equal(sink.objects(pu[0].Value, ontology.ProcessID), []kb.Term{integer(1)}) ||
		!slices.Equal(sink.objects(pu[0].Value, ontology.ThreadID), []kb.Term{integer(0)}) {
		t.Errorf("processing unit of the receive summary: %v", pu)
	}
	if got := sink.objects(send, ontology.InExperiment); len(got) != 1 || got[0].Value != testExp {
		t.Errorf("inExperiment %v", got)
	}
	metric := func(rs, name string) kb.Term {
		m := sink.objects(rs+"/"+name, ontology.HasMetricValue)
		if len(m) != 1 {
			t.Fatalf("%s of %s: %v", name, rs, m)
		}
		return m[0]
	}
	for _, c := range []struct {
		rs, name string
		want     kb.Term
	}{
		{send, "wtime", kb.Literal("10", ontology.XSDDouble)},
		{send, "ncalls", kb.Literal("1", ontology.XSDLong)},
		{send, "AvgMessageLength", kb.Literal("100000", ontology.XSDDouble)},
		{recv, "ls_wait", kb.Literal("90", ontology.XSDDouble)},
		{nm.RS(0, 0, []int{0}), "excl_wtime", kb.Literal("315", ontology.XSDDouble)},
		{nm.RS(0, 0, []int{0}), "nsubs", kb.Literal("5", ontology.XSDLong)},
		{nm.RS(0, 0, []int{0, 3}), "wnxn_wait", kb.Literal("100", ontology.XSDDouble)},
	} {
		if got := metric(c.rs, c.name); got != c.want {
			t.Errorf("%s of %s = %v, want %v", c.name, c.rs, got, c.want)
		}
	}
	if got := sink.objects(nm.RS(0, 0, []int{0}), ontology.HasChildRS); len(got) != 5 {
		t.Errorf("main on rank 0 has %d child summaries, want 5", len(got))
	}
	// Fig. 6.30 fires on exactly the point-to-point summaries averaging more
	// than 65536 bytes: the blocking send and receive, not the 64-byte
	// Isend/Irecv pair.
	got := findings(t, sink.load(t), "BigMessage", nil)
	want := []string{send, recv}
	sort.Strings(want)
	if !slices.Equal(got, want) {
		t.Errorf("BigMessage on %v, want %v", got, want)
	}
}

func TestEmitEventsLateSenderAndBarrier(t *testing.T) {
	m := readTrace(t, "testdata/valid.trace")
	sink := &sliceSink{}
	if _, err := EmitDefs(context.Background(), sink, &m.D, EmitOptions{Base: testBase, Experiment: testExp}); err != nil {
		t.Fatal(err)
	}
	if _, err := EmitEvents(context.Background(), sink, &m.D, Merge(context.Background(), m),
		EventOptions{EmitOptions: EmitOptions{Base: testBase, Experiment: testExp}}); err != nil {
		t.Fatal(err)
	}
	ds := sink.load(t)
	defs := map[string]string{"LATE_SENDER_THRESHOLD": "50", "BARRIER_WAIT_THRESHOLD": "50"}
	// The blocking receive (location 1, enter at index 1) waited 90 µs; the
	// MPI_Wait completing the Irecv waited 40 µs, below the threshold.
	if got := findings(t, ds, "LateSender", defs); !slices.Equal(got, []string{testExp + "/ri/1/1"}) {
		t.Errorf("LateSender on %v", got)
	}
	if got := findings(t, ds, "WaitAtBarrier", defs); !slices.Equal(got, []string{testExp + "/coll/0/0"}) {
		t.Errorf("WaitAtBarrier on %v", got)
	}
	n := 0
	for _, q := range sink.qs {
		if q.P.Value == ontology.ReceivesMessage {
			n++
			if !strings.HasPrefix(q.O.Value, testExp+"/msg/0/") {
				t.Errorf("receive matched to %v", q.O)
			}
		}
	}
	if n != 2 {
		t.Errorf("%d receives matched, want 2", n)
	}
}
