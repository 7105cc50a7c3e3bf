package ontology

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// TestGeneratedFilesUpToDate regenerates perfonto.ttl, vocab.go and
// catalog_gen.go from internal/vocabgen into a temporary directory and
// checks the committed files match, so the tables and the files never drift.
func TestGeneratedFilesUpToDate(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("the go tool is not on PATH, cannot run the generator")
	}
	dir := t.TempDir()
	cmd := exec.Command(goTool, "run", "./internal/vocabgen", "-out", dir)
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go run ./internal/vocabgen: %v\n%s", err, out)
	}
	for _, name := range []string{"perfonto.ttl", "vocab.go", "catalog_gen.go"} {
		want, err := os.ReadFile(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		have, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, want) {
			t.Errorf("%s is stale: run go generate ./ontology", name)
		}
	}
}
