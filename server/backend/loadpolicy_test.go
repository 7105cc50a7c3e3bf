package backend

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server"
)

// TestLoadFileOverHTTP reproduces the hardening issue's item 4: LOAD
// <file:…> over HTTP read any file of the server's disk. It is refused
// unless the operator names a directory, reads stay inside that directory
// (symlinks resolved), and no answer reveals a host path.
func TestLoadFileOverHTTP(t *testing.T) {
	dir := t.TempDir()
	loadDir := filepath.Join(dir, "load")
	outside := filepath.Join(dir, "secret")
	for _, d := range []string{loadDir, outside} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	write := func(path, text string) {
		if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(filepath.Join(loadDir, "ok.nt"), "<http://e/s> <http://e/p> <http://e/o> .\n")
	write(filepath.Join(outside, "secret.nt"), "<http://e/secret> <http://e/p> \"password\" .\n")
	if err := os.Symlink(filepath.Join(outside, "secret.nt"), filepath.Join(loadDir, "link.nt")); err != nil {
		t.Fatal(err)
	}

	update := func(loadDir, text string) (int, string) {
		ds := native.OpenMemory()
		srv := server.New(server.Options{Query: &QueryEngine{DS: ds, LoadDir: loadDir}, Token: "t"})
		req := httptest.NewRequest(http.MethodPost, "/sparql", strings.NewReader(text))
		req.Header.Set("Content-Type", "application/sparql-update")
		req.Header.Set("Authorization", "Bearer t")
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec.Code, rec.Body.String()
	}
	secretIRI := "file://" + filepath.ToSlash(filepath.Join(outside, "secret.nt"))
	cases := []struct {
		name, loadDir, update string
		want                  int
	}{
		{"refused without --load-dir", "", "LOAD <" + secretIRI + ">", http.StatusBadRequest},
		{"missing file without --load-dir", "", "LOAD <file:///no/such/file.nt>", http.StatusBadRequest},
		{"inside the load dir", loadDir, "LOAD <file:///ok.nt> INTO GRAPH <http://e/g>", http.StatusOK},
		{"absolute path outside", loadDir, "LOAD <" + secretIRI + ">", http.StatusBadRequest},
		{"dot-dot escape", loadDir, "LOAD <file:///../secret/secret.nt>", http.StatusBadRequest},
		{"symlink escape", loadDir, "LOAD <file:///link.nt>", http.StatusBadRequest},
		{"missing in the load dir", loadDir, "LOAD <file:///nope.nt>", http.StatusBadRequest},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, body := update(tc.loadDir, tc.update)
			if code != tc.want {
				t.Fatalf("status %d, want %d: %s", code, tc.want, body)
			}
			// The client's own IRI may be echoed; nothing else about the
			// host's files may be (no resolved paths, no OS errors).
			_, iri, _ := strings.Cut(tc.update, "<")
			iri, _, _ = strings.Cut(iri, ">")
			rest := strings.ReplaceAll(body, iri, "IRI")
			if code != http.StatusOK && (strings.Contains(rest, dir) || strings.Contains(rest, "no such file or directory")) {
				t.Errorf("the answer reveals host paths: %s", body)
			}
		})
	}
}
