package reasoner

import (
	"archive/zip"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/ontology/sample"
	"github.com/perfkb/perfkb/rules"
)

// TestCompareWithJena runs the shipped rules (rdfs, owl-rl, perfonto) over
// sample data plus the PERFONTO ontology with perfkb and with Apache Jena's
// GenericRuleReasoner in forward RETE mode (testdata/jena/JenaForward.java)
// and compares the inferred triples, blank nodes replaced by a placeholder.
// It needs Java and Debian's libapache-jena-java, so it runs only when
// PERFKB_JENA=1; PERFKB_JENA_TRIPLES sets the data size (default 20000).
func TestCompareWithJena(t *testing.T) {
	if os.Getenv("PERFKB_JENA") != "1" {
		t.Skip("comparison with Apache Jena: set PERFKB_JENA=1 (needs java and apt package libapache-jena-java)")
	}
	if testing.Short() {
		t.Skip("comparison with Apache Jena is slow; not in -short mode")
	}
	size := int64(20000)
	if v := os.Getenv("PERFKB_JENA_TRIPLES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		size = n
	}
	dir := t.TempDir()
	classpath, err := jenaClasspath(dir)
	if err != nil {
		t.Skipf("Jena is not installed here: %v", err)
	}
	ctx := context.Background()

	// Inputs: sample data as N-Triples, the ontology, the rules with the
	// @define constants substituted (Jena has no @define).
	dataFile := filepath.Join(dir, "sample.nt")
	var data bytes.Buffer
	if _, err := sample.Generate(ctx, &data, sample.Options{Triples: size, Seed: 7, Format: sample.NTriples}); err != nil {
		t.Fatal(err)
	}
	ontoFile := filepath.Join(dir, "perfonto.ttl")
	rulesFile := filepath.Join(dir, "all.rules")
	var ruleText strings.Builder
	for _, name := range rules.Default {
		_, src, _ := rules.Lookup(name)
		ruleText.WriteString(substituteDefines(string(src)))
		ruleText.WriteString("\n")
	}
	for file, content := range map[string][]byte{dataFile: data.Bytes(), ontoFile: []byte(ontology.Turtle()), rulesFile: []byte(ruleText.String())} {
		if err := os.WriteFile(file, content, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	// perfkb
	ds := kb.NewMemory()
	for _, f := range []string{dataFile, ontoFile} {
		if _, err := kb.LoadFile(ctx, ds, f, kb.LoadOptions{}); err != nil {
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
	ours := subtract(canonicalTriples(t, ds, kb.InferredGraph), asserted)
	t.Logf("perfkb: %d input triples, %d inferred in %v (%d new after removing asserted)", sum.Loaded, sum.Derived, sum.Duration, len(ours))
	t.Logf("perfkb rule times: %v", sum.RuleTime)

	// Jena
	out := filepath.Join(dir, "jena.nt")
	javaSrc, _ := filepath.Abs(filepath.Join("testdata", "jena", "JenaForward.java"))
	cmd := exec.CommandContext(ctx, "java", "-Xmx12g", "-cp", classpath, javaSrc, rulesFile, out, dataFile, ontoFile)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	cmd.Stdout = io.Discard // print() output
	began := time.Now()
	if err := cmd.Run(); err != nil {
		t.Fatalf("jena: %v\n%s", err, stderr.String())
	}
	t.Logf("%s(java process %v)", stderr.String(), time.Since(began).Round(time.Millisecond))
	jds := kb.NewMemory()
	if _, err := kb.LoadFile(ctx, jds, out, kb.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	theirs := subtract(canonicalTriples(t, jds, kb.Term{}), asserted)

	extra, missing := compareMultisets(ours, theirs)
	if len(extra) > 0 || len(missing) > 0 {
		t.Errorf("perfkb and Jena differ: %d triples only perfkb inferred, %d only Jena\nonly perfkb:\n%s\nonly Jena:\n%s",
			len(extra), len(missing), head(extra, 20), head(missing, 20))
	} else {
		t.Logf("same %d inferred triples (blank nodes compared by position)", len(ours))
	}
}

var defineLine = regexp.MustCompile(`(?m)^@define\s+([A-Za-z_][A-Za-z0-9_]*)\s+(\S+?)\.\s*(#.*)?$`)

// substituteDefines turns @define constants into the literal values for
// Jena.
func substituteDefines(src string) string {
	defs := map[string]string{}
	for _, m := range defineLine.FindAllStringSubmatch(src, -1) {
		defs[m[1]] = m[2]
	}
	src = defineLine.ReplaceAllString(src, "")
	for name, value := range defs {
		src = regexp.MustCompile(`\b`+name+`\b`).ReplaceAllString(src, value)
	}
	return src
}

// jenaClasspath builds the classpath for Debian's Jena, plus a directory
// with the message bundles its relocated Xerces looks for under the wrong
// package name (without them Jena fails in XSDDatatype's initialiser).
func jenaClasspath(dir string) (string, error) {
	if _, err := exec.LookPath("java"); err != nil {
		return "", err
	}
	jars := []string{"jena-core", "jena-base", "jena-arq", "jena-iri", "commons-cli", "commons-codec", "commons-compress",
		"commons-csv", "commons-io", "commons-lang3", "dexx.collection", "gson", "guava", "jackson-core", "jackson-databind",
		"jackson-annotations", "slf4j-api", "slf4j-nop", "thrift", "caffeine", "commons-collections4", "protobuf",
		"httpclient", "httpcore", "jsonld-java", "titanium-json-ld", "jakarta.json-api"}
	var cp []string
	for _, j := range jars {
		p := "/usr/share/java/" + j + ".jar"
		if _, err := os.Stat(p); err == nil {
			cp = append(cp, p)
		}
	}
	if len(cp) == 0 || !strings.HasSuffix(cp[0], "jena-core.jar") {
		return "", fmt.Errorf("/usr/share/java/jena-core.jar not found")
	}
	zr, err := zip.OpenReader(cp[0])
	if err != nil {
		return "", err
	}
	defer zr.Close()
	fix := filepath.Join(dir, "xerces-fix")
	for _, f := range zr.File {
		rel, ok := strings.CutPrefix(f.Name, "org/apache/jena/ext/")
		if !ok || !strings.HasSuffix(f.Name, ".properties") || !strings.HasPrefix(rel, "xerces/") {
			continue
		}
		rc, err := f.Open()
		if err != nil {
			return "", err
		}
		b, err := io.ReadAll(rc)
		rc.Close()
		if err != nil {
			return "", err
		}
		target := filepath.Join(fix, rel)
		if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
			return "", err
		}
		if err := os.WriteFile(target, b, 0o644); err != nil {
			return "", err
		}
	}
	return strings.Join(append([]string{fix}, cp...), ":"), nil
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
