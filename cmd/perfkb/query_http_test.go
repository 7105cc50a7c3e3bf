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
// results with the one encoder in query/results.
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

	// The CLI first: the store is opened by one process at a time.
	cli := map[string]string{}
	for qname, q := range queries {
		q = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n" + q
		for _, f := range formats {
			stdout.Reset()
			stderr.Reset()
			if code := run([]string{"--store", spec, "query", "--format", f.name, "-e", q}, strings.NewReader(""), &stdout, &stderr); code != exitOK {
				t.Fatalf("%s --format %s: exit %d: %s", qname, f.name, code, stderr.String())
			}
			cli[qname+" "+f.name] = stdout.String()
		}
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
	hs := httptest.NewServer(newHTTPServer(ds, flags, slog.New(slog.NewTextHandler(io.Discard, nil))))
	defer hs.Close()

	for qname, q := range queries {
		q = "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\n" + q
		for _, f := range formats {
			req, err := http.NewRequest(http.MethodGet, hs.URL+"/sparql?query="+url.QueryEscape(q), nil)
			if err != nil {
				t.Fatal(err)
			}
			req.Header.Set("Accept", f.accept)
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
				t.Fatalf("%s %s: HTTP %d: %s", qname, f.name, resp.StatusCode, body)
			}
			want := cli[qname+" "+f.name]
			if string(body) != want {
				t.Errorf("%s in %s: HTTP and CLI differ\n--- HTTP ---\n%s\n--- CLI ---\n%s", qname, f.name, body, want)
			}
			if len(want) == 0 {
				t.Errorf("%s in %s: empty output", qname, f.name)
			}
		}
	}
	// The comparison is only worth something if the outputs hold the
	// terms: spot-check the encodings that differed before.
	for key, frag := range map[string]string{
		"select tsv":   "<http://example.org/a>\t<http://example.org/int>\t42\t\n",
		"select json":  `"value":"tab\there, \"quoted\"\nnext line; comma, \u003c\u0026\u003e é \u2028"`,
		"computed tsv": "\n<http://example.org/a>\t84\t5.25\t\"42\"^^<http://www.w3.org/2001/XMLSchema#double>\t\"42\"\n",
		"ask true csv": "_askResult\r\ntrue\r\n",
	} {
		if !strings.Contains(cli[key], frag) {
			t.Errorf("%s lacks %q:\n%s", key, frag, cli[key])
		}
	}
}
