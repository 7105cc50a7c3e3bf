package eval

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// aggMemoCases are aggregates whose argument reads one variable, over
// testdata/aggmemo.trig, with answers worked out by hand (rows joined by
// " | ", values by " "; "" for an unbound aggregate).
var aggMemoCases = []struct {
	name, query, want string
}{
	// Two "alpha" rows (ex:b's in two graphs counts once).
	{"sum-strstarts", `SELECT (SUM(xsd:integer(STRSTARTS(?o, "a"))) AS ?n) (COUNT(?o) AS ?c) { ?s <http://e/n> ?o }`, "2 5"},
	{"grouped-strstarts", `SELECT ?s (SUM(xsd:integer(STRSTARTS(?o, "a"))) AS ?n) { ?s <http://e/n> ?o } GROUP BY ?s ORDER BY ?s`,
		"http://e/a 1 | http://e/b 1 | http://e/c 0"},
	// "Z" sorts before the lower-case letters.
	{"min-max-string", `SELECT (MIN(?o) AS ?lo) (MAX(?o) AS ?hi) { ?s <http://e/n> ?o }`, "Zeta gamma"},
	{"grouped-min", `SELECT ?s (MIN(?o) AS ?lo) { ?s <http://e/n> ?o } GROUP BY ?s ORDER BY ?s`,
		"http://e/a alpha | http://e/b alpha | http://e/c Zeta"},
	// STRSTARTS of a number is an error: the SUM is unbound.
	{"sum-error", `SELECT (SUM(xsd:integer(STRSTARTS(?o, "1"))) AS ?n) { ?s <http://e/v> ?o }`, ""},
	// Lexical forms 10, 1.0e1, 2, 010, -1: three start with "1" or "0".
	{"sum-str", `SELECT (SUM(xsd:integer(STRSTARTS(STR(?o), "1") || STRSTARTS(STR(?o), "0"))) AS ?n) { ?s <http://e/v> ?o }`, "3"},
	// Values 10, 10.0, 2, 10, -1 doubled: MIN -2; the SUM 20 + 20 + 4 +
	// 20 - 2 = 62 is a double (one value is), written in plain form.
	{"min-number", `SELECT (MIN(?o * 2) AS ?lo) (SUM(?o * 2) AS ?s) { ?s <http://e/v> ?o }`, "-2 62"},
}

// TestAggMemo checks the per-term memos of the fused scan (aggmemo.go)
// against the hand-worked answers, memos on and off, the fused scan on
// and off, optimized and not, on the reference and both native stores.
func TestAggMemo(t *testing.T) {
	data, err := os.ReadFile("testdata/aggmemo.trig")
	if err != nil {
		t.Fatal(err)
	}
	disk, err := native.Open(context.Background(), t.TempDir(), native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer disk.Close()
	stores := map[string]kb.Dataset{"kbtest": kbtest.NewMemory(), "native-mem": native.OpenMemory(), "native-disk": disk}
	for name, ds := range stores {
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(string(data)), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	defer func() { aggMemoOn, aggScanOn = true, true }()
	for name, ds := range stores {
		for _, c := range aggMemoCases {
			q := "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n" + c.query
			for _, way := range []struct{ memo, scan, noOpt bool }{
				{true, true, false}, {true, true, true}, {false, true, false}, {false, false, false},
			} {
				aggMemoOn, aggScanOn = way.memo, way.scan
				rows, err := run(t, ds, q, Options{NoOptimize: way.noOpt})
				if err != nil {
					t.Fatalf("%s %s: %v", name, c.name, err)
				}
				var out []string
				for _, r := range rows {
					var vals []string
					for _, term := range r {
						vals = append(vals, term.Value)
					}
					out = append(out, strings.Join(vals, " "))
				}
				if got := strings.Join(out, " | "); got != c.want {
					t.Errorf("%s %s %+v: got %q, want (by hand) %q", name, c.name, way, got, c.want)
				}
			}
		}
	}
}
