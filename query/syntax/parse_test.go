package syntax

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the golden .sse files in testdata/parse")

// TestParseGolden parses every testdata/parse/*.rq (query) and *.ru (update)
// and compares the SSE algebra with the .sse file beside it.
func TestParseGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "parse", "*.r[qu]"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no golden inputs in testdata/parse")
	}
	for _, file := range files {
		t.Run(filepath.Base(file), func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			opts := Options{BaseIRI: "http://example.org/base/"}
			var got string
			if strings.HasSuffix(file, ".ru") {
				u, err := ParseUpdate(string(src), opts)
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				got = u.String() + "\n"
			} else {
				q, err := ParseQuery(string(src), opts)
				if err != nil {
					t.Fatalf("parse: %v", err)
				}
				got = q.String() + "\n"
			}
			golden := strings.TrimSuffix(file, filepath.Ext(file)) + ".sse"
			if *update {
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (run go test -run TestParseGolden -update to create it)", err)
			}
			if got != string(want) {
				t.Errorf("algebra differs from %s\n--- got:\n%s--- want:\n%s", golden, got, want)
			}
		})
	}
}
