package syntax

import (
	"errors"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/textpos"
)

// TestQueryErrors checks syntax and static errors, with their positions.
func TestQueryErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // "line:col: message" prefix
	}{
		{"missing brace", "SELECT * WHERE { ?s ?p ?o ", "1:27: expected '}' or a graph pattern, found end of input"},
		{"missing dot", "SELECT * { <a> <b> <c> <d> <e> <f> }", "1:24: expected '.' or '}', found IRI <d>"},
		{"undefined prefix", "SELECT * {\n  ?s ex:p ?o }", "2:6: undefined prefix \"ex:\""},
		{"bad keyword", "SELECTT * {}", "1:1: expected SELECT, CONSTRUCT, ASK or DESCRIBE, found 'SELECTT'"},
		{"unterminated string", "SELECT * { ?s ?p \"abc }", "1:18: unterminated string"},
		{"bad escape", `SELECT * { ?s ?p "a\qb" }`, `1:20: invalid escape \q in string`},
		{"arity", "SELECT * { ?s ?p ?o FILTER(STRLEN(?o, 1)) }", "1:28: STRLEN takes 1 argument, found 2"},
		{"regex arity", "SELECT * { ?s ?p ?o FILTER(REGEX(?o)) }", "1:28: REGEX takes 2 or 3 arguments, found 1"},
		{"regex flags", `SELECT * { ?s ?p ?o FILTER(REGEX(?o, "a", "iz")) }`, `1:28: REGEX flag 'z' is not one of s, m, i, x, q`},
		{"unknown function", "SELECT * { ?s ?p ?o FILTER(FOO(?o)) }", "1:28: unknown function or keyword \"FOO\""},
		{"cast arity", "PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>\nSELECT * { ?s ?p ?o FILTER(xsd:integer(?o, 2)) }", "2:28: <http://www.w3.org/2001/XMLSchema#integer> takes 1 argument, found 2"},
		{"select expr in scope", "SELECT (1 AS ?o) { ?s ?p ?o }", "1:14: variable ?o is already in scope"},
		{"duplicate AS", "SELECT (1 AS ?x) (2 AS ?x) {}", "1:24: variable ?x is already in the SELECT list"},
		{"ungrouped var", "SELECT ?s (COUNT(*) AS ?n) { ?s ?p ?o } GROUP BY ?p", "1:8: variable ?s is neither grouped nor aggregated"},
		{"expression equal to unnamed key", "SELECT (STR(?x) AS ?s) { ?x ?p ?o } GROUP BY (STR(?x))", "1:20: variable ?x in the expression for ?s is neither grouped nor aggregated"},
		{"ungrouped in expr", "SELECT (?o + 1 AS ?x) { ?s ?p ?o } GROUP BY ?s", "1:19: variable ?o in the expression for ?x is neither grouped nor aggregated"},
		{"aggregate without group", "SELECT ?s (COUNT(*) AS ?n) { ?s ?p ?o }", "1:8: variable ?s is neither grouped nor aggregated"},
		{"select star group", "SELECT * { ?s ?p ?o } GROUP BY ?s", "1:1: SELECT * is not allowed with GROUP BY"},
		{"aggregate in filter", "SELECT * { ?s ?p ?o FILTER(COUNT(?o) > 1) }", "1:28: aggregate COUNT is not allowed here"},
		{"aggregate in group by", "SELECT (1 AS ?x) { ?s ?p ?o } GROUP BY (SUM(?o))", "1:41: aggregate SUM is not allowed here"},
		{"nested aggregate", "SELECT (SUM(COUNT(?o)) AS ?x) { ?s ?p ?o }", "1:13: aggregate COUNT is nested"},
		{"bind in scope", "SELECT * { ?s ?p ?o BIND(1 AS ?o) }", "1:31: BIND: variable ?o is already in scope"},
		{"values arity", "SELECT * { VALUES (?a ?b) { (1 2) (3) } }", "1:35: VALUES row has 1 values for 2 variables"},
		{"trailing values arity", "SELECT * {} VALUES (?a) { (1 2) }", "1:27: VALUES row has 2 values for 1 variables"},
		{"bnode across bgps", "SELECT * { _:a ?p ?o OPTIONAL { _:a ?q ?r } }", "1:33: blank node label _:a is used in two different basic graph patterns"},
		{"bnode across union", "SELECT * { { _:a ?p ?o } UNION { _:a ?q ?r } }", "1:34: blank node label _:a is used in two different basic graph patterns"},
		{"limit not integer", "SELECT * {} LIMIT 1.5", "1:19: expected integer after LIMIT, found number 1.5"},
		{"group by as in scope", "SELECT ?o { ?s ?p ?o } GROUP BY (?s AS ?o)", "1:33: variable ?o is already in scope"},
		{"trailing junk", "ASK {} }", "1:8: expected end of query, found '}'"},
		{"path modifier", "SELECT * { ?s (<p>| ?o }", "1:21: expected IRI, 'a', '!', '^' or '(' in property path, found variable ?o"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseQuery(tc.src, Options{})
			if err == nil {
				t.Fatalf("ParseQuery succeeded, want error %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error = %q\nwant prefix %q", err, tc.want)
			}
			var se *textpos.Error
			if !errors.As(err, &se) || !se.InvalidInput() {
				t.Errorf("error %T is not a *textpos.Error marked as invalid input", err)
			}
		})
	}
}

// TestUpdateErrors checks the static rules of SPARQL Update.
func TestUpdateErrors(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string
	}{
		{"var in insert data", "INSERT DATA { ?s <p> <o> }", "1:15: variables are not allowed in INSERT DATA or DELETE DATA"},
		{"bnode in delete data", "DELETE DATA { _:b <p> <o> }", "1:15: blank nodes are not allowed in DELETE"},
		{"bnode in delete where", "DELETE WHERE { [] <p> ?o }", "1:16: blank nodes are not allowed in DELETE"},
		{"bnode in delete template", "DELETE { _:b <p> ?o } WHERE { ?s <p> ?o }", "1:10: blank nodes are not allowed in DELETE"},
		{"graph var in data", "INSERT DATA { GRAPH ?g { <s> <p> <o> } }", "1:15: GRAPH variables are not allowed"},
		{"bnode shared across ops", "INSERT DATA { _:b <p> 1 } ; INSERT DATA { _:b <p> 2 }", "1:43: blank node label _:b is used in two operations"},
		{"missing where", "DELETE { ?s <p> ?o }", "1:21: expected WHERE, found end of input"},
		{"bad op", "UPSERT DATA {}", "1:1: expected update operation"},
		{"missing semicolon", "CLEAR ALL DROP ALL", "1:11: expected ';' or end of update, found 'DROP'"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseUpdate(tc.src, Options{})
			if err == nil {
				t.Fatalf("ParseUpdate succeeded, want error %q", tc.want)
			}
			if !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("error = %q\nwant prefix %q", err, tc.want)
			}
		})
	}
}

// TestValidQueries checks constructs that must be accepted.
func TestValidQueries(t *testing.T) {
	tests := []string{
		"select * where { ?s a ?o }",
		"SELECT (COUNT(*) AS ?n) (?n * 2 AS ?m) { ?s ?p ?o }",
		"SELECT ?g (STR(?g) AS ?sg) { ?s ?p ?o } GROUP BY ?g",
		"SELECT * { _:a ?p ?o FILTER(true) _:a ?q ?r }",
		"SELECT * { ?s ?p ?o } ORDER BY ASC(?o) DESC(STR(?s)) LIMIT 5 OFFSET 2",
		"SELECT * { ?s ?p ?o } OFFSET 2 LIMIT 5",
		"SELECT ?s { ?s ?p ?o } GROUP BY ?s HAVING (COUNT(*) > 1) ORDER BY (COUNT(*))",
		"SELECT * { ?s <p> ?o . ?o <q> 'x' . }",
		"SELECT * { ?s <p> '''long\n\"string\"''' }",
		"PREFIX : <http://e/> SELECT * { :a\\.b :c%20d :e\\-f }",
		"SELECT * { ?s ?p -1, +2, .5e-3 FILTER(?p -1 > 0 && ?p+1*2 < 3) }",
		"ASK { SERVICE ?ep { ?s ?p ?o } }",
		"SELECT * { ?s ?p ?o MINUS { ?s ?p 1 } OPTIONAL { ?s ?q ?r } }",
		"CONSTRUCT { ?s ?p [] } WHERE { ?s ?p ?o }",
		"DESCRIBE <http://e/x>",
		"SELECT * { ?s <p>/<q>|^<r>* ?o . ?s !(<a>|^<b>) ?z }",
		"SELECT * { VALUES () { () () } }",
		"SELECT * { ?s ?p ?o FILTER NOT EXISTS { ?s ?p 2 } FILTER EXISTS { ?s ?p 3 } }",
		"SELECT (GROUP_CONCAT(DISTINCT ?o; separator='|') AS ?c) { ?s ?p ?o }",
		"SELECT * { ?s ?p ?o FILTER(RAND() < NOW() && BNODE() != UUID() && STRUUID() != '') }",
		"SELECT * { ?s ?p ?o FILTER(SUBSTR(?o, 1) && SUBSTR(?o, 1, 2) && REPLACE(?o, 'a', 'b', 'i')) }",
	}
	for _, src := range tests {
		if _, err := ParseQuery(src, Options{}); err != nil {
			t.Errorf("ParseQuery(%q): %v", src, err)
		}
	}
}

// TestNestingLimit checks that deep nesting is an error, not a stack
// overflow.
func TestNestingLimit(t *testing.T) {
	deep := "SELECT * " + strings.Repeat("{", 10000) + strings.Repeat("}", 10000)
	if _, err := ParseQuery(deep, Options{}); err == nil || !strings.Contains(err.Error(), "nesting depth") {
		t.Errorf("deep groups: error = %v, want nesting depth error", err)
	}
	expr := "SELECT * { FILTER(" + strings.Repeat("(", 10000) + "1" + strings.Repeat(")", 10000) + ") }"
	if _, err := ParseQuery(expr, Options{}); err == nil || !strings.Contains(err.Error(), "nesting depth") {
		t.Errorf("deep expression: error = %v, want nesting depth error", err)
	}
	neg := "SELECT * { FILTER(" + strings.Repeat("!", 10000) + "true) }"
	if _, err := ParseQuery(neg, Options{}); err == nil || !strings.Contains(err.Error(), "nesting depth") {
		t.Errorf("deep negation: error = %v, want nesting depth error", err)
	}
	list := "SELECT * { ?s ?p " + strings.Repeat("(", 10000) + strings.Repeat(")", 10000) + " }"
	if _, err := ParseQuery(list, Options{}); err == nil || !strings.Contains(err.Error(), "nesting depth") {
		t.Errorf("deep collections: error = %v, want nesting depth error", err)
	}
}
