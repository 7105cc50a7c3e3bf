package rules_test

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/reasoner/rulelang"
)

// The testdata files are scripts, one per shipped rule file:
//
//	case NAME              starts a case
//	rules SET...           rule sets or files to run (default: the file's set)
//	define NAME=VALUE      overrides a named constant
//	data ... end           Turtle data (ex:, rdf:, rdfs:, owl:, xsd:, perfonto: predefined)
//	fires RULE...          each rule derived at least one triple
//	not-fires RULE...      each rule derived nothing
//	infers ... end         Turtle triples that must be in the inferred graph
//	not-infers ... end     Turtle triples that must not be in the store at all
//	finding TYPE SUBJECT   a finding of problem class TYPE on SUBJECT (ex:name)
//	findings N             exactly N findings
//
// Every rule of the shipped files has a case where it must fire and one
// where it must not.

const prefixes = `@prefix ex: <http://example.org/> .
@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
`

type step struct {
	line int
	verb string
	args []string
	body string
}

type testCase struct {
	name  string
	line  int
	steps []step
}

func readScript(t *testing.T, path string) []*testCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []*testCase
	sc := bufio.NewScanner(f)
	n := 0
	var block *step
	for sc.Scan() {
		n++
		line := sc.Text()
		if block != nil {
			if strings.TrimSpace(line) == "end" {
				cases[len(cases)-1].steps = append(cases[len(cases)-1].steps, *block)
				block = nil
				continue
			}
			block.body += line + "\n"
			continue
		}
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		fields := strings.Fields(trimmed)
		if fields[0] == "case" {
			cases = append(cases, &testCase{name: strings.Join(fields[1:], " "), line: n})
			continue
		}
		if len(cases) == 0 {
			t.Fatalf("%s:%d: %q before the first case", path, n, trimmed)
		}
		st := step{line: n, verb: fields[0], args: fields[1:]}
		switch st.verb {
		case "data", "infers", "not-infers":
			block = &st
		default:
			cases[len(cases)-1].steps = append(cases[len(cases)-1].steps, st)
		}
	}
	if block != nil {
		t.Fatalf("%s:%d: block without end", path, block.line)
	}
	return cases
}

func turtleTriples(t *testing.T, where, data string) (*native.MemStore, []kb.Triple) {
	t.Helper()
	ds := native.OpenMemory()
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(prefixes+data), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: where}); err != nil {
		t.Fatalf("%s: %v", where, err)
	}
	quads, err := kb.Collect(ds.Match(context.Background(), kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	var out []kb.Triple
	for _, q := range quads {
		tq, err := kb.ResolveQuad(context.Background(), ds, q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, kb.Triple{S: tq.S, P: tq.P, O: tq.O})
	}
	return ds, out
}

func inGraph(t *testing.T, ds kb.Dataset, tr kb.Triple, g kb.Term) bool {
	t.Helper()
	ctx := context.Background()
	var ids [4]kb.ID
	for i, term := range []kb.Term{tr.S, tr.P, tr.O, g} {
		if term.IsZero() {
			continue
		}
		id, ok, err := ds.Lookup(ctx, term)
		if err != nil {
			t.Fatal(err)
		}
		if !ok {
			return false
		}
		ids[i] = id
	}
	n, err := ds.Count(ctx, kb.Pattern{S: ids[0], P: ids[1], O: ids[2], G: ids[3]}, true)
	if err != nil {
		t.Fatal(err)
	}
	return n > 0
}

func runCase(t *testing.T, file string, defaultSet string, tc *testCase) {
	ctx := context.Background()
	sources := []string{defaultSet}
	defines := map[string]string{}
	var ds *native.MemStore
	for _, st := range tc.steps {
		switch st.verb {
		case "rules":
			sources = st.args
		case "define":
			for _, a := range st.args {
				k, v, _ := strings.Cut(a, "=")
				defines[k] = v
			}
		case "data":
			ds, _ = turtleTriples(t, fmt.Sprintf("%s:%d", file, st.line), st.body)
		}
	}
	if ds == nil {
		t.Fatalf("%s:%d: case without data", file, tc.line)
	}
	prog, err := reasoner.LoadProgram(sources, reasoner.ParseOptions{Defines: defines})
	if err != nil {
		t.Fatalf("%s:%d: %v", file, tc.line, err)
	}
	sum, err := reasoner.Run(ctx, ds, prog, reasoner.Options{})
	if err != nil {
		t.Fatalf("%s:%d: run: %v", file, tc.line, err)
	}
	var findings []reasoner.Finding
	loadFindings := func() []reasoner.Finding {
		if findings == nil {
			if findings, err = reasoner.Findings(ctx, ds, reasoner.FindingFilter{}); err != nil {
				t.Fatal(err)
			}
			if findings == nil {
				findings = []reasoner.Finding{}
			}
		}
		return findings
	}
	for _, st := range tc.steps {
		where := fmt.Sprintf("%s:%d", file, st.line)
		switch st.verb {
		case "rules", "define", "data":
		case "fires":
			for _, r := range st.args {
				if sum.Firings[r] == 0 {
					t.Errorf("%s: rule %s did not fire (firings %v)", where, r, sum.Firings)
				}
			}
		case "not-fires":
			for _, r := range st.args {
				if sum.Firings[r] != 0 {
					t.Errorf("%s: rule %s fired %d times", where, r, sum.Firings[r])
				}
			}
		case "infers":
			_, want := turtleTriples(t, where, st.body)
			for _, tr := range want {
				if !inGraph(t, ds, tr, kb.InferredGraph) {
					t.Errorf("%s: not inferred: %s", where, kb.TermQuad{S: tr.S, P: tr.P, O: tr.O})
				}
			}
		case "not-infers":
			_, unwanted := turtleTriples(t, where, st.body)
			for _, tr := range unwanted {
				if inGraph(t, ds, tr, kb.Term{}) {
					t.Errorf("%s: unexpectedly present: %s", where, kb.TermQuad{S: tr.S, P: tr.P, O: tr.O})
				}
			}
		case "finding":
			if len(st.args) != 2 {
				t.Fatalf("%s: finding TYPE SUBJECT", where)
			}
			subject := kb.IRI("http://example.org/" + strings.TrimPrefix(st.args[1], "ex:"))
			found := false
			for _, f := range loadFindings() {
				if f.TypeName() == st.args[0] && f.Subject == subject {
					found = true
					if !f.HasSeverity || f.Severity <= 0 || f.Severity > 1 || f.SeverityClass == "" || f.Description == "" {
						t.Errorf("%s: finding %s lacks severity, class or description: %+v", where, st.args[0], f)
					}
				}
			}
			if !found {
				t.Errorf("%s: no %s finding on %s (have %+v)", where, st.args[0], subject, loadFindings())
			}
		case "findings":
			var n int
			fmt.Sscan(st.args[0], &n)
			if got := len(loadFindings()); got != n {
				t.Errorf("%s: %d findings, want %d: %+v", where, got, n, loadFindings())
			}
		default:
			t.Fatalf("%s: unknown verb %q", where, st.verb)
		}
	}
}

func TestShippedRules(t *testing.T) {
	sets := map[string]string{"rdfs.test": "RDFS", "owl-rl.test": "OWL", "perfonto.test": "PERFONTO", "monitoring.test": "MONITORING", "models.test": "MODELS"}
	for file, set := range sets {
		t.Run(strings.TrimSuffix(file, ".test"), func(t *testing.T) {
			path := filepath.Join("testdata", file)
			cases := readScript(t, path)
			if len(cases) == 0 {
				t.Fatalf("%s has no cases", path)
			}
			for _, tc := range cases {
				t.Run(tc.name, func(t *testing.T) { runCase(t, path, set, tc) })
			}
		})
	}
}

// TestEveryRuleIsTested checks that each shipped rule appears in a fires
// and a not-fires line of its testdata file.
func TestEveryRuleIsTested(t *testing.T) {
	sets := map[string]string{"rdfs.test": "RDFS", "owl-rl.test": "OWL", "perfonto.test": "PERFONTO", "monitoring.test": "MONITORING", "models.test": "MODELS"}
	for file, set := range sets {
		prog, err := reasoner.LoadProgram([]string{set}, reasoner.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		fires, notFires := map[string]bool{}, map[string]bool{}
		for _, tc := range readScript(t, filepath.Join("testdata", file)) {
			for _, st := range tc.steps {
				for _, a := range st.args {
					if st.verb == "fires" {
						fires[a] = true
					}
					if st.verb == "not-fires" {
						notFires[a] = true
					}
				}
			}
		}
		for _, r := range prog.Rules() {
			if !fires[r.Name] || !notFires[r.Name] {
				t.Errorf("%s: rule %s needs a fires and a not-fires case", file, r.Name)
			}
		}
	}
}

// TestRulesUseDeclaredVocabulary checks that every PERFONTO IRI the
// shipped rules mention is declared (has an rdf:type) in ontology/perfonto.ttl.
func TestRulesUseDeclaredVocabulary(t *testing.T) {
	ctx := context.Background()
	onto := native.OpenMemory()
	if _, err := rdfio.Load(ctx, onto, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "perfonto.ttl"}); err != nil {
		t.Fatal(err)
	}
	typeID, _, err := onto.Lookup(ctx, kb.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"))
	if err != nil {
		t.Fatal(err)
	}
	for _, set := range []string{"RDFS", "OWL", "PERFONTO", "MONITORING"} {
		prog, err := reasoner.LoadProgram([]string{set}, reasoner.ParseOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, r := range prog.Rules() {
			for _, c := range append(append([]rulelang.Clause{}, r.Body...), r.Head...) {
				var nodes []rulelang.Node
				if c.Triple != nil {
					nodes = c.Triple[:]
				} else {
					nodes = c.Call.Args
				}
				for _, n := range nodes {
					if n.Kind != rulelang.NodeTerm || !n.Term.IsIRI() || !strings.HasPrefix(n.Term.Value, ontology.Namespace) {
						continue
					}
					id, ok, err := onto.Lookup(ctx, n.Term)
					if err != nil {
						t.Fatal(err)
					}
					declared := false
					if ok {
						c, err := onto.Count(ctx, kb.Pattern{S: id, P: typeID}, true)
						if err != nil {
							t.Fatal(err)
						}
						declared = c > 0
					}
					if !declared {
						t.Errorf("%s: rule %s uses %s, which perfonto.ttl does not declare", n.Pos, r.Name, n.Term.Value)
					}
				}
			}
		}
	}
}
