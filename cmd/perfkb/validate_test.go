package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestLoadValidate: a load that breaks the PERFONTO shapes is refused with
// the validation report and leaves the store exactly as it was;
// --validate=warn loads it anyway, and perfkb validate then finds the same
// defects (exit 1) where before it found none (exit 0).
func TestLoadValidate(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=" + filepath.Join(dir, "db")
	good := filepath.Join(dir, "good.ttl")
	const goodData = `@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
@prefix ex: <http://perfkb.example/good/> .
ex:exp a perfonto:Experiment .
ex:pu a perfonto:ProcessUnit ; perfonto:inExperiment ex:exp .
ex:rs a perfonto:RegionSummary ; perfonto:ofCodeRegion ex:cr ; perfonto:inProcessingUnit ex:pu ; perfonto:hasMetric ex:m .
ex:m a perfonto:PerformanceMetric ; perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue 1.5 .
`
	if err := os.WriteFile(good, []byte(goodData), 0o644); err != nil {
		t.Fatal(err)
	}
	bad, err := filepath.Abs("../../shacl/testdata/perfonto/bad.ttl")
	if err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "load", "--validate", good); code != 0 {
		t.Fatalf("load --validate of conforming data: exit %d: %s", code, stderr)
	}
	if code, stdout, stderr := runCLI(t, "", storeFlag, "validate"); code != 0 || !strings.Contains(stdout, `sh:conforms "true"^^xsd:boolean`) {
		t.Fatalf("validate: exit %d\n%s\n%s", code, stdout, stderr)
	}
	_, before, _ := runCLI(t, "", storeFlag, "export", "--format", "nquads")

	code, stdout, stderr := runCLI(t, "", storeFlag, "load", "--validate", bad)
	if code != 1 {
		t.Errorf("load --validate of bad data: exit %d, want 1", code)
	}
	for _, want := range []string{`sh:conforms "false"^^xsd:boolean`, "sh:focusNode <http://perfkb.example/bad/rs1>", "sh:MinCountConstraintComponent", "sh:value \"fast\""} {
		if !strings.Contains(stdout, want) {
			t.Errorf("the report lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "load refused, the store is unchanged") || !strings.Contains(stderr, "5 results") {
		t.Errorf("stderr = %q", stderr)
	}
	if _, after, _ := runCLI(t, "", storeFlag, "export", "--format", "nquads"); after != before {
		t.Errorf("the refused load changed the store: %d bytes of N-Quads before, %d after", len(before), len(after))
	}

	code, _, stderr = runCLI(t, "", storeFlag, "load", "--validate", "warn", bad)
	if code != 0 || !strings.Contains(stderr, "does not conform") || !strings.Contains(stderr, "sh:ValidationResult") {
		t.Errorf("load --validate warn: exit %d, stderr %q", code, stderr)
	}
	code, stdout, _ = runCLI(t, "", storeFlag, "validate")
	if code != 1 || strings.Count(stdout, "a sh:ValidationResult") != 5 {
		t.Errorf("validate after the warned load: exit %d, %d results, want 1 and 5", code, strings.Count(stdout, "a sh:ValidationResult"))
	}
	goodGraph := "file://" + filepath.ToSlash(good)
	if code, _, _ = runCLI(t, "", storeFlag, "validate", "--graph", goodGraph); code != 0 {
		t.Errorf("validate --graph of the good file: exit %d, want 0", code)
	}
}
