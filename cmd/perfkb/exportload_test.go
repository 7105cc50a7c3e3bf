package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// exportLoadInputs are files of every RDF format with the terms that are
// hard to round-trip: blank nodes (nested, lists, shared across graphs of
// one file), language tags with regions and scripts, every escape, control
// and non-BMP characters, typed literals whose lexical form is not
// canonical, long literals, IRIs with percent-escapes and non-ASCII.
var exportLoadInputs = map[string]string{
	"a.nt": `<http://e/s> <http://e/p> "tab\there, newline\nthere, quote\" backslash\\ cr\r" .
<http://e/s> <http://e/p> "Ünïcödé 漢字 😀 \u0001\u007F" .
<http://e/s> <http://e/p> "007"^^<http://www.w3.org/2001/XMLSchema#integer> .
<http://e/s> <http://e/p> "1.50E3"^^<http://www.w3.org/2001/XMLSchema#double> .
<http://e/s> <http://e/p> "x"@zh-Hant-TW .
<http://e/caf%C3%A9> <http://e/p> <http://e/café/x?q=1#f> .
_:a <http://e/knows> _:b .
_:b <http://e/knows> _:a .
`,
	"b.nq": `<http://e/s> <http://e/p> "in g1" <http://e/g1> .
_:x <http://e/p> "shared label, two graphs" <http://e/g1> .
_:x <http://e/p> "shared label, two graphs" <http://e/g2> .
<http://e/s> <http://e/p> "default graph" .
`,
	"c.ttl": `@prefix ex: <http://e/> .
ex:t ex:list ( 1 2.5 "3"^^<http://www.w3.org/2001/XMLSchema#double> ( ex:nested ) ) ;
  ex:node [ ex:q "x"@en-GB ; ex:r """long
multi-line "quoted" text""" ; ex:deeper [ ex:z true ] ] .
`,
	"d.trig": `@prefix ex: <http://e/> .
ex:g3 { ex:u ex:v [ ex:w "in a TriG graph" ] . }
{ ex:u ex:v "TriG default graph" . }
`,
	"e.rdf": `<?xml version="1.0"?>
<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://e/">
  <rdf:Description rdf:about="http://e/x">
    <ex:lit xml:lang="de-AT">Grüße</ex:lit>
    <ex:typed rdf:datatype="http://www.w3.org/2001/XMLSchema#decimal">1.0</ex:typed>
    <ex:blank><rdf:Description><ex:inner>value</ex:inner></rdf:Description></ex:blank>
    <ex:xml rdf:parseType="Literal"><b xmlns="http://www.w3.org/1999/xhtml">bold</b></ex:xml>
  </rdf:Description>
</rdf:RDF>
`,
	"f.jsonld": `{"@context": {"ex": "http://e/"},
 "@graph": [{"@id": "ex:j", "ex:name": {"@value": "JSON-LD", "@language": "fr-CA"},
             "ex:n": {"@value": "42", "@type": "http://www.w3.org/2001/XMLSchema#long"},
             "ex:b": {"ex:c": "blank in JSON-LD"}}]}
`,
}

// TestExportLoadEveryWritePath builds a store through every way perfkb
// writes (load of each RDF format, SPARQL Update on the command line,
// a converter, the reasoner with its derivation records, analyses and
// models, and over HTTP the Graph Store Protocol, SPARQL Update and a rule
// run), then exports it in every RDF format and loads each export into an
// empty store: the reloaded store's N-Quads export equals the original's
// byte for byte, sorted, for every statement without blank nodes, and the
// two are isomorphic (a load mints fresh blank nodes, so their labels
// differ). Formats without named graphs are exported and loaded one graph
// at a time. The reasoner's derivation records are the one exception:
// they name the store's own term IDs, so exports leave them out and loads
// refuse them.
func TestExportLoadEveryWritePath(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfkb and runs it 40 times (about a minute): not in -short")
	}
	dir := t.TempDir()
	e := &fedEnv{bin: buildPerfkb(t, dir), dir: dir, env: os.Environ(), sites: map[string]*siteProc{}}
	src := "native:" + filepath.Join(dir, "src.db")
	for name, data := range exportLoadInputs {
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
		args := []string{"--store", src, "load"}
		if !strings.HasSuffix(name, ".nq") && !strings.HasSuffix(name, ".trig") && !strings.HasSuffix(name, ".jsonld") {
			args = append(args, "--graph", "http://e/file/"+name)
		}
		if strings.HasSuffix(name, ".jsonld") {
			args = append(args, "--format", "jsonld")
		}
		e.mustRun(t, append(args, path)...)
	}
	e.mustRun(t, "--store", src, "query", "--update", "-e", `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
INSERT DATA { GRAPH <http://e/update> {
  <http://e/u> <http://e/p> "update\u00A0literal"@en-Latn-US , "2026-11-27T10:00:00.5+01:00"^^xsd:dateTime , "-0"^^xsd:decimal .
  <http://e/u> <http://e/q> [ <http://e/r> "bnode from INSERT DATA" ] } } ;
INSERT { GRAPH <http://e/update> { ?iri <http://e/from> ?s . ?s <http://e/fresh> ?b } }
WHERE { BIND(IRI(CONCAT("http://e/made/", ENCODE_FOR_URI("a b/ü"))) AS ?iri) BIND(STRLANG("made", "nl") AS ?s0)
        BIND(BNODE() AS ?b) VALUES ?s { <http://e/s> } }`)
	tau := filepath.Join("..", "..", "convert", "tau", "testdata", "example")
	if _, err := os.Stat(tau); err != nil {
		t.Fatalf("TAU sample: %v", err)
	}
	abs, err := filepath.Abs(tau)
	if err != nil {
		t.Fatal(err)
	}
	e.mustRun(t, "--store", src, "convert", "tau", abs, "--base", "http://e/tau/")
	e.mustRun(t, "--store", src, "sample", "--sites", "1", "--triples", "3000", "--scaling", "-o", filepath.Join(dir, "sample.nq"))
	e.mustRun(t, "--store", src, "load", filepath.Join(dir, "sample.nq"))
	e.mustRun(t, "--store", src, "analyze")
	e.mustRun(t, "--store", src, "model")
	e.mustRun(t, "--store", src, "reason")

	// Over HTTP: GSP PUT and POST, SPARQL Update, a rule run.
	const tok = "export-load-token-0001"
	site := e.serve(t, filepath.Join(dir, "src.db"), "--token", tok)
	for _, r := range []struct{ method, path, ctype, body string }{
		{"PUT", "/data?graph=http://e/gsp", "text/turtle", "<http://e/h> <http://e/p> [ <http://e/q> \"GSP PUT\"@en ] .\n"},
		{"POST", "/data?graph=http://e/gsp", "application/n-triples", "_:z <http://e/p> \"GSP POST \\u00e9\" .\n"},
		{"POST", "/sparql", "application/sparql-update", `INSERT DATA { GRAPH <http://e/http-update> { <http://e/h> <http://e/p> "over HTTP"@de-CH , _:y } }`},
		{"POST", "/rules/run", "text/plain", "[copy: (?a <http://e/knows> ?b) -> (?b <http://e/knownBy> ?a)]"},
	} {
		req, err := http.NewRequest(r.method, site.url+r.path, strings.NewReader(r.body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", r.ctype)
		req.Header.Set("Authorization", "Bearer "+tok)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %s", r.method, r.path, resp.StatusCode, body)
		}
	}
	site.stop()

	want := readExport(t, e.mustRun(t, "--store", src, "export", "--format", "nquads"))
	if strings.Contains(want.ground, kb.DerivationsGraphIRI) {
		t.Fatalf("a whole-store export holds the derivation records")
	}
	// The records are there, and may be exported by name, but not loaded.
	recs := filepath.Join(dir, "derivations.nq")
	e.mustRun(t, "--store", src, "export", "--format", "nquads", "--graph", kb.DerivationsGraphIRI, "-o", recs)
	if fi, err := os.Stat(recs); err != nil || fi.Size() == 0 {
		t.Fatalf("the reasoner wrote no derivation records to export (%v)", err)
	}
	if _, stderr, code := e.run(t, "--store", "native:"+filepath.Join(dir, "recs.db"), "load", recs); code == 0 || !strings.Contains(stderr, "derivation records") {
		t.Errorf("loading derivation records: exit %d, %s; want refused", code, stderr)
	}
	graphs := graphsOf(t, e, src)
	if len(graphs) < 12 {
		t.Fatalf("the source store has %d graphs, want every write path's (12 or more): %v", len(graphs), graphs)
	}
	for _, format := range []string{"nquads", "trig", "jsonld", "ntriples", "turtle", "rdfxml"} {
		t.Run(format, func(t *testing.T) {
			dst := "native:" + filepath.Join(dir, format+".db")
			dataset := format == "nquads" || format == "trig" || format == "jsonld"
			// XML 1.0 cannot hold U+0001 (a.nt has it), and neither
			// RDF/XML 1.1 nor JSON-LD 1.1 has triple terms (the TAU
			// converter's annotations of its values hold them): those
			// formats refuse such a graph, saying why, and are compared
			// without it.
			unwritable := map[string]string{}
			if format == "rdfxml" {
				unwritable["http://e/file/a.nt"] = "XML 1.0 does not allow the character U+0001"
			}
			if format == "rdfxml" || format == "jsonld" {
				unwritable["http://e/tau"] = "cannot write the triple term"
			}
			for g, why := range unwritable {
				args := []string{"--store", src, "export", "--format", format, "--graph", g, "-o", filepath.Join(dir, "refused."+format)}
				if _, stderr, code := e.run(t, args...); code == 0 || !strings.Contains(stderr, why) {
					t.Errorf("%s export of %s: exit %d, %q; want refused: %s", format, g, code, stderr, why)
				}
			}
			if format == "jsonld" {
				// The dataset less the refused graph, in one document.
				out := filepath.Join(dir, "all."+format)
				args := []string{"--store", src, "export", "--format", format, "-o", out}
				for _, g := range graphs {
					if unwritable[g] == "" {
						args = append(args, "--graph", g)
					}
				}
				e.mustRun(t, args...)
				e.mustRun(t, "--store", dst, "load", "--format", format, out)
			} else if dataset {
				out := filepath.Join(dir, "all."+format)
				e.mustRun(t, "--store", src, "export", "--format", format, "-o", out)
				e.mustRun(t, "--store", dst, "load", "--format", format, out)
			} else {
				for i, g := range graphs {
					out := filepath.Join(dir, fmt.Sprintf("g%d.%s", i, format))
					args := []string{"--store", src, "export", "--format", format, "--graph", g, "-o", out}
					if unwritable[g] != "" {
						continue
					}
					e.mustRun(t, args...)
					args = []string{"--store", dst, "load", "--format", format, "--base", "http://invalid.example/base/"}
					if g != kb.DefaultGraphIRI {
						args = append(args, "--graph", g)
					}
					e.mustRun(t, append(args, out)...)
				}
			}
			got := readExport(t, e.mustRun(t, "--store", dst, "export", "--format", "nquads"))
			wantGround, wantQuads := want.ground, want.quads
			if len(unwritable) > 0 {
				wantGround, wantQuads = without(want, unwritable)
			}
			if got.ground != wantGround {
				t.Errorf("%s: export → load differs from the store (- store only, + reload only):\n%s", format, lineDiff(strings.Split(wantGround, "\n"), strings.Split(got.ground, "\n")))
			}
			if dataset {
				if why := rdfio.Isomorphic(got.quads, wantQuads); why != "" {
					t.Errorf("%s: export → load is not isomorphic to the store: %s", format, why)
				}
				return
			}
			// A triple format carries one graph, so a blank node shared by
			// two graphs comes back as two: each graph is compared alone.
			gotBy, wantBy := byGraph(got.quads), byGraph(wantQuads)
			for g, qs := range wantBy {
				if why := rdfio.Isomorphic(gotBy[g], qs); why != "" {
					t.Errorf("%s: graph %s after export → load is not isomorphic to the store's: %s", format, g, why)
				}
			}
			if len(gotBy) != len(wantBy) {
				t.Errorf("%s: %d graphs after export → load, want %d", format, len(gotBy), len(wantBy))
			}
		})
	}
}

// without drops the graphs in drop from an export.
func without(x exported, drop map[string]string) (string, []kb.TermQuad) {
	var ground []string
	for _, l := range strings.Split(x.ground, "\n") {
		f := strings.Fields(l)
		if len(f) > 0 && drop[strings.Trim(f[len(f)-2], "<>")] != "" {
			continue
		}
		ground = append(ground, l)
	}
	var quads []kb.TermQuad
	for _, q := range x.quads {
		if drop[q.G.Value] == "" {
			quads = append(quads, q)
		}
	}
	return strings.Join(ground, "\n"), quads
}

// byGraph groups statements by graph name.
func byGraph(qs []kb.TermQuad) map[string][]kb.TermQuad {
	m := map[string][]kb.TermQuad{}
	for _, q := range qs {
		m[q.G.Value] = append(m[q.G.Value], q)
	}
	return m
}

// graphsOf lists the store's graphs, the default graph included, but not
// the derivation records (exports leave them out).
func graphsOf(t *testing.T, e *fedEnv, store string) []string {
	t.Helper()
	out := e.mustRun(t, "--store", store, "query", "--format", "tsv", "-e",
		"SELECT DISTINCT ?g { { GRAPH ?g { ?s ?p ?o } } UNION { ?s ?p ?o FILTER NOT EXISTS { GRAPH ?x { ?s ?p ?o } } BIND(<urn:x-arq:DefaultGraph> AS ?g) } }")
	var graphs []string
	for _, line := range strings.Split(strings.TrimSpace(out), "\n")[1:] {
		if g := strings.Trim(line, "<>"); g != kb.DerivationsGraphIRI {
			graphs = append(graphs, g)
		}
	}
	sort.Strings(graphs)
	return graphs
}

// exported is a whole-store N-Quads export, split for comparison.
type exported struct {
	ground string        // the statements without blank nodes, sorted, one per line
	quads  []kb.TermQuad // all statements
}

// readExport parses an N-Quads export.
func readExport(t *testing.T, nquads string) exported {
	t.Helper()
	var ground []string
	for _, l := range strings.Split(nquads, "\n") {
		if l != "" && !strings.Contains(l, "_:") {
			ground = append(ground, l)
		}
	}
	sort.Strings(ground)
	ctx := context.Background()
	ds := native.OpenMemory()
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(nquads), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatalf("reading an export: %v", err)
	}
	it := ds.Match(ctx, kb.Pattern{})
	defer it.Close()
	var quads []kb.TermQuad
	for it.Next() {
		var tq kb.TermQuad
		for i, id := range [4]kb.ID{it.Quad().S, it.Quad().P, it.Quad().O, it.Quad().G} {
			term, err := ds.Resolve(ctx, id)
			if err != nil {
				t.Fatal(err)
			}
			*[4]*kb.Term{&tq.S, &tq.P, &tq.O, &tq.G}[i] = term
		}
		quads = append(quads, tq)
	}
	if err := it.Err(); err != nil {
		t.Fatal(err)
	}
	return exported{ground: strings.Join(ground, "\n"), quads: quads}
}
