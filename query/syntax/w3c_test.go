package syntax

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const (
	mfNS    = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
	dawgtNS = "http://www.w3.org/2001/sw/DataAccess/tests/test-dawg#"
)

// w3cDir locates the W3C SPARQL test suites (testdata/w3c/w3c-sparql in the
// repository, or $PERFKB_W3C_SPARQL).
func w3cDir() string {
	if d := os.Getenv("PERFKB_W3C_SPARQL"); d != "" {
		return d
	}
	return filepath.Join("..", "..", "testdata", "w3c", "w3c-sparql")
}

// syntaxSuites are the W3C syntax suites this package must pass.
var syntaxSuites = []string{
	"sparql10/syntax-sparql1",
	"sparql10/syntax-sparql2",
	"sparql10/syntax-sparql3",
	"sparql10/syntax-sparql4",
	"sparql10/syntax-sparql5",
	"sparql11/syntax-query",
	"sparql11/syntax-update-1",
	"sparql11/syntax-update-2",
	"sparql11/syntax-fed",
	// Syntax tests kept in evaluation suites.
	"sparql11/aggregates",
	"sparql11/construct",
	"sparql11/delete-insert",
	"sparql11/grouping",
}

// syntaxTest is one entry of a syntax manifest.
type syntaxTest struct {
	name     string
	file     string
	positive bool
	update   bool
	withdraw bool
}

// readSyntaxManifest reads the entries of a manifest in list order.
func readSyntaxManifest(dir string) ([]syntaxTest, error) {
	abs, err := filepath.Abs(filepath.Join(dir, "manifest.ttl"))
	if err != nil {
		return nil, err
	}
	base := "file://" + abs
	triples, err := readTurtle(abs, base)
	if err != nil {
		return nil, err
	}
	props := map[string]map[string][]string{}
	for _, t := range triples {
		if props[t.s] == nil {
			props[t.s] = map[string][]string{}
		}
		props[t.s][t.p] = append(props[t.s][t.p], t.o)
	}
	get := func(s, p string) string {
		if v := props[s][p]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	var tests []syntaxTest
	for _, head := range props["<"+base+">"]["<"+mfNS+"entries>"] {
		for n := head; n != "<"+rdfNil+">" && n != ""; n = get(n, "<"+rdfRest+">") {
			e := get(n, "<"+rdfFirst+">")
			typ := strings.TrimSuffix(strings.TrimPrefix(get(e, "<"+rdfType+">"), "<"+mfNS), ">")
			action := strings.Trim(get(e, "<"+mfNS+"action>"), "<>")
			name := strings.Trim(get(e, "<"+mfNS+"name>"), `"`)
			if name == "" {
				name = e
			}
			st := syntaxTest{
				name:     name,
				file:     strings.TrimPrefix(action, "file://"),
				positive: strings.HasPrefix(typ, "Positive"),
				update:   strings.Contains(typ, "Update") || strings.HasSuffix(action, ".ru"),
				withdraw: get(e, "<"+dawgtNS+"approval>") == "<"+dawgtNS+"Withdrawn>",
			}
			if !strings.Contains(typ, "Syntax") {
				continue
			}
			tests = append(tests, st)
		}
	}
	return tests, nil
}

// knownFailures reads testdata/w3c-known-failures.txt: "suite/name  reason".
func knownFailures(t *testing.T) map[string]string {
	f, err := os.Open(filepath.Join("testdata", "w3c-known-failures.txt"))
	if os.IsNotExist(err) {
		return nil
	}
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	known := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		name, reason, _ := strings.Cut(line, " ")
		known[name] = strings.TrimSpace(reason)
	}
	return known
}

// TestW3CSyntax runs the W3C SPARQL 1.0 and 1.1 syntax suites: positive
// tests must parse (including the static checks), negative tests must fail.
func TestW3CSyntax(t *testing.T) {
	root := w3cDir()
	if _, err := os.Stat(root); err != nil {
		t.Fatalf("W3C SPARQL test suites not found at %s (they are part of the repository; PERFKB_W3C_SPARQL names another copy): %v", root, err)
	}
	known := knownFailures(t)
	for _, suite := range syntaxSuites {
		t.Run(suite, func(t *testing.T) {
			dir := filepath.Join(root, suite)
			if _, err := os.Stat(filepath.Join(dir, "manifest.ttl")); err != nil {
				t.Skipf("suite folder %s absent: %v", dir, err)
			}
			tests, err := readSyntaxManifest(dir)
			if err != nil {
				t.Fatal(err)
			}
			var passed, failed, skipped int
			for _, st := range tests {
				if st.withdraw {
					skipped++
					continue
				}
				src, err := os.ReadFile(st.file)
				if err != nil {
					t.Errorf("%s: %v", st.name, err)
					failed++
					continue
				}
				opts := Options{BaseIRI: "file://" + st.file}
				if st.update {
					_, err = ParseUpdate(string(src), opts)
				} else {
					_, err = ParseQuery(string(src), opts)
				}
				ok := (err == nil) == st.positive
				key := suite + "/" + st.name
				switch {
				case ok:
					passed++
				case known[key] != "":
					failed++
					t.Logf("known failure %s: %s", key, known[key])
				default:
					failed++
					if st.positive {
						t.Errorf("%s: positive test rejected: %v\n%s", st.name, err, src)
					} else {
						t.Errorf("%s: negative test accepted\n%s", st.name, src)
					}
				}
			}
			t.Logf("%s: %d passed, %d failed, %d skipped", suite, passed, failed, skipped)
		})
	}
}
