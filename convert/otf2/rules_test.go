//go:build otf2

package otf2

import (
	"context"
	"io"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace/traceconv"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/reasoner"
)

type memSink struct{ qs []kb.TermQuad }

func (m *memSink) Add(_ context.Context, q kb.TermQuad) error { m.qs = append(m.qs, q); return nil }
func (m *memSink) Close(context.Context, error) error         { return nil }

// TestShippedRulesOnOTF2 converts the generated trace with --events and
// runs the shipped rules without the ontology: Fig. 6.30 on the 200000-byte
// send and receive summaries, late_sender on the blocking receive (90 µs),
// wait_at_barrier on the barrier (50 µs), with the thresholds lowered.
func TestShippedRulesOnOTF2(t *testing.T) {
	anchor, _ := generate(t, "mpi_omp.py")
	a, err := OpenArchive(anchor)
	if err != nil {
		t.Fatal(err)
	}
	base := convert.MustBase("http://perfkb.example/otf2/")
	sink := &memSink{}
	if _, err := traceconv.New(a, "otf2", "run", base, traceconv.Options{Events: true}).Convert(context.Background(), sink); err != nil {
		t.Fatal(err)
	}
	ds := native.OpenMemory()
	i := 0
	if _, err := rdfio.LoadQuads(context.Background(), ds, func() (kb.TermQuad, error) {
		if i == len(sink.qs) {
			return kb.TermQuad{}, io.EOF
		}
		i++
		return sink.qs[i-1], nil
	}, rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	prog, err := reasoner.LoadProgram([]string{"PERFONTO"}, reasoner.ParseOptions{Defines: map[string]string{
		"LATE_SENDER_THRESHOLD": "50", "BARRIER_WAIT_THRESHOLD": "20"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Run(context.Background(), ds, prog, reasoner.Options{NoDerivations: true}); err != nil {
		t.Fatal(err)
	}
	subjects := func(class string) []string {
		fs, err := reasoner.Findings(context.Background(), ds, reasoner.FindingFilter{Type: class})
		if err != nil {
			t.Fatal(err)
		}
		var out []string
		for _, f := range fs {
			out = append(out, strings.TrimPrefix(f.Subject.Value, base.String()+"exp/run/"))
		}
		sort.Strings(out)
		return slices.Compact(out)
	}
	// Region paths by region index: main is 0, MPI_Send 1, MPI_Recv 2 (definition order).
	if got := subjects("BigMessage"); !slices.Equal(got, []string{"rs/p0t0/0.1", "rs/p1t0/0.2"}) {
		t.Errorf("BigMessage on %v", got)
	}
	// Rank 1's MPI_Recv instance is entered by its second event (index 1) on location 2.
	if got := subjects("LateSender"); !slices.Equal(got, []string{"ri/2/1"}) {
		t.Errorf("LateSender on %v", got)
	}
	if got := subjects("WaitAtBarrier"); len(got) != 1 || !strings.HasPrefix(got[0], "coll/") {
		t.Errorf("WaitAtBarrier on %v", got)
	}
}
