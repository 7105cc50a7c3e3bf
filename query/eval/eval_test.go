package eval

import (
	"context"
	"errors"
	"sync"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/syntax"
)

func memoryWith(t *testing.T, quads ...kb.TermQuad) *kbtest.Memory {
	t.Helper()
	ds := kbtest.NewMemory()
	ids, err := kb.InternQuads(context.Background(), ds, quads)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(context.Background(), kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	return ds
}

func run(t *testing.T, ds kb.Dataset, text string, opts Options) ([][]kb.Term, error) {
	t.Helper()
	q, err := syntax.ParseQuery(text, syntax.Options{})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	res, err := Query(context.Background(), ds, q, opts)
	if err != nil {
		return nil, err
	}
	if q.Form == algebra.FormConstruct || q.Form == algebra.FormDescribe {
		// A graph result: its triples as rows of S, P, O.
		var rows [][]kb.Term
		for {
			tr, ok := res.NextTriple()
			if !ok {
				return rows, res.Err()
			}
			rows = append(rows, []kb.Term{tr.S, tr.P, tr.O})
		}
	}
	var rows [][]kb.Term
	for {
		r, ok := res.Next()
		if !ok {
			break
		}
		rows = append(rows, r)
	}
	return rows, res.Err()
}

// fakeService answers every SERVICE with two fixed solutions.
type fakeService struct {
	mu    sync.Mutex
	calls int
}

func (f *fakeService) Handle(_ context.Context, req ServiceRequest) (*Solutions, error) {
	f.mu.Lock()
	f.calls++
	f.mu.Unlock()
	if req.Endpoint.Value == "http://down.example/sparql" {
		return nil, errors.New("connection refused")
	}
	return &Solutions{Vars: []algebra.Var{"x"}, Rows: [][]kb.Term{{kb.IRI("http://a")}, {kb.IRI("http://b")}}}, nil
}

func TestService(t *testing.T) {
	ds := memoryWith(t, kb.TermQuad{S: kb.IRI("http://a"), P: kb.IRI("http://p"), O: kb.String("local")})
	svc := &fakeService{}
	rows, err := run(t, ds, `SELECT ?x ?o { SERVICE <http://remote.example/sparql> { ?x ?p ?y } ?x <http://p> ?o }`, Options{Service: svc})
	if err != nil || len(rows) != 1 || rows[0][0] != kb.IRI("http://a") {
		t.Errorf("rows %v, err %v; want the one joined row", rows, err)
	}
	rows, err = run(t, ds, `SELECT * { SERVICE SILENT <http://down.example/sparql> { ?x ?p ?y } }`, Options{Service: svc})
	if err != nil || len(rows) != 1 {
		t.Errorf("SERVICE SILENT on a failing endpoint: rows %v, err %v; want one empty solution", rows, err)
	}
	_, err = run(t, ds, `SELECT * { SERVICE <http://remote.example/sparql> { ?x ?p ?y } }`, Options{})
	if !errors.Is(err, ErrUnsupportedService) {
		t.Errorf("default handler: err = %v, want ErrUnsupportedService", err)
	}
}

func TestJoinStrategiesAgree(t *testing.T) {
	p := kb.IRI("http://p")
	q := kb.IRI("http://q")
	var quads []kb.TermQuad
	for i, s := range []string{"a", "b", "c"} {
		quads = append(quads, kb.TermQuad{S: kb.IRI("http://" + s), P: p, O: kb.Literal(string(rune('1'+i)), ontology.XSDInteger)})
	}
	quads = append(quads, kb.TermQuad{S: kb.IRI("http://a"), P: q, O: kb.IRI("http://b")})
	ds := memoryWith(t, quads...)
	tests := []struct {
		name, query string
		rows        int
	}{
		// The OPTIONAL's filter mentions ?v, which only the left side binds:
		// bottom-up it is unbound inside the OPTIONAL, so nothing matches.
		{"optional filter scope", `SELECT ?s ?t { ?s <http://p> ?v OPTIONAL { { ?s <http://q> ?t FILTER(?v = 1) } } FILTER(BOUND(?t)) }`, 0},
		{"optional filter on merged row", `SELECT ?s ?t { ?s <http://p> ?v OPTIONAL { ?s <http://q> ?t FILTER(?v = 1) } FILTER(BOUND(?t)) }`, 1},
		{"subquery joined by value", `SELECT ?s ?m { ?s <http://p> ?v { SELECT (MAX(?w) AS ?m) { ?x <http://p> ?w } } FILTER(?v = ?m) }`, 1},
		{"bind then join", `SELECT ?s { BIND(<http://a> AS ?s) ?s <http://p> ?v }`, 1},
		{"minus without shared variables keeps all", `SELECT ?s { ?s <http://p> ?v MINUS { ?x <http://q> ?y } }`, 3},
		{"limit stops early", `SELECT ?s { ?s ?p ?o } LIMIT 2`, 2},
		{"exists substitutes", `SELECT ?s { ?s <http://p> ?v FILTER EXISTS { ?s <http://q> ?t } }`, 1},
	}
	for _, tc := range tests {
		rows, err := run(t, ds, tc.query, Options{})
		if err != nil || len(rows) != tc.rows {
			t.Errorf("%s: %d rows %v, err %v; want %d", tc.name, len(rows), rows, err, tc.rows)
		}
	}
}

func TestUnionDefaultGraphIsASet(t *testing.T) {
	s, p := kb.IRI("http://s"), kb.IRI("http://p")
	ds := memoryWith(t,
		kb.TermQuad{S: s, P: p, O: kb.String("shared"), G: kb.IRI("http://g1")},
		kb.TermQuad{S: s, P: p, O: kb.String("shared"), G: kb.IRI("http://g2")},
		kb.TermQuad{S: s, P: p, O: kb.String("only-g2"), G: kb.IRI("http://g2")},
		kb.TermQuad{S: s, P: p, O: kb.String("only-g1"), G: kb.IRI("http://g1")},
	)
	tests := []struct {
		query string
		rows  int
	}{
		{`SELECT * { ?s ?p ?o }`, 3},
		{`SELECT * { <http://s> ?p ?o }`, 3},
		{`SELECT * { ?s ?p "shared" }`, 1},
		{`SELECT * { <http://s> <http://p> "shared" }`, 1},
		{`SELECT * { GRAPH ?g { ?s ?p "shared" } }`, 2},
	}
	for _, tc := range tests {
		rows, err := run(t, ds, tc.query, Options{})
		if err != nil || len(rows) != tc.rows {
			t.Errorf("%s: %d rows %v, err %v; want %d", tc.query, len(rows), rows, err, tc.rows)
		}
	}
}
