// Package converttest is the conformance suite every converter passes
// (like kb/kbtest for stores): converting twice gives byte-identical sorted
// N-Triples, the report's counts add up and equal what the sink received,
// a store load holds exactly the converted triples, and every bad input
// fails with an invalid-input error, leaves the store unchanged and writes
// no output file; the output conforms to the shipped PERFONTO shapes.
//
//	func TestConformance(t *testing.T) {
//		converttest.Run(t, converttest.Suite{
//			New: func(t testing.TB) convert.Converter { return myconv.New(goodInput, base) },
//			Bad: []converttest.BadCase{{Name: "truncated", New: …, Want: []string{"file.xml:3:7", "expected"}}},
//		})
//	}
package converttest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/shacl"
)

// Suite describes a converter to test.
type Suite struct {
	// New returns a fresh converter over a valid source (called several
	// times; each converter is used once).
	New func(t testing.TB) convert.Converter
	// Graph is the target graph of store loads (default: a test IRI).
	Graph kb.Term
	// Bad lists invalid sources.
	Bad []BadCase
	// NotPerfonto, when set, says why the converter's output is not
	// PERFONTO data and skips the check against the shipped shapes.
	NotPerfonto string
}

// BadCase is an invalid source.
type BadCase struct {
	Name string
	New  func(t testing.TB) convert.Converter
	// Want are substrings the error message must contain (the position
	// and what was expected).
	Want []string
	// NotInvalidInput marks failures that are not the data's fault (an
	// unreachable server): the error must then not be InvalidInput.
	NotInvalidInput bool
}

// Run runs the suite.
func Run(t *testing.T, s Suite) {
	if s.Graph.IsZero() {
		s.Graph = kb.IRI("http://perfkb.example/converttest/graph")
	}
	ctx := context.Background()
	var first []byte
	t.Run("Deterministic", func(t *testing.T) {
		a, repA := Sorted(t, s.New(t))
		b, _ := Sorted(t, s.New(t))
		if len(a) == 0 {
			t.Fatal("the valid source converted to no triples")
		}
		if !bytes.Equal(a, b) {
			t.Fatalf("two conversions of the same source differ:\nfirst:  %s\nsecond: %s", firstDiff(a, b), firstDiff(b, a))
		}
		if repA.Triples < int64(bytes.Count(a, []byte("\n"))) {
			t.Errorf("report counts %d triples but the sorted output has %d distinct lines", repA.Triples, bytes.Count(a, []byte("\n")))
		}
		first = a
	})
	t.Run("ReportAddsUp", func(t *testing.T) {
		var buf bytes.Buffer
		counting := &convert.CountingSink{Sink: convert.NewNTriplesSink(&buf, false)}
		rep, err := convert.Run(ctx, s.New(t), counting)
		if err != nil {
			t.Fatal(err)
		}
		if err := rep.Check(); err != nil {
			t.Error(err)
		}
		if rep.Triples != counting.N {
			t.Errorf("report counts %d triples; the sink received %d", rep.Triples, counting.N)
		}
		if lines := int64(bytes.Count(buf.Bytes(), []byte("\n"))); lines != counting.N {
			t.Errorf("unsorted output has %d lines for %d statements", lines, counting.N)
		}
		if rep.Rows <= 0 || len(rep.Tables) == 0 {
			t.Errorf("report has rows=%d and %d tables; want some", rep.Rows, len(rep.Tables))
		}
		for _, tb := range rep.Tables {
			if tb.Name == "" {
				t.Errorf("a report table has no name: %+v", tb)
			}
		}
	})
	t.Run("Store", func(t *testing.T) {
		ds := native.OpenMemory()
		seed(t, ds, s.Graph)
		before := Snapshot(t, ds)
		sink := convert.NewStoreSink(ctx, ds, rdfio.LoadOptions{Graph: s.Graph, SourceName: "converttest"})
		if _, err := convert.Run(ctx, s.New(t), sink); err != nil {
			t.Fatal(err)
		}
		after := Snapshot(t, ds)
		if first != nil {
			want := len(before) + bytes.Count(first, []byte("\n"))
			if len(after) != want {
				t.Errorf("store holds %d quads after the load; want %d (%d before + %d converted)", len(after), want, len(before), want-len(before))
			}
		}
		for _, bad := range s.Bad {
			t.Run(bad.Name, func(t *testing.T) {
				before := Snapshot(t, ds)
				sink := convert.NewStoreSink(ctx, ds, rdfio.LoadOptions{Graph: s.Graph, SourceName: "converttest"})
				_, err := convert.Run(ctx, bad.New(t), sink)
				CheckBad(t, bad, err)
				if after := Snapshot(t, ds); !slices.Equal(before, after) {
					t.Errorf("a failed conversion changed the store: %d quads before, %d after", len(before), len(after))
				}
			})
		}
	})
	t.Run("ConformsToShapes", func(t *testing.T) {
		if s.NotPerfonto != "" {
			t.Skipf("not PERFONTO data: %s", s.NotPerfonto)
		}
		ds := native.OpenMemory()
		defer ds.Close()
		sink := convert.NewStoreSink(ctx, ds, rdfio.LoadOptions{Graph: s.Graph, SourceName: "converttest"})
		if _, err := convert.Run(ctx, s.New(t), sink); err != nil {
			t.Fatal(err)
		}
		if err := shacl.AddOntology(ctx, ds); err != nil {
			t.Fatal(err)
		}
		shapes, err := shacl.Default(ctx)
		if err != nil {
			t.Fatal(err)
		}
		rep, err := shacl.Validate(ctx, ds, shapes, shacl.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !rep.Conforms {
			var out bytes.Buffer
			_ = rep.WriteTurtle(&out)
			t.Errorf("the output does not conform to ontology/perfonto-shapes.ttl (%d results):\n%.4000s", len(rep.Results), out.String())
		}
	})
	t.Run("BadLeavesNoFile", func(t *testing.T) {
		for _, bad := range s.Bad {
			t.Run(bad.Name, func(t *testing.T) {
				path := filepath.Join(t.TempDir(), "out.nt")
				sink, err := convert.CreateNTriplesFile(path, false)
				if err != nil {
					t.Fatal(err)
				}
				_, err = convert.Run(ctx, bad.New(t), sink)
				CheckBad(t, bad, err)
				entries, _ := os.ReadDir(filepath.Dir(path))
				if len(entries) != 0 {
					t.Errorf("a failed conversion left %d files (%s…)", len(entries), entries[0].Name())
				}
			})
		}
	})
}

// CheckBad checks the error of a bad case.
func CheckBad(t testing.TB, bad BadCase, err error) {
	t.Helper()
	if err == nil {
		t.Fatalf("converting %s succeeded; want an error", bad.Name)
	}
	var invalid interface{ InvalidInput() bool }
	isInvalid := errors.As(err, &invalid) && invalid.InvalidInput()
	if isInvalid == bad.NotInvalidInput {
		t.Errorf("error %q: InvalidInput=%v, want %v", err, isInvalid, !bad.NotInvalidInput)
	}
	for _, w := range bad.Want {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
}

// Sorted converts c into sorted, duplicate-free N-Triples.
func Sorted(t testing.TB, c convert.Converter) ([]byte, convert.Report) {
	t.Helper()
	var buf bytes.Buffer
	rep, err := convert.Run(context.Background(), c, convert.NewNTriplesSink(&buf, true))
	if err != nil {
		t.Fatalf("conversion failed: %v", err)
	}
	return buf.Bytes(), rep
}

// Snapshot returns every quad of ds as sorted N-Quads lines.
func Snapshot(t testing.TB, ds kb.Dataset) []string {
	t.Helper()
	ctx := context.Background()
	it := ds.Match(ctx, kb.Pattern{})
	quads, err := kb.Collect(it)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]string, 0, len(quads))
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tq.String())
	}
	slices.Sort(out)
	return out
}

// seed puts a triple into the target graph and one into another graph, so
// "unchanged" is checked against a non-empty store.
func seed(t testing.TB, ds kb.Dataset, graph kb.Term) {
	t.Helper()
	quads := []kb.TermQuad{
		{S: kb.IRI("http://perfkb.example/converttest/s"), P: kb.IRI("http://perfkb.example/converttest/p"), O: kb.String("kept"), G: graph},
		{S: kb.IRI("http://perfkb.example/converttest/s"), P: kb.IRI("http://perfkb.example/converttest/p"), O: kb.String("other graph"), G: kb.IRI("http://perfkb.example/converttest/other")},
	}
	i := 0
	if _, err := rdfio.LoadQuads(context.Background(), ds, func() (kb.TermQuad, error) {
		if i == len(quads) {
			return kb.TermQuad{}, io.EOF
		}
		i++
		return quads[i-1], nil
	}, rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
}

func firstDiff(a, b []byte) string {
	la, lb := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range la {
		if i >= len(lb) || la[i] != lb[i] {
			return la[i]
		}
	}
	return "(prefix)"
}

// Findings converts c into an in-memory store, runs the named shipped rule
// sets on it unchanged (as perfkb reason does) and returns, per problem
// class (its local name: "LoadImbalance"), the sorted subjects of the
// findings.
func Findings(t testing.TB, c convert.Converter, sets ...string) map[string][]string {
	t.Helper()
	ctx := context.Background()
	ds := native.OpenMemory()
	if _, err := convert.Run(ctx, c, convert.NewStoreSink(ctx, ds, rdfio.LoadOptions{})); err != nil {
		t.Fatalf("conversion failed: %v", err)
	}
	prog, err := reasoner.LoadProgram(sets, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Run(ctx, ds, prog, reasoner.Options{NoDerivations: true}); err != nil {
		t.Fatal(err)
	}
	fs, err := reasoner.Findings(ctx, ds, reasoner.FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	out := map[string][]string{}
	for _, f := range fs {
		class := f.Type[strings.LastIndexAny(f.Type, "#/")+1:]
		out[class] = append(out[class], f.Subject.Value)
	}
	for _, subjects := range out {
		slices.Sort(subjects)
	}
	return out
}
