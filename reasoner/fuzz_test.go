package reasoner

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/perfkb/perfkb/textpos"
)

// FuzzParseProgram checks that no rule text makes the parser or the
// compiler panic (a functor in a body pattern once did), and that every
// error has a position. Includes resolve to a small in-memory file that
// includes itself, so cycles and the shipped sets are fuzzed too.
func FuzzParseProgram(f *testing.F) {
	// The shipped files seed the corpus, cut to their first rules: whole
	// files (tens of KB) make each execution slow enough to stall the
	// fuzzer.
	files, _ := filepath.Glob("../rules/*.rules")
	for _, name := range files {
		if b, err := os.ReadFile(name); err == nil {
			f.Add(string(b[:min(len(b), 3000)]))
		}
	}
	f.Add("@include <inc>.\n@include <RDFS>.\n[r: (?a <http://e/p> ?b) -> (?b <http://e/p> ?a)]")
	f.Add("[r: (?s <p> f(?o)) -> (?s <q> ?o)]")
	f.Add("@define T 5.\n[r: (?s <p> ?o), greaterThan(?o, T), strConcat(?o, ?o, ?x) -> (?s <q> ?x)]")
	f.Add("@define T 5.\n[a: CONSTRUCT { ?s <http://e/n> ?n } WHERE { SELECT ?s (COUNT(?o) AS ?n) WHERE { ?s <http://e/p> ?o FILTER(?o > T) } GROUP BY ?s HAVING (COUNT(?o) > 1) }]\n[r: (?s <http://e/n> ?n) -> (?s <http://e/q> ?n)]")
	readFile := func(path string) ([]byte, error) {
		if filepath.Base(path) == "inc" {
			return []byte("@include <inc>.\n[i: (?a <http://e/q> ?b) -> (?a <http://e/r> ?b)]"), nil
		}
		return nil, errors.New("no such file")
	}
	f.Fuzz(func(t *testing.T, src string) {
		var err error
		done := make(chan struct{})
		go func() {
			defer close(done)
			_, err = ParseProgram("fuzz.rules", []byte(src), ParseOptions{ReadFile: readFile})
		}()
		select {
		case <-done:
		case <-time.After(5 * time.Second):
			t.Fatalf("parsing and compiling %q took more than 5 s", src)
		}
		if err == nil {
			return
		}
		var list textpos.ErrorList
		if !errors.As(err, &list) {
			t.Fatalf("error of type %T, want a positioned textpos.ErrorList: %v", err, err)
		}
		for _, e := range list {
			if e.Pos.Line < 1 || e.Pos.Column < 1 {
				t.Fatalf("error without a position: %v", e)
			}
		}
	})
}
