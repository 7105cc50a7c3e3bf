package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/kb/store"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
)

// getTree asks GET /analysis/tree of a server over the store at spec.
func getTree(t *testing.T, spec string, params url.Values) (int, analysis.CallTree) {
	t.Helper()
	ds, err := store.Open(context.Background(), spec, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	gin.SetMode(gin.TestMode)
	h := server.New(server.Options{Query: &backend.QueryEngine{DS: ds}, Analysis: &backend.Analysis{DS: ds}})
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/analysis/tree?"+params.Encode(), nil))
	var body struct {
		Data analysis.CallTree `json:"data"`
	}
	if rec.Code == http.StatusOK {
		if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
			t.Fatalf("/analysis/tree: %v\n%s", err, rec.Body)
		}
	}
	return rec.Code, body.Data
}

// treeLines renders a tree from /analysis/tree as the lines perfkb tree
// prints for it: values formatted as the CLI formats them, the names
// without the branch drawing, in depth-first order.
func treeLines(tree analysis.CallTree) []string {
	var out []string
	cell := func(n *analysis.TreeNode, key string, format func(float64) string) string {
		if v, ok := n.Value(key); ok {
			return format(v)
		}
		return "-"
	}
	var walk func(n *analysis.TreeNode)
	walk = func(n *analysis.TreeNode) {
		out = append(out, strings.Join([]string{cell(n, "wtime", formatSeconds), cell(n, "exclusive", formatSeconds), cell(n, "ncalls", formatNumber), n.Name}, " | "))
		for _, c := range n.Children {
			walk(c)
		}
	}
	for _, r := range tree.Roots {
		walk(r)
	}
	return out
}

// cliLines parses perfkb tree's table into the same form.
func cliLines(t *testing.T, out string) []string {
	t.Helper()
	row := regexp.MustCompile(`^\s*(\S+(?: s)?)\s+(\S+(?: s)?)\s+(\S+)\s+(?:[│ ]  |├─ |└─ )*(.+)$`)
	var lines []string
	for _, l := range strings.Split(strings.TrimSpace(out), "\n")[2:] {
		m := row.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("unexpected line of perfkb tree: %q", l)
		}
		lines = append(lines, strings.Join(m[1:], " | "))
	}
	return lines
}

// TestTreeCLIAndHTTPAgree checks that perfkb tree and GET /analysis/tree
// give the same tree: on testdata/tree.ttl against values worked out by
// hand (see TestTree), and on a demo experiment of perfkb sample line by
// line, over all units (mean, max) and one unit.
func TestTreeCLIAndHTTPAgree(t *testing.T) {
	dir := t.TempDir()
	spec := "native:" + filepath.Join(dir, "db")
	if code, _, stderr := runCLI(t, "", "--store", spec, "load", "--graph", "http://example.org/g", "testdata/tree.ttl"); code != exitOK {
		t.Fatalf("load: %d %s", code, stderr)
	}
	nq := filepath.Join(dir, "s.nq")
	if code, _, stderr := runCLI(t, "", "sample", "--sites", "1", "--triples", "5000", "-o", nq); code != exitOK {
		t.Fatalf("sample: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", "--store", spec, "load", nq); code != exitOK {
		t.Fatalf("load: %d %s", code, stderr)
	}

	// Hand-computed: main mean (10+12)/2 s, exclusive (3+10)/2 s; compute
	// (6+2)/2 s with (4+2)/2 calls; MPI_Send on p0 only. On p1: main 12 s,
	// exclusive 12-2 s; compute 2 s, 2 calls.
	code, tree := getTree(t, spec, url.Values{"experiment": {"x/exp/1"}})
	if code != http.StatusOK {
		t.Fatalf("/analysis/tree: %d", code)
	}
	want := []string{"11 s | 6.5 s | 1 | main", "4 s | 4 s | 3 | compute", "1 s | 1 s | 8 | MPI_Send"}
	if got := treeLines(tree); strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("/analysis/tree of x/exp/1:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if tree.Experiment != "http://example.org/site/x/exp/1" || tree.Nodes != 3 || tree.Summaries != 5 || len(tree.PUs) != 2 {
		t.Errorf("tree of x/exp/1: experiment %s, %d nodes, %d summaries, PUs %v; want 3 nodes of 5 summaries on 2 PUs", tree.Experiment, tree.Nodes, tree.Summaries, tree.PUs)
	}
	code, tree = getTree(t, spec, url.Values{"experiment": {"x/exp/1"}, "pu": {"p1"}})
	want = []string{"12 s | 10 s | 1 | main", "2 s | 2 s | 2 | compute"}
	if got := treeLines(tree); code != http.StatusOK || strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("/analysis/tree of x/exp/1 on p1: %d\n%s\nwant:\n%s", code, strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	for _, bad := range []struct {
		params url.Values
		code   int
	}{
		{url.Values{"experiment": {"nope/exp/9"}}, http.StatusNotFound},
		{url.Values{"experiment": {"x/exp/1"}, "pu": {"p7"}}, http.StatusNotFound},
		{url.Values{"experiment": {"x/exp/1"}, "agg": {"median"}}, http.StatusBadRequest},
		{url.Values{"experiment": {"x/exp/1"}, "metric": {"bogus"}}, http.StatusBadRequest},
	} {
		if code, _ := getTree(t, spec, bad.params); code != bad.code {
			t.Errorf("/analysis/tree?%s: %d, want %d", bad.params.Encode(), code, bad.code)
		}
	}

	// The demo experiment with the most region summaries, and its first PU.
	ds, err := store.Open(context.Background(), spec, store.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(context.Background(), ds, `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?exp (COUNT(?rs) AS ?n) (MIN(?pu) AS ?pu1) WHERE { ?rs perfonto:inExperiment ?exp ; perfonto:inProcessingUnit ?pu ; perfonto:hasChildRS ?c }
GROUP BY ?exp ORDER BY DESC(?n) ?exp LIMIT 1`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := res.Rows()
	res.Close()
	ds.Close()
	if err != nil || len(rows) != 1 {
		t.Fatalf("finding a demo experiment: %v, %d rows", err, len(rows))
	}
	exp, pu := rows[0][0].Value, rows[0][2].Value
	for _, c := range []struct {
		name string
		args []string
		q    url.Values
	}{
		{"mean", nil, url.Values{}},
		{"max", []string{"--agg", "max"}, url.Values{"agg": {"max"}}},
		{"one PU", []string{"--pu", pu}, url.Values{"pu": {pu}}},
		{"two levels", []string{"--depth", "2"}, url.Values{"depth": {"2"}}},
	} {
		t.Run(c.name, func(t *testing.T) {
			code, out, stderr := runCLI(t, "", append([]string{"--store", spec, "tree", exp}, c.args...)...)
			if code != exitOK {
				t.Fatalf("perfkb tree: %d %s", code, stderr)
			}
			c.q.Set("experiment", exp)
			hcode, tree := getTree(t, spec, c.q)
			if hcode != http.StatusOK {
				t.Fatalf("/analysis/tree: %d", hcode)
			}
			cli, api := cliLines(t, out), treeLines(tree)
			t.Logf("%d call paths", len(cli))
			if len(cli) < 3 || strings.Join(cli, "\n") != strings.Join(api, "\n") {
				t.Errorf("perfkb tree:\n%s\n/analysis/tree:\n%s", strings.Join(cli, "\n"), strings.Join(api, "\n"))
			}
		})
	}
}

// TestPageDrawsServerTree checks that the query page takes its call tree
// from GET /analysis/tree and no longer builds one from SPARQL rows (the
// Chromium test in server/backend checks what it draws).
func TestPageDrawsServerTree(t *testing.T) {
	js, err := os.ReadFile("../../server/web/app.js")
	if err != nil {
		t.Fatal(err)
	}
	src := string(js)
	if !strings.Contains(src, `"/analysis/tree?"`) || !strings.Contains(src, "fetchTree(exp") {
		t.Error("app.js does not fetch the call tree from /analysis/tree")
	}
	if strings.Contains(src, "?parent perfonto:hasChildRS ?rs") || strings.Contains(src, "function buildTree") {
		t.Error("app.js still computes a call tree from SPARQL rows")
	}
}
