package rdfio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/textpos"
)

// Fuzz targets for the parsers: any input must end in statements or a
// positioned *textpos.Error, never a panic or a hang. Run them with
// bench/fuzz.sh (FUZZTIME=60s each by default). The seeds are the
// testdata files and, when present, the W3C suites beside the module.

// addSeeds adds the files matching the patterns (relative to the package
// directory) to the corpus.
func addSeeds(f *testing.F, patterns ...string) {
	for _, p := range patterns {
		files, _ := filepath.Glob(p)
		for _, file := range files {
			if data, err := os.ReadFile(file); err == nil && len(data) < 64<<10 {
				f.Add(data)
			}
		}
	}
}

// checkDecode drains dec and checks its error.
func checkDecode(t *testing.T, dec Decoder) []kb.TermQuad {
	var out []kb.TermQuad
	for i := 0; ; i++ {
		q, err := dec.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			var se *textpos.Error
			if !errors.As(err, &se) {
				t.Fatalf("error %v (%T) is not a *textpos.Error", err, err)
			}
			if se.Pos.Line <= 0 || se.Pos.Column <= 0 {
				t.Fatalf("error %q has no position", se.Error())
			}
			if _, err2 := dec.Next(); err2 != err {
				t.Fatalf("after error %v, Next returned %v", err, err2)
			}
			return nil
		}
		for _, term := range [...]kb.Term{q.S, q.P, q.O} {
			if term.IsZero() {
				t.Fatalf("statement %d has a missing term: %v", i, q)
			}
		}
		out = append(out, q)
	}
}

// unlabel undoes the renaming of explicit labels that start with the
// anonymous prefix, which re-parsing a parser's own output applies once.
func unlabel(t kb.Term) kb.Term {
	if t.Kind == kb.KindBlank {
		t.Value = strings.TrimPrefix(t.Value, anonPrefix)
	}
	return t
}

func FuzzTurtle(f *testing.F) {
	addSeeds(f, "../testdata/*.ttl", "../../testdata/w3c/w3c-rdf/rdf-turtle/*.ttl")
	f.Add([]byte(".5\n"))
	f.Add([]byte(`<a> <b> """"x"`))
	f.Fuzz(func(t *testing.T, data []byte) {
		quads := checkDecode(t, NewTurtleDecoder(bytes.NewReader(data), Options{Base: "http://example.org/base/doc.ttl", Source: "fuzz.ttl"}))
		// The N-Triples form of what was read reads back the same.
		var nt strings.Builder
		for _, q := range quads {
			nt.WriteString(q.String())
			nt.WriteByte('\n')
		}
		dec := NewTurtleDecoder(strings.NewReader(nt.String()), Options{Source: "again.nt"})
		for i, want := range quads {
			got, err := dec.Next()
			if err != nil {
				t.Fatalf("re-reading statement %d %q: %v", i, want.String(), err)
			}
			got.S, got.O = unlabel(got.S), unlabel(got.O)
			if got != want {
				t.Fatalf("statement %d read back as %v; want %v", i, got, want)
			}
		}
	})
}

func FuzzTriG(f *testing.F) {
	addSeeds(f, "../testdata/*.trig", "../../testdata/w3c/w3c-rdf/rdf-trig/*.trig")
	f.Add([]byte("<g> { <s> <p> <o> }"))
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, NewTriGDecoder(bytes.NewReader(data), Options{Base: "http://example.org/base/doc.trig", Source: "fuzz.trig"}))
	})
}

func FuzzRDFXML(f *testing.F) {
	addSeeds(f, "../testdata/*.rdf", "../../testdata/w3c/w3c-rdf/rdf-xml/*/*.rdf")
	f.Fuzz(func(t *testing.T, data []byte) {
		checkDecode(t, NewRDFXMLDecoder(bytes.NewReader(data), Options{Base: "http://example.org/base/doc.rdf", Source: "fuzz.rdf"}))
	})
}

// fuzzLines checks the line parser: a parsed document written back as
// N-Triples/N-Quads reads back the same.
func fuzzLines(t *testing.T, data []byte, quads bool) {
	newDec := NewNTriplesDecoder
	if quads {
		newDec = NewNQuadsDecoder
	}
	got := checkDecode(t, newDec(bytes.NewReader(data), Options{Source: "fuzz.nq"}))
	var out strings.Builder
	for _, q := range got {
		out.WriteString(q.String())
		out.WriteByte('\n')
	}
	again := checkDecode(t, newDec(strings.NewReader(out.String()), Options{Source: "again.nq"}))
	if len(again) != len(got) {
		t.Fatalf("%d statements read back as %d", len(got), len(again))
	}
	for i := range got {
		if got[i] != again[i] {
			t.Fatalf("statement %d read back as %v; want %v", i, again[i], got[i])
		}
	}
}

func FuzzNTriples(f *testing.F) {
	addSeeds(f, "../testdata/*.nt", "../../testdata/w3c/w3c-rdf/rdf-n-triples/*.nt")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzLines(t, data, false) })
}

func FuzzNQuads(f *testing.F) {
	addSeeds(f, "../testdata/*.nq", "../../testdata/w3c/w3c-rdf/rdf-n-quads/*.nq")
	f.Fuzz(func(t *testing.T, data []byte) { fuzzLines(t, data, true) })
}
