package eval

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestBGPKept runs the workload's grouped join shape over
// testdata/bgpkept.trig with the bound levels answered from kept probe
// indexes (thresholds lowered so that the small data is indexed), from
// the store's lookups, and unoptimized; every way must give the answer
// worked by hand. wtime metrics per type, union default graph:
//
//	A: m1 10 (rs1/cr1, once though in g1 and g2), m5 20 (rs3/cr1),
//	   m6 6 (rs4/cr3): n 3, sum 36, avg 12 (a decimal), max 20
//	B: m3 2.5, m4 4 (rs2/cr2), m8 1.5e0 (rs6/cr2, in g2): n 3, sum 8 and
//	   avg 8/3 as doubles (m8 is one), max 4 (an integer)
//
// m7 (cr4 has no type) and m9 (no value) drop out; m2 is "visits".
// Named graph g1 alone: A as above; B m3, m4: n 2, avg 3.25 (decimal).
// The kept indexes are read in place (keptMatch) and through the quads
// keptProbe builds; in the union default graph ex:value's index holds
// m1's value twice (g1 and g2), which must count once.
func TestBGPKept(t *testing.T) {
	stores := trigStores(t, "testdata/bgpkept.trig", "http://e/")
	defer func() {
		bgpKeptOn, bgpKeptMatchOn, keptProbesMin, keptCostRatio = true, true, probesBeforeIndex, probeCostRatio
	}()
	keptProbesMin, keptCostRatio = 1, 1e9
	const body = `?rs <http://e/region> ?cr . ?cr <http://e/type> ?t . ?rs <http://e/metric> ?m .
	?m <http://e/name> "wtime" ; <http://e/value> ?v .`
	cases := []struct{ name, query, want string }{
		{"union", `SELECT ?t (COUNT(?v) AS ?n) (SUM(?v) AS ?s) (AVG(?v) AS ?a) (MAX(?v) AS ?x) {` + body + `} GROUP BY ?t ORDER BY ?t`,
			"A 3^integer 36^integer 12^decimal 20^integer | B 3^integer 8^double 2.6666666666666665^double 4^integer"},
		{"graph", `SELECT ?t (COUNT(?v) AS ?n) (AVG(?v) AS ?a) { GRAPH <http://e/g1> {` + body + `} } GROUP BY ?t ORDER BY ?t`,
			"A 3^integer 12^decimal | B 2^integer 3.25^decimal"},
		{"rows", `SELECT ?m ?v {` + body + `} ORDER BY ?m`,
			"http://e/m1 10^integer | http://e/m3 2.5^decimal | http://e/m4 4^integer | http://e/m5 20^integer | http://e/m6 6^integer | http://e/m8 1.5e0^double"},
	}
	for name, ds := range stores {
		// A one-shot query (perfkb query) builds no index.
		before := bgpKeptBuilds.Load()
		if _, err := run(t, ds, cases[0].query, Options{OneShot: true}); err != nil {
			t.Fatal(err)
		}
		if built := bgpKeptBuilds.Load() - before; built != 0 {
			t.Errorf("%s: a one-shot query built %d kept probe indexes", name, built)
		}
		for _, c := range cases {
			for _, way := range []struct{ kept, inPlace, noOpt bool }{{true, true, false}, {true, false, false}, {false, false, false}, {true, true, true}} {
				bgpKeptOn, bgpKeptMatchOn = way.kept, way.inPlace
				// Twice: the second run reads what the first kept.
				for i := range 2 {
					res, err := Query(context.Background(), ds, mustParse(t, c.query), Options{NoOptimize: way.noOpt})
					if err != nil {
						t.Fatalf("%s %s: %v", name, c.name, err)
					}
					var rows [][]kb.Term
					for {
						r, ok := res.Next()
						if !ok {
							break
						}
						rows = append(rows, r)
					}
					if err := res.Err(); err != nil {
						t.Fatalf("%s %s: %v", name, c.name, err)
					}
					inPlace := strings.Contains(res.Explain(), "kept index read in place")
					if want := way.inPlace && strings.HasPrefix(name, "native"); i == 1 && inPlace != want {
						t.Errorf("%s %s %+v run %d: kept index read in place %v, want %v\n%s", name, c.name, way, i, inPlace, want, res.Explain())
					}
					var got []string
					for _, r := range rows {
						var f []string
						for _, term := range r {
							v := term.Value
							if i := strings.LastIndexByte(term.Datatype, '#'); i >= 0 && !strings.HasSuffix(term.Datatype, "#string") {
								v += "^" + term.Datatype[i+1:]
							}
							f = append(f, v)
						}
						got = append(got, strings.Join(f, " "))
					}
					if s := strings.Join(got, " | "); s != c.want {
						t.Errorf("%s %s %+v run %d: got %q, want (by hand) %q", name, c.name, way, i, s, c.want)
					}
				}
			}
		}
		if built := bgpKeptBuilds.Load() - before; strings.HasPrefix(name, "native") && built == 0 {
			t.Errorf("%s: no kept probe index was built", name)
		}
	}
}

// TestBGPKeptInPlace reads kept indexes in place (keptMatch) over
// testdata/bgpkeptmatch.trig, where a value is in two graphs; answers by
// hand, the same with the index read through keptProbe's quads and with
// no index:
//   - union default graph: s1 1, s2 2, s2 5, s3 3 (a3's 3 once), s4 4;
//   - FROM g1 FROM g2 (two default graphs, the same merge): the same;
//   - GRAPH g2: s4 4 only (s2 and s3 have no ex:p there);
//   - FROM g1: s1 1, s2 2, s3 3.
func TestBGPKeptInPlace(t *testing.T) {
	stores := trigStores(t, "testdata/bgpkeptmatch.trig", "http://e/")
	defer func() {
		bgpKeptOn, bgpKeptMatchOn, keptProbesMin, keptCostRatio = true, true, probesBeforeIndex, probeCostRatio
	}()
	keptProbesMin, keptCostRatio = 1, 1e9
	const body = `?s <http://e/p> ?a . ?a <http://e/v> ?x .`
	all := "s1 1 | s2 2 | s2 5 | s3 3 | s4 4"
	cases := []struct{ name, query, want string }{
		{"union", `SELECT ?s ?x {` + body + `}`, all},
		{"from", `SELECT ?s ?x FROM <http://e/g1> FROM <http://e/g2> {` + body + `}`, all},
		{"graph", `SELECT ?s ?x { GRAPH <http://e/g2> {` + body + `} }`, "s4 4"},
		{"g1", `SELECT ?s ?x FROM <http://e/g1> {` + body + `}`, "s1 1 | s2 2 | s3 3"},
	}
	for name, ds := range stores {
		for _, c := range cases {
			for _, way := range []struct{ kept, inPlace bool }{{true, true}, {true, false}, {false, false}} {
				bgpKeptOn, bgpKeptMatchOn = way.kept, way.inPlace
				for i := range 2 {
					res, err := Query(context.Background(), ds, mustParse(t, c.query), Options{})
					if err != nil {
						t.Fatalf("%s %s: %v", name, c.name, err)
					}
					var got []string
					for {
						r, ok := res.Next()
						if !ok {
							break
						}
						got = append(got, strings.TrimPrefix(r[0].Value, "http://e/")+" "+r[1].Value)
					}
					if err := res.Err(); err != nil {
						t.Fatalf("%s %s: %v", name, c.name, err)
					}
					slices.Sort(got)
					if s := strings.Join(got, " | "); s != c.want {
						t.Errorf("%s %s %+v run %d: got %q, want (by hand) %q\n%s", name, c.name, way, i, s, c.want, res.Explain())
					}
					inPlace := strings.Contains(res.Explain(), "kept index read in place")
					if want := way.inPlace && strings.HasPrefix(name, "native") && c.name != "graph"; i == 1 && inPlace != want {
						t.Errorf("%s %s %+v run %d: kept index read in place %v, want %v\n%s", name, c.name, way, i, inPlace, want, res.Explain())
					}
				}
			}
		}
	}
}

// TestBGPKeptBackground: with Options.Background (a server) the query
// whose probes pay for a kept index hands its build to Background and
// answers from the store's lookups; the next query reads the index (here
// ex:value's, the level checked). A write to the predicate between the
// query's hand-over and the build keeps the index from being kept (it
// was asked for the store before the write), and the query after the
// write sees the new value. Answers by hand over testdata/bgpkept.trig:
// the wtime metrics with a value, in the union default graph; the INSERT
// gives m9 the value 7.
func TestBGPKeptBackground(t *testing.T) {
	stores := trigStores(t, "testdata/bgpkept.trig", "http://e/")
	defer func() { keptProbesMin, keptCostRatio = probesBeforeIndex, probeCostRatio }()
	keptProbesMin, keptCostRatio = 1, 1e9
	const q = `SELECT ?m ?v { ?rs <http://e/region> ?cr . ?cr <http://e/type> ?t . ?rs <http://e/metric> ?m .
	?m <http://e/name> "wtime" ; <http://e/value> ?v . } ORDER BY ?m`
	const want = "http://e/m1 10 | http://e/m3 2.5 | http://e/m4 4 | http://e/m5 20 | http://e/m6 6 | http://e/m8 1.5e0"
	const want2 = want + " | http://e/m9 7"
	for name, ds := range stores {
		if !strings.HasPrefix(name, "native") {
			continue
		}
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			// Background hands each build to the test, which runs them
			// when it chooses (builds).
			handed := make(chan func())
			opts := Options{Background: func(fn func()) { handed <- fn }}
			builds := func() []func() {
				var fns []func()
				for {
					select {
					case fn := <-handed:
						fns = append(fns, fn)
					case <-time.After(200 * time.Millisecond):
						return fns
					}
				}
			}
			runAll := func(fns []func()) {
				for _, fn := range fns {
					fn()
				}
			}
			query := func() (string, bool) {
				t.Helper()
				res, err := Query(ctx, ds, mustParse(t, q), opts)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for {
					r, ok := res.Next()
					if !ok {
						break
					}
					got = append(got, r[0].Value+" "+r[1].Value)
				}
				if err := res.Err(); err != nil {
					t.Fatal(err)
				}
				// Whether ex:value's level read a kept index (the other
				// predicates' indexes outlive writes to ex:value).
				valueKept := false
				for _, line := range strings.Split(res.Explain(), "\n") {
					valueKept = valueKept || strings.Contains(line, "<http://e/value>") && strings.Contains(line, "kept index read in place")
				}
				return strings.Join(got, " | "), valueKept
			}
			update := func(text string) {
				t.Helper()
				u, err := syntax.ParseUpdate(text, syntax.Options{})
				if err != nil {
					t.Fatal(err)
				}
				if _, err := Update(ctx, ds, u, Options{}); err != nil {
					t.Fatal(err)
				}
			}
			got, kept := query()
			if got != want || kept {
				t.Fatalf("first query: %q, ex:value's index read %v; want %q from the store's lookups", got, kept, want)
			}
			fns := builds()
			if len(fns) == 0 {
				t.Fatal("the first query handed no build to Background")
			}
			runAll(fns)
			if got, kept = query(); got != want || !kept {
				t.Fatalf("second query: %q, ex:value's index read %v; want %q from the index built in the background", got, kept, want)
			}
			runAll(builds())
			// A write to ex:value drops its index; the next query hands
			// its build over, and another write comes before it runs.
			update(`INSERT DATA { GRAPH <http://e/g1> { <http://e/m2> <http://e/value> 4 } }`) // m2 is "visits": not in the answer
			if got, kept = query(); got != want || kept {
				t.Fatalf("query after a write: %q, ex:value's index read %v; want %q from the store's lookups", got, kept, want)
			}
			fns = builds()
			if len(fns) == 0 {
				t.Fatal("the query after a write handed no build to Background")
			}
			update(`INSERT DATA { GRAPH <http://e/g1> { <http://e/m9> <http://e/value> 7 } }`)
			runAll(fns)
			if got, kept = query(); got != want2 || kept {
				t.Fatalf("query after the write during the build: %q, ex:value's index read %v; want %q, and no index kept that was asked for before the write", got, kept, want2)
			}
			runAll(builds())
			if got, kept = query(); got != want2 || !kept {
				t.Fatalf("last query: %q, ex:value's index read %v; want %q from an index built after the writes", got, kept, want2)
			}
		})
	}
}
