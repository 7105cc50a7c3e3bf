package syntax

import (
	"context"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/textpos"
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

// TestParseStopsWithItsContext: a canceled context stops the lexer and the
// parser of a long text with the context's error, which is not an input
// error (no line and column to blame).
func TestParseStopsWithItsContext(t *testing.T) {
	var b strings.Builder
	b.WriteString("SELECT * WHERE { ?s ?p ?o FILTER(?o IN (")
	for i := range 50_000 {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString("<http://example.org/v" + strconv.Itoa(i) + ">")
	}
	b.WriteString(")) }")
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	for _, parse := range []func() error{
		func() error { _, err := ParseQuery(b.String(), Options{Context: ctx}); return err },
		func() error {
			_, err := ParseUpdate("DELETE { ?s ?p ?o } WHERE "+b.String()[len("SELECT * WHERE "):], Options{Context: ctx})
			return err
		},
	} {
		err := parse()
		var syntaxErr *textpos.Error
		if !errors.Is(err, context.Canceled) || errors.As(err, &syntaxErr) {
			t.Errorf("parse with a canceled context: %v, want context.Canceled and no syntax error", err)
		}
	}
	if _, err := ParseQuery(b.String(), Options{Context: context.Background()}); err != nil {
		t.Fatalf("the same text with a live context: %v", err)
	}
}
