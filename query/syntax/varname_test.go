package syntax

import (
	"slices"
	"testing"

	"github.com/perfkb/perfkb/query/algebra"
)

// TestUnderscoreVariables checks that variables whose names start with '_'
// (legal: VARNAME starts with PN_CHARS_U) parse, and that ?_x stays apart
// from the blank node _:x, which the parser also turns into a variable.
func TestUnderscoreVariables(t *testing.T) {
	tests := []struct {
		src  string
		want []algebra.Var // the SELECT * variables
	}{
		{`SELECT * WHERE { ?_x ?p _:x }`, []algebra.Var{"_x", "p"}},
		{`SELECT * WHERE { $_ ?_1 ?o }`, []algebra.Var{"_", "_1", "o"}},
		{`SELECT * WHERE { VALUES ?_x { 1 } BIND (?_x + 1 AS ?_y) }`, []algebra.Var{"_x", "_y"}},
	}
	for _, tc := range tests {
		q, err := ParseQuery(tc.src, Options{})
		if err != nil {
			t.Errorf("ParseQuery(%q): %v", tc.src, err)
			continue
		}
		if !slices.Equal(q.Vars, tc.want) {
			t.Errorf("ParseQuery(%q): SELECT * variables %v, want %v", tc.src, q.Vars, tc.want)
		}
	}
	// ?_x and _:x are two different variables: the same name used for both
	// would join the subject with the object.
	q, err := ParseQuery(`SELECT ?_x WHERE { ?_x <http://e/p> _:x }`, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if got := algebra.InScope(q.Where); len(got) != 2 {
		t.Errorf("in-scope variables %v, want ?_x and the blank node's variable apart", got)
	}
}
