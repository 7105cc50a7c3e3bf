package eval

import (
	"context"
	"fmt"
	"math/big"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"

	"github.com/perfkb/perfkb/ontology"
)

// matchOnly hides every optional interface of a store: the evaluator sees
// a plain kb.Dataset and uses Match.
type matchOnly struct{ kb.Dataset }

// scanOnly offers QuadScanner (built on Match) but not QuadSource.
type scanOnly struct{ kb.Dataset }

func (s scanOnly) ScanQuads(ctx context.Context, p kb.Pattern, fn func(kb.Quad) bool) error {
	it := s.Match(ctx, p)
	defer it.Close()
	for it.Next() {
		if !fn(it.Quad()) {
			return nil
		}
	}
	return it.Err()
}

// TestStoreAccessPathsAgree checks that the evaluator gives the same
// answers whether it reads the store through QuadSource (kbtest.Memory),
// QuadScanner or plain Match, and over the native in-memory store, with
// two graphs so that the union default graph deduplicates.
func TestStoreAccessPathsAgree(t *testing.T) {
	ex := func(s string) kb.Term { return kb.IRI("http://example.org/" + s) }
	var quads []kb.TermQuad
	for i := 0; i < 40; i++ {
		rs := ex(fmt.Sprintf("rs%d", i))
		for _, g := range []kb.Term{ex("g1"), ex("g2")} {
			if i%3 == 0 && g == ex("g2") {
				continue
			}
			m := ex(fmt.Sprintf("m%d", i))
			quads = append(quads,
				kb.TermQuad{S: rs, P: ex("hasMetric"), O: m, G: g},
				kb.TermQuad{S: m, P: ex("name"), O: kb.String([]string{"wtime", "L2"}[i%2]), G: g},
				kb.TermQuad{S: m, P: ex("value"), O: kb.Literal(fmt.Sprint(i*7%13), ontology.XSDInteger), G: g},
			)
			if i > 0 {
				quads = append(quads, kb.TermQuad{S: ex(fmt.Sprintf("rs%d", (i-1)/2)), P: ex("child"), O: rs, G: g})
			}
		}
	}
	mem := memoryWith(t, quads...)
	queries := []string{
		`SELECT ?rs ?v WHERE { ?rs <http://example.org/hasMetric> ?m . ?m <http://example.org/name> "wtime" ; <http://example.org/value> ?v FILTER(?v > 3) }`,
		`SELECT ?n (COUNT(?m) AS ?c) (SUM(?v) AS ?s) (MAX(?v) AS ?x) WHERE { ?m <http://example.org/name> ?n ; <http://example.org/value> ?v } GROUP BY ?n`,
		`SELECT ?rs WHERE { ?rs <http://example.org/hasMetric> ?m FILTER NOT EXISTS { ?rs <http://example.org/child> ?c } }`,
		`SELECT ?d WHERE { <http://example.org/rs0> <http://example.org/child>+ ?d }`,
		`SELECT ?rs ?v WHERE { ?rs <http://example.org/hasMetric> ?m OPTIONAL { ?m <http://example.org/value> ?v FILTER(?v > 5) } }`,
		`ASK { <http://example.org/rs1> <http://example.org/hasMetric> <http://example.org/m1> }`,
		`SELECT ?g ?m ?n ?v WHERE { GRAPH ?g { ?m <http://example.org/name> ?n ; <http://example.org/value> ?v } }`,
		`SELECT ?n ?v WHERE { <http://example.org/m4> <http://example.org/name> ?n ; <http://example.org/value> ?v }`,
		`SELECT ?rs ?n ?v WHERE { ?rs <http://example.org/hasMetric> ?m ; <http://example.org/child> ?c . ?m <http://example.org/name> ?n ; <http://example.org/value> ?v }`,
		// Open scans of the union: the native store dedupes them by
		// neighbours (kb.GraphLast), the others with a set.
		`SELECT ?s ?p ?o WHERE { ?s ?p ?o }`,
		`SELECT ?m ?p WHERE { ?m ?p "wtime" }`,
		`SELECT ?s ?o WHERE { ?s <http://example.org/child> ?o }`,
	}
	stores := []struct {
		name string
		ds   kb.Dataset
	}{{"QuadSource", mem}, {"QuadScanner", scanOnly{mem}}, {"Match", matchOnly{mem}},
		{"native (QuadScanner, TermTable, MemoryLookups)", nativeWith(t, quads...)}}
	for _, q := range queries {
		var want []string
		for i, st := range stores {
			rows, err := run(t, st.ds, q, Options{})
			if err != nil {
				t.Fatalf("%s over %s: %v", q, st.name, err)
			}
			got := make([]string, len(rows))
			for j, r := range rows {
				parts := make([]string, len(r))
				for k, term := range r {
					parts[k] = term.String()
				}
				got[j] = strings.Join(parts, " ")
			}
			slices.Sort(got)
			if i == 0 {
				want = got
				continue
			}
			if !slices.Equal(got, want) {
				t.Errorf("%s over %s:\n got %v\nwant %v", q, st.name, got, want)
			}
		}
	}
}

// TestFastAggregatesMatchGeneral checks that the int64/double fast paths
// of SUM, AVG, MIN and MAX give the terms the big.Rat path gives.
func TestFastAggregatesMatchGeneral(t *testing.T) {
	ints := func(vs ...string) []kb.Term {
		out := make([]kb.Term, len(vs))
		for i, v := range vs {
			out[i] = kb.Literal(v, ontology.XSDInteger)
		}
		return out
	}
	doubles := func(vs ...string) []kb.Term {
		out := make([]kb.Term, len(vs))
		for i, v := range vs {
			out[i] = kb.Literal(v, ontology.XSDDouble)
		}
		return out
	}
	tests := []struct {
		name string
		vals []kb.Term
	}{
		{"integers", ints("3", "-7", "12", "0012", "+5")},
		{"one integer", ints("42")},
		{"longs", []kb.Term{kb.Literal("10709939613", ontology.XSDLong), kb.Literal("-3", ontology.XSDLong)}},
		{"doubles", doubles("1.5", "2.25E3", "-0.125", "1e-3")},
		{"doubles with NaN", doubles("1.0", "NaN", "3.0")},
		{"equal doubles", doubles("1.0", "1.00", "1E0")},
	}
	general := func(fn algebra.AggregateFunc, vals []kb.Term) kb.Term {
		sum := function.Numeric{Kind: function.NumInteger, R: new(big.Rat)}
		switch fn {
		case algebra.AggSum, algebra.AggAvg:
			for _, v := range vals {
				n, _ := function.ParseNumeric(v)
				sum, _ = arithNumeric('+', sum, n)
			}
			if fn == algebra.AggSum {
				return sum.Term()
			}
			avg, _ := arithNumeric('/', sum, function.Numeric{Kind: function.NumInteger, R: big.NewRat(int64(len(vals)), 1)})
			return avg.Term()
		}
		best := vals[0]
		for _, v := range vals[1:] {
			c := orderCompare(v, best)
			if (fn == algebra.AggMin && c < 0) || (fn == algebra.AggMax && c > 0) {
				best = v
			}
		}
		return best
	}
	for _, tt := range tests {
		for _, fn := range []algebra.AggregateFunc{algebra.AggSum, algebra.AggAvg, algebra.AggMin, algebra.AggMax} {
			want := general(fn, tt.vals)
			var got kb.Term
			var ok bool
			if fn == algebra.AggSum || fn == algebra.AggAvg {
				var err error
				got, ok, err = fastSumAvg(fn, tt.vals)
				if err != nil {
					t.Fatalf("%s %s: %v", tt.name, fn, err)
				}
			} else {
				got, ok = fastMinMax(fn, tt.vals)
			}
			if !ok {
				t.Errorf("%s %s: fast path declined", tt.name, fn)
				continue
			}
			if got != want {
				t.Errorf("%s %s = %s; general path gives %s", tt.name, fn, got, want)
			}
		}
	}
}

// TestFastCompareDecimal checks the lexical decimal comparison against the
// big.Rat comparison.
func TestFastCompareDecimal(t *testing.T) {
	dec := func(s string) kb.Term { return kb.Literal(s, ontology.XSDDecimal) }
	in := func(s string) kb.Term { return kb.Literal(s, ontology.XSDInteger) }
	terms := []kb.Term{
		dec("0.7"), dec("0.70"), dec(".7"), dec("0.699999999999999999"), dec("-0.7"), dec("-.70"),
		dec("0"), dec("-0.0"), dec("+0."), dec("12.5"), dec("012.50"), dec("-12.5"), dec("1.25"),
		in("0"), in("-0"), in("12"), in("+12"), in("-13"), in("007"), dec("7."), dec("100"),
	}
	for _, a := range terms {
		for _, b := range terms {
			got, ok := fastCompareDecimal(a, b)
			if !ok {
				t.Errorf("fastCompareDecimal(%s, %s) declined", a, b)
				continue
			}
			x, _ := function.ParseNumeric(a)
			y, _ := function.ParseNumeric(b)
			want, err := compareNumeric(x, y)
			if err != nil {
				t.Fatal(err)
			}
			if got != want {
				t.Errorf("fastCompareDecimal(%s, %s) = %d; big.Rat says %d", a, b, got, want)
			}
		}
	}
}

// TestOrderByLimitIsPrefix checks that the top-k ORDER BY under a LIMIT
// returns exactly the first rows of the full stable sort, ties included.
func TestOrderByLimitIsPrefix(t *testing.T) {
	ex := func(s string) kb.Term { return kb.IRI("http://example.org/" + s) }
	var quads []kb.TermQuad
	for i := 0; i < 60; i++ {
		quads = append(quads, kb.TermQuad{S: ex(fmt.Sprintf("s%02d", i)), P: ex("v"), O: kb.Literal(fmt.Sprint(i%7), ontology.XSDInteger), G: ex("g")})
	}
	ds := memoryWith(t, quads...)
	order := `SELECT ?s ?v WHERE { ?s <http://example.org/v> ?v } ORDER BY DESC(?v)`
	full, err := run(t, ds, order, Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ offset, limit int }{{0, 1}, {0, 10}, {3, 10}, {50, 20}, {0, 100}} {
		rows, err := run(t, ds, order+fmt.Sprintf(" OFFSET %d LIMIT %d", tc.offset, tc.limit), Options{})
		if err != nil {
			t.Fatal(err)
		}
		end := min(tc.offset+tc.limit, len(full))
		want := full[min(tc.offset, len(full)):end]
		if len(rows) != len(want) {
			t.Fatalf("OFFSET %d LIMIT %d: %d rows; want %d", tc.offset, tc.limit, len(rows), len(want))
		}
		for i := range rows {
			if !slices.Equal(rows[i], want[i]) {
				t.Errorf("OFFSET %d LIMIT %d row %d = %v; full sort has %v", tc.offset, tc.limit, i, rows[i], want[i])
			}
		}
	}
}

// nativeWith returns the native in-memory store holding quads.
func nativeWith(t *testing.T, quads ...kb.TermQuad) kb.Dataset {
	t.Helper()
	ds := native.OpenMemory()
	t.Cleanup(func() { ds.Close() })
	ids, err := kb.InternQuads(context.Background(), ds, quads)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(context.Background(), kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	return ds
}
