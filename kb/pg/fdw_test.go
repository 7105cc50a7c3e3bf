package pg_test

import (
	"context"
	"fmt"
	"net/url"
	"slices"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
)

// fdwData has two sites' graphs; the partition recipe moves site2's quads
// to a second server.
const fdwData = `<http://e/r1> <http://e/time> "12.5"^^<http://www.w3.org/2001/XMLSchema#double> <http://e/site1> .
<http://e/r1> <http://e/name> "MPI_Send" <http://e/site1> .
<http://e/r2> <http://e/time> "3"^^<http://www.w3.org/2001/XMLSchema#integer> <http://e/site1> .
<http://e/r2> <http://e/name> "MPI_Recv" <http://e/site1> .
<http://e/r3> <http://e/time> "40.0"^^<http://www.w3.org/2001/XMLSchema#double> <http://e/site2> .
<http://e/r3> <http://e/name> "MPI_Send" <http://e/site2> .
<http://e/r4> <http://e/time> "7"^^<http://www.w3.org/2001/XMLSchema#integer> <http://e/site2> .
<http://e/r4> <http://e/name> "compute" <http://e/site2> .
<http://e/r4> <http://e/calls> <http://e/r1> <http://e/site2> .
`

// fdwQueries read across both partitions: joins within and between graphs,
// an aggregate, GRAPH ?g.
var fdwQueries = []string{
	`SELECT ?r ?t WHERE { ?r <http://e/name> "MPI_Send" ; <http://e/time> ?t }`,
	`SELECT ?g (SUM(?t) AS ?total) WHERE { GRAPH ?g { ?r <http://e/time> ?t } } GROUP BY ?g`,
	`SELECT ?a ?n WHERE { ?a <http://e/calls> ?b . ?b <http://e/name> ?n }`,
	`SELECT ?r WHERE { ?r <http://e/time> ?t FILTER(?t > 5) }`,
}

// TestFDWPartition is docs/postgres.md's postgres_fdw recipe on two local
// clusters: one store loaded on the first server, the quads of graph
// <http://e/site2> moved to a table on the second, and quads on the first
// replaced by a view over its own rows and the foreign table. Every query
// must answer as the single store did before the move.
func TestFDWPartition(t *testing.T) {
	if server == nil {
		t.Skip(skipReason)
	}
	ctx := context.Background()
	one := newStore(t)
	if _, err := rdfio.Load(ctx, one, strings.NewReader(fdwData), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatal(err)
	}
	answers := func(ds kb.Dataset) []string {
		t.Helper()
		var out []string
		for _, q := range fdwQueries {
			res, err := query.Run(ctx, ds, q, query.Options{})
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			rows, err := res.Rows()
			res.Close()
			if err != nil {
				t.Fatalf("%s: %v", q, err)
			}
			var lines []string
			for _, r := range rows {
				lines = append(lines, fmt.Sprint(r))
			}
			slices.Sort(lines)
			out = append(out, q+"\n"+strings.Join(lines, "\n"))
		}
		return out
	}
	want := answers(one)
	if !strings.Contains(want[0], "http://e/r3") || !strings.Contains(want[2], "http://e/r4") {
		t.Fatalf("the single store's answers lack site2's rows; the comparison would check nothing:\n%s", strings.Join(want, "\n"))
	}

	// The second server holds site2's partition.
	second := pgtest.Start(t)
	remoteDSN := second.NewDatabase(t)
	remote, err := pgxpool.New(ctx, remoteDSN)
	if err != nil {
		t.Fatal(err)
	}
	defer remote.Close()
	site2, ok, err := one.Lookup(ctx, kb.IRI("http://e/site2"))
	if err != nil || !ok {
		t.Fatalf("Lookup(site2) = %v, %v", ok, err)
	}
	sc := one.Schema()
	if _, err := remote.Exec(ctx, "CREATE TABLE quads_site2 (s int8 NOT NULL, p int8 NOT NULL, o int8 NOT NULL, g int8 NOT NULL CHECK (g = "+fmt.Sprint(site2)+"))"); err != nil {
		t.Fatal(err)
	}
	rows, err := pool.Query(ctx, "SELECT s, p, o, g FROM "+sc+".quads WHERE g = $1", int64(site2))
	if err != nil {
		t.Fatal(err)
	}
	var moved [][]any
	for rows.Next() {
		var s, p, o, g int64
		if err := rows.Scan(&s, &p, &o, &g); err != nil {
			t.Fatal(err)
		}
		moved = append(moved, []any{s, p, o, g})
	}
	rows.Close()
	if len(moved) == 0 {
		t.Fatal("graph site2 has no quads to move")
	}
	for _, m := range moved {
		if _, err := remote.Exec(ctx, "INSERT INTO quads_site2 VALUES ($1, $2, $3, $4)", m...); err != nil {
			t.Fatal(err)
		}
	}

	// On the first server: the foreign table, and quads as a view over the
	// local rows and it.
	u, err := url.Parse(remoteDSN)
	if err != nil {
		t.Fatal(err)
	}
	for _, stmt := range []string{
		"CREATE EXTENSION IF NOT EXISTS postgres_fdw",
		fmt.Sprintf("CREATE SERVER %s_site2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '%s', port '%s', dbname '%s')", sc, u.Hostname(), u.Port(), strings.TrimPrefix(u.Path, "/")),
		fmt.Sprintf("CREATE USER MAPPING FOR CURRENT_USER SERVER %s_site2 OPTIONS (user '%s')", sc, u.User.Username()),
		fmt.Sprintf("CREATE FOREIGN TABLE %s.quads_site2 (s int8, p int8, o int8, g int8) SERVER %s_site2 OPTIONS (schema_name 'public', table_name 'quads_site2')", sc, sc),
		fmt.Sprintf("DELETE FROM %s.quads WHERE g = %d", sc, site2),
		fmt.Sprintf("ALTER TABLE %s.quads RENAME TO quads_local", sc),
		fmt.Sprintf("CREATE VIEW %s.quads AS SELECT * FROM %s.quads_local UNION ALL SELECT * FROM %s.quads_site2", sc, sc, sc),
	} {
		if _, err := pool.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	t.Cleanup(func() { _, _ = pool.Exec(ctx, "DROP SERVER IF EXISTS "+sc+"_site2 CASCADE") })
	var local int
	if err := pool.QueryRow(ctx, "SELECT count(*) FROM "+sc+".quads_local WHERE g = $1", int64(site2)).Scan(&local); err != nil || local != 0 {
		t.Fatalf("site2 quads left on the first server: %d, %v", local, err)
	}
	// A new store on the same schema reads through the view.
	parted, err := pg.OpenPool(ctx, pool, pg.Options{Schema: sc})
	if err != nil {
		t.Fatal(err)
	}
	got := answers(parted)
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("partitioned store answers\n%s\nthe single store answered\n%s", got[i], want[i])
		}
	}
}
