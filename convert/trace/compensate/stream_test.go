package compensate

import (
	"context"
	"slices"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

func TestStreamEqualsRun(t *testing.T) {
	for _, prefetch := range []int{1, 2} {
		p := baseParams()
		p.overheadUs = 1
		p.prefetch = prefetch // 2: mostly (m.2) receives
		streamEqualsRun(t, simulate(p), p.copyNs)
	}
}

func streamEqualsRun(t *testing.T, m *trace.Mem, copyNs float64) {
	t.Helper()
	for _, b := range []Bound{Lower, Upper} {
		model := &Model{OverheadUs: 1, Copy: []CopyPoint{{Bytes: 1, NsPerByte: copyNs}}, Bound: b}
		r, err := Run(context.Background(), m, model)
		if err != nil {
			t.Fatal(err)
		}
		per := make([][]trace.Time, len(m.Stream))
		var rep Report
		last := trace.Time(-1 << 62)
		n := 0
		for e, err := range Stream(context.Background(), m, model, &rep) {
			if err != nil {
				t.Fatal(err)
			}
			if e.Time < last {
				t.Fatalf("stream not ordered by approximated time at event %d", n)
			}
			last = e.Time
			if int64(len(per[e.Loc])) != e.Seq {
				t.Fatalf("location %d: event %d out of stream order", e.Loc, e.Seq)
			}
			per[e.Loc] = append(per[e.Loc], e.Time)
			n++
		}
		for loc, s := range r.Trace.Stream {
			want := make([]trace.Time, len(s))
			for i, e := range s {
				want[i] = e.Time
			}
			if !slices.Equal(per[loc], want) {
				t.Errorf("%s: location %d differs from Run", b, loc)
			}
		}
		if rep.Events != int64(n) || rep.Cases[CaseA1]+rep.Cases[CaseA2]+rep.Cases[CaseM2] == 0 {
			t.Errorf("report %+v", rep)
		}
		// The summaries of the stream equal those of Run's trace.
		s1, err := trace.SummarizeEvents(&r.Trace.D, Stream(context.Background(), m, model, nil))
		if err != nil {
			t.Fatal(err)
		}
		s2, err := trace.Summarize(context.Background(), r.Trace)
		if err != nil {
			t.Fatal(err)
		}
		if len(s1.Nodes) != len(s2.Nodes) {
			t.Fatalf("%d vs %d nodes", len(s1.Nodes), len(s2.Nodes))
		}
		for i := range s1.Nodes {
			if s1.Nodes[i].Incl != s2.Nodes[i].Incl || s1.Nodes[i].Calls != s2.Nodes[i].Calls {
				t.Errorf("node %d: %d/%d vs %d/%d", i, s1.Nodes[i].Incl, s1.Nodes[i].Calls, s2.Nodes[i].Incl, s2.Nodes[i].Calls)
			}
		}
	}
}

func TestStreamStuckOnUnmatchedRecv(t *testing.T) {
	mem := &trace.Mem{D: trace.Defs{Resolution: 1, Locations: make([]trace.Location, 2), Regions: []trace.Region{{Name: "MPI_Recv"}}},
		Stream: [][]trace.Event{{{Kind: trace.Enter}, {Kind: trace.Recv, Peer: 1, Time: 5}, {Kind: trace.Leave, Time: 6}}, {{Kind: trace.Enter}, {Kind: trace.Leave, Time: 3}}}}
	var err error
	for _, e := range Stream(context.Background(), mem, &Model{}, nil) {
		if e != nil {
			err = e
		}
	}
	if err == nil {
		t.Fatal("a receive without a send must stop the compensation")
	}
}
