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

// TestConvertValidate: convert --validate writes conforming output, and
// discards output that breaks the shapes (here a stricter shapes file
// that wants a unit on every bandwidth measurement's resource) with the
// report and exit 1, leaving the store unchanged; --validate=warn writes
// it anyway.
func TestConvertValidate(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=" + filepath.Join(dir, "db")
	const base = "http://perfkb.example/site/innsbruck/"
	fig63 := filepath.Join("..", "..", "convert", "sensor", "testdata", "fig63.xml")
	strict := filepath.Join(dir, "strict.ttl")
	if err := os.WriteFile(strict, []byte(`@prefix sh: <http://www.w3.org/ns/shacl#> .
@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
<urn:x:S> a sh:NodeShape ; sh:targetClass perfonto:PathBandwidthMeasurement ;
  sh:property [ sh:path <urn:x:never> ; sh:minCount 1 ] .
`), 0o644); err != nil {
		t.Fatal(err)
	}
	count := func() string {
		_, out, _ := runCLI(t, "", storeFlag, "query", "--format", "tsv", "-e", "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?m a <http://www.par.univie.ac.at/project/scalea/perfonto#PathBandwidthMeasurement> } }")
		return strings.TrimSpace(out)
	}
	if code, _, stderr := runCLI(t, "", "convert", "sensor", storeFlag, "--base", base, "--validate", fig63); code != 0 {
		t.Fatalf("convert --validate of conforming output: exit %d: %s", code, stderr)
	}
	before := count()
	code, _, stderr := runCLI(t, "", "convert", "sensor", storeFlag, "--base", base+"x/", "--validate", "--shapes", strict, fig63)
	if code != 1 || !strings.Contains(stderr, "conversion refused") || strings.Count(stderr, "a sh:ValidationResult") != 3 {
		t.Errorf("convert --validate with the strict shapes: exit %d, stderr:\n%s", code, stderr)
	}
	if after := count(); after != before {
		t.Errorf("a refused conversion changed the store: %q before, %q after", before, after)
	}
	if code, _, stderr = runCLI(t, "", "convert", "sensor", storeFlag, "--base", base+"x/", "--validate=warn", "--shapes", strict, fig63); code != 0 || !strings.Contains(stderr, "writing it anyway") {
		t.Errorf("convert --validate=warn: exit %d, stderr:\n%s", code, stderr)
	}
	if after := count(); after == before {
		t.Errorf("the warned conversion stored nothing (%q)", after)
	}
}
