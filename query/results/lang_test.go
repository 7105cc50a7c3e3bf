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
