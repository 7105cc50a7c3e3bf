package query_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/results"
)

const ex = "http://example.org/"

// chainStore holds a chain n0 -> n1 -> … -> n(n-1) via :next, a :value
// per node, and a cycle back to n0 in a second graph.
func chainStore(t testing.TB, n int) *native.MemStore {
	t.Helper()
	ctx := context.Background()
	ds := native.OpenMemory()
	var quads []kb.TermQuad
	for i := 0; i < n; i++ {
		node := kb.IRI(fmt.Sprintf("%sn%d", ex, i))
		quads = append(quads, kb.TermQuad{S: node, P: kb.IRI(ex + "value"), O: kb.Literal(fmt.Sprint(i), "http://www.w3.org/2001/XMLSchema#integer")})
		if i+1 < n {
			quads = append(quads, kb.TermQuad{S: node, P: kb.IRI(ex + "next"), O: kb.IRI(fmt.Sprintf("%sn%d", ex, i+1))})
		}
	}
	quads = append(quads, kb.TermQuad{S: kb.IRI(fmt.Sprintf("%sn%d", ex, n-1)), P: kb.IRI(ex + "next"), O: kb.IRI(ex + "n0"), G: kb.IRI(ex + "g2")})
	ids, err := kb.InternQuads(ctx, ds, quads)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	return ds
}

func selectRows(t *testing.T, ds kb.Dataset, text string, opts query.Options) [][]kb.Term {
	t.Helper()
	res, err := query.Run(context.Background(), ds, text, opts)
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	defer res.Close()
	rows, err := res.Rows()
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return rows
}

func TestSelectForms(t *testing.T) {
	ds := chainStore(t, 10)
	prefix := "PREFIX : <" + ex + ">\n"
	tests := []struct {
		name, query string
		rows        int
		first       string // N-Triples of the first row's first term, if checked
	}{
		{"star join with filter", prefix + "SELECT ?a ?v { ?a :next ?b . ?b :value ?v FILTER(?v > 5) }", 4, ""},
		{"order and limit", prefix + "SELECT ?v { ?a :value ?v } ORDER BY DESC(?v) LIMIT 2", 2, `"9"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{"optional", prefix + "SELECT ?a ?b { ?a :value ?v OPTIONAL { ?a :next ?b } }", 10, ""},
		{"not exists", prefix + "SELECT ?a { ?a :value ?v FILTER NOT EXISTS { ?a :next ?b FILTER(?b = :n0) } }", 9, ""},
		{"minus", prefix + "SELECT ?a { ?a :value ?v MINUS { ?a :next :n0 } }", 9, ""},
		{"default graph only", prefix + "SELECT ?a { ?a :value ?v FILTER NOT EXISTS { ?a :next ?b } }", 1, "<" + ex + "n9>"},
		{"transitive path", prefix + "SELECT ?x { :n0 :next+ ?x }", 10, ""},
		{"zero or more from a constant", prefix + "SELECT ?x { :n8 :next* ?x }", 10, ""},
		{"group count", prefix + "SELECT (COUNT(*) AS ?c) { ?a :next ?b }", 1, `"10"^^<http://www.w3.org/2001/XMLSchema#integer>`},
		{"bind and values", prefix + "SELECT ?y { VALUES ?x { 1 2 } BIND(?x * 2 AS ?y) }", 2, ""},
		{"named graph", prefix + "SELECT ?g ?s { GRAPH ?g { ?s :next :n0 } }", 1, "<" + ex + "g2>"},
		{"subquery", prefix + "SELECT ?m { { SELECT (MAX(?v) AS ?m) { ?a :value ?v } } }", 1, `"9"^^<http://www.w3.org/2001/XMLSchema#integer>`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			opts := query.Options{}
			if tc.name == "default graph only" {
				opts.Dataset = eval.DatasetSpec{Default: []kb.Term{kb.DefaultGraph}}
			}
			rows := selectRows(t, ds, tc.query, opts)
			if len(rows) != tc.rows {
				t.Fatalf("got %d rows %v, want %d", len(rows), rows, tc.rows)
			}
			if tc.first != "" && rows[0][0].String() != tc.first {
				t.Errorf("first value %s, want %s", rows[0][0], tc.first)
			}
		})
	}
}

func TestComputedTermsAreNotInterned(t *testing.T) {
	ds := chainStore(t, 5)
	before, _ := ds.Stats(context.Background())
	selectRows(t, ds, `PREFIX : <`+ex+`> SELECT ?s { ?a :value ?v BIND(CONCAT("new-", STR(?v)) AS ?s) }`, query.Options{})
	after, _ := ds.Stats(context.Background())
	if after.Terms != before.Terms {
		t.Errorf("query interned %d terms into the store", after.Terms-before.Terms)
	}
}

func TestLimits(t *testing.T) {
	ds := chainStore(t, 200)
	ctx := context.Background()
	cross := "SELECT * { ?a ?p ?b . ?c ?q ?d . ?e ?r ?f }"

	res, err := query.Run(ctx, ds, cross, query.Options{MaxRows: 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Rows(); !errors.Is(err, query.ErrTooManyRows) {
		t.Errorf("MaxRows: err = %v, want ErrTooManyRows", err)
	}

	res, err = query.Run(ctx, ds, cross, query.Options{Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	start := time.Now()
	if _, err := res.Rows(); !errors.Is(err, query.ErrQueryTimeout) {
		t.Errorf("Timeout: err = %v, want ErrQueryTimeout", err)
	}
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("timed-out query took %v to stop", d)
	}

	cctx, cancel := context.WithCancel(ctx)
	cancel()
	res, err = query.Run(cctx, ds, cross, query.Options{})
	if err == nil {
		_, err = res.Rows()
	}
	if !errors.Is(err, query.ErrQueryCanceled) {
		t.Errorf("canceled: err = %v, want ErrQueryCanceled", err)
	}
}

func TestSyntaxErrorIsInvalidInput(t *testing.T) {
	_, err := query.Prepare("SELECT * WHERE { ?s ?p }", query.Options{})
	var invalid interface{ InvalidInput() bool }
	if !errors.As(err, &invalid) || !invalid.InvalidInput() {
		t.Fatalf("err = %v, want an InvalidInput error", err)
	}
}

func TestUpdateIsAtomic(t *testing.T) {
	ds := chainStore(t, 3)
	ctx := context.Background()
	before, _ := ds.Stats(ctx)
	// The second operation fails (LOAD of a missing file): nothing applies.
	_, err := query.Update(ctx, ds, `PREFIX : <`+ex+`> INSERT DATA { :a :b :c } ; LOAD <file:///nonexistent/x.ttl>`, query.Options{})
	if err == nil {
		t.Fatal("update with a failing LOAD succeeded")
	}
	after, _ := ds.Stats(ctx)
	if after.Quads != before.Quads {
		t.Errorf("failed update changed the store: %d -> %d quads", before.Quads, after.Quads)
	}
	sum, err := query.Update(ctx, ds, `PREFIX : <`+ex+`>
		DELETE { ?a :next ?b } INSERT { ?b :prev ?a } WHERE { ?a :next ?b } ;
		INSERT DATA { GRAPH :g3 { :x :y :z } }`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Operations != 2 || sum.Added != 4 || sum.Removed != 2 {
		// The WHERE sees the union of all graphs (3 :next edges); the
		// DELETE template targets the default graph, which holds 2 of them.
		t.Errorf("summary %+v, want 2 operations, 4 added, 2 removed", sum)
	}
	rows := selectRows(t, ds, `PREFIX : <`+ex+`> SELECT ?a { ?a :prev ?b }`, query.Options{})
	if len(rows) != 3 {
		t.Errorf("%d :prev triples after update, want 3", len(rows))
	}
}

func TestWriteFormats(t *testing.T) {
	ds := chainStore(t, 2)
	ctx := context.Background()
	tests := []struct {
		query  string
		format results.Format
		want   string
	}{
		{`PREFIX : <` + ex + `> SELECT ?v { :n1 :value ?v }`, results.JSON, `"datatype":"http://www.w3.org/2001/XMLSchema#integer"`},
		{`PREFIX : <` + ex + `> SELECT ?v ?w { :n1 :value ?v }`, results.TSV, "?v\t?w\n1\t\n"},
		{`PREFIX : <` + ex + `> SELECT ?v { :n1 :value ?v }`, results.CSV, "v\r\n1\r\n"},
		{`PREFIX : <` + ex + `> ASK { :n0 :next :n1 }`, results.XML, "<boolean>true</boolean>"},
		{`PREFIX : <` + ex + `> CONSTRUCT { ?b :prev ?a } WHERE { ?a :next ?b FILTER(?b = :n1) }`, results.NTriples, "<" + ex + "n1> <" + ex + "prev> <" + ex + "n0> .\n"},
	}
	for _, tc := range tests {
		res, err := query.Run(ctx, ds, tc.query, query.Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		var buf bytes.Buffer
		if err := res.Write(&buf, tc.format); err != nil {
			t.Fatalf("%s: %v", tc.query, err)
		}
		if !strings.Contains(buf.String(), tc.want) {
			t.Errorf("%s as %s:\n%s\nwant it to contain %q", tc.query, tc.format, buf.String(), tc.want)
		}
	}
}

func TestExplainReportsEstimatedAndActualRows(t *testing.T) {
	ds := chainStore(t, 20)
	res, err := query.Run(context.Background(), ds, `PREFIX : <`+ex+`> SELECT ?a { ?a :next ?b . ?b :value 3 }`, query.Options{Explain: true})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.Rows(); err != nil {
		t.Fatal(err)
	}
	plan := res.Explain()
	// The selective pattern (:value 3) must come first.
	first := strings.Index(plan, ":value") + strings.Index(plan, "value>")
	second := strings.Index(plan, "next>")
	if first < 0 || second < 0 || strings.Index(plan, "value>") > second {
		t.Errorf("plan does not start with the selective pattern:\n%s", plan)
	}
	if !strings.Contains(plan, "actual=1") || !strings.Contains(plan, "est=") {
		t.Errorf("plan lacks estimated/actual rows:\n%s", plan)
	}
}

// TestCreateExistingGraphFails checks SPARQL 1.1 Update §3.2.1: CREATE of
// a graph that already exists fails unless SILENT.
func TestCreateExistingGraphFails(t *testing.T) {
	ds := chainStore(t, 2)
	ctx := context.Background()
	if _, err := query.Update(ctx, ds, `PREFIX : <`+ex+`> INSERT DATA { GRAPH :g { :a :b :c } }`, query.Options{}); err != nil {
		t.Fatal(err)
	}
	_, err := query.Update(ctx, ds, `PREFIX : <`+ex+`> CREATE GRAPH :g`, query.Options{})
	var invalid interface{ InvalidInput() bool }
	if err == nil || !strings.Contains(err.Error(), "already exists") || !errors.As(err, &invalid) {
		t.Fatalf("CREATE GRAPH of an existing graph: err = %v, want an 'already exists' input error", err)
	}
	for _, u := range []string{`CREATE SILENT GRAPH :g`, `CREATE GRAPH :new`} {
		if _, err := query.Update(ctx, ds, `PREFIX : <`+ex+`> `+u, query.Options{}); err != nil {
			t.Errorf("%s: %v", u, err)
		}
	}
}
