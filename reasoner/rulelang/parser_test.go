package rulelang

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/textpos"

	"github.com/perfkb/perfkb/ontology"
)

func TestParseRules(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // Rule.String() of each rule
	}{
		{"named rule", `@prefix eg: <http://e/>. [r1: (?a eg:p ?b) -> (?b eg:p ?a)]`,
			[]string{`[r1: (?a <http://e/p> ?b) -> (?b <http://e/p> ?a)]`}},
		{"unnamed rule with commas", `@prefix eg: <http://e/>.
			[(?a, eg:p, ?b), (?b eg:p ?c) -> (?a eg:p ?c)]`,
			[]string{`[(?a <http://e/p> ?b), (?b <http://e/p> ?c) -> (?a <http://e/p> ?c)]`}},
		{"bare rule ends with a dot", `(?a rdf:type ?c) -> (?c rdf:type rdfs:Class) .`,
			[]string{`[(?a <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> ?c) -> (?c <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://www.w3.org/2000/01/rdf-schema#Class>)]`}},
		{"comments", "# hash comment\n// slash comment\n[r: (?a <p> ?b) -> (?a <q> ?b)] # trailing\n",
			[]string{`[r: (?a <p> ?b) -> (?a <q> ?b)]`}},
		{"literals", `[r: (?a <p> 'single') (?a <q> "double"@EN) (?a <r> '7'^^xsd:integer) (?a <s> "x"^^<http://dt>) -> (?a <t> 'esc\'aped\n')]`,
			[]string{`[r: (?a <p> "single"), (?a <q> "double"@en), (?a <r> "7"^^<http://www.w3.org/2001/XMLSchema#integer>), (?a <s> "x"^^<http://dt>) -> (?a <t> "esc'aped\n")]`}},
		{"numbers", `[r: (?a <p> ?v) greaterThan(?v, 65536) lessThan(?v, 1.5) le(?v, -3) ge(?v, 3E8) -> (?a <q> 12345678901)]`,
			[]string{`[r: (?a <p> ?v), greaterThan(?v "65536"^^<http://www.w3.org/2001/XMLSchema#int>), lessThan(?v "1.5"^^<http://www.w3.org/2001/XMLSchema#float>), le(?v "-3"^^<http://www.w3.org/2001/XMLSchema#int>), ge(?v "3E8"^^<http://www.w3.org/2001/XMLSchema#double>) -> (?a <q> "12345678901"^^<http://www.w3.org/2001/XMLSchema#integer>)]`}},
		{"define", "@define LIMIT 10.\n@define KIND perfonto:BigMessage.\n[r: (?a <p> ?v) greaterThan(?v LIMIT) -> (?a <q> KIND)]",
			[]string{`[r: (?a <p> ?v), greaterThan(?v "10"^^<http://www.w3.org/2001/XMLSchema#int>) -> (?a <q> <http://www.par.univie.ac.at/project/scalea/perfonto#BigMessage>)]`}},
		{"functor and several heads", `[r: (?a <p> ?b) -> (?a <q> f(?b 'x')), print(?a 'found'), (?b <r> ?a)]`,
			[]string{`[r: (?a <p> ?b) -> (?a <q> f(?b "x")), print(?a "found"), (?b <r> ?a)]`}},
		{"two rules", `[a: (?x <p> ?y) -> (?x <q> ?y)] [b: (?x <q> ?y) -> (?x <r> ?y)]`,
			[]string{`[a: (?x <p> ?y) -> (?x <q> ?y)]`, `[b: (?x <q> ?y) -> (?x <r> ?y)]`}},
		{"rule name with digits and dashes", `[prp-inv1: (?x <p> ?y) -> (?y <q> ?x)]`,
			[]string{`[prp-inv1: (?x <p> ?y) -> (?y <q> ?x)]`}},
		{"axiom rule without body", `[ax: -> (<a> <b> <c>)]`, []string{`[ax:  -> (<a> <b> <c>)]`}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := Parse("t.rules", []byte(tc.input), Options{})
			if err != nil {
				t.Fatalf("Parse: %v", err)
			}
			var got []string
			for _, r := range rs.Rules {
				got = append(got, r.String())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}

func TestParseErrorsHavePositions(t *testing.T) {
	tests := []struct {
		name  string
		input string
		want  []string // error strings, in order
	}{
		{"backward rule", "[r: (?a <p> ?b)\n   <- (?a <q> ?b)]",
			[]string{"t.rules:2:4: backward rules (<-) are not supported: perfkb runs forward rules only; write the rule as body -> head"}},
		{"missing arrow", "[r: (?a <p> ?b) (?a <q> ?b)]",
			[]string{"t.rules:1:28: expected '->' between the rule body and head, found ']'"}},
		{"unknown prefix", "[r: (?a eg:p ?b) -> (?a <q> ?b)]",
			[]string{`t.rules:1:9: unknown prefix "eg" in eg:p (declare it with @prefix eg: <IRI>.)`}},
		{"undefined constant", "[r: (?a <p> ?v) greaterThan(?v, BIG_MESSAGES_THRESHOLD) -> (?a <q> ?v)]",
			[]string{`t.rules:1:33: undefined name BIG_MESSAGES_THRESHOLD (define it with "@define BIG_MESSAGES_THRESHOLD value.", or use a prefixed name or <IRI>)`}},
		{"short triple", "[r: (?a <p>) -> (?a <q> ?b)]",
			[]string{"t.rules:1:12: triple pattern has 2 elements, want 3 (subject predicate object)"}},
		{"unterminated string", "[r: (?a <p> 'abc) -> (?a <q> ?b)]",
			[]string{"t.rules:1:13: unterminated string"}},
		{"unknown directive", "@base <http://x/>.",
			[]string{"t.rules:1:1: unknown directive @base (want @prefix, @include or @define)"}},
		{"errors in two rules are all reported", "[a: (?x <p> ?y) -> (?x <q>)]\n[b: (?x <p> ?y) -> (?x q:r ?y)]",
			[]string{"t.rules:1:27: triple pattern has 2 elements, want 3 (subject predicate object)",
				`t.rules:2:24: unknown prefix "q" in q:r (declare it with @prefix q: <IRI>.)`}},
		{"literal predicate", "[r: (?a 'p' ?b) -> (?a <q> ?b)]", []string{"t.rules:1:9: a literal cannot be a predicate"}},
		{"include without resolver", "@include <other.rules>.", []string{"t.rules:1:10: @include <other.rules>: includes are not available here"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("t.rules", []byte(tc.input), Options{})
			var list textpos.ErrorList
			if !errors.As(err, &list) {
				t.Fatalf("want ErrorList, got %v", err)
			}
			var got []string
			for _, e := range list {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
			var one *textpos.Error
			if !errors.As(err, &one) || !one.InvalidInput() {
				t.Errorf("errors.As(*Error) failed or not InvalidInput")
			}
		})
	}
}

func TestIncludeAndDefinesOverride(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "base.rules"), []byte("@define LIMIT 5.\n[base: (?a <p> ?v) greaterThan(?v LIMIT) -> (?a <q> ?v)]\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	top := filepath.Join(dir, "top.rules")
	src := []byte("@include <base.rules>.\n@include <SHIPPED>.\n[top: (?a <q> ?v) -> (?a <r> ?v)]\n")
	shipped := func(name string) (string, []byte, bool) {
		if name == "SHIPPED" {
			return "shipped.rules", []byte("[s: (?a <r> ?v) -> (?a <s> ?v)]"), true
		}
		return "", nil, false
	}
	rs, err := Parse(top, src, Options{Resolve: FileResolver(os.ReadFile, shipped), Defines: map[string]string{"LIMIT": "7"}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rules) != 3 {
		t.Fatalf("got %d rules, want 3", len(rs.Rules))
	}
	limit := rs.Rules[0].Body[1].Call.Args[1].Term
	if limit != kb.Literal("7", ontology.XSDInt) {
		t.Errorf("LIMIT = %v, want the --define override 7", limit)
	}
	if got := rs.Rules[0].Pos.Source; got != filepath.Join(dir, "base.rules") {
		t.Errorf("included rule position file = %q", got)
	}

	// An include cycle is an error at the @include.
	if err := os.WriteFile(filepath.Join(dir, "loop.rules"), []byte("@include <loop.rules>.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	loop := filepath.Join(dir, "loop.rules")
	_, err = Parse(loop, []byte("@include <loop.rules>.\n"), Options{Resolve: FileResolver(os.ReadFile, nil)})
	if err == nil || !strings.Contains(err.Error(), "include cycle") || !strings.Contains(err.Error(), ":1:10:") {
		t.Errorf("include cycle: got %v", err)
	}
}

// TestIncludesReadOnce reproduces the hardening issue's item 3: repeated
// and diamond-shaped @include graphs must cost one copy of each file.
func TestIncludesReadOnce(t *testing.T) {
	const levels = 18
	files := map[string]string{"leaf": "[leaf: (?a <http://e/p> ?b) -> (?b <http://e/p> ?a)]\n"}
	below := "leaf"
	for i := levels; i > 0; i-- {
		name := "d" + strings.Repeat("x", i)
		// Two includes of the level below: without deduplication the
		// leaf would be parsed 2^levels times.
		files[name] = "@include <" + below + ">.\n@include <" + below + ">.\n"
		below = name
	}
	resolve := func(name, from string) (string, []byte, error) {
		src, ok := files[name]
		if !ok {
			return "", nil, errors.New("no such file")
		}
		return name, []byte(src), nil
	}
	top := strings.Repeat("@include <"+below+">.\n", 20000)
	rs, err := Parse("top.rules", []byte(top), Options{Resolve: resolve})
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rules) != 1 {
		t.Fatalf("parsed %d rules, want the leaf's one rule once", len(rs.Rules))
	}
	if len(rs.Files) != levels+2 {
		t.Fatalf("read %d files, want %d (each once)", len(rs.Files), levels+2)
	}
}
