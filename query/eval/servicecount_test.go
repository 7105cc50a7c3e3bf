package eval

import (
	"context"
	"fmt"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// countingSite is a site that honours ServiceRequest.CountOnly: asked for
// a count, it answers with the number alone.
type countingSite struct{ remoteStores }

func (c *countingSite) Handle(ctx context.Context, req ServiceRequest) (*Solutions, error) {
	sols, err := c.remoteStores.Handle(ctx, req)
	if err != nil || !req.CountOnly {
		return sols, err
	}
	return &Solutions{Count: len(sols.Rows)}, nil
}

// TestServiceCountOnly checks COUNT(*) over a SERVICE block alone: the call
// asks for the count only, and the count is the site's number of
// solutions (counted here by hand: 5 triples, 3 subjects, 2 of them with
// :q), whether or not the site honours the request; any other aggregate
// or a GROUP BY asks for the rows, and SILENT over a dead site counts its
// one empty solution.
func TestServiceCountOnly(t *testing.T) {
	var remote []kb.TermQuad
	p, q := kb.IRI("http://p"), kb.IRI("http://q")
	for i, s := range []string{"a", "a", "b", "c", "c"} {
		pred := p
		if i%2 == 1 {
			pred = q
		}
		remote = append(remote, kb.TermQuad{S: kb.IRI("http://" + s), P: pred, O: kb.String(fmt.Sprint(i))})
	}
	const site = "http://r/sparql"
	cases := []struct {
		query     string
		want      string // the rows, as rowStrings joins them
		countOnly bool   // the call asks for the count only
		fails     bool
	}{
		{`SELECT (COUNT(*) AS ?n) { SERVICE <` + site + `> { ?s ?p ?o } }`, `"5"^^<http://www.w3.org/2001/XMLSchema#integer>`, true, false},
		{`SELECT (COUNT(*) AS ?n) (COUNT(*) AS ?m) { SERVICE <` + site + `> { ?s <http://q> ?o } }`, `"2"^^<http://www.w3.org/2001/XMLSchema#integer> "2"^^<http://www.w3.org/2001/XMLSchema#integer>`, true, false},
		{`SELECT (COUNT(*) AS ?n) { SERVICE <` + site + `> { ?s <http://nothing> ?o } }`, `"0"^^<http://www.w3.org/2001/XMLSchema#integer>`, true, false},
		{`SELECT (COUNT(*) AS ?n) { SERVICE SILENT <http://down/sparql> { ?s ?p ?o } }`, `"1"^^<http://www.w3.org/2001/XMLSchema#integer>`, true, false},
		{`SELECT (COUNT(*) AS ?n) { SERVICE <http://down/sparql> { ?s ?p ?o } }`, ``, true, true},
		{`SELECT (COUNT(DISTINCT ?s) AS ?n) { SERVICE <` + site + `> { ?s ?p ?o } }`, `"3"^^<http://www.w3.org/2001/XMLSchema#integer>`, false, false},
		{`SELECT (COUNT(?s) AS ?n) { SERVICE <` + site + `> { ?s ?p ?o } }`, `"5"^^<http://www.w3.org/2001/XMLSchema#integer>`, false, false},
		{`SELECT (COUNT(*) AS ?n) (MAX(?o) AS ?x) { SERVICE <` + site + `> { ?s <http://q> ?o } }`, `"2"^^<http://www.w3.org/2001/XMLSchema#integer> "3"`, false, false},
		{`SELECT ?s (COUNT(*) AS ?n) { SERVICE <` + site + `> { ?s <http://p> ?o } } GROUP BY ?s ORDER BY ?s`, ``, false, false},
	}
	for _, honour := range []bool{false, true} {
		for _, c := range cases {
			cs := &countingSite{remoteStores{stores: map[string]kb.Dataset{site: memoryWith(t, remote...)}}}
			var h ServiceHandler = &cs.remoteStores
			if honour {
				h = cs
			}
			rows, err := run(t, memoryWith(t), c.query, Options{Service: h})
			reqs := cs.reqs
			if c.fails {
				if err == nil {
					t.Errorf("%s: answered %v, want an error", c.query, rowStrings(rows))
				}
			} else if err != nil {
				t.Errorf("%s: %v", c.query, err)
				continue
			}
			if c.want != "" && !c.fails {
				if got := rowStrings(rows); len(got) != 1 || got[0] != c.want {
					t.Errorf("%s (site honours counts %v): %q, want %q", c.query, honour, got, c.want)
				}
			}
			if len(reqs) != 1 || reqs[0].CountOnly != c.countOnly {
				t.Errorf("%s: %d calls, want one with CountOnly %v", c.query, len(reqs), c.countOnly)
			}
		}
	}
}
