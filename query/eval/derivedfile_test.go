package eval

import (
	"context"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestDerivedCodecs: the encodings of value orders and per-key counts
// give back what was encoded, and reject another structure's bytes,
// a truncated encoding and an older tag.
func TestDerivedCodecs(t *testing.T) {
	order := &numOrder{
		runs: [3][]numEntry{
			{{math.Inf(-1), 7}, {-0.5, 3}, {math.Copysign(0, -1), 9}, {1e300, 12}},
			{{-3, 4}, {9007199254740992, 1 << 40}},
			nil,
		},
		rest: []kb.ID{2, 5, 1<<63 + 1},
	}
	counts := &keyCounts{ids: []kb.ID{1, 4, 1 << 33}, n: []int64{3, 1, 1 << 40}}
	for _, c := range []struct {
		name  string
		codec derivedCodec
		v     any
		other derivedCodec
	}{
		{"numOrder", numOrderCodec{}, order, keyCountsCodec{}},
		{"keyCounts", keyCountsCodec{}, counts, numOrderCodec{}},
		{"empty numOrder", numOrderCodec{}, &numOrder{}, keyCountsCodec{}},
	} {
		b, err := c.codec.EncodeDerived(c.v)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := c.codec.DecodeDerived(b)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		if !reflect.DeepEqual(got, c.v) {
			t.Errorf("%s: decoded %+v, want %+v", c.name, got, c.v)
		}
		if _, err := c.other.DecodeDerived(b); err == nil {
			t.Errorf("%s: the other codec accepted its bytes", c.name)
		}
		if _, err := c.codec.DecodeDerived(b[:len(b)-1]); err == nil {
			t.Errorf("%s: a truncated encoding was accepted", c.name)
		}
		old := append([]byte(nil), b...)
		old[strings.IndexByte(string(old), 'v')+1] = '0'
		if _, err := c.codec.DecodeDerived(old); err == nil {
			t.Errorf("%s: an encoding of another version was accepted", c.name)
		}
	}
	if _, err := (numOrderCodec{}).EncodeDerived(counts); err == nil {
		t.Error("numOrderCodec encoded a keyCounts")
	}
}

// TestValueOrderFileAcrossProcesses: a value order built by one process
// on a native store opened from side files is read by the next from its
// derived file: a one-shot numeric count there reads it instead of
// building one, and a query that starts from it (a server's) does too.
// A one-shot plan still does not read it for an estimate. The answers
// are the hand-worked ones of valueorder.trig and bgprange.trig.
func TestValueOrderFileAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	var data strings.Builder
	for _, f := range []string{"testdata/valueorder.trig", "testdata/bgprange.trig"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data.Write(b)
		data.WriteByte('\n')
	}
	dir := filepath.Join(t.TempDir(), "db")
	s, err := native.Open(ctx, dir, native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rdfio.Load(ctx, s, strings.NewReader(data.String()), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
		t.Fatal(err)
	}
	// A "process": the store opened read-only, as perfkb query opens it.
	process := func() *native.Store {
		t.Helper()
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = native.Open(ctx, dir, native.Options{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		return s
	}
	defer func() { s.Close() }()
	join := `SELECT ?s { <http://e/hub> <http://e/has> ?s . ?s <http://e/w> ?o FILTER(?o > 9007199254740992) } ORDER BY ?s`
	count := `SELECT (COUNT(?s) AS ?n) { ?s <http://e/w> ?o FILTER(?o >= 10) }`
	runJoin := func(step string, oneShot, wantRanged bool) {
		t.Helper()
		res, err := Query(ctx, s, mustParse(t, join), Options{OneShot: oneShot})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for r, ok := res.Next(); ok; r, ok = res.Next() {
			got = append(got, strings.TrimPrefix(r[0].Value, "http://e/"))
		}
		if g := strings.Join(got, " "); g != "ibig inf" {
			t.Errorf("%s: got %q, want (by hand) %q", step, g, "ibig inf")
		}
		if ranged := strings.Contains(res.Explain(), "objects by value"); ranged != wantRanged {
			t.Errorf("%s: plan from the value order %v, want %v\n%s", step, ranged, wantRanged, res.Explain())
		}
	}
	w, known, err := s.Lookup(ctx, kb.IRI("http://e/w"))
	if err != nil || !known {
		t.Fatalf("ex:w not in the store (%v)", err)
	}

	runJoin("one-shot, no order kept", true, false)
	process()
	if _, err := os.Stat(filepath.Join(dir, "readside-0")); err != nil {
		t.Skip("the store does not open from side files: no derived files to keep")
	}
	builds := numOrderBuilds.Load()
	runJoin("server", false, true)
	if numOrderBuilds.Load() != builds+1 {
		t.Fatalf("the first server built %d value orders, want 1", numOrderBuilds.Load()-builds)
	}
	process()
	runJoin("one-shot after a server built the order", true, false)
	runJoin("second server", false, true)
	if numOrderBuilds.Load() != builds+1 {
		t.Error("the second server built the value order again instead of reading its file")
	}
	if _, ok := s.ObjectsDerivedKept(w, numOrderKind); !ok {
		t.Error("the order read from the file is not kept for the process's later queries")
	}
	process()
	// ≥ 10 (by hand, valueorder.trig's graphs merged as the default
	// graph): 9007199254740993, 9007199254740992, 20 (short),
	// 10.000000000000000000001, 10.0, 1.0e1, INF, "10"^^xsd:float.
	before, builds := valueOrderRuns.Load(), numOrderBuilds.Load()
	rows, err := run(t, s, count, Options{OneShot: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != 1 || rows[0][0].Value != "8" {
		t.Errorf("count: got %v, want (by hand) 8", rows)
	}
	if valueOrderRuns.Load() == before {
		t.Error("the count did not read the value order")
	}
	if numOrderBuilds.Load() != builds {
		t.Error("the one-shot count built the value order instead of reading its file")
	}
}

// TestCountListFileAcrossProcesses: a counted join's per-subject counts
// built by one process on a native store opened from side files are read
// from their derived file by the next, not built; the count agrees with
// the reference memory store's (kbtest) unoptimized answer.
func TestCountListFileAcrossProcesses(t *testing.T) {
	ctx := context.Background()
	var data strings.Builder
	for _, f := range []string{"testdata/valueorder.trig", "testdata/bgprange.trig"} {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		data.Write(b)
		data.WriteByte('\n')
	}
	ref := kbtest.NewMemory()
	if _, err := rdfio.Load(ctx, ref, strings.NewReader(data.String()), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
		t.Fatal(err)
	}
	q := `SELECT (COUNT(*) AS ?n) { ?x <http://e/has> ?s . ?s <http://e/w> ?o }`
	want, err := run(t, ref, q, Options{NoOptimize: true})
	if err != nil || len(want) != 1 {
		t.Fatalf("reference: %v, %v", want, err)
	}
	dir := filepath.Join(t.TempDir(), "db")
	s, err := native.Open(ctx, dir, native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { s.Close() }()
	if _, err := rdfio.Load(ctx, s, strings.NewReader(data.String()), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
		if s, err = native.Open(ctx, dir, native.Options{ReadOnly: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := os.Stat(filepath.Join(dir, "readside-0")); err != nil {
			t.Skip("the store does not open from side files: no derived files to keep")
		}
		before := cjColumnReads.Load()
		res, err := Query(ctx, s, mustParse(t, q), Options{OneShot: true})
		if err != nil {
			t.Fatal(err)
		}
		var got []kb.Term
		for r, ok := res.Next(); ok; r, ok = res.Next() {
			got = append(got, r[0])
		}
		if len(got) != 1 || got[0].Value != want[0][0].Value {
			t.Errorf("process %d: count %v, want %v (reference store)", i, got, want[0])
		}
		if !strings.Contains(res.Explain(), "CountJoin") && !strings.Contains(res.Explain(), "count join") {
			t.Fatalf("the query is not a counted join:\n%s", res.Explain())
		}
		if reads := cjColumnReads.Load() - before; (i > 0) != (reads > 0) {
			t.Errorf("process %d: %d count lists read instead of built; want them read from the file after the first process", i, reads)
		}
	}
}
