package syntax

import (
	"fmt"
	"strings"
	"testing"
)

// TestLexer checks token kinds and texts for the tricky corners of the
// SPARQL grammar's terminals.
func TestLexer(t *testing.T) {
	tests := []struct {
		src  string
		want string // space-separated kind:text
	}{
		{"?x $y ?1a", "var:x var:y var:1a"},
		// VARNAME starts with PN_CHARS_U, which includes '_'.
		{"?_x $_y ?_1 ?_ ?a_b", "var:_x var:_y var:_1 var:_ var:a_b"},
		{"1 -2 +3.5 .5 1.e3 1e-3 4.", "int:1 int:-2 dec:+3.5 dec:.5 dbl:1.e3 dbl:1e-3 int:4 punct:."},
		{"?x-1", "var:x int:-1"},
		{"<http://e/a> < <= ?a<?b", "iri:http://e/a punct:< punct:<= var:a punct:< var:b"},
		{`<http://e/\u00E9>`, "iri:http://e/é"},
		{"ex:a\\.b ex:c%20d :x. a:", "pname:ex:a.b pname:ex:c%20d pname::x punct:. pname:a:"},
		{"_:b1 _:b.c. []", "bnode:b1 bnode:b.c punct:. punct:[ punct:]"},
		{`"a\tb" 'c\'d' """x"y""" '''p''q'''`, "str:a\tb str:c'd str:x\"y str:p''q"},
		{`"\u00e9\U0001F600"`, "str:é😀"},
		{"'chat'@fr-BE ^^ ^ | || && !=", "str:chat lang:fr-BE punct:^^ punct:^ punct:| punct:|| punct:&& punct:!="},
		{"SELECT select a true # comment\nWHERE", "word:SELECT word:select word:a word:true word:WHERE"},
		{"GROUP_CONCAT ENCODE_FOR_URI", "word:GROUP_CONCAT word:ENCODE_FOR_URI"},
	}
	for _, tc := range tests {
		toks, err := tokenize(tc.src, false)
		if err != nil {
			t.Errorf("tokenize(%q): %v", tc.src, err)
			continue
		}
		var got []string
		for _, tok := range toks[:len(toks)-1] {
			got = append(got, kindName(tok))
		}
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("tokenize(%q)\ngot  %s\nwant %s", tc.src, g, tc.want)
		}
	}
}

func kindName(t token) string {
	names := map[tokKind]string{
		tokIRI: "iri", tokPName: "pname", tokBNode: "bnode", tokVar: "var", tokString: "str",
		tokLang: "lang", tokInteger: "int", tokDecimal: "dec", tokDouble: "dbl", tokWord: "word", tokPunct: "punct",
	}
	if t.kind == tokPName {
		return fmt.Sprintf("pname:%s:%s", t.text, t.local)
	}
	return names[t.kind] + ":" + t.text
}

// TestLexerPositions checks line and column bookkeeping across lines,
// multi-byte characters and long strings.
func TestLexerPositions(t *testing.T) {
	src := "SELECT\n  ?é \"\"\"a\nb\"\"\" ?z"
	toks, err := tokenize(src, false)
	if err != nil {
		t.Fatal(err)
	}
	want := [][2]int{{1, 1}, {2, 3}, {2, 6}, {3, 6}, {3, 8}}
	for i, w := range want {
		if toks[i].line != w[0] || toks[i].col != w[1] {
			t.Errorf("token %d (%s) at %d:%d, want %d:%d", i, toks[i].describe(), toks[i].line, toks[i].col, w[0], w[1])
		}
	}
}
