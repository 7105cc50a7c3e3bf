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
	if code != exitOK || !strings.Contains(out, "\nfindings (") || !strings.Contains(stderr, "written to <urn:x-perfkb:analysis>") {
		t.Fatalf("analyze: %d\n%s\n%s", code, out, stderr)
	}
	exp := "http://perfkb.example/site/innsbruck/exp/scaling-v1-1000-p8"
	code, out, stderr = runCLI(t, "", storeFlag, "analyze", "scaling", "--experiment", exp, "--format", "json")
	var tables []struct {
		Name    string   `json:"name"`
		Columns []string `json:"columns"`
		Rows    [][]any  `json:"rows"`
	}
	if code != exitOK || json.Unmarshal([]byte(out), &tables) != nil || len(tables) != 1 || len(tables[0].Rows) < 5 {
		t.Fatalf("analyze scaling: %d\n%s\n%s", code, out, stderr)
	}
	// Numbers are JSON numbers in full precision; a missing one is "".
	if row := tables[0].Rows[0]; row[0] != exp || row[6] != 8.0 || row[9] == "" {
		t.Errorf("program row %v", row)
	} else if v, ok := row[9].(float64); !ok || v <= 1 || v == float64(float32(v)) {
		t.Errorf("program speedup %v (%T): want a full-precision JSON number above 1", row[9], row[9])
	}
	// The text table is for people: times scaled with their unit, 4
	// significant digits, experiments by name.
	code, out, stderr = runCLI(t, "", storeFlag, "analyze", "scaling", "--experiment", exp)
	if code != exitOK || !strings.Contains(out, "scaling-v1-1000-p8  (program)") || strings.Contains(out, "http://") || !strings.Contains(out, " s  ") {
		t.Errorf("analyze scaling table: %d\n%s\n%s", code, out, stderr)
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

func TestModelCommand(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=native:" + filepath.Join(dir, "db")
	nq := filepath.Join(dir, "s.nq")
	if code, _, stderr := runCLI(t, "", "sample", "--sites", "1", "--triples", "5000", "--scaling", "-o", nq); code != exitOK {
		t.Fatalf("sample: %d %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "load", nq); code != exitOK {
		t.Fatalf("load: %d %s", code, stderr)
	}
	// Text: models with scaled units, findings with advice, the series
	// too short to model.
	code, out, stderr := runCLI(t, "", storeFlag, "model")
	if code != exitOK {
		t.Fatalf("model: %d\n%s\n%s", code, out, stderr)
	}
	for _, want := range []string{"performance models (", "update boundary [CR_L]", "· p^(-1) ms", "ExtrapolatedHotspot", "advice (", "series not modelled ("} {
		if !strings.Contains(out, want) {
			t.Errorf("model output lacks %q:\n%s", want, out)
		}
	}
	if code, _, _ := runCLI(t, "", storeFlag, "model", "--select", "best"); code != exitUsage {
		t.Errorf("--select best: exit %d, want %d", code, exitUsage)
	}
	if code, out, stderr := runCLI(t, "", storeFlag, "model", "--select", "repetitions", "--no-write"); code != exitOK || !strings.Contains(out, "performance models (") {
		t.Errorf("model --select repetitions: %d\n%.2000s\n%s", code, out, stderr)
	}
	// CSV: the full-precision formula pf:predict reads.
	code, out, _ = runCLI(t, "", storeFlag, "model", "--format", "csv")
	if code != exitOK || !strings.Contains(out, ",formula\n") || !strings.Contains(out, "f(p) = ") {
		t.Errorf("model csv: %d\n%.2000s", code, out)
	}
	code, out, _ = runCLI(t, "", storeFlag, "query", "--format", "tsv", "-e",
		`PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
PREFIX pf: <urn:x-perfkb:function#>
SELECT (COUNT(*) AS ?n) WHERE { ?m perfonto:modelledMetric "wtime" ; perfonto:modelFormula ?f . FILTER (pf:predict(?f, 4096) > 0) }`)
	if code != exitOK || strings.Contains(out, "\n0\n") || !strings.Contains(out, "?n") {
		t.Errorf("pf:predict over the stored models: %d %s", code, out)
	}
}
