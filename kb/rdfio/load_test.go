package rdfio_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

const (
	xsdInteger = ontology.XSDInteger
	perfonto   = ontology.Namespace
)

// termQuads returns every quad of ds as terms, blank labels replaced by
// "_" so that loads can be compared.
func termQuads(t *testing.T, ds kb.Dataset, keepBlanks bool) []string {
	t.Helper()
	ctx := context.Background()
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		if !keepBlanks {
			for _, p := range []*kb.Term{&tq.S, &tq.O, &tq.G} {
				if p.IsBlank() {
					*p = kb.Blank("_")
				}
			}
		}
		out = append(out, tq.String())
	}
	sort.Strings(out)
	return out
}

// mergedTriples returns the distinct triples of ds, in the default graph,
// blank labels replaced by "_".
func mergedTriples(t *testing.T, ds kb.Dataset) []string {
	t.Helper()
	ctx := context.Background()
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	seen := make(map[[3]kb.ID]bool)
	var out []string
	for _, q := range quads {
		if seen[[3]kb.ID{q.S, q.P, q.O}] {
			continue
		}
		seen[[3]kb.ID{q.S, q.P, q.O}] = true
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		tq.G = kb.DefaultGraph
		for _, p := range []*kb.Term{&tq.S, &tq.O} {
			if p.IsBlank() {
				*p = kb.Blank("_")
			}
		}
		out = append(out, tq.String())
	}
	sort.Strings(out)
	return out
}

func hasQuad(t *testing.T, ds kb.Dataset, q kb.TermQuad) bool {
	t.Helper()
	ctx := context.Background()
	var p kb.Pattern
	for _, x := range []struct {
		term kb.Term
		id   *kb.ID
	}{{q.S, &p.S}, {q.P, &p.P}, {q.O, &p.O}, {q.G, &p.G}} {
		if x.term.IsZero() {
			continue
		}
		id, ok, err := ds.Lookup(ctx, x.term)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return false
		}
		*x.id = id
	}
	n, err := ds.Count(ctx, p, true)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func TestLoadFileFormats(t *testing.T) {
	ctx := context.Background()
	ex := func(s string) kb.Term { return kb.IRI("http://example.org/" + s) }
	fileBase := func(name string) string {
		abs, err := filepath.Abs(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		return "file://" + filepath.ToSlash(filepath.Dir(abs)) + "/"
	}
	tests := []struct {
		file    string
		graph   kb.Term
		triples int64
		graphs  int
		want    []kb.TermQuad // G zero = any graph
	}{
		{"sample.nt", kb.IRI("urn:g:nt"), 10, 1, []kb.TermQuad{
			{S: ex("exp/e1"), P: kb.IRI("http://www.w3.org/2000/01/rdf-schema#label"), O: kb.LangLiteral("Experiment one", "en"), G: kb.IRI("urn:g:nt")},
			{S: ex("exp/e1"), P: kb.IRI("http://www.w3.org/2000/01/rdf-schema#comment"), O: kb.LangLiteral("Zweites \"Experiment\"\nüber\ttabs", "de-at")},
			{P: kb.IRI(perfonto + "hasMetricValue"), O: kb.Literal("0070000", xsdInteger)},
			{P: kb.IRI(perfonto + "hasCrType"), O: kb.String("CR_MPIP2P")},
			{P: ex("p/ratio"), O: kb.Literal("1.50E3", "http://www.w3.org/2001/XMLSchema#double")},
			{P: ex("p/unicode"), O: kb.String("日本語 𝄞")},
			{P: ex("p/empty"), O: kb.String("")},
		}},
		{"sample.nq", kb.Term{}, 5, 4, []kb.TermQuad{
			{S: ex("s"), P: ex("p"), O: kb.String("in g1"), G: ex("g1")},
			{S: ex("s"), P: ex("p"), O: kb.String("in g2"), G: ex("g2")},
			{S: ex("s"), P: ex("p"), O: kb.String("no graph"), G: kb.DefaultGraph},
			{P: ex("p"), O: kb.Literal("007", xsdInteger), G: ex("g1")},
		}},
		{"sample.ttl", kb.Term{}, 10, 1, []kb.TermQuad{
			{S: kb.IRI(fileBase("sample.ttl") + "exp/e1"), P: kb.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), O: kb.IRI(perfonto + "Experiment"), G: kb.DefaultGraph},
			{P: kb.IRI(perfonto + "hasMetricValue"), O: kb.Literal("0070000", xsdInteger)},
			{P: kb.IRI(perfonto + "count"), O: kb.Literal("007", xsdInteger)},
			{P: kb.IRI(perfonto + "count"), O: kb.Literal("1.5", "http://www.w3.org/2001/XMLSchema#decimal")},
			{P: kb.IRI(perfonto + "count"), O: kb.Literal("true", "http://www.w3.org/2001/XMLSchema#boolean")},
			{P: kb.IRI("http://www.w3.org/2000/01/rdf-schema#label"), O: kb.LangLiteral("Experiment one", "en")},
		}},
		{"sample.trig", kb.IRI("urn:g:trig"), 10, 3, []kb.TermQuad{
			{S: ex("s"), P: ex("p"), O: kb.String("default"), G: kb.IRI("urn:g:trig")},
			{S: ex("s"), P: ex("p"), O: kb.String("wrapped default"), G: kb.IRI("urn:g:trig")},
			{S: ex("s"), P: ex("p"), O: kb.LangLiteral("in g2", "en"), G: ex("g2")},
			{P: kb.IRI(perfonto + "hasMetricValue"), O: kb.Literal("007", xsdInteger), G: ex("g1")},
			{P: kb.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#first"), O: kb.Literal("2", xsdInteger), G: ex("g2")},
		}},
		{"sample.rdf", kb.IRI("urn:g:xml"), 4, 1, []kb.TermQuad{
			{S: ex("exp/e1"), P: kb.IRI(perfonto + "hasMetricValue"), O: kb.Literal("007", xsdInteger), G: kb.IRI("urn:g:xml")},
			{S: ex("exp/e1"), P: kb.IRI(perfonto + "label"), O: kb.LangLiteral("Experiment one", "en-gb")},
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			ds := kbtest.NewMemory()
			sum, err := rdfio.LoadFile(ctx, ds, filepath.Join("testdata", tc.file), rdfio.LoadOptions{Graph: tc.graph})
			if err != nil {
				t.Fatalf("LoadFile: %v", err)
			}
			if sum.Triples != tc.triples || sum.Graphs != tc.graphs {
				t.Errorf("summary = %d triples in %d graphs; want %d in %d", sum.Triples, sum.Graphs, tc.triples, tc.graphs)
			}
			for _, q := range tc.want {
				if !hasQuad(t, ds, q) {
					t.Errorf("missing %v; store has:\n%s", q, strings.Join(termQuads(t, ds, true), "\n"))
				}
			}
		})
	}
}

func TestLoadNTriplesLineEndingsAndBOM(t *testing.T) {
	doc := "\xEF\xBB\xBF<http://e/s> <http://e/p> \"a\" .\r\n<http://e/s> <http://e/p> \"b\" . # note\r\n\r\n"
	ds := kbtest.NewMemory()
	sum, err := rdfio.Load(context.Background(), ds, strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.NTriples})
	if err != nil || sum.Triples != 2 {
		t.Fatalf("Load with a BOM and CRLF = %+v, %v; want 2 triples", sum, err)
	}
	if !hasQuad(t, ds, kb.TermQuad{S: kb.IRI("http://e/s"), O: kb.String("b")}) {
		t.Errorf("missing the second triple")
	}
}

func TestLoadBlankNodesPerLoad(t *testing.T) {
	ctx := context.Background()
	ds := kbtest.NewMemory()
	const doc = "_:x <http://example.org/p> _:y .\n_:y <http://example.org/p> _:x .\n"
	for i := 0; i < 2; i++ {
		if _, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
			t.Fatal(err)
		}
	}
	quads := termQuads(t, ds, true)
	if len(quads) != 4 {
		t.Fatalf("two loads of 2 triples with blank nodes gave %d quads; want 4:\n%s", len(quads), strings.Join(quads, "\n"))
	}
	blanks := make(map[string]bool)
	for _, q := range quads {
		for _, f := range strings.Fields(q) {
			if strings.HasPrefix(f, "_:") {
				blanks[f] = true
			}
		}
	}
	if len(blanks) != 4 {
		t.Errorf("got blank nodes %v; want 4 distinct (x and y per load)", blanks)
	}
}

func TestLoadSyntaxErrors(t *testing.T) {
	tests := []struct {
		name      string
		format    string
		input     string
		line, col int
		msg       string
	}{
		{"nt missing dot", rdfio.NTriples, "<http://a> <http://b> <http://c>\n", 1, 33, "expected '.' after the object, found end of line"},
		{"nt error on line 3", rdfio.NTriples, "<http://a> <http://b> <http://c> .\n# comment\n<http://a> <http://b> \"abc .\n", 3, 23, "unterminated string literal"},
		{"nt relative IRI", rdfio.NTriples, "<http://a> <http://b> <c> .\n", 1, 23, "object IRI <c> is relative"},
		{"nt column counts characters", rdfio.NTriples, "<http://a> <http://ü> \"ü\" x .\n", 1, 27, `expected '.' after the object, found "x"`},
		{"nt escaped space in IRI", rdfio.NTriples, "<http://a/\\u0020b> <http://b> <http://c> .\n", 1, 11, "escaped character U+0020 is not allowed in an IRI"},
		{"nt lone surrogate", rdfio.NTriples, "<http://a> <http://b> \"\\uD800\" .\n", 1, 24, "invalid escape sequence"},
		{"nt literal subject", rdfio.NTriples, "\n\n  \"s\" <http://b> <http://c> .\n", 3, 3, "expected a subject"},
		{"nt bad escape", rdfio.NTriples, "<http://a> <http://b> \"a\\qb\" .\n", 1, 25, `invalid escape sequence \q`},
		{"nt bad language tag", rdfio.NTriples, "<http://a> <http://b> \"a\"@ .\n", 1, 26, "invalid language tag"},
		{"nt graph not allowed", rdfio.NTriples, "<http://a> <http://b> <http://c> <http://g> .\n", 1, 34, "expected '.'"},
		{"nt trailing garbage", rdfio.NTriples, "<http://a> <http://b> <http://c> . x\n", 1, 36, "expected end of line"},
		{"nq literal graph", rdfio.NQuads, "<http://a> <http://b> <http://c> <http://g> .\n<http://a> <http://b> <http://c> \"g\" .\n", 2, 34, "expected a graph name or '.'"},
		{"ttl missing terminator", rdfio.Turtle, "@prefix ex: <http://ex/> .\nex:a ex:b ex:c\nex:d ex:e ex:f .\n", 3, 1, "expected '.' after the triples, found 'e'"},
		{"ttl unknown prefix", rdfio.Turtle, "@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\n\nex:a ex:b nope:c .\n", 4, 11, `undeclared prefix "nope:"`},
		{"ttl bad literal", rdfio.Turtle, "@prefix ex: <http://ex/> .\n\n\nex:a ex:b \"unterminated .\n", 4, 26, "line break in a string"},
		{"ttl bad IRI", rdfio.Turtle, "@prefix ex: <http://ex/> .\nex:a ex:b ex:c .\nex:a ex:b <http://bad iri> .\n", 3, 22, "character ' ' is not allowed in an IRI"},
		{"ttl relative IRI without base", rdfio.Turtle, "<a> <http://ex/b> <http://ex/c> .\n", 1, 1, "relative IRI <a>"},
		{"rdfxml mismatched tag", rdfio.RDFXML, "<?xml version=\"1.0\"?>\n<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns:ex=\"http://ex/\">\n<rdf:Description rdf:about=\"http://ex/a\">\n<ex:b>x</ex:c>\n</rdf:Description>\n</rdf:RDF>\n", 4, 8, "element <ex:b> closed by </ex:c>"}, // at the '<' of </ex:c>
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx := context.Background()
			ds := kbtest.NewMemory()
			// Something already stored must survive the failed load.
			if _, err := rdfio.Load(ctx, ds, strings.NewReader("<http://x> <http://y> <http://z> .\n"), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
				t.Fatal(err)
			}
			before := termQuads(t, ds, true)
			_, err := rdfio.Load(ctx, ds, strings.NewReader(tc.input), rdfio.LoadOptions{Format: tc.format, SourceName: "in.data", BatchSize: 1})
			var se *textpos.Error
			if !errors.As(err, &se) {
				t.Fatalf("Load error = %v (%T); want a *textpos.Error", err, err)
			}
			if se.Pos.Source != "in.data" || se.Pos.Line != tc.line || (tc.col != 0 && se.Pos.Column != tc.col) || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("error = %q (line %d, column %d); want line %d, column %d, message containing %q", se, se.Pos.Line, se.Pos.Column, tc.line, tc.col, tc.msg)
			}
			if !strings.HasPrefix(se.Error(), "in.data:") {
				t.Errorf("error text %q does not start with the source name", se)
			}
			if !se.InvalidInput() {
				t.Errorf("InvalidInput() = false")
			}
			if after := termQuads(t, ds, true); strings.Join(after, "\n") != strings.Join(before, "\n") {
				t.Errorf("a failed load changed the store:\nbefore %v\nafter  %v", before, after)
			}
		})
	}
}

func TestLoadProgressAndCancel(t *testing.T) {
	var doc strings.Builder
	for i := 0; i < 95; i++ {
		doc.WriteString("<http://example.org/s> <http://example.org/p> \"" + strings.Repeat("x", i) + "\" .\n")
	}
	ds := kbtest.NewMemory()
	var calls []int64
	sum, err := rdfio.Load(context.Background(), ds, strings.NewReader(doc.String()), rdfio.LoadOptions{
		Format: rdfio.NTriples, BatchSize: 10, Progress: func(n int64) { calls = append(calls, n) }})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Triples != 95 || sum.Graphs != 1 {
		t.Errorf("summary %+v; want 95 triples in 1 graph", sum)
	}
	if len(calls) != 10 || calls[0] != 10 || calls[9] != 95 {
		t.Errorf("progress calls %v; want 10, 20, …, 90, 95", calls)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	ds2 := kbtest.NewMemory()
	if _, err := rdfio.Load(ctx, ds2, strings.NewReader(doc.String()), rdfio.LoadOptions{Format: rdfio.NTriples, BatchSize: 10}); !errors.Is(err, context.Canceled) {
		t.Errorf("Load with a cancelled context: %v; want context.Canceled", err)
	}
	if n, _ := ds2.Count(context.Background(), kb.Pattern{}, true); n != 0 {
		t.Errorf("a cancelled load stored %d quads", n)
	}
}

func TestLoadFormatDetection(t *testing.T) {
	tests := []struct {
		name string
		want string
		ok   bool
	}{
		{"a.nt", rdfio.NTriples, true}, {"b.NQ", rdfio.NQuads, true}, {"c.ttl.gz", rdfio.Turtle, true},
		{"perfonto.owl", rdfio.RDFXML, true}, {"x.rdf", rdfio.RDFXML, true}, {"x.json", "", false}, {"-", "", false},
	}
	for _, tc := range tests {
		f, ok := rdfio.ByFileName(tc.name)
		got := ""
		if ok {
			got = f.Name
		}
		if got != tc.want || ok != tc.ok {
			t.Errorf("ByFileName(%q) = %q, %v; want %q, %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
	for _, name := range []string{"nt", "N-Triples", "nquads", "ttl", "text/turtle", "rdf/xml"} {
		if _, err := rdfio.ParseFormat(name); err != nil {
			t.Errorf("ParseFormat(%q): %v", name, err)
		}
	}
	if f, err := rdfio.ParseFormat("json-ld"); err != nil || f != "jsonld" {
		t.Errorf("ParseFormat(json-ld) = %q, %v; want jsonld (kb/rdfio/jsonld.go)", f, err)
	}
	if _, err := rdfio.ParseFormat("json"); err == nil {
		t.Errorf("ParseFormat(json) succeeded")
	}
	_, err := rdfio.Load(context.Background(), kbtest.NewMemory(), strings.NewReader(""), rdfio.LoadOptions{SourceName: "data.csv"})
	if err == nil || !strings.Contains(err.Error(), "data.csv") {
		t.Errorf("Load without a format: %v; want an error naming the source", err)
	}
}

func TestExportRoundTrip(t *testing.T) {
	ctx := context.Background()
	src := kbtest.NewMemory()
	for _, f := range []string{"sample.nt", "sample.nq", "sample.ttl", "sample.rdf"} {
		if _, err := rdfio.LoadFile(ctx, src, filepath.Join("testdata", f), rdfio.LoadOptions{Graph: kb.IRI("urn:g:" + f)}); err != nil {
			t.Fatal(err)
		}
	}
	want := termQuads(t, src, false)
	for _, format := range []string{rdfio.NQuads, rdfio.NTriples, rdfio.Turtle} {
		t.Run(string(format), func(t *testing.T) {
			var buf bytes.Buffer
			if err := rdfio.Export(ctx, src, &buf, rdfio.ExportOptions{Format: format}); err != nil {
				t.Fatalf("Export: %v", err)
			}
			dst := kbtest.NewMemory()
			if _, err := rdfio.Load(ctx, dst, bytes.NewReader(buf.Bytes()), rdfio.LoadOptions{Format: format}); err != nil {
				t.Fatalf("re-loading the export: %v\n%s", err, buf.String())
			}
			got := termQuads(t, dst, false)
			if format == rdfio.NQuads {
				if strings.Join(got, "\n") != strings.Join(want, "\n") {
					t.Errorf("N-Quads round trip differs:\ngot  %s\nwant %s", strings.Join(got, "\n     "), strings.Join(want, "\n     "))
				}
				return
			}
			// Triples formats merge the graphs: each distinct triple once,
			// in the default graph.
			wantTriples := mergedTriples(t, src)
			if strings.Join(got, "\n") != strings.Join(wantTriples, "\n") {
				t.Errorf("%s round trip: %d triples, want %d:\ngot  %s\nwant %s", format, len(got), len(wantTriples), strings.Join(got, "\n     "), strings.Join(wantTriples, "\n     "))
			}
		})
	}
}

func TestExportGraphsAndExactLiterals(t *testing.T) {
	ctx := context.Background()
	ds := kbtest.NewMemory()
	doc := `<http://e/s> <http://e/p> "007"^^<http://www.w3.org/2001/XMLSchema#integer> <http://e/g1> .
<http://e/s> <http://e/p> "hi"@en-gb <http://e/g2> .
<http://e/s> <http://e/p> "plain" .
`
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatal(err)
	}
	g1, _, _ := ds.Lookup(ctx, kb.IRI("http://e/g1"))
	tests := []struct {
		opts rdfio.ExportOptions
		want string
	}{
		{rdfio.ExportOptions{Format: rdfio.NTriples, Graphs: []kb.ID{g1}}, "<http://e/s> <http://e/p> \"007\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"},
		{rdfio.ExportOptions{Format: rdfio.NQuads, Graphs: []kb.ID{g1}}, "<http://e/s> <http://e/p> \"007\"^^<http://www.w3.org/2001/XMLSchema#integer> <http://e/g1> .\n"},
		{rdfio.ExportOptions{Format: rdfio.Turtle, Graphs: []kb.ID{g1}}, "\n<http://e/s> <http://e/p> \"007\"^^xsd:integer .\n"},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		if err := rdfio.Export(ctx, ds, &buf, tc.opts); err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(buf.String(), tc.want) {
			t.Errorf("Export(%+v) = %q; want it to end with %q", tc.opts, buf.String(), tc.want)
		}
	}
	var buf bytes.Buffer
	if err := rdfio.Export(ctx, ds, &buf, rdfio.ExportOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	sort.Strings(lines)
	want := strings.Split(strings.TrimSpace(doc), "\n")
	sort.Strings(want)
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("N-Quads export:\n%s\nwant\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	if err := rdfio.Export(ctx, ds, io.Discard, rdfio.ExportOptions{Format: "json"}); err == nil {
		t.Errorf("Export as json succeeded; want an error (no such RDF format)")
	}
}

// TestExportEveryFormatRoundTrip exports the sample dataset in every
// format and loads it back: the result is isomorphic to the original (the
// merge of all graphs for the triple formats).
func TestExportEveryFormatRoundTrip(t *testing.T) {
	ctx := context.Background()
	orig, err := loadQuads(filepath.Join("testdata", "sample.nq"), rdfio.NQuads, "")
	if err != nil {
		t.Fatal(err)
	}
	ds := kbtest.NewMemory()
	if _, err := rdfio.LoadFile(ctx, ds, filepath.Join("testdata", "sample.nq"), rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, f := range []string{rdfio.NTriples, rdfio.NQuads, rdfio.Turtle, rdfio.TriG, rdfio.RDFXML, "jsonld"} {
		t.Run(string(f), func(t *testing.T) {
			var buf bytes.Buffer
			if err := rdfio.Export(ctx, ds, &buf, rdfio.ExportOptions{Format: f}); err != nil {
				t.Fatal(err)
			}
			path := filepath.Join(t.TempDir(), "out")
			if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			got, err := loadQuads(path, f, "")
			if err != nil {
				t.Fatalf("reading the export back: %v\n%s", err, buf.String())
			}
			want := orig
			if f != rdfio.NQuads && f != rdfio.TriG && f != "jsonld" {
				want = nil
				for _, q := range orig {
					q.G = kb.DefaultGraph
					want = append(want, q)
				}
			}
			if why := rdfio.Isomorphic(got, want); why != "" {
				t.Errorf("%s export read back is not the data: %s\n%s", f, why, buf.String())
			}
		})
	}
}

func TestLoadFileGzipAndMissing(t *testing.T) {
	data, err := os.ReadFile(filepath.Join("testdata", "sample.nt"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "sample.nt.gz")
	var buf bytes.Buffer
	zw := gzip.NewWriter(&buf)
	zw.Write(data)
	zw.Close()
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	sum, err := rdfio.LoadFile(context.Background(), kbtest.NewMemory(), path, rdfio.LoadOptions{})
	if err != nil || sum.Triples != 10 {
		t.Errorf("LoadFile(gzip) = %+v, %v; want 10 triples", sum, err)
	}
	if _, err := rdfio.LoadFile(context.Background(), kbtest.NewMemory(), filepath.Join("testdata", "no-such.nt"), rdfio.LoadOptions{}); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("LoadFile(missing) = %v; want os.ErrNotExist", err)
	}
}

// TestLoadTurtleErrorEndsParser checks that a failed Turtle load leaves no
// goroutine behind (knakk/rdf's lexer, used before, ran in one that waited
// for the rest of a long input to be read).
func TestLoadTurtleErrorEndsParser(t *testing.T) {
	var doc strings.Builder
	doc.WriteString("@prefix ex: <http://ex/> .\nex:a ex:b ex:c ;\n")
	doc.WriteString("ex:oops\n") // missing object
	for i := 0; i < 20000; i++ {
		doc.WriteString("ex:s ex:p ex:o .\n")
	}
	before := runtime.NumGoroutine()
	for i := 0; i < 5; i++ {
		if _, err := rdfio.Load(context.Background(), kbtest.NewMemory(), strings.NewReader(doc.String()), rdfio.LoadOptions{Format: rdfio.Turtle}); err == nil {
			t.Fatal("Load of bad Turtle succeeded")
		}
	}
	deadline := time.Now().Add(5 * time.Second)
	for runtime.NumGoroutine() > before && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if n := runtime.NumGoroutine(); n > before {
		t.Errorf("%d goroutines after 5 failed Turtle loads, %d before: the parser's lexer is left running", n, before)
	}
}

func TestLoadQuadsAtomic(t *testing.T) {
	ctx := context.Background()
	ds := kbtest.NewMemory()
	g := kb.IRI("http://example.org/g")
	quads := []kb.TermQuad{
		{S: kb.IRI("http://example.org/s"), P: kb.IRI("http://example.org/p"), O: kb.Blank("x")},
		{S: kb.IRI("http://example.org/s"), P: kb.IRI("http://example.org/q"), O: kb.IRI("http://example.org/o")},
	}
	feed := func(failAt int) func() (kb.TermQuad, error) {
		i := 0
		return func() (kb.TermQuad, error) {
			if i == failAt {
				return kb.TermQuad{}, errors.New("converter failed")
			}
			if i == len(quads) {
				return kb.TermQuad{}, io.EOF
			}
			i++
			return quads[i-1], nil
		}
	}
	if _, err := rdfio.LoadQuads(ctx, ds, feed(1), rdfio.LoadOptions{Graph: g, BatchSize: 1}); err == nil || err.Error() != "converter failed" {
		t.Fatalf("LoadQuads with a failing source: err = %v, want the source's error", err)
	}
	if n, err := ds.Count(ctx, kb.Pattern{}, true); err != nil || n != 0 {
		t.Fatalf("after a failed LoadQuads the store holds %d quads (err %v), want 0", n, err)
	}
	sum, err := rdfio.LoadQuads(ctx, ds, feed(-1), rdfio.LoadOptions{Graph: g})
	if err != nil {
		t.Fatal(err)
	}
	if sum.Triples != 2 || sum.Graphs != 1 || sum.GraphNames[0] != g {
		t.Fatalf("summary = %+v, want 2 triples into %v", sum, g)
	}
	if n, _ := ds.Count(ctx, kb.Pattern{}, true); n != 2 {
		t.Fatalf("store holds %d quads, want 2", n)
	}
}

// TestLoadTurtleHostileInputs holds inputs that crashed the process or
// corrupted data through knakk/rdf's Turtle parser (issue 16, defects 1, 5
// and 10): each load fails with a positioned *textpos.Error and stores
// nothing, or stores exactly the statements written.
func TestLoadTurtleHostileInputs(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, doc string
		line, col int
	}{
		{"line starting with .5", "<http://a/s> <http://a/p> <http://a/o> .\n.5\n", 2, 1},
		{"four quotes", `<http://a/s> <http://a/p> """"x"`, 1, 27},
		{"unclosed [ in the last statement", "@prefix ex: <http://ex/> .\nex:s ex:p [ ex:p ex:o .", 2, 23},
		{"unclosed ( in the last statement", "@prefix ex: <http://ex/> .\nex:s ex:p ( ex:o .", 2, 18},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := kbtest.NewMemory()
			_, err := rdfio.Load(ctx, ds, strings.NewReader(tc.doc), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "in.ttl"})
			var se *textpos.Error
			if !errors.As(err, &se) || se.Pos.Line != tc.line || se.Pos.Column != tc.col {
				t.Fatalf("Load = %v; want a *textpos.Error at in.ttl:%d:%d", err, tc.line, tc.col)
			}
			if n, _ := ds.Count(ctx, kb.Pattern{}, true); n != 0 {
				t.Errorf("the failed load stored %d quads", n)
			}
		})
	}
	// [] must not merge with an explicit _:b1 (knakk named it b1).
	ds := kbtest.NewMemory()
	doc := "@prefix ex: <http://ex/> .\n_:b1 ex:p ex:o1 .\n[] ex:p ex:o2 .\n[ ex:q ex:o3 ] ex:p ex:o4 .\n_:b2 ex:p ex:o5 .\n"
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.Turtle}); err != nil {
		t.Fatal(err)
	}
	p, _, _ := ds.Lookup(ctx, kb.IRI("http://ex/p"))
	it := ds.Match(ctx, kb.Pattern{P: p})
	subjects := map[kb.ID]bool{}
	for it.Next() {
		subjects[it.Quad().S] = true
	}
	it.Close()
	if len(subjects) != 4 {
		t.Errorf("4 distinct blank subjects of ex:p written, %d stored: anonymous nodes merged with labelled ones", len(subjects))
	}
}

func TestParseTermRoundTrip(t *testing.T) {
	for _, term := range []kb.Term{kb.IRI("http://ex/é"), kb.Blank("x"), kb.LangLiteral("chat", "FR"), kb.Literal("1", "http://www.w3.org/2001/XMLSchema#integer"), kb.String("a\"\n\\")} {
		got, err := rdfio.ParseTerm(term.String())
		if err != nil || got != term {
			t.Errorf("ParseTerm(%q) = %v, %v; want %v", term.String(), got, err, term)
		}
	}
}
