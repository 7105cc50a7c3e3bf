package syntax

import (
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse checks that no input makes the parsers panic (only *Error
// values come back) and that every parsed result prints.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*", "*.r*"))
	for _, file := range files {
		if src, err := os.ReadFile(file); err == nil {
			f.Add(string(src))
		}
	}
	f.Add("SELECT * { ?s ?p ?o }")
	f.Add("INSERT DATA { <a> <b> 'c' }")
	f.Fuzz(func(t *testing.T, src string) {
		if q, err := ParseQuery(src, Options{BaseIRI: "http://e/"}); err == nil {
			_ = q.String()
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("ParseQuery error of type %T: %v", err, err)
		}
		if u, err := ParseUpdate(src, Options{}); err == nil {
			_ = u.String()
		} else if _, ok := err.(*Error); !ok {
			t.Fatalf("ParseUpdate error of type %T: %v", err, err)
		}
		if q, err := ParseRDQL(src, Options{}); err == nil {
			_ = q.String()
		}
		_ = LooksLikeRDQL(src)
	})
}
