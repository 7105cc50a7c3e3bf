package eval

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestPathMemo runs paths with + and * joined to a pattern whose rows
// repeat the path's start (s1 and s2 share c1), so a remembered walk is
// reused, optimized and not, with the answers worked by hand. Regions:
// c1 → c2 → c3 → c4 and c4 → c2 (a cycle); s1, s2 of c1, s3 of c2, s5 of
// c5 (no parent).
func TestPathMemo(t *testing.T) {
	const data = `
<http://ex/s1> <http://ex/of> <http://ex/c1> .
<http://ex/s2> <http://ex/of> <http://ex/c1> .
<http://ex/s3> <http://ex/of> <http://ex/c2> .
<http://ex/s5> <http://ex/of> <http://ex/c5> .
<http://ex/c1> <http://ex/parent> <http://ex/c2> .
<http://ex/c2> <http://ex/parent> <http://ex/c3> .
<http://ex/c3> <http://ex/parent> <http://ex/c4> .
<http://ex/c4> <http://ex/parent> <http://ex/c2> .
`
	const pre = "PREFIX : <http://ex/> "
	tests := []struct{ query, want string }{
		// c1+: c2 c3 c4; c2+: c3 c4 c2 (through the cycle).
		{"SELECT ?s ?o { ?s :of ?c . ?c :parent+ ?o }",
			"s1 c2,s1 c3,s1 c4,s2 c2,s2 c3,s2 c4,s3 c2,s3 c3,s3 c4"},
		// c1*: c1 c2 c3 c4; c2*: c2 c3 c4; c5*: c5.
		{"SELECT ?s ?o { ?s :of ?c . ?c :parent* ?o }",
			"s1 c1,s1 c2,s1 c3,s1 c4,s2 c1,s2 c2,s2 c3,s2 c4,s3 c2,s3 c3,s3 c4,s5 c5"},
		{"SELECT (COUNT(*) AS ?n) { ?s :of/:parent+ ?o }", "9"},
		// The object end bound per row: what reaches c3 by +: c2, c1,
		// c4 (c4 → c2 → c3) and c3 itself (c3 → c4 → c2 → c3).
		{"SELECT ?s ?x { ?s :of :c1 . VALUES ?t { :c3 } ?x :parent+ ?t }",
			"s1 c1,s1 c2,s1 c3,s1 c4,s2 c1,s2 c2,s2 c3,s2 c4"},
		// A LIMIT that stops the join inside one walk; the next run's
		// walk of the same start is whole.
		{"SELECT (COUNT(*) AS ?n) { { SELECT ?s ?o { ?s :of ?c . ?c :parent+ ?o } LIMIT 2 } }", "2"},
		{"SELECT ?s (COUNT(*) AS ?n) { ?s :of ?c . ?c :parent+ ?o } GROUP BY ?s", "s1 3,s2 3,s3 3"},
	}
	stores := map[string]func() kb.Dataset{
		"memory":        func() kb.Dataset { return kbtest.NewMemory() },
		"native-memory": func() kb.Dataset { return native.OpenMemory() },
	}
	for sname, open := range stores {
		ds := open()
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(data), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
			t.Fatal(err)
		}
		for _, opts := range []Options{{}, {NoOptimize: true}} {
			for _, tc := range tests {
				q, err := syntax.ParseQuery(pre+tc.query, syntax.Options{})
				if err != nil {
					t.Fatal(err)
				}
				res, err := Query(context.Background(), ds, q, opts)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for {
					r, ok := res.Next()
					if !ok {
						break
					}
					var vals []string
					for _, v := range r {
						vals = append(vals, strings.TrimPrefix(v.Value, "http://ex/"))
					}
					got = append(got, strings.Join(vals, " "))
				}
				if err := res.Err(); err != nil {
					t.Fatal(err)
				}
				slices.Sort(got)
				if g := strings.Join(got, ","); g != tc.want {
					t.Errorf("%s %+v: %s\n got %s\nwant %s", sname, opts, tc.query, g, tc.want)
				}
			}
		}
		ds.Close()
	}
}
