package convert_test

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// tsvConverter is a minimal converter over "region<TAB>metric<TAB>value"
// lines, exercising the seam the way real converters do.
type tsvConverter struct {
	path string
	base convert.Base
}

func (c tsvConverter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	em := convert.NewEmitter("tsv", c.path, sink)
	f, err := os.Open(c.path)
	if err != nil {
		return em.Report(), err
	}
	defer f.Close()
	regions, metrics := em.Table("region"), em.Table("metric")
	seen := map[string]bool{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Split(sc.Text(), "\t")
		if len(fields) != 3 {
			return em.Report(), convert.Errorf(c.path, convert.TextPosition(c.path, line, len(sc.Text())+1), "expected 3 tab-separated fields, got %d", len(fields))
		}
		metrics.Row()
		rs := c.base.IRI("rs", fields[0])
		if !seen[fields[0]] {
			seen[fields[0]] = true
			regions.Row()
			if err := regions.Emit(ctx, rs, kb.IRI(ontology.RDFType), kb.IRI(ontology.RegionSummary)); err != nil {
				return em.Report(), err
			}
		}
		val, warn, err := convert.MetricLiteral(convert.MetricDatatype(fields[1]), fields[2])
		col := len(fields[0]) + len(fields[1]) + 3
		if err != nil {
			return em.Report(), convert.Errorf(c.path, convert.TextPosition(c.path, line, col), "metric value: %w", err)
		}
		if warn != "" {
			em.Warn(convert.TextPosition(c.path, line, col), "%s", warn)
		}
		m := c.base.IRI("rs", fields[0], "metric", fields[1])
		for _, t := range [][3]kb.Term{
			{rs, kb.IRI(ontology.HasMetric), m},
			{m, kb.IRI(ontology.HasMetricName), kb.String(fields[1])},
			{m, kb.IRI(ontology.HasMetricValue), val},
		} {
			if err := metrics.Emit(ctx, t[0], t[1], t[2]); err != nil {
				return em.Report(), err
			}
		}
	}
	return em.Report(), sc.Err()
}

var testBase = convert.MustBase("http://perfkb.example/site/test/")

func tsv(path string) func(testing.TB) convert.Converter {
	return func(testing.TB) convert.Converter { return tsvConverter{path: path, base: testBase} }
}

func TestConformance(t *testing.T) {
	converttest.Run(t, converttest.Suite{
		New: tsv("testdata/good.tsv"),
		// metrics without region summaries, code regions or processing units
		NotPerfonto: "a toy converter of the interface tests",
		Bad: []converttest.BadCase{
			{Name: "short line", New: tsv("testdata/short.tsv"), Want: []string{"testdata/short.tsv:2:10", "expected 3 tab-separated fields"}},
			{Name: "not a number", New: tsv("testdata/nan.tsv"), Want: []string{"testdata/nan.tsv:2:10", `"fast" is not a number`}},
		},
	})
}

func TestGolden(t *testing.T) {
	got, rep := converttest.Sorted(t, tsv("testdata/good.tsv")(t))
	want, err := os.ReadFile("testdata/good.nt")
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Errorf("output differs from testdata/good.nt:\n%s", got)
	}
	if rep.WarningCount != 1 || !strings.Contains(rep.Warnings[0].String(), "testdata/good.tsv:4:11: value 12.5 of an integer (xsd:long) metric is not integral") {
		t.Errorf("warnings = %v; want the non-integral L2_TCM at line 4", rep.Warnings)
	}
}

func TestMetricLiteral(t *testing.T) {
	tests := []struct {
		dt, in      string
		want        kb.Term
		warn, error bool
	}{
		{ontology.XSDDouble, "4.75", kb.Literal("4.75", ontology.XSDDouble), false, false},
		{ontology.XSDDouble, "1e+20", kb.Literal("1e+20", ontology.XSDDouble), false, false},
		{ontology.XSDDouble, "Infinity", kb.Literal("INF", ontology.XSDDouble), false, false},
		{ontology.XSDDouble, "-Infinity", kb.Literal("-INF", ontology.XSDDouble), false, false},
		{ontology.XSDDouble, "NaN", kb.Literal("NaN", ontology.XSDDouble), false, false},
		{ontology.XSDDouble, " 7 ", kb.Literal("7", ontology.XSDDouble), false, false},
		{ontology.XSDDouble, "seven", kb.Term{}, false, true},
		{ontology.XSDLong, "1200", kb.Literal("1200", ontology.XSDLong), false, false},
		{ontology.XSDLong, "-3", kb.Literal("-3", ontology.XSDLong), false, false},
		{ontology.XSDLong, "12.0", kb.Literal("12", ontology.XSDLong), false, false},
		{ontology.XSDLong, "1e3", kb.Literal("1000", ontology.XSDLong), false, false},
		{ontology.XSDLong, "12.5", kb.Literal("12.5", ontology.XSDDouble), true, false},
		{ontology.XSDLong, "", kb.Term{}, false, true},
	}
	for _, tt := range tests {
		got, warn, err := convert.MetricLiteral(tt.dt, tt.in)
		if (err != nil) != tt.error || (warn != "") != tt.warn || got != tt.want {
			t.Errorf("MetricLiteral(%s, %q) = %v, warning %q, error %v; want %v, warning %v, error %v", tt.dt, tt.in, got, warn, err, tt.want, tt.warn, tt.error)
		}
	}
	if convert.MetricDatatype("wtime") != ontology.XSDDouble || convert.MetricDatatype("L2_TCM") != ontology.XSDLong || convert.MetricDatatype("no_such_metric") != ontology.XSDDouble {
		t.Error("MetricDatatype does not follow the catalog (wtime double, L2_TCM long, unknown double)")
	}
}

func TestBase(t *testing.T) {
	for _, bad := range []string{"", "site/vienna/", "http://x.example/site", "http://x.example/a#b#", "http://x.example/a b/"} {
		if _, err := convert.ParseBase(bad); err == nil {
			t.Errorf("ParseBase(%q) accepted a bad base", bad)
		}
	}
	b := convert.MustBase("http://perfkb.example/site/vienna/")
	if g := b.Graph(); g != kb.IRI("http://perfkb.example/site/vienna") {
		t.Errorf("Graph = %v", g)
	}
	if b.Name() != "vienna" {
		t.Errorf("Name = %q", b.Name())
	}
	h := convert.MustBase("urn:x:site#")
	if h.Graph() != kb.IRI("urn:x:site") || h.IRI("exp", "1") != kb.IRI("urn:x:site#exp/1") {
		t.Errorf("hash base: graph %v, iri %v", h.Graph(), h.IRI("exp", "1"))
	}
	// Segments are escaped injectively.
	keys := []string{"", "~", ".", "..", "a/b", "a%2Fb", "a b", "ä", "x"}
	seen := map[string]string{}
	for _, k := range keys {
		s := convert.EscapeSegment(k)
		if prev, dup := seen[s]; dup {
			t.Errorf("keys %q and %q both escape to %q", prev, k, s)
		}
		seen[s] = k
		if strings.ContainsAny(s, "/ #?") || s == "." || s == ".." {
			t.Errorf("EscapeSegment(%q) = %q is not one safe segment", k, s)
		}
	}
	if got := b.IRI("rs", "a/b", "c d").Value; got != "http://perfkb.example/site/vienna/rs/a%2Fb/c%20d" {
		t.Errorf("IRI = %s", got)
	}
}

func TestPushSink(t *testing.T) {
	type request struct {
		path, query, auth, ctype, body string
		err                            error
	}
	got := make(chan request, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		got <- request{r.URL.Path, r.URL.Query().Get("graph"), r.Header.Get("Authorization"), r.Header.Get("Content-Type"), string(body), err}
		if err != nil {
			http.Error(w, "broken body", http.StatusBadRequest)
			return
		}
		w.WriteHeader(http.StatusCreated)
		io.WriteString(w, `{"added":3}`)
	}))
	defer srv.Close()
	ctx := context.Background()
	graph := kb.IRI("http://perfkb.example/site/test")

	sink, err := convert.NewPushSink(ctx, srv.Client(), srv.URL+"/", graph, "tok")
	if err != nil {
		t.Fatal(err)
	}
	want, _ := converttest.Sorted(t, tsv("testdata/good.tsv")(t))
	if _, err := convert.Run(ctx, tsv("testdata/good.tsv")(t), sink); err != nil {
		t.Fatal(err)
	}
	r := <-got
	if r.path != "/data" || r.query != graph.Value || r.auth != "Bearer tok" || r.ctype != "application/n-triples" || r.err != nil {
		t.Errorf("request %s ?graph=%s auth %q type %q err %v", r.path, r.query, r.auth, r.ctype, r.err)
	}
	lines := strings.Split(strings.TrimSpace(r.body), "\n")
	if len(lines) != strings.Count(string(want), "\n") {
		t.Errorf("pushed %d lines; the sorted conversion has %d", len(lines), strings.Count(string(want), "\n"))
	}
	if sink.Reply() != `{"added":3}` {
		t.Errorf("reply %q", sink.Reply())
	}

	// A failed conversion breaks the body: the server sees a read error.
	sink, err = convert.NewPushSink(ctx, srv.Client(), srv.URL, graph, "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := convert.Run(ctx, tsv("testdata/nan.tsv")(t), sink); err == nil {
		t.Fatal("bad input converted")
	}
	if r := <-got; r.err == nil {
		t.Errorf("the server read a complete body (%q) from a failed conversion", r.body)
	}

	// A server error is reported.
	bad := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":"forbidden"}`, http.StatusForbidden)
	}))
	defer bad.Close()
	sink, _ = convert.NewPushSink(ctx, bad.Client(), bad.URL, graph, "x")
	if _, err := convert.Run(ctx, tsv("testdata/good.tsv")(t), sink); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("push to a refusing server: err = %v; want the 403", err)
	}
}

func TestStoreSinkCancel(t *testing.T) {
	ds := native.OpenMemory()
	ctx, cancel := context.WithCancel(context.Background())
	sink := convert.NewStoreSink(ctx, ds, rdfio.LoadOptions{Graph: testBase.Graph()})
	cancel()
	_, err := convert.Run(ctx, tsv("testdata/good.tsv")(t), sink)
	if !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v; want context.Canceled", err)
	}
	if n := len(converttest.Snapshot(t, ds)); n != 0 {
		t.Errorf("a cancelled conversion stored %d quads", n)
	}
}

func TestNTriplesFileAppearsOnSuccessOnly(t *testing.T) {
	path := t.TempDir() + "/out.nt"
	sink, err := convert.CreateNTriplesFile(path, true)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := convert.Run(context.Background(), tsv("testdata/good.tsv")(t), sink); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	want, _ := os.ReadFile("testdata/good.nt")
	if string(got) != string(want) {
		t.Errorf("%s differs from testdata/good.nt", path)
	}
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o644 {
		t.Errorf("mode %v, want 0644", fi.Mode().Perm())
	}
}

// The pipelined sink passes the conformance suite's store checks and keeps
// the output identical.
func TestPipelined(t *testing.T) {
	var plain, piped strings.Builder
	if _, err := convert.Run(context.Background(), tsv("testdata/good.tsv")(t), convert.NewNTriplesSink(&plain, false)); err != nil {
		t.Fatal(err)
	}
	if _, err := convert.Run(context.Background(), tsv("testdata/good.tsv")(t), convert.Pipelined(convert.NewNTriplesSink(&piped, false))); err != nil {
		t.Fatal(err)
	}
	if plain.String() != piped.String() || plain.Len() == 0 {
		t.Errorf("pipelined output differs:\n%s\nvs\n%s", piped.String(), plain.String())
	}
	// A failed conversion through the pipeline leaves the store unchanged.
	ds := native.OpenMemory()
	sink := convert.Pipelined(convert.NewStoreSink(context.Background(), ds, rdfio.LoadOptions{Graph: testBase.Graph()}))
	_, err := convert.Run(context.Background(), tsv("testdata/nan.tsv")(t), sink)
	if err == nil || strings.Contains(err.Error(), "discarding") {
		t.Errorf("err = %v; want the input error alone", err)
	}
	if n := len(converttest.Snapshot(t, ds)); n != 0 {
		t.Errorf("a failed pipelined conversion stored %d quads", n)
	}
	// An inner sink failure surfaces from Run.
	_, err = convert.Run(context.Background(), tsv("testdata/good.tsv")(t), convert.Pipelined(convert.NewNTriplesSink(failingWriter{}, false)))
	if err == nil || !strings.Contains(err.Error(), "disk full") {
		t.Errorf("err = %v; want the writer's error", err)
	}
}

type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("disk full") }
