package pg_test

import (
	"context"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestJoinOrder: the join order of the GROUP BY crtype workload query's
// BGP, from the statistics of the 1M-triple benchmark data. Worked out by
// hand: starting from the hasMetricName "wtime" pattern, every later step
// keeps 206,197 / 31 = 6,651 rows (each metric has one value and one
// summary, each summary one region, each region one type): 5 × 6,651 =
// 33,255 rows in all. The engine's own order starts from hasCrType (1,140
// rows) and goes through 29,510 and 206,197 rows (250,149 in all); every
// other start reads at least 29,510 + 29,510 rows before its second step
// is done. So the order must start with the wtime pattern, and each
// pattern after it must share a variable with one before it.
func TestJoinOrder(t *testing.T) {
	q, st := crtypeChain()
	order := pg.JoinOrder(q, st)
	if len(order) != 5 || order[0] != 3 {
		t.Fatalf("join order %v; want 5 patterns starting with 3 (the wtime pattern)", order)
	}
	seen := []int{}
	for k, i := range order {
		if slices.Contains(seen, i) {
			t.Fatalf("join order %v repeats pattern %d", order, i)
		}
		if k > 0 && !sharesVar(q.Patterns[i], q.Patterns, seen) {
			t.Errorf("join order %v: pattern %d shares no variable with %v", order, i, seen)
		}
		seen = append(seen, i)
	}
	// Two patterns are left to PostgreSQL; so is a variable predicate.
	if o := pg.JoinOrder(kb.BGP{Vars: 5, Patterns: q.Patterns[:2]}, st); o != nil {
		t.Errorf("two patterns: order %v; want none", o)
	}
	vp := slices.Clone(q.Patterns)
	vp[0][1] = kb.BGPTerm{ID: kb.Any, Var: 1} // ?t
	if o := pg.JoinOrder(kb.BGP{Vars: 5, Patterns: vp}, st); o != nil {
		t.Errorf("a variable predicate: order %v; want none", o)
	}
}

// crtypeChain is the BGP of the GROUP BY crtype workload query and the
// statistics of its predicates in the 1M-triple benchmark data:
// ?cr crtype ?t . ?rs ofCR ?cr . ?rs hasMetric ?m . ?m name "wtime" . ?m value ?v
func crtypeChain() (kb.BGP, map[int64]pg.PredStat) {
	const (
		crType, ofCR, hasMetric, name, value = 770, 667, 694, 841, 844
		wtime                                = 1426
	)
	v := func(i int) kb.BGPTerm { return kb.BGPTerm{ID: kb.Any, Var: i} }
	c := func(id kb.ID) kb.BGPTerm { return kb.BGPTerm{ID: id} }
	const vCR, vT, vRS, vM, vV = 0, 1, 2, 3, 4
	q := kb.BGP{Vars: 5, Patterns: [][3]kb.BGPTerm{
		{v(vCR), c(crType), v(vT)},
		{v(vRS), c(ofCR), v(vCR)},
		{v(vRS), c(hasMetric), v(vM)},
		{v(vM), c(name), c(wtime)},
		{v(vM), c(value), v(vV)},
	}}
	st := map[int64]pg.PredStat{
		crType:    pg.NewPredStat(1140, 1140, 38),
		ofCR:      pg.NewPredStat(29510, 29510, 1140),
		hasMetric: pg.NewPredStat(206197, 29438, 206197),
		name:      pg.NewPredStat(206197, 206197, 31),
		value:     pg.NewPredStat(206197, 206197, 174364),
	}
	return q, st
}

// TestHashFavoured: whether the GROUP BY crtype chain joins by hash, by
// hand from the statistics of TestJoinOrder. With the wtime pattern's
// exact count (29,438 of hasMetricName's 206,197 quads) every step after
// it meets 29,438 rows, and 29,438 × 16 = 471,008 is at least each
// predicate's quads (206,197 at most): hash. With the statistics alone
// the pattern's share is 206,197 / 31 = 6,651 rows, and 6,651 × 16 =
// 106,416 < 206,197 (hasMetric): probes. With a selective constant (40
// wtime metrics) the chain is probes whatever the statistics say.
func TestHashFavoured(t *testing.T) {
	q, st := crtypeChain()
	for _, tc := range []struct {
		name   string
		consts map[int]int64
		want   bool
	}{
		{"exact wtime count", map[int]int64{3: 29438}, true},
		{"statistics alone", nil, false},
		{"selective constant", map[int]int64{3: 40}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			order, got := pg.HashFavoured(q, st, tc.consts)
			if len(order) != 5 || order[0] != 3 {
				t.Fatalf("join order %v; want 5 patterns starting with 3 (the wtime pattern)", order)
			}
			if got != tc.want {
				t.Errorf("hash joins = %v; want %v (order %v)", got, tc.want, order)
			}
		})
	}
}

func sharesVar(p [3]kb.BGPTerm, all [][3]kb.BGPTerm, before []int) bool {
	for _, i := range before {
		for _, a := range all[i] {
			for _, b := range p {
				if a.ID == kb.Any && b.ID == kb.Any && a.Var == b.Var {
					return true
				}
			}
		}
	}
	return false
}

// TestJoinOrderAnswers: the GROUP BY over a five-pattern BGP answers the
// same in every one of the 120 join orders the statement can be forced
// into as in the in-memory reference store, and as worked out by hand
// (testdata/pushdown-order.nq: type A has the wtimes 1 and 3, type B 5
// and 7; m2 is not a wtime). Every predicate is in one graph, so the
// statement leaves out its DISTINCT and reads only that graph; its plan
// says so.
func TestJoinOrderAnswers(t *testing.T) {
	ds := newStore(t)
	ref := kbtest.NewMemory()
	data, err := os.ReadFile("testdata/pushdown-order.nq")
	if err != nil {
		t.Fatal(err)
	}
	for _, target := range []kb.Dataset{ds, ref} {
		if _, err := rdfio.Load(context.Background(), target, strings.NewReader(string(data)), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
			t.Fatal(err)
		}
	}
	const q = `PREFIX e: <http://e/> SELECT ?t (COUNT(?v) AS ?n) (SUM(?v) AS ?s) (MAX(?v) AS ?hi) {
		?rs e:ofCR ?cr . ?cr e:crtype ?t . ?rs e:hasMetric ?m . ?m e:name "wtime" ; e:value ?v } GROUP BY ?t`
	want, _ := runSorted(t, ref, q)
	byHand := []string{
		`["A" "2"^^<http://www.w3.org/2001/XMLSchema#integer> "4"^^<http://www.w3.org/2001/XMLSchema#double> "3.0E0"^^<http://www.w3.org/2001/XMLSchema#double>]`,
		`["B" "2"^^<http://www.w3.org/2001/XMLSchema#integer> "12"^^<http://www.w3.org/2001/XMLSchema#double> "7.0E0"^^<http://www.w3.org/2001/XMLSchema#double>]`,
	}
	got, explain := runSorted(t, ds, q)
	if !slices.Equal(got, want) {
		t.Errorf("the PostgreSQL store answers\n %v\nthe reference store\n %v", got, want)
	}
	if !slices.Equal(got, byHand) {
		t.Errorf("answers\n %v\nby hand\n %v", got, byHand)
	}
	for _, s := range []string{pushedWhole, "SET LOCAL join_collapse_limit = 1", "SET LOCAL enable_memoize = off", "CROSS JOIN", ".g = ANY("} {
		if !strings.Contains(explain, s) {
			t.Errorf("the plan lacks %q:\n%s", s, explain)
		}
	}
	if strings.Contains(explain, "SELECT DISTINCT") {
		t.Errorf("every predicate is in one graph, yet the statement keeps its DISTINCT:\n%s", explain)
	}
	var orders [][]int
	permute([]int{0, 1, 2, 3, 4}, 0, &orders)
	defer pg.SetForcedOrder(nil)
	for _, o := range orders {
		pg.SetForcedOrder(func(q kb.BGP) []int {
			if len(q.Patterns) != len(o) {
				t.Fatalf("the BGP has %d patterns; want %d", len(q.Patterns), len(o))
			}
			return o
		})
		got, _ := runSorted(t, ds, q)
		if !slices.Equal(got, want) {
			t.Errorf("join order %v: the PostgreSQL store answers\n %v\nthe reference store\n %v", o, got, want)
		}
	}
}

func permute(a []int, k int, out *[][]int) {
	if k == len(a) {
		*out = append(*out, slices.Clone(a))
		return
	}
	for i := k; i < len(a); i++ {
		a[k], a[i] = a[i], a[k]
		permute(a, k+1, out)
		a[k], a[i] = a[i], a[k]
	}
}
