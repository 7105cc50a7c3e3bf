package eval

import (
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestServiceSeededFromOutside checks SERVICE ?ep whose endpoint variable
// is bound beyond the immediate join: under a UNION or inside an OPTIONAL
// group after other patterns. The outer rows feed the call (a bind join)
// instead of the SERVICE being evaluated alone with ?ep unbound.
func TestServiceSeededFromOutside(t *testing.T) {
	q, p, p2 := kb.IRI("http://q"), kb.IRI("http://p"), kb.IRI("http://p2")
	s1, s2 := kb.IRI("http://s1"), kb.IRI("http://s2")
	a := memoryWith(t, kb.TermQuad{S: s1, P: q, O: kb.String("a1")}, kb.TermQuad{S: s2, P: q, O: kb.String("a2")})
	b := memoryWith(t, kb.TermQuad{S: s1, P: q, O: kb.String("b1")})
	local := memoryWith(t,
		kb.TermQuad{S: s1, P: p, O: kb.String("v1")}, kb.TermQuad{S: s1, P: p2, O: kb.String("w1")},
		kb.TermQuad{S: s2, P: p, O: kb.String("v2")})
	tests := []struct {
		name, query string
		want        []string
		requests    map[string]int
	}{
		{
			// Three outer rows name site a: one request to it (the
			// request does not depend on ?k).
			name: "UNION branch",
			query: `SELECT ?ep ?s ?o { VALUES (?ep ?k) { (<http://a/sparql> 1) (<http://a/sparql> 2) (<http://a/sparql> 3) (<http://b/sparql> 1) }
  { SERVICE ?ep { ?s <http://q> ?o } } UNION { BIND ("x" AS ?o) } }`,
			want: []string{
				`<http://a/sparql> <http://s1> "a1"`, `<http://a/sparql> <http://s1> "a1"`, `<http://a/sparql> <http://s1> "a1"`,
				`<http://a/sparql> <http://s2> "a2"`, `<http://a/sparql> <http://s2> "a2"`, `<http://a/sparql> <http://s2> "a2"`,
				`<http://a/sparql> "x"`, `<http://a/sparql> "x"`, `<http://a/sparql> "x"`,
				`<http://b/sparql> <http://s1> "b1"`, `<http://b/sparql> "x"`,
			},
			requests: map[string]int{"http://a/sparql": 1, "http://b/sparql": 1},
		},
		{
			// ?s and ?ep come from outside the OPTIONAL group, ?w from
			// inside; s2 has no p2, so its rows pass unextended.
			name: "inside OPTIONAL after a pattern",
			query: `SELECT ?ep ?s ?w ?o { VALUES ?ep { <http://a/sparql> <http://b/sparql> } ?s <http://p> ?v
  OPTIONAL { ?s <http://p2> ?w SERVICE ?ep { ?s <http://q> ?o } } }`,
			want: []string{
				`<http://a/sparql> <http://s1> "w1" "a1"`, `<http://a/sparql> <http://s2>`,
				`<http://b/sparql> <http://s1> "w1" "b1"`, `<http://b/sparql> <http://s2>`,
			},
			requests: map[string]int{"http://a/sparql": 1, "http://b/sparql": 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			svc := &remoteStores{stores: map[string]kb.Dataset{"http://a/sparql": a, "http://b/sparql": b}}
			rows, err := run(t, local, tc.query, Options{Service: svc})
			if err != nil {
				t.Fatal(err)
			}
			var got []string // unbound variables left out
			for _, r := range rows {
				var parts []string
				for _, term := range r {
					if !term.IsZero() {
						parts = append(parts, term.String())
					}
				}
				got = append(got, strings.Join(parts, " "))
			}
			sort.Strings(got)
			want := append([]string(nil), tc.want...)
			sort.Strings(want)
			if strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
			}
			for ep, n := range tc.requests {
				if got := svc.count(ep); got != n {
					t.Errorf("%d requests to %s, want %d", got, ep, n)
				}
			}
		})
	}
}
