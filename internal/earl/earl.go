// Package earl writes conformance test outcomes as an EARL report (W3C
// Evaluation and Report Language, in Turtle), the form W3C implementation
// reports collect. The W3C suite runners (RDF 1.1 syntax, SPARQL 1.1,
// SHACL) use it when PERFKB_EARL_DIR names a folder, so a plain go test
// writes nothing.
package earl

import (
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/perfkb/perfkb/ontology"
)

// EnvDir is the environment variable naming the folder reports go to.
const EnvDir = "PERFKB_EARL_DIR"

// Subject is the IRI EARL reports name perfkb by.
const Subject = "https://github.com/perfkb/perfkb"

// Report collects the outcomes of one suite run.
type Report struct {
	mu       sync.Mutex
	outcomes map[string]bool
}

// New returns an empty report.
func New() *Report { return &Report{outcomes: map[string]bool{}} }

// Add records whether the test with IRI test passed.
func (r *Report) Add(test string, passed bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.outcomes[test] = passed
}

// Len returns the number of tests recorded.
func (r *Report) Len() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.outcomes)
}

// Turtle renders the report.
func (r *Report) Turtle(date time.Time) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	tests := make([]string, 0, len(r.outcomes))
	for t := range r.outcomes {
		tests = append(tests, t)
	}
	sort.Strings(tests)
	var b strings.Builder
	fmt.Fprintf(&b, "@prefix earl: <%s> .\n@prefix dc: <http://purl.org/dc/terms/> .\n@prefix doap: <http://usefulinc.com/ns/doap#> .\n@prefix xsd: <%s> .\n\n", ontology.EARLNamespace, ontology.XSDNamespace)
	fmt.Fprintf(&b, "<%s> a doap:Project, earl:TestSubject, earl:Software ;\n  doap:name \"perfkb\" ;\n  doap:programming-language \"Go\" .\n\n", Subject)
	day := date.UTC().Format("2006-01-02")
	for _, t := range tests {
		outcome := "earl:failed"
		if r.outcomes[t] {
			outcome = "earl:passed"
		}
		fmt.Fprintf(&b, "[] a earl:Assertion ;\n  earl:assertedBy <%s> ;\n  earl:subject <%s> ;\n  earl:test <%s> ;\n  earl:mode earl:automatic ;\n  earl:result [ a earl:TestResult ; earl:outcome %s ; dc:date \"%s\"^^xsd:date ] .\n\n", Subject, Subject, t, outcome, day)
	}
	return b.String()
}

// WriteIfAsked writes the report as name (e.g. "shacl.ttl") into the
// folder PERFKB_EARL_DIR names, and does nothing when it is unset. It
// returns the path written, or "".
func (r *Report) WriteIfAsked(name string) (string, error) {
	dir := os.Getenv(EnvDir)
	if dir == "" {
		return "", nil
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(dir, name)
	return path, os.WriteFile(path, []byte(r.Turtle(time.Now())), 0o644)
}
