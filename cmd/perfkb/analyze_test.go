package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestAnalyzeCommand(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=native:" + filepath.Join(dir, "db")
	nq := filepath.Join(dir, "s.nq")
	if code, _, stderr := runCLI(t, "", "sample", "--sites", "1", "--triples", "5000", "--scaling", "-o", nq); code != exitOK {
		t.Fatalf("sample: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "load", nq); code != exitOK {
		t.Fatalf("load: %d %s", code, stderr)
	}
	code, out, stderr := runCLI(t, "", storeFlag, "analyze")
	if code != exitOK || !strings.Contains(out, "PoorScalability findings") || !strings.Contains(stderr, "written to <urn:x-perfkb:analysis>") {
		t.Fatalf("analyze: %d\n%s\n%s", code, out, stderr)
	}
	exp := "http://perfkb.example/site/innsbruck/exp/scaling-v1-1000-p8"
	code, out, stderr = runCLI(t, "", storeFlag, "analyze", "scaling", "--experiment", exp, "--format", "json")
	var tables []struct {
		Name    string     `json:"name"`
		Columns []string   `json:"columns"`
		Rows    [][]string `json:"rows"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &tables) != nil || len(tables) != 1 || len(tables[0].Rows) < 5 {
		t.Fatalf("analyze scaling: %d\n%s\n%s", code, out, stderr)
	}
	if row := tables[0].Rows[0]; row[0] != exp || row[6] != "8" || row[9] == "" {
		t.Errorf("program row %v", row)
	}
	base := "http://perfkb.example/site/innsbruck/exp/scaling-v1-1000-p4"
	code, out, stderr = runCLI(t, "", storeFlag, "analyze", "diff", base, exp, "--format", "csv")
	if code != exitOK || !strings.Contains(out, "region,metric,base,trial,difference,ratio,only_in") || !strings.Contains(out, "exchange halo [CR_MPIP2P],wtime,") {
		t.Fatalf("analyze diff: %d\n%s\n%s", code, out, stderr)
	}
	code, out, _ = runCLI(t, "", storeFlag, "query", "--format", "tsv", "-e",
		`SELECT (COUNT(*) AS ?n) WHERE { GRAPH <urn:x-perfkb:analysis> { ?c a <http://www.par.univie.ac.at/project/scalea/perfonto#ExperimentComparison> } }`)
	if code != exitOK || !strings.Contains(out, "1") {
		t.Errorf("comparison triples: %d %s", code, out)
	}
	if code, _, _ := runCLI(t, "", storeFlag, "analyze", "--format", "xml"); code != exitUsage {
		t.Errorf("--format xml: exit %d, want %d", code, exitUsage)
	}
	if code, _, _ := runCLI(t, "", storeFlag, "analyze", "diff", base); code != exitUsage {
		t.Errorf("diff with one experiment: exit %d, want %d", code, exitUsage)
	}
	soft := filepath.Join(dir, "bad.soft")
	if err := os.WriteFile(soft, []byte("class wtime high q 1 2\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "analyze", "classes", "--soft", soft); code != exitInvalidInput || !strings.Contains(stderr, "bad.soft:1:18:") {
		t.Errorf("bad --soft: exit %d, stderr %q", code, stderr)
	}
}
