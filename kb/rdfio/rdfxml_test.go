package rdfio

import (
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/textpos"
)

func decodeRDFXML(doc string) ([]string, error) {
	dec := NewRDFXMLDecoder(strings.NewReader(doc), Options{Base: "http://example.org/doc.rdf", Source: "in.rdf"})
	var out []string
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, q.String())
	}
}

const rdfOpen = `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:ex="http://ex/">`

// TestRDFXMLRejects: hostile and non-RDF XML is refused with a position
// (issue 16: entity expansion, defect 12).
func TestRDFXMLRejects(t *testing.T) {
	for _, tc := range []struct {
		name, doc string
		line      int
		msg       string
	}{
		{"billion laughs", "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [<!ENTITY lol \"lol\"><!ENTITY lol2 \"&lol;&lol;&lol;&lol;\">]>\n" + rdfOpen + "\n<rdf:Description rdf:about=\"http://ex/s\"><ex:p>&lol2;</ex:p></rdf:Description></rdf:RDF>", 4, "invalid character entity &lol2;"},
		{"external entity", "<?xml version=\"1.0\"?>\n<!DOCTYPE r [<!ENTITY xxe SYSTEM \"file:///etc/passwd\">]>\n" + rdfOpen + "\n<rdf:Description rdf:about=\"http://ex/s\"><ex:p>&xxe;</ex:p></rdf:Description></rdf:RDF>", 4, "invalid character entity &xxe;"},
		{"plain XML", "<?xml version=\"1.0\"?>\n<config><server port=\"80\"/></config>", 2, "node element <config> has no namespace"},
		{"unqualified node element", rdfOpen + "\n<thing rdf:about=\"http://ex/s\"/></rdf:RDF>", 2, "node element <thing> has no namespace"},
		{"mismatched tags", rdfOpen + "\n<rdf:Description rdf:about=\"http://ex/s\"><ex:p>x</ex:q></rdf:Description></rdf:RDF>", 2, "element <ex:p> closed by </ex:q>"},
		{"undeclared prefix", rdfOpen + "\n<rdf:Description rdf:about=\"http://ex/s\"><nope:p>x</nope:p></rdf:Description></rdf:RDF>", 2, `undeclared namespace prefix "nope"`},
		{"duplicate rdf:ID", rdfOpen + "\n<rdf:Description rdf:ID=\"a\"/>\n<rdf:Description rdf:ID=\"a\"/></rdf:RDF>", 3, `rdf:ID "a" is used twice`},
		{"truncated", rdfOpen + "\n<rdf:Description rdf:about=\"http://ex/s\"><ex:p>x</ex:p>", 2, "unexpected end of input"},
		{"invalid UTF-8", rdfOpen + "\n<rdf:Description rdf:about=\"http://ex/s\"><ex:p>\xff</ex:p></rdf:Description></rdf:RDF>", 2, "invalid UTF-8"},
		{"empty", "", 1, "empty input"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := decodeRDFXML(tc.doc)
			var se *textpos.Error
			if !errors.As(err, &se) {
				t.Fatalf("error = %v; want a *textpos.Error", err)
			}
			if se.Pos.Line != tc.line || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("error = %q; want line %d containing %q", se.Error(), tc.line, tc.msg)
			}
		})
	}
}

// TestRDFXMLTypedDocumentElement: rdf:RDF is optional, so a typed node
// element in any namespace may be the document element (RDF 1.1 XML
// Syntax 2.16; W3C test rdf-element-not-mandatory/test001).
func TestRDFXMLTypedDocumentElement(t *testing.T) {
	doc := `<?xml version="1.0"?>
<Book xmlns="http://example.org/terms#" xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" rdf:about="http://ex/b"><title>Dogs in Hats</title></Book>`
	got, err := decodeRDFXML(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`<http://ex/b> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://example.org/terms#Book> .`,
		`<http://ex/b> <http://example.org/terms#title> "Dogs in Hats" .`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// TestRDFXMLBlankNodes: generated blank nodes never take an rdf:nodeID's
// label (knakk named them b0, b1 … like rdf:nodeID="b1"), and a BOM is
// accepted.
func TestRDFXMLBlankNodes(t *testing.T) {
	doc := "\xEF\xBB\xBF" + rdfOpen + `
<rdf:Description rdf:nodeID="g_1"><ex:p rdf:parseType="Resource"><ex:q>x</ex:q></ex:p></rdf:Description>
<rdf:Description rdf:nodeID="b1"><ex:r><rdf:Description/></ex:r></rdf:Description>
</rdf:RDF>`
	got, err := decodeRDFXML(doc)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{
		`_:g_g_1 <http://ex/p> _:g_1 .`,
		`_:g_1 <http://ex/q> "x" .`,
		`_:b1 <http://ex/r> _:g_2 .`,
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
