package server

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestGraphGoldensAgree reads every graph golden of TestQueryFormats
// with kb/rdfio and requires the same graph (up to blank node renaming) as
// the N-Triples one: a golden rewritten with -update must still say the
// same thing, only in its own syntax.
func TestGraphGoldensAgree(t *testing.T) {
	read := func(name string) []kb.TermQuad {
		data, err := os.ReadFile(filepath.Join("testdata", name))
		if err != nil {
			t.Fatal(err)
		}
		f, ok := rdfio.ByFileName(name)
		if !ok {
			t.Fatalf("%s: no RDF format for its extension", name)
		}
		dec := f.NewDecoder(bytes.NewReader(data), rdfio.Options{Source: name})
		var out []kb.TermQuad
		for {
			q, err := dec.Next()
			if errors.Is(err, io.EOF) {
				return out
			}
			if err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			out = append(out, q)
		}
	}
	want := read("construct.nt")
	if len(want) == 0 {
		t.Fatal("construct.nt is empty")
	}
	for _, name := range []string{"construct.ttl", "construct.rdf", "construct.jsonld"} {
		if why := rdfio.Isomorphic(read(name), want); why != "" {
			t.Errorf("%s is not the graph of construct.nt: %s", name, why)
		}
	}
}
