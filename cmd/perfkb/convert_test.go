package main

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// A test-only `convert testlines FILE` over "key label" lines exercises the
// shared flags and exit codes without depending on a real converter.
func init() { registerConvert(newConvertTestLinesCmd) }

func newConvertTestLinesCmd(app *App) *cobra.Command {
	var cf *convertFlags
	cmd := &cobra.Command{
		Use:    "testlines FILE",
		Hidden: true,
		Args:   cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return runConversion(cmd.Context(), app, cf, "testlines", func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
				em := convert.NewEmitter("testlines", args[0], sink)
				tbl := em.Table("line")
				f, err := os.Open(args[0])
				if err != nil {
					return em.Report(), err
				}
				defer f.Close()
				sc := bufio.NewScanner(f)
				for n := 1; sc.Scan(); n++ {
					key, label, ok := strings.Cut(sc.Text(), " ")
					if !ok {
						return em.Report(), convert.Errorf(args[0], convert.TextPosition(args[0], n, len(sc.Text())+1), "expected KEY LABEL")
					}
					if label == "warn" {
						em.Warn(convert.TextPosition(args[0], n, len(key)+2), "label %q is odd", label)
					}
					tbl.Row()
					if err := tbl.Emit(ctx, base.IRI("thing", key), kb.IRI(ontology.RDFSLabel), kb.String(label)); err != nil {
						return em.Report(), err
					}
				}
				return em.Report(), sc.Err()
			})
		},
	}
	cf = addConvertFlags(cmd)
	return cmd
}

func TestConvertCommand(t *testing.T) {
	dir := t.TempDir()
	store := "--store=native:" + filepath.Join(dir, "db")
	good := filepath.Join(dir, "good.txt")
	bad := filepath.Join(dir, "bad.txt")
	os.WriteFile(good, []byte("a alpha\nb warn\n"), 0o644)
	os.WriteFile(bad, []byte("c gamma\nbroken\n"), 0o644)
	out := filepath.Join(dir, "out.nt")
	seedFile := filepath.Join(dir, "seed.nt")
	os.WriteFile(seedFile, []byte("<http://e/s> <http://e/p> <http://e/o> .\n"), 0o644)
	base := "--base=http://perfkb.example/site/t/"

	steps := []struct {
		name   string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"no base", []string{"convert", "testlines", good}, 2, nil, []string{"--base is required"}},
		{"relative base", []string{"convert", "testlines", "--base=site/", good}, 2, nil, []string{"not absolute"}},
		{"base without separator", []string{"convert", "testlines", "--base=http://x.example/s", good}, 2, nil, []string{"must end in / or #"}},
		{"out and push", []string{"convert", "testlines", base, "-o", out, "--push", "http://127.0.0.1:1", good}, 2, nil, []string{"exclude each other"}},
		{"bad report", []string{"convert", "testlines", base, "--report", "xml", good}, 2, nil, []string{"want json or text"}},
		{"no kind", []string{"convert"}, 2, nil, []string{"convert needs a KIND", "testlines"}},
		{"stdout", []string{"convert", "testlines", base, "-o", "-", "--sorted", good}, 0,
			[]string{"<http://perfkb.example/site/t/thing/a> <http://www.w3.org/2000/01/rdf-schema#label> \"alpha\" .\n<http://perfkb.example/site/t/thing/b>"},
			[]string{"warning: " + good + ":2:3: label \"warn\" is odd", "converted 2 records (line 2) into 2 triples (standard output)"}},
		{"create the store", []string{"load", store, seedFile}, 0, nil, nil},
		{"into the store", []string{"convert", "testlines", store, base, good}, 0, []string{"converted 2 records (line 2) into 2 triples (graph <http://perfkb.example/site/t>)"}, nil},
		{"bad input", []string{"convert", "testlines", store, base, bad}, 1, nil, []string{good[:len(good)-8] + "bad.txt:2:7: expected KEY LABEL (graph <http://perfkb.example/site/t> unchanged)"}},
		{"store unchanged", []string{"query", store, "--format", "tsv", "-e", "SELECT (COUNT(*) AS ?n) { GRAPH <http://perfkb.example/site/t> { ?s ?p ?o } }"}, 0, []string{"?n\n2\n"}, nil},
		{"bad input to a file", []string{"convert", "testlines", base, "-o", out, bad}, 1, nil, []string{"bad.txt:2:7", "unchanged"}},
		{"push to nowhere", []string{"convert", "testlines", base, "--push", "http://127.0.0.1:1", good}, 3, nil, []string{"push to http://127.0.0.1:1/data?graph="}},
	}
	for _, s := range steps {
		code, stdout, stderr := runCLI(t, "", s.args...)
		if code != s.code {
			t.Errorf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", s.name, code, s.code, stdout, stderr)
		}
		for _, w := range s.stdout {
			if !strings.Contains(stdout, w) {
				t.Errorf("%s: stdout %q lacks %q", s.name, stdout, w)
			}
		}
		for _, w := range s.stderr {
			if !strings.Contains(stderr, w) {
				t.Errorf("%s: stderr %q lacks %q", s.name, stderr, w)
			}
		}
	}
	if _, err := os.Stat(out); !os.IsNotExist(err) {
		t.Errorf("a failed conversion to %s left the file (stat: %v)", out, err)
	}

	// --report json is the Report, and --out FILE appears on success.
	code, stdout, stderr := runCLI(t, "", "convert", "testlines", base, "-o", out, "--report", "json", good)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var rep convert.Report
	if err := json.Unmarshal([]byte(stdout), &rep); err != nil {
		t.Fatalf("--report json printed %q: %v", stdout, err)
	}
	if rep.Converter != "testlines" || rep.Rows != 2 || rep.Triples != 2 || rep.WarningCount != 1 || len(rep.Tables) != 1 || rep.Tables[0].Name != "line" {
		t.Errorf("report %+v", rep)
	}
	if data, err := os.ReadFile(out); err != nil || strings.Count(string(data), "\n") != 2 {
		t.Errorf("%s: %q, %v", out, data, err)
	}
}
