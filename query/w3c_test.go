package query_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/perfkb/perfkb/internal/earl"
	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/eval"
)

// w3cRoot is the W3C SPARQL test suites' copy in the repository.
const w3cRoot = "../testdata/w3c/w3c-sparql"

// w3cSuites lists the suites the conformance test runs: name → manifest.
func w3cSuites() []struct{ name, manifest string } {
	var out []struct{ name, manifest string }
	dirs, _ := os.ReadDir(filepath.Join(w3cRoot, "sparql10"))
	for _, d := range dirs {
		if !d.IsDir() {
			continue
		}
		m := filepath.Join(w3cRoot, "sparql10", d.Name(), "manifest.ttl")
		if _, err := os.Stat(m); err == nil {
			out = append(out, struct{ name, manifest string }{"sparql10/" + d.Name(), m})
		}
	}
	for _, d := range []string{
		"aggregates", "bind", "bindings", "cast", "construct", "exists", "functions", "grouping",
		"negation", "project-expression", "property-path", "subquery",
		"add", "basic-update", "clear", "copy", "delete", "delete-data", "delete-insert",
		"delete-where", "drop", "move", "update-silent",
		"syntax-query", "syntax-update-1", "syntax-update-2",
		"service", "syntax-fed",
	} {
		out = append(out, struct{ name, manifest string }{"sparql11/" + d, filepath.Join(w3cRoot, "sparql11", d, "manifest.ttl")})
	}
	return out
}

type outcome int

const (
	passed outcome = iota
	failed
	skipped
)

func (o outcome) String() string { return [...]string{"PASS", "FAIL", "SKIP"}[o] }

// w3cFloor is testdata/w3c-floor.txt: the minimum passes per suite, and
// the tests known to fail with the reason each one cannot pass.
type w3cFloor struct {
	passes map[string]int
	known  map[string]map[string]string // suite → test id → reason
}

// readFloor reads "suite minimum-passes" and "known suite test-id reason…"
// lines.
func readFloor(t *testing.T) w3cFloor {
	f, err := os.Open("testdata/w3c-floor.txt")
	if err != nil {
		t.Fatalf("reading the pass floor: %v", err)
	}
	defer f.Close()
	floor := w3cFloor{passes: map[string]int{}, known: map[string]map[string]string{}}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		text := strings.TrimSpace(sc.Text())
		if text == "" || strings.HasPrefix(text, "#") {
			continue
		}
		fields := strings.Fields(text)
		if fields[0] == "known" {
			if len(fields) < 4 {
				t.Fatalf("testdata/w3c-floor.txt:%d: want \"known suite test-id reason\"", line)
			}
			if floor.known[fields[1]] == nil {
				floor.known[fields[1]] = map[string]string{}
			}
			floor.known[fields[1]][fields[2]] = strings.Join(fields[3:], " ")
			continue
		}
		if len(fields) != 2 {
			t.Fatalf("testdata/w3c-floor.txt:%d: want \"suite passes\" or \"known suite test-id reason\"", line)
		}
		n, err := strconv.Atoi(fields[1])
		if err != nil {
			t.Fatalf("testdata/w3c-floor.txt:%d: %v", line, err)
		}
		floor.passes[fields[0]] = n
	}
	return floor
}

// TestW3C runs the W3C SPARQL 1.0 and 1.1 evaluation and update suites.
// Results are compared by RDF term equality (blank nodes up to renaming),
// as the suites specify. It fails when a suite passes fewer tests than its
// floor, when a test fails that is not named "known" in the floor file,
// and when a known failure starts passing (so the file stays exact).
func TestW3C(t *testing.T) {
	if _, err := os.Stat(w3cRoot); err != nil {
		t.Fatalf("W3C SPARQL test suites not found at %s (they are part of the repository): %v", w3cRoot, err)
	}
	// The suites run on both in-memory stores: kbtest.Memory (the reference) and
	// the native store's in-memory index, which perfkb query --data uses.
	stores := []struct {
		name     string
		newStore func() kb.Dataset
	}{
		{"memory", func() kb.Dataset { return kbtest.NewMemory() }},
		{"native-memory", func() kb.Dataset { return native.OpenMemory() }},
	}
	// With PERFKB_PG_LONG set they also run on kb/pg, each test in a
	// schema of its own in one throwaway database (see internal/pgtest).
	if os.Getenv("PERFKB_PG_LONG") != "" {
		stores = append(stores, struct {
			name     string
			newStore func() kb.Dataset
		}{"postgres", postgresStores(t)})
	}
	// Each store runs the suites twice: as the optimizer plans them, and
	// with query.Options.NoOptimize (the algebra as written: syntactic
	// order, filters at the end of their group, joins by value). Both
	// must reach the same floor.
	for _, store := range stores {
		for _, noOpt := range []bool{false, true} {
			name := store.name
			if noOpt {
				name += "/no-optimize"
			}
			// the product path (the native store, optimized) is reported
			var rep *earl.Report
			if store.name == "native-memory" && !noOpt {
				rep = earl.New()
			}
			t.Run(name, func(t *testing.T) { testW3C(t, store.newStore, noOpt, rep) })
		}
	}
}

func testW3C(t *testing.T, newStore func() kb.Dataset, noOpt bool, rep *earl.Report) {
	runSuites(t, w3cSuites(), rep, earlTestIRI, func(tc w3cTest) (outcome, string) { return runW3C(tc, newStore, noOpt) })
	if rep == nil {
		return
	}
	if path, err := rep.WriteIfAsked("sparql11.ttl"); err != nil {
		t.Error(err)
	} else if path != "" {
		t.Logf("EARL report: %s", path)
	}
}

// earlTestIRI is the IRI W3C implementation reports give a test of the
// suites in w3cRoot, from the file: IRI its manifest entry was read with.
func earlTestIRI(local string) string {
	for dir, base := range map[string]string{
		"/w3c-sparql/sparql10/": "http://www.w3.org/2001/sw/DataAccess/tests/data-r2/",
		"/w3c-sparql/sparql11/": "http://www.w3.org/2009/sparql/docs/tests/data-sparql11/",
	} {
		if _, rel, ok := strings.Cut(local, dir); ok {
			return base + strings.Replace(rel, "manifest.ttl#", "manifest#", 1)
		}
	}
	return local
}

// runSuites runs every test of the suites with run and checks the counts
// against testdata/w3c-floor.txt; rep, when not nil, records the outcomes
// for an EARL report under the test IRIs testIRI gives.
func runSuites(t *testing.T, suites []struct{ name, manifest string }, rep *earl.Report, testIRI func(string) string, run func(w3cTest) (outcome, string)) {
	floor := readFloor(t)
	var report []string
	total := [3]int{}
	for _, s := range suites {
		tests, err := readTests(s.manifest)
		if err != nil {
			t.Errorf("%s: %v", s.name, err)
			continue
		}
		var counts [3]int
		var failures []string
		known := floor.known[s.name]
		seen := map[string]bool{}
		for _, tc := range tests {
			res, why := run(tc)
			if rep != nil && res != skipped {
				rep.Add(testIRI(tc.iri), res == passed)
			}
			counts[res]++
			seen[tc.id] = true
			reason, isKnown := known[tc.id]
			switch {
			case res == passed && isKnown:
				t.Errorf("%s %s passes now: remove its \"known\" line from testdata/w3c-floor.txt and raise the floor", s.name, tc.id)
			case res == failed && !isKnown:
				t.Errorf("%s %s (%s) fails and is not a known failure: %s", s.name, tc.id, tc.name, firstLine(why))
			}
			if res == failed || res == skipped && os.Getenv("W3C_VERBOSE") != "" {
				if os.Getenv("W3C_VERBOSE") == "" {
					why = firstLine(why)
				}
				if isKnown && res == failed {
					why = "known: " + reason + "\n" + why
				}
				failures = append(failures, fmt.Sprintf("    %v %s %s (%s): %s", res, tc.id, tc.name, filepath.Base(tc.query), why))
			}
		}
		for id := range known {
			if !seen[id] {
				t.Errorf("testdata/w3c-floor.txt names %s %s, which the manifest does not have", s.name, id)
			}
		}
		for i := range total {
			total[i] += counts[i]
		}
		line := fmt.Sprintf("%s: %d passed, %d failed, %d skipped", s.name, counts[passed], counts[failed], counts[skipped])
		report = append(report, line)
		t.Log(line)
		for _, f := range failures {
			t.Log(f)
		}
		if want, ok := floor.passes[s.name]; ok && counts[passed] < want {
			t.Errorf("%s: %d passed, below the floor of %d", s.name, counts[passed], want)
		}
	}
	t.Logf("all suites: %d passed, %d failed, %d skipped", total[passed], total[failed], total[skipped])
	if os.Getenv("W3C_REPORT") != "" {
		sort.Strings(report)
		fmt.Println(strings.Join(report, "\n"))
	}
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i]
	}
	if len(s) > 200 {
		s = s[:200] + "…"
	}
	return s
}

// runW3C runs one test and says why it failed.
func runW3C(tc w3cTest, newStore func() kb.Dataset, noOpt bool) (res outcome, why string) {
	defer func() {
		if p := recover(); p != nil {
			res, why = failed, fmt.Sprintf("panic: %v", p)
		}
	}()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	switch tc.kind {
	case "QueryEvaluationTest":
		return runQueryTest(ctx, tc, newStore, noOpt)
	case "UpdateEvaluationTest":
		return runUpdateTest(ctx, tc, newStore, noOpt)
	case "PositiveSyntaxTest11", "PositiveSyntaxTest", "PositiveUpdateSyntaxTest11", "PositiveUpdateSyntaxTest":
		return runSyntaxTest(tc, true)
	case "NegativeSyntaxTest11", "NegativeSyntaxTest", "NegativeUpdateSyntaxTest11", "NegativeUpdateSyntaxTest":
		return runSyntaxTest(tc, false)
	}
	return skipped, "test type " + tc.kind
}

func runSyntaxTest(tc w3cTest, positive bool) (outcome, string) {
	text, err := os.ReadFile(tc.query)
	if err != nil {
		return failed, err.Error()
	}
	base := fileIRI(tc.query)
	if strings.HasSuffix(tc.query, ".ru") {
		_, err = query.PrepareUpdate(string(text), query.Options{Base: base})
	} else {
		_, err = query.Prepare(string(text), query.Options{Base: base})
	}
	switch {
	case positive && err != nil:
		return failed, "rejected: " + err.Error()
	case !positive && err == nil:
		return failed, "accepted an invalid query"
	}
	return passed, ""
}

// loadDataset loads the default-graph files and the named graphs into a
// fresh store.
func loadDataset(ctx context.Context, newStore func() kb.Dataset, data []string, named map[string]string) (kb.Dataset, error) {
	ds := newStore()
	for _, d := range data {
		if _, err := rdfio.LoadFile(ctx, ds, d, rdfio.LoadOptions{}); err != nil {
			return nil, err
		}
	}
	for iri, f := range named {
		if _, err := rdfio.LoadFile(ctx, ds, f, rdfio.LoadOptions{Graph: kb.IRI(iri)}); err != nil {
			return nil, err
		}
	}
	return ds, nil
}

// isOrdered reports whether the query's solutions are ordered.
func isOrdered(op algebra.Op) bool {
	for {
		switch o := op.(type) {
		case *algebra.Slice:
			op = o.Input
		case *algebra.Distinct:
			op = o.Input
		case *algebra.Reduced:
			op = o.Input
		case *algebra.Project:
			op = o.Input
		case *algebra.OrderBy:
			return true
		default:
			return false
		}
	}
}

func runQueryTest(ctx context.Context, tc w3cTest, newStore func() kb.Dataset, noOpt bool) (outcome, string) {
	text, err := os.ReadFile(tc.query)
	if err != nil {
		return failed, err.Error()
	}
	p, err := query.Prepare(string(text), query.Options{Base: fileIRI(tc.query)})
	if err != nil {
		return failed, "parse: " + err.Error()
	}
	ds, err := loadDataset(ctx, newStore, tc.data, tc.graphData)
	if err != nil {
		return skipped, "loading data: " + err.Error()
	}
	defer ds.Close()
	if qd := p.Query.Dataset; qd != nil {
		for _, iri := range append(append([]string{}, qd.Default...), qd.Named...) {
			if _, ok := tc.graphData[iri]; ok || !strings.HasPrefix(iri, "file:") {
				continue
			}
			if _, err := rdfio.LoadFile(ctx, ds, iriPath(iri), rdfio.LoadOptions{Graph: kb.IRI(iri)}); err != nil {
				return skipped, "loading FROM graph: " + err.Error()
			}
		}
	}
	spec := eval.DatasetSpec{Default: []kb.Term{kb.DefaultGraph}, NamedNone: !quadData(tc.data)}
	for iri := range tc.graphData {
		spec.Named = append(spec.Named, kb.IRI(iri))
	}
	service, stop, err := w3cEndpoints(ctx, tc.serviceData, newStore)
	if err != nil {
		return skipped, "starting the SERVICE endpoints: " + err.Error()
	}
	defer stop()
	res, err := query.Exec(ctx, ds, p, query.Options{Base: fileIRI(tc.query), Dataset: spec, Service: service, NoOptimize: noOpt})
	if err != nil {
		return failed, "exec: " + err.Error()
	}
	defer res.Close()
	switch res.Form {
	case algebra.FormConstruct, algebra.FormDescribe:
		exp, err := loadTriples(ctx, tc.result)
		if err != nil {
			return skipped, "reading expected graph: " + err.Error()
		}
		got, err := res.AllTriples()
		if err != nil {
			return failed, "exec: " + err.Error()
		}
		if !graphsIsomorphic(exp, got) {
			return failed, fmt.Sprintf("graphs differ: expected %d triples, got %d", len(exp), len(got))
		}
		return passed, ""
	}
	exp, err := readExpected(ctx, tc.result)
	if err != nil {
		return skipped, "reading expected results: " + err.Error()
	}
	if res.Form == algebra.FormAsk {
		if exp.Boolean == nil || *exp.Boolean != res.Boolean {
			return failed, fmt.Sprintf("ASK gave %v", res.Boolean)
		}
		return passed, ""
	}
	rows, err := res.Rows()
	if err != nil {
		return failed, "exec: " + err.Error()
	}
	vars := res.Vars
	got := rows
	want := project(exp, vars)
	for _, v := range exp.Vars {
		if !contains(vars, v) {
			return failed, fmt.Sprintf("variable %s missing from the result (got %v)", v, vars)
		}
	}
	if !rowsMatch(want, got, isOrdered(p.Query.Pattern)) {
		return failed, fmt.Sprintf("solutions differ:\nwant\n%sgot\n%s", formatRows(vars, want), formatRows(vars, got))
	}
	return passed, ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func runUpdateTest(ctx context.Context, tc w3cTest, newStore func() kb.Dataset, noOpt bool) (outcome, string) {
	text, err := os.ReadFile(tc.query)
	if err != nil {
		return failed, err.Error()
	}
	ds, err := loadDataset(ctx, newStore, tc.data, tc.graphData)
	if err != nil {
		return skipped, "loading data: " + err.Error()
	}
	defer ds.Close()
	opts := query.Options{Base: fileIRI(tc.query), Dataset: eval.DatasetSpec{Default: []kb.Term{kb.DefaultGraph}}, NoOptimize: noOpt}
	if _, err := query.Update(ctx, ds, string(text), opts); err != nil {
		var invalid interface{ InvalidInput() bool }
		if errors.As(err, &invalid) {
			return failed, "parse: " + err.Error()
		}
		return failed, "update: " + err.Error()
	}
	expected := map[kb.Term][]kb.Triple{}
	if quadData([]string{tc.resultData}) {
		byGraph, err := loadGraphs(ctx, tc.resultData)
		if err != nil {
			return skipped, err.Error()
		}
		expected = byGraph
	} else if tc.resultData != "" {
		ts, err := loadTriples(ctx, tc.resultData)
		if err != nil {
			return skipped, err.Error()
		}
		expected[kb.DefaultGraph] = ts
	}
	for iri, f := range tc.resultGraphData {
		ts, err := loadTriples(ctx, f)
		if err != nil {
			return skipped, err.Error()
		}
		expected[kb.IRI(iri)] = ts
	}
	graphs, err := ds.Graphs(ctx)
	if err != nil {
		return failed, err.Error()
	}
	checked := map[kb.Term]bool{}
	for _, g := range graphs {
		name, err := ds.Resolve(ctx, g)
		if err != nil {
			return failed, err.Error()
		}
		got, err := graphTriples(ctx, ds, g)
		if err != nil {
			return failed, err.Error()
		}
		checked[name] = true
		if !graphsIsomorphic(expected[name], got) {
			return failed, fmt.Sprintf("graph %s: expected %d triples, got %d", name, len(expected[name]), len(got))
		}
	}
	for name, ts := range expected {
		if !checked[name] && len(ts) > 0 {
			return failed, fmt.Sprintf("graph %s: expected %d triples, got none", name, len(ts))
		}
	}
	return passed, ""
}

// postgresStores returns a function opening a new, empty kb/pg store per
// call, each in its own schema of one database dropped when t ends.
func postgresStores(t *testing.T) func() kb.Dataset {
	dsn := pgtest.Start(t).NewDatabase(t)
	pool, err := pgxpool.New(context.Background(), dsn)
	if err != nil {
		t.Fatalf("connecting to %s: %v", dsn, err)
	}
	t.Cleanup(pool.Close)
	var n atomic.Int64
	return func() kb.Dataset {
		s, err := pg.OpenPool(context.Background(), pool, pg.Options{Schema: fmt.Sprintf("w3c_%d", n.Add(1))})
		if err != nil {
			panic(err) // runW3C reports it as the test's failure
		}
		return s
	}
}
