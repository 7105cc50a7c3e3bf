package reasoner

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/rules"
)

// TestCompareWithJena runs the shipped rules (rdfs, owl-rl, perfonto) over
// sample data plus the PERFONTO ontology with perfkb and with Apache Jena's
// GenericRuleReasoner in forward RETE mode, and compares the inferred
// triples, blank nodes replaced by a placeholder. The Jena side is the
// benchmark harness bench/jena (run.sh rules: PerfkbJena.java built against
// Debian's libapache-jena-java with its classpath and Xerces workaround),
// so the test and the benchmarks run Jena the same way.
//
// It runs when PERFKB_JENA=1 (a JVM run takes about a minute here). It
// needs java, javac and /usr/share/java/jena-core.jar (apt package
// libapache-jena-java) and skips with the reason when one is missing, and
// in -short mode. PERFKB_JENA_TRIPLES sets the data size (default 3000;
// the comparison in the README used 20000), JAVA_OPTS the JVM's options
// (default -Xmx2g).
func TestCompareWithJena(t *testing.T) {
	if os.Getenv("PERFKB_JENA") != "1" {
		t.Skip("comparison with Apache Jena (about a minute): set PERFKB_JENA=1 (needs java, javac and apt package libapache-jena-java)")
	}
	if testing.Short() {
		t.Skip("comparison with Apache Jena starts a JVM; not in -short mode")
	}
	runSh, err := filepath.Abs(filepath.Join("..", "bench", "jena", "run.sh"))
	if err != nil {
		t.Fatal(err)
	}
	if reason := jenaMissing(); reason != "" {
		t.Skipf("comparison with Apache Jena: %s", reason)
	}
	size := int64(3000)
	if v := os.Getenv("PERFKB_JENA_TRIPLES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatalf("PERFKB_JENA_TRIPLES=%q: %v", v, err)
		}
		size = n
	}
	dir := t.TempDir()
	ctx := context.Background()

	// Inputs: sample data as N-Triples and the ontology; the rules are the
	// shipped files themselves (run.sh --expand-defines turns @define into
	// values, as Jena has no named constants).
	dataFile := filepath.Join(dir, "sample.nt")
	var data bytes.Buffer
	if _, err := sample.Generate(ctx, &data, sample.Options{Triples: size, Seed: 7, Format: sample.NTriples}); err != nil {
		t.Fatal(err)
	}
	ontoFile := filepath.Join(dir, "perfonto.ttl")
	for file, content := range map[string][]byte{dataFile: data.Bytes(), ontoFile: []byte(ontology.Turtle())} {
		if err := os.WriteFile(file, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	args := []string{"rules", "--data", dataFile, "--data", ontoFile, "--expand-defines", "--out", filepath.Join(dir, "jena.nt")}
	for _, name := range rules.Default {
		file, _, ok := rules.Lookup(name)
		if !ok {
			t.Fatalf("no shipped set %s", name)
		}
		args = append(args, "--rules", filepath.Join("..", file))
	}

	// perfkb
	ds := native.OpenMemory()
	for _, f := range []string{dataFile, ontoFile} {
		if _, err := rdfio.LoadFile(ctx, ds, f, rdfio.LoadOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	asserted := canonicalTriples(t, ds, kb.Term{})
	prog, err := LoadProgram(rules.Default, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := Run(ctx, ds, prog, Options{NoDerivations: true})
	if err != nil {
		t.Fatal(err)
	}
	// Jena's deductions include the helper triples that perfkb keeps in
	// its rules-internal graph.
	ours := subtract(append(canonicalTriples(t, ds, kb.InferredGraph), canonicalTriples(t, ds, kb.IRI(kb.RulesInternalGraphIRI))...), asserted)
	t.Logf("perfkb: %d input triples, %d inferred in %v (%d new after removing asserted)", sum.Loaded, sum.Derived, sum.Duration, len(ours))

	// Jena, through the benchmark harness.
	cmd := exec.CommandContext(ctx, "sh", append([]string{runSh}, args...)...)
	cmd.Env = os.Environ()
	if os.Getenv("JAVA_OPTS") == "" {
		cmd.Env = append(cmd.Env, "JAVA_OPTS=-Xmx2g")
	}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	began := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("bench/jena/run.sh %s: %v\n%s", strings.Join(args, " "), err, out.String())
	}
	t.Logf("%s(bench/jena/run.sh: %v)", out.String(), time.Since(began).Round(time.Millisecond))
	jds := native.OpenMemory()
	if _, err := rdfio.LoadFile(ctx, jds, filepath.Join(dir, "jena.nt"), rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	theirs := subtract(canonicalTriples(t, jds, kb.Term{}), asserted)

	extra, missing := compareMultisets(ours, theirs)
	if len(extra) > 0 || len(missing) > 0 {
		t.Errorf("perfkb and Jena differ: %d triples only perfkb inferred, %d only Jena\nonly perfkb:\n%s\nonly Jena:\n%s",
			len(extra), len(missing), head(extra, 20), head(missing, 20))
	} else if len(ours) == 0 {
		t.Error("neither perfkb nor Jena inferred anything: nothing was compared")
	} else {
		t.Logf("same %d inferred triples (blank nodes compared by position)", len(ours))
	}
}

// jenaMissing says what bench/jena needs and this machine lacks ("" when
// nothing).
func jenaMissing() string {
	for _, tool := range []string{"java", "javac", "unzip"} {
		if _, err := exec.LookPath(tool); err != nil {
			return tool + " is not installed (needs a JDK and unzip)"
		}
	}
	javaDir := os.Getenv("JENA_JAVA_DIR")
	if javaDir == "" {
		javaDir = "/usr/share/java"
	}
	if _, err := os.Stat(filepath.Join(javaDir, "jena-core.jar")); err != nil {
		return "Jena is not installed: no " + filepath.Join(javaDir, "jena-core.jar") + " (apt-get install libapache-jena-java)"
	}
	return ""
}

var blankLabel = regexp.MustCompile(`_:[^ ]+`)

// canonicalTriples returns the triples of graph g (all graphs when g is
// zero) as N-Triples with blank node labels replaced by _:b, sorted.
func canonicalTriples(t *testing.T, ds kb.Dataset, g kb.Term) []string {
	t.Helper()
	ctx := context.Background()
	pat := kb.Pattern{}
	if !g.IsZero() {
		id, ok, err := ds.Lookup(ctx, g)
		if err != nil || !ok {
			return nil
		}
		pat.G = id
	}
	quads, err := kb.Collect(ds.Match(ctx, pat))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[[3]kb.ID]bool{}
	var out []string
	for _, q := range quads {
		if seen[[3]kb.ID{q.S, q.P, q.O}] {
			continue
		}
		seen[[3]kb.ID{q.S, q.P, q.O}] = true
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		tq.G = kb.Term{}
		out = append(out, blankLabel.ReplaceAllString(tq.String(), "_:b"))
	}
	sort.Strings(out)
	return out
}

func subtract(a, b []string) []string {
	in := map[string]bool{}
	for _, s := range b {
		in[s] = true
	}
	var out []string
	for _, s := range a {
		if !in[s] {
			out = append(out, s)
		}
	}
	return out
}

func compareMultisets(a, b []string) (onlyA, onlyB []string) {
	count := map[string]int{}
	for _, s := range a {
		count[s]++
	}
	for _, s := range b {
		count[s]--
	}
	for s, n := range count {
		for ; n > 0; n-- {
			onlyA = append(onlyA, s)
		}
		for ; n < 0; n++ {
			onlyB = append(onlyB, s)
		}
	}
	sort.Strings(onlyA)
	sort.Strings(onlyB)
	return onlyA, onlyB
}

func head(lines []string, n int) string {
	if len(lines) > n {
		lines = append(lines[:n:n], fmt.Sprintf("... and %d more", len(lines)-n))
	}
	return strings.Join(lines, "\n")
}
