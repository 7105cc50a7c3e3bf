package main

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb/store"
)

// TestQueryCLIAndHTTPGiveTheSameBytes runs the same queries on the same
// store through `perfkb query --format F` and through /sparql with F's
// media type, and requires byte-identical bodies: both faces write SPARQL
// results (JSON, XML, CSV, TSV) and CONSTRUCT/DESCRIBE graphs (Turtle,
// N-Triples, N-Quads, RDF/XML) with the one encoder in query/results.
func TestQueryCLIAndHTTPGiveTheSameBytes(t *testing.T) {
	dir := t.TempDir()
	spec := "native:" + filepath.Join(dir, "kb")
	var stdout, stderr bytes.Buffer
	if code := run([]string{"--store", spec, "load", "testdata/results-formats.ttl"}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
		t.Fatalf("load: exit %d: %s", code, stderr.String())
	}
	queries := map[string]string{
		"select": `SELECT ?s ?p ?o ?n WHERE {
			?s ?p ?o FILTER(STRSTARTS(STR(?p), "http://example.org/"))
			OPTIONAL { ?o <http://example.org/int> ?n }
		} ORDER BY ?s ?p ?o`,
		"computed": `SELECT ?s (?n * 2 AS ?twice) (?n / 8 AS ?eighth) (xsd:double(?n) AS ?d) (STR(?n) AS ?str) WHERE {
			?s <http://example.org/int> ?n
		} ORDER BY ?s`,
		"empty":     `SELECT ?s WHERE { ?s <http://example.org/none> ?o }`,
		"ask true":  `ASK { ?s <http://example.org/int> 42 }`,
		"ask false": `ASK { ?s <http://example.org/int> 43 }`,
	}
	formats := []struct{ name, accept string }{
		{"json", "application/sparql-results+json"},
		{"xml", "application/sparql-results+xml"},
		{"csv", "text/csv"},
		{"tsv", "text/tab-separated-values"},
	}
	graphQueries := map[string]string{
		"construct": `CONSTRUCT { ?s ?p ?o . ?s a <http://www.par.univie.ac.at/project/scalea/perfonto#Region> } WHERE {
			?s ?p ?o FILTER(STRSTARTS(STR(?p), "http://example.org/"))
		}`,
		"describe": `DESCRIBE <http://example.org/a>`,
	}
	graphFormats := []struct{ name, accept string }{
		{"turtle", "text/turtle"},
		{"ntriples", "application/n-triples"},
		{"nquads", "application/n-quads"},
		{"rdfxml", "application/rdf+xml"},
		{"jsonld", "application/ld+json"},
	}
	type job struct{ qname, q, format, accept string }
	var jobs []job
	for qname, q := range queries {
		for _, f := range formats {
			jobs = append(jobs, job{qname, q, f.name, f.accept})
		}
	}
	for qname, q := range graphQueries {
		for _, f := range graphFormats {
			jobs = append(jobs, job{qname, q, f.name, f.accept})
		}
	}

	// The CLI first: the store is opened by one process at a time.
	cli := map[string]string{}
	for _, j := range jobs {
		q := "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n" + j.q
		stdout.Reset()
		stderr.Reset()
		if code := run([]string{"--store", spec, "query", "--format", j.format, "-e", q}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
			t.Fatalf("%s --format %s: exit %d: %s", j.qname, j.format, code, stderr.String())
		}
		cli[j.qname+" "+j.format] = stdout.String()
	}

	ctx := context.Background()
	ds, err := store.Open(ctx, spec, store.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	var flags serveFlags
	fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
	flags.bind(fs)
	if err := fs.Parse(nil); err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(newHTTPServer(t.Context(), ds, flags, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer hs.Close()

	for _, j := range jobs {
		q := "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n" + j.q
		req, err := http.NewRequest(http.MethodGet, hs.URL+"/sparql?query="+url.QueryEscape(q), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Accept", j.accept)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			t.Fatal(err)
		}
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s %s: HTTP %d: %s", j.qname, j.format, resp.StatusCode, body)
		}
		want := cli[j.qname+" "+j.format]
		if string(body) != want {
			t.Errorf("%s in %s: HTTP and CLI differ\n--- HTTP ---\n%s\n--- CLI ---\n%s", j.qname, j.format, body, want)
		}
		if len(want) == 0 {
			t.Errorf("%s in %s: empty output", j.qname, j.format)
		}
	}
	// The comparison is only worth something if the outputs hold the
	// terms: spot-check the encodings that differed before.
	for key, frag := range map[string]string{
		"select tsv":        "<http://example.org/a>\t<http://example.org/int>\t42\t\n",
		"select json":       `"value":"tab\there, \"quoted\"\nnext line; comma, \u003c\u0026\u003e é \u2028"`,
		"computed tsv":      "\n<http://example.org/a>\t84\t5.25\t\"42\"^^<http://www.w3.org/2001/XMLSchema#double>\t\"42\"\n",
		"ask true csv":      "_askResult\r\ntrue\r\n",
		"construct turtle":  "@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .\n",
		"describe ntriples": "<http://example.org/a> <http://example.org/int> \"42\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n",
	} {
		if !strings.Contains(cli[key], frag) {
			t.Errorf("%s lacks %q:\n%s", key, frag, cli[key])
		}
	}
}
