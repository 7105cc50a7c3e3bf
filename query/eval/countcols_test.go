package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestCountJoinKept runs counted joins whose per-key counts the native
// stores keep until the next write (countcols.go) over
// testdata/countjoin.nq, in steps: each query's count is worked by hand
// for the data as it stands, and a step after a write must see it. Per
// subject (union default graph) at the start:
//
//	p: a {x1 x2}, b {x1}, c {x3}, f {x9}   (a x1 also in g1; g1: a x1, f x9)
//	q: a {"1" "2" "3"}, b {"1"}, d {"4"}
//
// Each step runs kept (the lists read from the store where kept), not
// kept, and with the row operators; kept, a query repeated with no write
// since must read a kept list, and the first query after a write to all
// its predicates (or a query on lists of other graphs) must not.
func TestCountJoinKept(t *testing.T) {
	const pre = "PREFIX : <http://ex/> SELECT (COUNT(*) AS ?n) "
	const (
		star     = "{ ?s :p ?o1 . ?s :q ?o2 }"
		pp       = "{ ?s :p ?o1 . ?s :p ?o2 }"
		g1       = "{ GRAPH :g1 { ?s :p ?o1 . ?s :p ?o2 } }"
		g2       = "{ GRAPH :g2 { ?s :p ?o1 . ?s :p ?o2 } }"
		optional = "{ ?s :p ?o OPTIONAL { ?s :q ?v } }"
		objects  = "{ ?d :r ?s . ?s :p ?o . ?o :t ?c }"
	)
	type step struct {
		where, want string
		kept        int    // kept way: 1 a kept list is read, -1 none is, 0 either
		write       string // a SPARQL update
	}
	steps := []step{
		// a 2·3, b 1·1.
		{where: star, want: "7", kept: -1},
		{where: star, want: "7", kept: 1},
		// g1's p by subject (a 1, f 1) must not answer the union
		// default graph's (a 2, b 1, c 1, f 1): 1+1, then 4+1+1+1.
		{where: g1, want: "2", kept: -1},
		{where: pp, want: "7"},
		{where: g1, want: "2", kept: 1},
		{where: pp, want: "7", kept: 1},
		// a 6, b 1, c and f unmatched 1 each.
		{where: optional, want: "9"},
		// Lists counted on objects: r into a (d), b and c (e); p's x1
		// (a, b) and x2 (a) have t.
		{where: objects, want: "3"},
		{where: objects, want: "3", kept: 1},
		// A write: b and c gain a q.
		{write: `INSERT DATA { <http://ex/b> <http://ex/q> "5" . <http://ex/c> <http://ex/q> "6" }`},
		// a 2·3, b 1·2, c 1·1; p's list outlives the write to q, q's is
		// counted again (the one kept before would give 7).
		{where: star, want: "9", kept: 1},
		{where: star, want: "9", kept: 1},
		// a 6, b 2, c 1, f 1.
		{where: optional, want: "10"},
		// A removal: a loses "3", and (a p x1) leaves g1 (still in the
		// default graph).
		{write: `DELETE DATA { <http://ex/a> <http://ex/q> "3" . GRAPH <http://ex/g1> { <http://ex/a> <http://ex/p> <http://ex/x1> } }`},
		// a 2·2, b 1·2, c 1·1.
		{where: star, want: "7", kept: -1},
		// g1: f x9 only; union default graph unchanged for p.
		{where: g1, want: "1"},
		{where: pp, want: "7"},
		{where: pp, want: "7", kept: 1},
		// A new t for x3: c's chain now ends at t too.
		{write: `INSERT DATA { <http://ex/x3> <http://ex/t> <http://ex/T> }`},
		// r's and p's lists outlive the write to t (one kept before
		// would give 3).
		{where: objects, want: "4", kept: 1},
		// A second named graph: its lists must not be g1's (both one
		// graph, no duplicates to drop). g1 holds f x9 alone now; g2 a
		// {x5}, b {x6 x7}: 1 + 2·2.
		{write: `INSERT DATA { GRAPH <http://ex/g2> { <http://ex/a> <http://ex/p> <http://ex/x5> . <http://ex/b> <http://ex/p> <http://ex/x6> , <http://ex/x7> } }`},
		{where: g1, want: "1", kept: -1},
		{where: g1, want: "1", kept: 1},
		{where: g2, want: "5", kept: -1},
		{where: g2, want: "5", kept: 1},
	}
	data, err := os.ReadFile("testdata/countjoin.nq")
	if err != nil {
		t.Fatal(err)
	}
	ways := []struct {
		name          string
		kept, counted bool
	}{{"kept", true, true}, {"not-kept", false, true}, {"rows", false, false}}
	for _, way := range ways {
		disk, err := native.Open(context.Background(), t.TempDir(), native.Options{})
		if err != nil {
			t.Fatal(err)
		}
		stores := map[string]kb.Dataset{"native-memory": native.OpenMemory(), "native-disk": disk}
		for sname, ds := range stores {
			t.Run(way.name+"/"+sname, func(t *testing.T) {
				defer ds.Close()
				cjColumnsOn, countJoinOn = way.kept, way.counted
				defer func() { cjColumnsOn, countJoinOn = true, true }()
				ctx := context.Background()
				if _, err := rdfio.Load(ctx, ds, strings.NewReader(string(data)), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
					t.Fatal(err)
				}
				for i, st := range steps {
					if st.write != "" {
						u, err := syntax.ParseUpdate(st.write, syntax.Options{})
						if err != nil {
							t.Fatal(err)
						}
						if _, err := Update(ctx, ds, u, Options{}); err != nil {
							t.Fatal(err)
						}
						continue
					}
					before := cjColumnReads.Load()
					text := pre + st.where
					q, err := syntax.ParseQuery(text, syntax.Options{})
					if err != nil {
						t.Fatal(err)
					}
					res, err := Query(ctx, ds, q, Options{})
					if err != nil {
						t.Fatal(err)
					}
					r, ok := res.Next()
					if !ok {
						t.Fatalf("step %d %s: no row: %v", i, text, res.Err())
					}
					if got := r[0].Value; got != st.want {
						t.Errorf("step %d %s: COUNT(*) = %s, want %s", i, text, got, st.want)
					}
					reads := cjColumnReads.Load() - before
					switch {
					case !way.kept && reads > 0, way.kept && st.kept < 0 && reads > 0:
						t.Errorf("step %d %s: %d kept lists read, want none\n%s", i, text, reads, res.Explain())
					case way.kept && st.kept > 0 && reads == 0:
						t.Errorf("step %d %s: no kept list read\n%s", i, text, res.Explain())
					}
				}
			})
		}
	}
}
