package eval

import (
	"context"
	"os"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestJoinOperators runs MINUS, [NOT] EXISTS, OPTIONAL and joins over
// testdata/joins.nq (9 triples in the default graph, 2 in each of the
// named graphs g1 and g2) on both in-memory stores, each query three
// ways: optimized with the hashed forms from the first row (hashAfter 0),
// optimized with the default threshold (these inputs never reach it, so
// the patterns are fed each row), and not optimized (MINUS materialised,
// nothing hashed). Every way must give the hand-worked rows.
//
// Default graph: a p x1; a q "1"; b p x2; b q "2"; b q "3"; c p x3;
// d r a; x1 t T; x3 t T.
func TestJoinOperators(t *testing.T) {
	const pre = "PREFIX : <http://ex/> "
	tests := []struct {
		name, query string
		want        []string // rows: cells space-separated, "-" unbound, ":x" for http://ex/x
	}{
		// MINUS (§18.5 Minus): a left row goes when a right row is
		// compatible and shares a variable.
		{"minus", "SELECT ?s { ?s :p ?o MINUS { ?s :q ?v } }", []string{":c"}},
		{"minus two shared variables", "SELECT ?s ?o { ?s :p ?o MINUS { ?s :p ?o . ?o :t :T } }", []string{":b :x2"}},
		// A blank node in the right side is a variable of its own, shared
		// with nothing.
		{"minus with a blank node", "SELECT ?s { ?s :p ?o MINUS { ?s :q [] } }", []string{":c"}},
		{"minus disjoint domains removes nothing", "SELECT ?s { ?s :p ?o MINUS { ?x :q ?v } }", []string{":a", ":b", ":c"}},
		// ?v unbound on the left: b and c share no variable with any
		// right row, so they stay; a's ?v = "1" matches (:a "1").
		{"minus shared variable unbound on the left", `SELECT ?s ?v { ?s :p ?o OPTIONAL { ?s :q ?v FILTER(?v = "1") } MINUS { ?z :q ?v } }`,
			[]string{":b -", ":c -"}},
		// Right rows (b "2"), (b "3"): they remove b's rows; (c -) shares
		// ?s with them but is incompatible, (a "1") too.
		{"minus certain and optional shared variables", `SELECT ?s ?v { ?s :p ?o OPTIONAL { ?s :q ?v } MINUS { ?s :q "3" . ?s :q ?v } }`,
			[]string{`:a "1"`, ":c -"}},
		{"minus empty right side", "SELECT ?s { ?s :p ?o MINUS { ?s :nothing ?v } }", []string{":a", ":b", ":c"}},
		{"minus empty left side", "SELECT ?s { ?s :nothing ?o MINUS { ?s :q ?v } }", nil},
		{"minus with a filter inside", `SELECT ?s { ?s :p ?o MINUS { ?s :q ?v FILTER(?v != "1") } }`, []string{":a", ":c"}},
		// EXISTS (§18.6): the row's bindings substituted in the pattern.
		{"not exists", "SELECT ?s { ?s :p ?o FILTER NOT EXISTS { ?o :t :T } }", []string{":b"}},
		{"exists", "SELECT ?s { ?s :p ?o FILTER EXISTS { ?o :t :T } }", []string{":a", ":c"}},
		{"exists two shared variables", "SELECT ?s ?o { ?s :p ?o FILTER EXISTS { ?s :p ?o . ?o :t ?c } }", []string{":a :x1", ":c :x3"}},
		{"exists sharing no variable", "SELECT ?s { ?s :p ?o FILTER EXISTS { ?x :t :T } }", []string{":a", ":b", ":c"}},
		{"exists sharing no variable, empty", "SELECT ?s { ?s :p ?o FILTER EXISTS { ?x :t :Nope } }", nil},
		{"exists empty left side", "SELECT ?s { ?s :nothing ?o FILTER EXISTS { ?s :q ?v } }", nil},
		// ?v unbound for c: EXISTS { ?s :q ?v } with only ?s substituted.
		{"exists with an optional variable", `SELECT ?s ?v { ?s :p ?o OPTIONAL { ?s :q ?v FILTER(?v = "2") } FILTER EXISTS { ?s :q ?v } }`,
			[]string{`:a -`, `:b "2"`}},
		{"not exists in an or", `SELECT ?s { ?s :p ?o FILTER(?o = :x1 || NOT EXISTS { ?s :q ?v }) }`, []string{":a", ":c"}},
		// OPTIONAL (§18.5 LeftJoin): the filter sees both sides.
		{"optional", "SELECT ?s ?v { ?s :p ?o OPTIONAL { ?s :q ?v } }", []string{`:a "1"`, `:b "2"`, `:b "3"`, ":c -"}},
		{"optional filter on a left variable", "SELECT ?s ?v { ?s :p ?o OPTIONAL { ?s :q ?v FILTER(?o = :x2) } }",
			[]string{":a -", `:b "2"`, `:b "3"`, ":c -"}},
		{"optional filter on both sides", `SELECT ?s ?v { ?s :p ?o OPTIONAL { ?s :q ?v FILTER(?o = :x2 && ?v != "2") } }`,
			[]string{":a -", `:b "3"`, ":c -"}},
		{"exists inside optional", "SELECT ?s ?v { ?s :p ?o OPTIONAL { ?s :q ?v FILTER EXISTS { ?o :t :T } } }",
			[]string{`:a "1"`, ":b -", ":c -"}},
		{"optional empty right side", "SELECT ?s ?v { ?s :p ?o OPTIONAL { ?s :nothing ?v } }", []string{":a -", ":b -", ":c -"}},
		{"optional empty left side", "SELECT ?s ?v { ?s :nothing ?o OPTIONAL { ?s :q ?v } }", nil},
		{"optional two shared variables", "SELECT ?s ?o ?c { ?s :p ?o OPTIONAL { ?s :p ?o . ?o :t ?c } }",
			[]string{":a :x1 :T", ":b :x2 -", ":c :x3 :T"}},
		// ?o of d is :a, which has q values: a chain through the object.
		{"optional keyed on an object", "SELECT ?d ?v { ?d :r ?o OPTIONAL { ?o :q ?v } }", []string{`:d "1"`}},
		// Inside GRAPH ?g each named graph is joined on its own.
		{"graph not exists", "SELECT ?g ?s { GRAPH ?g { ?s :p2 ?o FILTER NOT EXISTS { ?s :q2 ?v } } }", []string{":g2 :b"}},
		{"graph minus", "SELECT ?g ?s { GRAPH ?g { ?s :p2 ?o MINUS { ?s :q2 ?v } } }", []string{":g2 :b"}},
		{"graph optional", "SELECT ?g ?s ?v { GRAPH ?g { ?s :p2 ?o OPTIONAL { ?s :q2 ?v } } }", []string{`:g1 :a "1"`, ":g2 :b -"}},
		// Inner join of a UNION with a BGP: the BGP is the hashed side.
		{"union join", "SELECT ?s ?v { { ?s :p ?o } UNION { ?s :r ?o } ?s :q ?v }", []string{`:a "1"`, `:b "2"`, `:b "3"`}},
		// The second branch binds ?v = "3" for b, so only b's "3" joins it.
		{"union join on an optional variable", `SELECT ?s ?v { { ?s :p ?o } UNION { ?s :q "2" BIND("3" AS ?v) } ?s :q ?v }`,
			[]string{`:a "1"`, `:b "2"`, `:b "3"`, `:b "3"`}},
		{"union join empty right side", "SELECT ?s ?v { { ?s :p ?o } UNION { ?s :r ?o } ?s :nothing ?v }", nil},
		{"union join empty left side", "SELECT ?s ?v { { ?s :nothing ?o } UNION { ?s :nothing2 ?o } ?s :q ?v }", nil},
		{"union then exists", "SELECT ?s { { ?s :p ?o } UNION { ?s :r ?o } FILTER EXISTS { ?s :q ?v } }", []string{":a", ":b"}},
	}
	for sname, ds := range loadedStores(t, "testdata/joins.nq", rdfio.NQuads) {
		ways := []struct {
			name  string
			after int64
			opts  Options
		}{
			{"hashed", 0, Options{}},
			{"fed", -1, Options{}},
			{"not-optimized", -1, Options{NoOptimize: true}},
		}
		for _, way := range ways {
			for _, tc := range tests {
				t.Run(sname+"/"+way.name+"/"+tc.name, func(t *testing.T) {
					hashAfter = way.after
					defer func() { hashAfter = -1 }()
					rows, err := run(t, ds, pre+tc.query, way.opts)
					if err != nil {
						t.Fatal(err)
					}
					got := make([]string, 0, len(rows))
					for _, r := range rows {
						cells := make([]string, len(r))
						for i, c := range r {
							switch {
							case c.IsZero():
								cells[i] = "-"
							case c.Kind == kb.KindIRI:
								cells[i] = strings.Replace(c.Value, "http://ex/", ":", 1)
							default:
								cells[i] = `"` + c.Value + `"`
							}
						}
						got = append(got, strings.Join(cells, " "))
					}
					sort.Strings(got)
					want := append([]string{}, tc.want...)
					sort.Strings(want)
					if strings.Join(got, "\n") != strings.Join(want, "\n") {
						t.Errorf("%s\ngot  %q\nwant %q", tc.query, got, want)
					}
				})
			}
		}
		ds.Close()
	}
}

// loadedStores loads file (in format) into the reference memory store and
// a native in-memory store, named "memory" and "native-memory", for tests
// that check an operator's answers on both.
func loadedStores(t *testing.T, file, format string) map[string]kb.Dataset {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]kb.Dataset{"memory": kbtest.NewMemory(), "native-memory": native.OpenMemory()}
	for name, ds := range out {
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(string(data)), rdfio.LoadOptions{Format: format}); err != nil {
			t.Fatalf("%s: load %s: %v", name, file, err)
		}
	}
	return out
}
