package results

import (
	"io"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// TestLanguageTagsSameInEveryFormat reads one binding, "chat"@en-US, from
// each results format that carries language tags and expects the one term
// kb.Term's policy gives: the tag in lower case.
func TestLanguageTagsSameInEveryFormat(t *testing.T) {
	want := kb.Term{Kind: kb.KindLiteral, Value: "chat", Datatype: ontology.RDFLangString, Lang: "en-us"}
	for _, tc := range []struct {
		format string
		read   func(io.Reader) (*ResultSet, error)
		doc    string
	}{
		{"json", ReadJSON, `{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"chat","xml:lang":"en-US"}}]}}`},
		{"xml", ReadXML, `<?xml version="1.0"?>
<sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head>
<results><result><binding name="x"><literal xml:lang="en-US">chat</literal></binding></result></results></sparql>`},
		{"tsv", ReadTSV, "?x\n\"chat\"@en-US\n"},
		{"tsv lower", ReadTSV, "?x\n\"chat\"@en-us\n"},
		{"json upper", ReadJSON, `{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"chat","xml:lang":"EN-US"}}]}}`},
	} {
		t.Run(tc.format, func(t *testing.T) {
			rs, err := tc.read(strings.NewReader(tc.doc))
			if err != nil {
				t.Fatal(err)
			}
			if len(rs.Rows) != 1 || len(rs.Rows[0]) != 1 || rs.Rows[0][0] != want {
				t.Errorf("rows %v; want [[%v]] (Lang %q)", rs.Rows, want, want.Lang)
			}
		})
	}
}

// TestBadLanguageTagsRefused: a remote answer's xml:lang or its:dir that
// no RDF syntax can write is an error naming the tag, in every results
// format that carries the two as fields (issue 30, item 16: a SERVICE
// answer's "en\"@x" became a term printed as "v"@en"@x). TSV carries
// terms in N-Triples syntax and refuses them through its term parser.
func TestBadLanguageTagsRefused(t *testing.T) {
	jsonDoc := func(lang, dir string) string {
		d := ""
		if dir != "" {
			d = `,"its:dir":"` + dir + `"`
		}
		return `{"head":{"vars":["x"]},"results":{"bindings":[{"x":{"type":"literal","value":"v","xml:lang":"` + lang + `"` + d + `}}]}}`
	}
	xmlDoc := func(lang string) string {
		return `<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="x"/></head>` +
			`<results><result><binding name="x"><literal xml:lang="` + lang + `">v</literal></binding></result></results></sparql>`
	}
	for _, tc := range []struct {
		name, want string
		read       func(io.Reader) (*ResultSet, error)
		doc        string
	}{
		{"json quote and at", `invalid language tag "en\"@x"`, ReadJSON, jsonDoc(`en\"@x`, "")},
		{"json space", `invalid language tag "en us"`, ReadJSON, jsonDoc("en us", "")},
		{"json empty subtag", `invalid language tag "en-"`, ReadJSON, jsonDoc("en-", "")},
		{"json long subtag", `invalid language tag "abcdefghi"`, ReadJSON, jsonDoc("abcdefghi", "")},
		{"json digit first", `invalid language tag "1en"`, ReadJSON, jsonDoc("1en", "")},
		{"json direction inside the tag", `invalid language tag "en--ltr"`, ReadJSON, jsonDoc("en--ltr", "")},
		{"json bad direction", `the base direction must be ltr or rtl`, ReadJSON, jsonDoc("ar", "up")},
		{"json direction without tag", `invalid language tag ""`, ReadJSON, jsonDoc("", "rtl")},
		{"xml quote", `invalid language tag "en\"@x"`, ReadXML, xmlDoc(`en&quot;@x`)},
		{"xml newline", `invalid language tag "en\n"`, ReadXML, xmlDoc("en&#10;")},
		{"tsv", `after the term`, ReadTSV, "?x\n\"v\"@en\"@x\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rs, err := tc.read(strings.NewReader(tc.doc))
			if err == nil {
				t.Fatalf("read %v, want an error", rs.Rows)
			}
			if !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %q, want it to contain %q", err, tc.want)
			}
		})
	}
	// Tags the syntaxes accept still read: private use, digits after the
	// first subtag, a direction.
	for _, doc := range []string{jsonDoc("x-private-1", ""), jsonDoc("de-CH-1996", ""), jsonDoc("ar", "rtl"), xmlDoc("sl-rozaj-biske")} {
		read := ReadJSON
		if strings.HasPrefix(doc, "<") {
			read = ReadXML
		}
		if _, err := read(strings.NewReader(doc)); err != nil {
			t.Errorf("%s: %v", doc, err)
		}
	}
}
