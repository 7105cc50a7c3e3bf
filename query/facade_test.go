package query_test

import (
	"context"
	"errors"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query"
)

// graphsStore holds one ex:a ex:p quad in the default graph ("d") and in
// each of the graphs ex:g1 ("1") and ex:g2 ("2").
func graphsStore(t *testing.T) kb.Dataset {
	t.Helper()
	ctx := context.Background()
	ds := native.OpenMemory()
	t.Cleanup(func() { ds.Close() })
	var quads []kb.TermQuad
	for _, g := range []struct{ graph, value string }{{"", "d"}, {ex + "g1", "1"}, {ex + "g2", "2"}} {
		q := kb.TermQuad{S: kb.IRI(ex + "a"), P: kb.IRI(ex + "p"), O: kb.String(g.value)}
		if g.graph != "" {
			q.G = kb.IRI(g.graph)
		}
		quads = append(quads, q)
	}
	ids, err := kb.InternQuads(ctx, ds, quads)
	if err != nil {
		t.Fatal(err)
	}
	if err := ds.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	return ds
}

// values runs p and returns its rows' terms joined by "|", sorted.
func values(t *testing.T, ds kb.Dataset, p *query.Prepared, opts query.Options) []string {
	t.Helper()
	res, err := query.Exec(context.Background(), ds, p, opts)
	if err != nil {
		t.Fatalf("%s: %v", p.Text, err)
	}
	defer res.Close()
	rows, err := res.Rows()
	if err != nil {
		t.Fatalf("%s: %v", p.Text, err)
	}
	out := []string{}
	for _, row := range rows {
		var cells []string
		for _, c := range row {
			cells = append(cells, c.Value)
		}
		out = append(out, strings.Join(cells, "|"))
	}
	sort.Strings(out)
	return out
}

func TestProtocolDataset(t *testing.T) {
	ds := graphsStore(t)
	const fromG2 = `SELECT ?o FROM <` + ex + `g2> WHERE { ?s ?p ?o }`
	const named = `SELECT ?g ?o WHERE { GRAPH ?g { ?s ?p ?o } }`
	const plain = `SELECT ?o WHERE { ?s ?p ?o }`
	tests := []struct {
		name, text string
		protocol   *query.ProtocolDataset
		want       []string
	}{
		{"FROM without protocol", fromG2, nil, []string{"2"}},
		{"empty protocol changes nothing", fromG2, &query.ProtocolDataset{}, []string{"2"}},
		{"default-graph-uri replaces FROM", fromG2, &query.ProtocolDataset{Default: []string{ex + "g1"}}, []string{"1"}},
		{"the store's default graph by name", fromG2, &query.ProtocolDataset{Default: []string{kb.DefaultGraphIRI}}, []string{"d"}},
		{"two default graphs merge", plain, &query.ProtocolDataset{Default: []string{ex + "g1", ex + "g2"}}, []string{"1", "2"}},
		{"named-graph-uri alone leaves the default graph empty", plain, &query.ProtocolDataset{Named: []string{ex + "g1"}}, []string{}},
		{"named-graph-uri selects the named graphs", named, &query.ProtocolDataset{Named: []string{ex + "g2"}}, []string{ex + "g2|2"}},
		{"default-graph-uri alone leaves no named graph", named, &query.ProtocolDataset{Default: []string{ex + "g1"}}, []string{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p, err := query.Prepare(tc.text, query.Options{})
			if err != nil {
				t.Fatal(err)
			}
			got := values(t, ds, p, query.Options{Protocol: tc.protocol})
			if strings.Join(got, ",") != strings.Join(tc.want, ",") {
				t.Errorf("rows %q; want %q", got, tc.want)
			}
			// The protocol's dataset is for that execution only.
			if tc.text == fromG2 {
				if again := values(t, ds, p, query.Options{}); strings.Join(again, ",") != "2" {
					t.Errorf("the Prepared changed: without the protocol dataset it now gives %q", again)
				}
			}
		})
	}
}

func TestExecUpdateProtocolDataset(t *testing.T) {
	ctx := context.Background()
	ds := graphsStore(t)
	opts := query.Options{Protocol: &query.ProtocolDataset{Default: []string{ex + "g1"}}}
	u, err := query.PrepareUpdate(`INSERT { ?s <`+ex+`q> ?o } WHERE { ?s <`+ex+`p> ?o }`, opts)
	if err != nil {
		t.Fatal(err)
	}
	sum, err := query.ExecUpdate(ctx, ds, u, opts)
	if err != nil {
		t.Fatal(err)
	}
	if sum.Added != 1 {
		t.Errorf("added %d quads; want 1 (only g1 is the update's dataset)", sum.Added)
	}
	// The zero dataset's default graph is the union of all graphs.
	check, err := query.Prepare(`SELECT ?o WHERE { ?s <`+ex+`q> ?o }`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := values(t, ds, check, query.Options{}); strings.Join(got, ",") != "1" {
		t.Errorf("ex:q values %q; want [1]", got)
	}
	stats, err := ds.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}

	// An update naming its own dataset conflicts with the protocol's.
	for _, text := range []string{
		`WITH <` + ex + `g2> INSERT { ?s <` + ex + `r> ?o } WHERE { ?s <` + ex + `p> ?o }`,
		`INSERT { ?s <` + ex + `r> ?o } USING <` + ex + `g2> WHERE { ?s <` + ex + `p> ?o }`,
		`INSERT DATA { <` + ex + `x> <` + ex + `r> 1 } ; INSERT { ?s <` + ex + `r> ?o } USING NAMED <` + ex + `g2> WHERE { GRAPH ?g { ?s <` + ex + `p> ?o } }`,
	} {
		_, err := query.Update(ctx, ds, text, opts)
		var conflict *query.DatasetConflictError
		if !errors.As(err, &conflict) || !conflict.InvalidInput() {
			t.Errorf("%s: error %v; want a *query.DatasetConflictError", text, err)
			continue
		}
		if want := strings.Count(text, ";") + 1; conflict.Operation != want {
			t.Errorf("%s: conflict in operation %d; want %d", text, conflict.Operation, want)
		}
		// Without the protocol's dataset the same update is accepted.
		if _, err := query.PrepareUpdate(text, query.Options{}); err != nil {
			t.Errorf("%s: %v", text, err)
		}
	}
	after, err := ds.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if after.Quads != stats.Quads {
		t.Errorf("refused updates changed the store: %d quads, before %d", after.Quads, stats.Quads)
	}
}

func TestSitesOption(t *testing.T) {
	ds := graphsStore(t)
	p, err := query.Prepare(`SELECT ?o WHERE { ?s ?p ?o }`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := values(t, ds, p, query.Options{})

	res, err := query.Exec(context.Background(), ds, p, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, ok := res.Federation(); ok {
		t.Errorf("Federation() reports a fan-out for a query without Sites")
	}
	res.Close()

	// "local" alone fans out to the local store only: same rows, and a
	// complete report with no remote site.
	res, err = query.Exec(context.Background(), ds, p, query.Options{Sites: "local"})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := res.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != len(want) {
		t.Errorf("Sites=local: %d rows; want %d", len(rows), len(want))
	}
	rep, local, ok := res.Federation()
	if !ok || !local || !rep.Complete || len(rep.Sites) != 0 {
		t.Errorf("Sites=local: Federation() = %+v, local %v, ok %v; want a complete local-only report", rep, local, ok)
	}
	res.Close()
	if again := values(t, ds, p, query.Options{}); strings.Join(again, ",") != strings.Join(want, ",") {
		t.Errorf("the Prepared changed after a fan-out: %q, before %q", again, want)
	}

	for _, sites := range []string{"nosuch", "local,nosuch"} {
		_, err := query.Exec(context.Background(), ds, p, query.Options{Sites: sites})
		var se *query.SitesError
		if !errors.As(err, &se) || !se.InvalidInput() {
			t.Errorf("Sites=%q: error %v; want a *query.SitesError", sites, err)
		}
	}
	from, err := query.Prepare(`SELECT ?o FROM <`+ex+`g1> WHERE { ?s ?p ?o }`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var se *query.SitesError
	if _, err := query.Exec(context.Background(), ds, from, query.Options{Sites: "local"}); !errors.As(err, &se) {
		t.Errorf("FROM with Sites: error %v; want a *query.SitesError", err)
	}
	// The protocol's dataset replaces FROM, so the fan-out may proceed.
	if _, err := query.Exec(context.Background(), ds, from, query.Options{Sites: "local", Protocol: &query.ProtocolDataset{Default: []string{ex + "g1"}}}); err != nil {
		t.Errorf("FROM replaced by the protocol dataset, with Sites: %v", err)
	}
}

// TestReuseRows checks that with ReuseRows, Next hands out one slice for
// every row, and that Rows copies them: its answer is the one without.
func TestReuseRows(t *testing.T) {
	ds := graphsStore(t)
	p, err := query.Prepare(`SELECT ?g ?o WHERE { GRAPH ?g { ?s ?p ?o } }`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	want := values(t, ds, p, query.Options{})
	if len(want) < 2 {
		t.Fatalf("fixture: %d rows; the test needs 2 or more", len(want))
	}
	if got := values(t, ds, p, query.Options{ReuseRows: true}); !slices.Equal(got, want) {
		t.Errorf("Rows with ReuseRows = %v; want %v", got, want)
	}
	res, err := query.Exec(context.Background(), ds, p, query.Options{ReuseRows: true})
	if err != nil {
		t.Fatal(err)
	}
	defer res.Close()
	var first *kb.Term
	n := 0
	for row, ok := res.Next(); ok; row, ok = res.Next() {
		n++
		if first == nil {
			first = &row[0]
		} else if &row[0] != first {
			t.Errorf("row %d is a new slice; ReuseRows should hand out the first one again", n)
		}
	}
	if err := res.Err(); err != nil || n != len(want) {
		t.Errorf("%d rows, error %v; want %d rows", n, err, len(want))
	}
}
