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
		{"syntax", `[r: CONSTRUCT { ?a ex:n ?n } WHERE { ?a ex:p ?n . FILTER(?n >) }]`, "test.rules:1:1: SPARQL rule r:"},
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
