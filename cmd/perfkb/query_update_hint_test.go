package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestQueryUpdateWithoutFlag checks that an update given to perfkb query
// without --update is refused with the flag named, and writes nothing.
func TestQueryUpdateWithoutFlag(t *testing.T) {
	storeSpec := "native:" + filepath.Join(t.TempDir(), "kb.db")
	var setup bytes.Buffer
	if code := run([]string{"--store", storeSpec, "load", "--graph", "http://example.org/g", "testdata/tree.ttl"}, strings.NewReader(""), &setup, &setup); code != exitOK {
		t.Fatalf("setup: exit %d: %s", code, setup.String())
	}
	count := func() string {
		var out, errOut bytes.Buffer
		if code := run([]string{"--store", storeSpec, "query", "--format", "tsv", "SELECT (COUNT(*) AS ?n) { GRAPH ?g { ?s ?p ?o } }"}, strings.NewReader(""), &out, &errOut); code != exitOK {
			t.Fatalf("count: exit %d: %s", code, errOut.String())
		}
		return strings.TrimSpace(out.String())
	}
	before := count()
	for _, c := range []struct {
		text, hint string
		code       int
	}{
		{"INSERT DATA { <http://a> <http://b> <http://c> }", "run it with perfkb query --update", exitUsage},
		{"PREFIX ex: <http://ex.org/> DELETE WHERE { ?s ex:p ?o }", "run it with perfkb query --update", exitUsage},
		{"SELEC * {}", "", exitInvalidInput},
	} {
		var out, errOut bytes.Buffer
		code := run([]string{"--store", storeSpec, "query", c.text}, strings.NewReader(""), &out, &errOut)
		if code != c.code {
			t.Errorf("%q: exit %d, want %d (%s)", c.text, code, c.code, errOut.String())
		}
		if c.hint != "" && !strings.Contains(errOut.String(), c.hint) {
			t.Errorf("%q: stderr %q lacks %q", c.text, errOut.String(), c.hint)
		}
		if c.hint == "" && strings.Contains(errOut.String(), "--update") {
			t.Errorf("%q: a query that is no update got the update hint: %s", c.text, errOut.String())
		}
	}
	if after := count(); after != before {
		t.Errorf("the store changed: %s quads before, %s after", before, after)
	}
}
