package main

import (
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/reasoner"
)

// TestServeRulesFlag starts the HTTP server as `perfkb serve --rules FILE
// --define LIMIT=10` does and checks that an update derives the rule's
// triple (wtime 20 > 10) and a DROP withdraws it; --define alone is a
// usage error.
func TestServeRulesFlag(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "slow.rules")
	if err := os.WriteFile(file, []byte(`@prefix ex: <http://example.org/>.
@define LIMIT 1000.
[slow: (?x ex:wtime ?w), greaterThan(?w, LIMIT) -> (?x ex:slow "yes")]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	parse := func(args ...string) serveFlags {
		t.Helper()
		var flags serveFlags
		fs := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		flags.bind(fs)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		if err := flags.rules.check(); err != nil {
			t.Fatal(err)
		}
		return flags
	}
	app := &App{Stdout: io.Discard, Stderr: io.Discard}
	logger := slog.New(slog.NewTextHandler(io.Discard, nil))

	bad := parse("--define", "LIMIT=10")
	if _, err := bad.rules.liveStore(ctx, app, native.OpenMemory(), logger); err == nil || !strings.Contains(err.Error(), "--rules") {
		t.Errorf("--define without --rules: %v, want a usage error naming --rules", err)
	}

	flags := parse("--rules", file, "--define", "LIMIT=10", "--token", "tok")
	flags.resolveToken()
	ds, err := flags.rules.liveStore(ctx, app, native.OpenMemory(), logger)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := ds.(*reasoner.Live); !ok {
		t.Fatalf("--rules gave a %T, want a *reasoner.Live", ds)
	}
	hs := httptest.NewServer(newHTTPServer(t.Context(), ds, flags, logger))
	defer hs.Close()
	update := func(text string) {
		t.Helper()
		req, _ := http.NewRequest("POST", hs.URL+"/sparql", strings.NewReader("PREFIX ex: <http://example.org/>\n"+text))
		req.Header.Set("Content-Type", "application/sparql-update")
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("update %q: %d %s", text, resp.StatusCode, body)
		}
	}
	inferred := func() int {
		t.Helper()
		id, ok, err := ds.Lookup(ctx, kb.InferredGraph)
		if err != nil || !ok {
			return 0
		}
		n, err := ds.Count(ctx, kb.Pattern{G: id}, true)
		if err != nil {
			t.Fatal(err)
		}
		return int(n)
	}
	update("INSERT DATA { GRAPH ex:g { ex:a ex:wtime 20 . ex:b ex:wtime 5 } }")
	if n := inferred(); n != 1 {
		t.Errorf("after the insert: %d inferred triples, want 1 (ex:a slow, with LIMIT 10 from --define)", n)
	}
	update("DROP GRAPH ex:g")
	if n := inferred(); n != 0 {
		t.Errorf("after DROP: %d inferred triples, want 0", n)
	}
}
