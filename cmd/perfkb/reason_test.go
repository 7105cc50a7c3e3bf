package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

func TestWriteFindingsSummaryAndLimit(t *testing.T) {
	const ns = ontology.Namespace
	mk := func(class string, sev float64) reasoner.Finding {
		return reasoner.Finding{Subject: kb.IRI("http://ex/rs"), Type: ns + class, Severity: sev, HasSeverity: true, SeverityClass: "high"}
	}
	findings := []reasoner.Finding{mk("LateSender", 0.9), mk("BigMessage", 0.5), mk("LateSender", 0.7), mk("LateSender", 0.2), mk("BigMessage", 0.1)}
	var b bytes.Buffer
	if err := writeFindings(&b, "table", findings, reasoner.Summary{}, 2); err != nil {
		t.Fatal(err)
	}
	out := b.String()
	for _, want := range []string{"5 findings of 2 problem classes", "the 2 most severe", "--all for all 5"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	// Summary: LateSender (3, worst 0.9) before BigMessage (2, worst 0.5).
	ls, bm := strings.Index(out, "LateSender  "), strings.Index(out, "BigMessage  ")
	if ls < 0 || bm < 0 || ls > bm {
		t.Errorf("summary not worst first:\n%s", out)
	}
	if n := strings.Count(out, "http://ex/rs"); n != 2 {
		t.Errorf("--limit 2 printed %d findings:\n%s", n, out)
	}
	b.Reset()
	if err := writeFindings(&b, "table", findings, reasoner.Summary{}, 0); err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(b.String(), "http://ex/rs"); n != 5 {
		t.Errorf("--all printed %d findings, want 5", n)
	}
}

func TestFormatNumber(t *testing.T) {
	for v, want := range map[float64]string{7.7474057993029995e9: "7.747e+09", 1.4406074500999998e7: "1.441e+07", 0.8125: "0.8125", 42: "42", 0.123456: "0.1235"} {
		if got := formatNumber(v); got != want {
			t.Errorf("formatNumber(%v) = %q, want %q", v, got, want)
		}
	}
}

func TestReadableDescription(t *testing.T) {
	tests := map[string]string{
		"communication (odata_p2p + odata_col = 8.333600621000001E7 us) exceeds 0.5 of wtime 112366002.249 us": "communication (odata_p2p + odata_col = 83.34 s) exceeds 0.5 of wtime 112.4 s",
		"L2 cache miss ratio L2_TCM/L2_TCA is poor: 2279021270 misses of 2903779064 accesses (> 0.7)":          "L2 cache miss ratio L2_TCM/L2_TCA is poor: 2279021270 misses of 2903779064 accesses (> 0.7)",
		"ratio 0.81234567891 of 12 us": "ratio 0.8123 of 12 µs",
		"message of 4500.5 us is late": "message of 4.5 ms is late",
	}
	for in, want := range tests {
		if got := readableDescription(in); got != want {
			t.Errorf("readableDescription(%q)\n = %q\nwant %q", in, got, want)
		}
	}
}

// TestReasonTermLimit: a rule that doubles a string every round stops at
// --max-term-bytes with a clear error instead of running out of memory.
func TestReasonTermLimit(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=native:" + filepath.Join(dir, "db")
	rulesFile, data := filepath.Join(dir, "double.rules"), filepath.Join(dir, "d.nt")
	if err := os.WriteFile(rulesFile, []byte("@prefix ex: <http://e/>.\n[double: (?s ex:text ?t) strConcat(?t, ?t, ?u) -> (?s ex:text ?u)]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, []byte("<http://e/a> <http://e/text> \"ab\" .\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "load", data); code != 0 {
		t.Fatalf("load: %d %s", code, stderr)
	}
	code, _, stderr := runCLI(t, "", storeFlag, "reason", "--rules", rulesFile, "--max-term-bytes", "1KiB")
	if code != exitOther || !strings.Contains(stderr, "limit 1024") || !strings.Contains(stderr, "--max-term-bytes") {
		t.Fatalf("reason with a doubling rule: exit %d, stderr %s", code, stderr)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "reason", "--rules", rulesFile, "--rules-memory", "lots"); code != exitUsage {
		t.Fatalf("--rules-memory lots: exit %d, want 2: %s", code, stderr)
	}
}

// TestReasonChecksAdvice: perfkb reason --rules reads a file through the
// same load path as the server, so a malformed #@advice comment stops it
// with the comment's position before anything runs.
func TestReasonChecksAdvice(t *testing.T) {
	dir := t.TempDir()
	rulesFile := filepath.Join(dir, "advice.rules")
	src := "@prefix ex: <http://e/>.\n[r: (?s ex:p ?o) -> (?s ex:q ?o)]\n#@advice ex:Slow\n"
	if err := os.WriteFile(rulesFile, []byte(src), 0o644); err != nil {
		t.Fatal(err)
	}
	code, _, stderr := runCLI(t, "", "--store=native:"+filepath.Join(dir, "db"), "reason", "--rules", rulesFile)
	if code != exitInvalidInput || !strings.Contains(stderr, rulesFile+":3:1: #@advice: no text for http://e/Slow") {
		t.Fatalf("reason with advice without text: exit %d, stderr %s", code, stderr)
	}
}

// TestReasonTypeFilter: --type takes a user's own problem class in any
// namespace, and an unknown class is invalid input that names the known
// classes rather than "no performance problems found".
func TestReasonTypeFilter(t *testing.T) {
	dir := t.TempDir()
	storeFlag := "--store=native:" + filepath.Join(dir, "db")
	data := filepath.Join(dir, "d.ttl")
	rulesFile := filepath.Join(dir, "pair.rules")
	if err := os.WriteFile(data, []byte(`@prefix audit: <http://audit.example/ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
audit:PairImbalance rdfs:subClassOf perfonto:PerformanceProblem .
<http://e/rs1> <http://e/ratio> 3 .
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(rulesFile, []byte(`@prefix audit: <http://audit.example/ns#>.
@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>.
[pair: (?rs <http://e/ratio> ?r) greaterThan(?r, 2) makeSkolem(?f, ?rs) -> (?rs perfonto:hasProblem ?f) (?f rdf:type audit:PairImbalance)]
`), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCLI(t, "", storeFlag, "load", data); code != 0 {
		t.Fatalf("load: %d %s", code, stderr)
	}
	code, stdout, stderr := runCLI(t, "", storeFlag, "reason", "--rules", rulesFile, "--type", "PairImbalance")
	if code != 0 || !strings.Contains(stdout, "PairImbalance") || !strings.Contains(stdout, "http://e/rs1") {
		t.Fatalf("reason --type PairImbalance: exit %d\nstdout %s\nstderr %s", code, stdout, stderr)
	}
	code, stdout, stderr = runCLI(t, "", storeFlag, "reason", "--rules", rulesFile, "--type", "NoSuchClass")
	if code != exitInvalidInput || !strings.Contains(stderr, "NoSuchClass") || !strings.Contains(stderr, "PairImbalance") || !strings.Contains(stderr, "BigMessage") {
		t.Fatalf("reason --type NoSuchClass: exit %d, want %d naming the known classes\nstdout %s\nstderr %s", code, exitInvalidInput, stdout, stderr)
	}
}

// TestReasonProgressCounts: the progress lines of a reasoner run give the
// true counts of what each finished round derived, never "0 derived"
// while triples are being derived.
func TestReasonProgressCounts(t *testing.T) {
	var out lockedBuffer
	p := newProgress(&out, "reasoning: reading the store", "triples", true, time.Hour)
	report := reasonProgress(p)
	report(reasoner.Progress{Phase: "load", Loaded: 1200})
	report(reasoner.Progress{Phase: "round", Round: 1, Loaded: 1200, Derived: 350})
	report(reasoner.Progress{Phase: "round", Round: 2, Loaded: 1200, Derived: 400})
	report(reasoner.Progress{Phase: "done", Round: 2, Loaded: 1200, Derived: 400})
	p.Done()
	got := out.String()
	for _, want := range []string{
		"reasoning: round 1 of rules over 1,200 triples",
		"round 2 of rules; 350 triples derived so far, 350 in round 1",
		"round 3 of rules; 400 triples derived so far, 50 in round 2",
		"writing 400 derived triples",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("progress output lacks %q:\n%q", want, got)
		}
	}
	if strings.Contains(got, " 0 triples derived") {
		t.Errorf("progress output claims nothing derived:\n%q", got)
	}
}

// TestDemoReachesFixpoint: after perfkb demo prepared its store, a
// reasoner run derives nothing new (the demo runs the analyses, whose
// output the shipped rules read, before the rules).
func TestDemoReachesFixpoint(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the demo's data, analyses and rules (about 20 s): skipped with -short")
	}
	dir := t.TempDir()
	storeFlag := "--store=native:" + filepath.Join(dir, "db")
	if code, stdout, stderr := runCLI(t, "", storeFlag, "demo", "--sites", "1", "--triples", "20000", "--no-serve"); code != 0 {
		t.Fatalf("demo: exit %d\n%s\n%s", code, stdout, stderr)
	}
	code, stdout, stderr := runCLI(t, "", storeFlag, "reason", "--format", "json")
	if code != 0 {
		t.Fatalf("reason: exit %d\n%s", code, stderr)
	}
	var report struct {
		Summary struct {
			Derived *int64 `json:"derived"`
		} `json:"summary"`
	}
	if err := json.Unmarshal([]byte(stdout), &report); err != nil || report.Summary.Derived == nil {
		t.Fatalf("reason --format json: %v\n%.400s", err, stdout)
	}
	if *report.Summary.Derived != 0 {
		t.Errorf("a reasoner run after the demo derived %d more triples, want 0", *report.Summary.Derived)
	}
}
