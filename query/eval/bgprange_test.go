package eval

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/algebra"
)

// TestBGPRange joins ex:hub's links with ex:w's objects under the
// numeric FILTERs of valueOrderCases: each subject of ex:w is linked
// once, so the answer is the case's hand-worked subjects. With the value
// order on, the optimizer starts a selective filter's join from the
// passing objects of ex:w (explain: "objects by value"); answers must be
// the same with the order off and unoptimized, on every store.
func TestBGPRange(t *testing.T) {
	stores := trigStores(t, "testdata/valueorder.trig", "http://e/")
	links, err := os.ReadFile("testdata/bgprange.trig")
	if err != nil {
		t.Fatal(err)
	}
	for name, ds := range stores {
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(string(links)), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	defer func() { valueOrderOn, bgpSelOn = true, true }()
	for name, ds := range stores {
		before, selBefore := bgpRangeRuns.Load(), bgpSelRuns.Load()
		for _, c := range valueOrderCases {
			q := `SELECT ?s { <http://e/hub> <http://e/has> ?s . ?s <http://e/w> ?o ` + c.filter + ` } ORDER BY ?s`
			// sel: rows of the bound level ?s <w> ?o are rejected through
			// the kept set of passing objects (bgpsel.go), twice so that
			// the second run reads the set the first kept.
			for _, way := range []struct{ order, noOpt, sel bool }{
				{true, false, true}, {true, false, true}, {true, false, false}, {false, false, false}, {true, true, true}, {true, true, false},
			} {
				valueOrderOn, bgpSelOn = way.order, way.sel
				if got := subjects(t, ds, q, Options{NoOptimize: way.noOpt}); got != c.want {
					t.Errorf("%s %s %+v: got %q, want (by hand) %q", name, c.name, way, got, c.want)
				}
			}
		}
		valueOrderOn, bgpSelOn = true, true
		if ran := bgpRangeRuns.Load() - before; strings.HasPrefix(name, "native") && ran == 0 {
			t.Errorf("%s: no BGP read the value order", name)
		}
		if ran := bgpSelRuns.Load() - selBefore; strings.HasPrefix(name, "native") && ran == 0 {
			t.Errorf("%s: no BGP level read a kept set of passing objects", name)
		}
		// Two of 24 objects pass: the join starts from them.
		q := `SELECT ?s { <http://e/hub> <http://e/has> ?s . ?s <http://e/w> ?o FILTER(?o > 9007199254740992) }`
		res, err := Query(context.Background(), ds, mustParse(t, q), Options{})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ok := res.Next(); ok; _, ok = res.Next() {
			n++
		}
		if n != 2 {
			t.Errorf("%s: %d rows, want 2 (ibig, inf)", name, n)
		}
		ex := res.Explain()
		first := strings.Index(ex, "1. (triple ?s <http://e/w> ?o)")
		if strings.HasPrefix(name, "native") && (first < 0 || !strings.Contains(ex, "objects by value: 2")) {
			t.Errorf("%s: the join does not start from ex:w's passing objects:\n%s", name, ex)
		}
		// A bound subject is looked up, not joined with every passing
		// object: ex:hub2 links d1 only.
		q = `SELECT ?s { <http://e/hub2> <http://e/has> ?s . ?s <http://e/w> ?o FILTER(?o > 0) } ORDER BY ?s`
		before = bgpRangeRuns.Load()
		if got := subjects(t, ds, q, Options{}); got != "d1" {
			t.Errorf("%s: bound subject: got %q, want d1", name, got)
		}
		if ran := bgpRangeRuns.Load() - before; ran != 0 {
			t.Errorf("%s: bound subject: the passing objects were enumerated %d times", name, ran)
		}
	}
}

// TestBGPRangeOneShot checks that a one-shot query (perfkb query) plans
// from a value order only when the store already keeps one: the first
// one-shot query must not build ex:w's order (building it costs more
// than a one-shot query saves at 10M quads), and answers alike; once a
// query that may build has built it, a one-shot query starts from it.
func TestBGPRangeOneShot(t *testing.T) {
	q := `SELECT ?s { <http://e/hub> <http://e/has> ?s . ?s <http://e/w> ?o FILTER(?o > 9007199254740992) } ORDER BY ?s`
	for name, st := range rangeStores(t) {
		ds, kept := st.ds, st.kept
		for i, oneShot := range []bool{true, false, true} {
			res, err := Query(context.Background(), ds, mustParse(t, q), Options{OneShot: oneShot})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for r, ok := res.Next(); ok; r, ok = res.Next() {
				got = append(got, strings.TrimPrefix(r[0].Value, "http://e/"))
			}
			if s := strings.Join(got, " "); s != "ibig inf" {
				t.Errorf("%s run %d: got %q, want (by hand) %q", name, i, s, "ibig inf")
			}
			ranged := strings.Contains(res.Explain(), "objects by value")
			switch {
			case i == 0 && (kept() || ranged):
				t.Errorf("%s: a one-shot query built the value order (kept %v, plan ranged %v)\n%s", name, kept(), ranged, res.Explain())
			case i > 0 && (!kept() || !ranged):
				t.Errorf("%s run %d: value order kept %v, plan ranged %v, want both\n%s", name, i, kept(), ranged, res.Explain())
			}
		}
	}
}

// TestBGPRangeBackground checks that with Options.Background (a server)
// a query finding no value order kept plans and filters without it and
// hands its build to Background, once however many queries find none
// meanwhile; once built, a query starts from it. Answers by hand as in
// TestBGPRangeOneShot.
func TestBGPRangeBackground(t *testing.T) {
	q := `SELECT ?s { <http://e/hub> <http://e/has> ?s . ?s <http://e/w> ?o FILTER(?o > 9007199254740992) } ORDER BY ?s`
	for name, st := range rangeStores(t) {
		ds, kept := st.ds, st.kept
		handed := make(chan func(), 8)
		opts := Options{Background: func(fn func()) { handed <- fn }}
		var fns []func()
		for i := range 3 {
			res, err := Query(context.Background(), ds, mustParse(t, q), opts)
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for r, ok := res.Next(); ok; r, ok = res.Next() {
				got = append(got, strings.TrimPrefix(r[0].Value, "http://e/"))
			}
			if s := strings.Join(got, " "); s != "ibig inf" {
				t.Errorf("%s run %d: got %q, want (by hand) %q", name, i, s, "ibig inf")
			}
			ranged := strings.Contains(res.Explain(), "objects by value")
			if i < 2 && (kept() || ranged) {
				t.Errorf("%s run %d: before the handed build ran: value order kept %v, plan ranged %v\n%s", name, i, kept(), ranged, res.Explain())
			}
			if i == 2 && (!kept() || !ranged) {
				t.Errorf("%s run %d: after the handed build: value order kept %v, plan ranged %v, want both\n%s", name, i, kept(), ranged, res.Explain())
			}
			if i == 1 {
				// Both queries found no order; one build was handed over.
				for len(fns) == 0 || len(handed) > 0 {
					select {
					case fn := <-handed:
						fns = append(fns, fn)
					case <-time.After(10 * time.Second):
						t.Fatalf("%s: no build handed to Background", name)
					}
				}
				time.Sleep(100 * time.Millisecond)
				if n := len(fns) + len(handed); n != 1 {
					t.Errorf("%s: %d builds of ex:w's value order handed over, want 1", name, n)
				}
				for _, fn := range fns {
					fn()
				}
			}
		}
	}
}

// rangeStore is a store of rangeStores: testdata/valueorder.trig and
// testdata/bgprange.trig, and whether it keeps ex:w's value order now.
type rangeStore struct {
	ds   kb.Dataset
	kept func() bool
}

// rangeStores returns, by name, the stores that tell whether a value
// order is kept, with the data of the range tests loaded.
func rangeStores(t *testing.T) map[string]rangeStore {
	t.Helper()
	links, err := os.ReadFile("testdata/bgprange.trig")
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]rangeStore{}
	for name, ds := range trigStores(t, "testdata/valueorder.trig", "http://e/") {
		kd, ok := ds.(keptObjectsDeriver)
		if !ok {
			continue
		}
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(string(links)), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		w, known, err := ds.Lookup(context.Background(), kb.IRI("http://e/w"))
		if err != nil || !known {
			t.Fatalf("%s: ex:w not in the store (%v)", name, err)
		}
		out[name] = rangeStore{ds: ds, kept: func() bool { _, ok := kd.ObjectsDerivedKept(w, numOrderKind); return ok }}
	}
	return out
}

// TestRangeCount checks the planner's count of ex:w's objects that pass
// each FILTER of valueOrderCases (one object per subject, so the count
// is the number of hand-worked subjects), where the count decides only
// the entries inside a tie band instead of visiting each passing one.
func TestRangeCount(t *testing.T) {
	stores := trigStores(t, "testdata/valueorder.trig", "http://e/")
	for _, name := range []string{"native-mem", "native-disk"} {
		ds := stores[name]
		for _, c := range valueOrderCases {
			q := mustParse(t, `SELECT * { ?s <http://e/w> ?o `+c.filter+` }`)
			var filters []algebra.Expr
			algebra.Walk(q.Pattern, func(op algebra.Op) bool {
				if f, ok := op.(*algebra.Filter); ok {
					filters = append(filters, conjuncts(f.Exprs)...)
				}
				return true
			})
			ex, err := newExecutor(context.Background(), ds, Options{}, "", nil)
			if err != nil {
				t.Fatal(err)
			}
			tp := algebra.TriplePattern{S: algebra.VarNode("s"), P: algebra.TermNode(kb.IRI("http://e/w")), O: algebra.VarNode("o")}
			_, objects, ok, err := planStats{ex}.RangeCount(context.Background(), tp, algebra.Node{}, filters)
			if err != nil || !ok {
				t.Fatalf("%s %s: RangeCount ok=%v err=%v", name, c.name, ok, err)
			}
			if want := len(strings.Fields(c.want)); int(objects) != want {
				t.Errorf("%s %s: %v objects pass, want (by hand) %d", name, c.name, objects, want)
			}
		}
	}
}

// conjuncts splits the && of exprs into their operands, as the optimizer
// does before it asks for range counts.
func conjuncts(exprs []algebra.Expr) []algebra.Expr {
	var out []algebra.Expr
	for _, e := range exprs {
		if b, ok := e.(*algebra.BinaryExpr); ok && b.Op == algebra.OpAnd {
			out = append(out, conjuncts([]algebra.Expr{b.Left, b.Right})...)
			continue
		}
		out = append(out, e)
	}
	return out
}
