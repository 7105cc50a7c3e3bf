package reasoner

import (
	"context"
	"strconv"
	"strings"
	"testing"
)

// SPARQL rules that cannot be run are refused when the program is loaded,
// with the rule's position and the reason.
func TestSPARQLRuleErrors(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		{"select", `[r: CONSTRUCT { ?a ex:n ?n } WHERE { ?a ex:p ?n } ]
[s: SELECT ?a WHERE { ?a ex:p ?b }]`, "test.rules:2:"},
		{"syntax", `[r: CONSTRUCT { ?a ex:n ?n } WHERE { ?a ex:p ?n . FILTER(?n >) }]`, "test.rules:1:62: SPARQL rule r:"},
		{"unclosed", `[r: CONSTRUCT { ?a ex:n ?n } WHERE { ?a ex:p ?n }`, "test.rules:1:1: the SPARQL rule opened here is not closed"},
		{"variable predicate", `[r: CONSTRUCT { ?a ?p ?n } WHERE { ?a ?p ?n }]`, "the template's predicates must be IRIs"},
		{"blank node", `[r: CONSTRUCT { _:x ex:n ?n } WHERE { ?a ex:p ?n }]`, "the template has a blank node"},
		{"shared with a Jena rule", `[j: (?a ex:p ?b) -> (?a ex:n ?b)]
[r: CONSTRUCT { ?a ex:n ?n } WHERE { SELECT ?a (COUNT(?b) AS ?n) WHERE { ?a ex:p ?b } GROUP BY ?a }]`, "test.rules:2:1: SPARQL rule r derives <http://example.org/n>, which rule j derives too"},
		{"recursive", `[j: (?a ex:n ?n) -> (?a ex:p ?n)]
[r: CONSTRUCT { ?a ex:n ?n } WHERE { SELECT ?a (COUNT(?b) AS ?n) WHERE { ?a ex:p ?b } GROUP BY ?a }]`, "an aggregate cannot be recursive"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSources(context.Background(), []Source{{Name: "test.rules", Text: []byte("@prefix ex: <http://example.org/>.\n" + c.src)}}, ParseOptions{})
			if err == nil {
				t.Fatalf("loaded; want an error containing %q", c.want)
			}
			got := err.Error()
			want := c.want
			if strings.HasPrefix(want, "test.rules:") {
				// Positions in the cases count from the rule lines.
				want = shiftLine(want)
			}
			if !strings.Contains(got, want) {
				t.Errorf("error %q, want it to contain %q", got, want)
			}
		})
	}
}

// shiftLine adds one to the line of a "test.rules:LINE:" prefix (the
// cases' rules start on the file's second line).
func shiftLine(s string) string {
	rest := strings.TrimPrefix(s, "test.rules:")
	n := 0
	i := 0
	for i < len(rest) && rest[i] >= '0' && rest[i] <= '9' {
		n = n*10 + int(rest[i]-'0')
		i++
	}
	return "test.rules:" + strconv.Itoa(n+1) + rest[i:]
}

// The file's constants are written into a SPARQL rule's query where their
// name stands as a word, and --define overrides them; inside strings,
// IRIs and prefixed names they stay as written.
func TestSPARQLRuleConstants(t *testing.T) {
	src := `@prefix ex: <http://example.org/>.
@define LIMIT 3.
[r: CONSTRUCT { ?a ex:LIMIT ?n } WHERE { ?a ex:p ?n . FILTER(?n > LIMIT && STR(?a) != "LIMIT") }]
`
	for _, c := range []struct {
		defines map[string]string
		want    string
	}{
		{nil, `?n > "3"^^<http://www.w3.org/2001/XMLSchema#int>`},
		{map[string]string{"LIMIT": "7"}, `?n > "7"^^<http://www.w3.org/2001/XMLSchema#int>`},
	} {
		prog, err := LoadSources(context.Background(), []Source{{Name: "c.rules", Text: []byte(src)}}, ParseOptions{Defines: c.defines})
		if err != nil {
			t.Fatal(err)
		}
		if len(prog.aggs) != 1 {
			t.Fatalf("%d SPARQL rules, want 1", len(prog.aggs))
		}
		q := prog.aggs[0].src.Query
		if !strings.Contains(q, c.want) || !strings.Contains(q, "ex:LIMIT") || !strings.Contains(q, `"LIMIT"`) {
			t.Errorf("defines %v: query\n%s\nwant %s, with ex:LIMIT and \"LIMIT\" as written", c.defines, q, c.want)
		}
	}
}

// A SPARQL syntax error in a rule is reported at its line and column in
// the rule file, on every line of the rule: the query's PREFIX lines, the
// rule's indentation, comments and the constants written in (whose text
// is longer or shorter than their names) do not shift it. The expected
// positions are counted by hand in the sources below (the first line is
// the @prefix line).
func TestSPARQLRuleErrorColumns(t *testing.T) {
	cases := []struct {
		name, src, want string
	}{
		// Each error is at the ')' that stands where an expression should.
		{"first line", `[r: CONSTRUCT { ?a ex:n ?n } WHERE { ?a ex:p ?n . FILTER(?n >) }]`, "test.rules:2:62:"},
		{"later line", "[r: CONSTRUCT { ?a ex:n ?n }\n  WHERE { ?a ex:p ?n .\n      FILTER(?n >) }]", "test.rules:4:18:"},
		{"after a comment", "[r: CONSTRUCT { ?a ex:n ?n } # a comment\n  WHERE { ?a ex:p ?n . # (?n >)\n      FILTER(?n >) }]", "test.rules:4:18:"},
		{"after a constant", "@define BIG 1000000.\n[r: CONSTRUCT { ?a ex:n ?n }\n  WHERE { ?a ex:p ?n . FILTER(?n > BIG && ?n >) }]", "test.rules:4:47:"},
		{"at a constant", "@define BIG 1000000.\n[r: CONSTRUCT { ?a ex:n ?n }\n  WHERE { ?a ex:p ?n . FILTER(?n > 1 BIG) }]", "test.rules:4:38:"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			_, err := LoadSources(context.Background(), []Source{{Name: "test.rules", Text: []byte("@prefix ex: <http://example.org/>.\n" + c.src)}}, ParseOptions{})
			if err == nil {
				t.Fatalf("loaded; want an error at %q", c.want)
			}
			if !strings.Contains(err.Error(), c.want) {
				t.Errorf("error %q, want it at %q", err, c.want)
			}
		})
	}
}

// A program lists its SPARQL rules beside its Jena rules, in file order,
// and counts both.
func TestProgramListsSPARQLRules(t *testing.T) {
	src := `@prefix ex: <http://example.org/>.
[a: CONSTRUCT { ?x ex:n ?n } WHERE { SELECT ?x (COUNT(?y) AS ?n) WHERE { ?x ex:p ?y } GROUP BY ?x }]
[j: (?a ex:q ?b) -> (?a ex:r ?b)]
[b: CONSTRUCT { ?x ex:m ?y } WHERE { ?x ex:r ?y }]
`
	p, err := LoadSources(context.Background(), []Source{{Name: "test.rules", Text: []byte(src)}}, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var jena, sparql []string
	for _, r := range p.Rules() {
		jena = append(jena, r.Name)
	}
	for _, r := range p.SPARQLRules() {
		sparql = append(sparql, r.Name)
	}
	if strings.Join(jena, ",") != "j" || strings.Join(sparql, ",") != "a,b" || p.Len() != 3 {
		t.Errorf("Jena rules %v, SPARQL rules %v, Len %d; want [j], [a b], 3", jena, sparql, p.Len())
	}
}
