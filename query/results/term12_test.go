package results

import (
	"bytes"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// w3c12 is the SPARQL 1.2 evaluation suite, whose expected results carry
// triple terms in both JSON and XML.
const w3c12 = "../../testdata/w3c/w3c-sparql12/eval-triple-terms/"

// TestReadTripleTermsW3C reads the W3C expected results of the same query
// in JSON and in XML, two encodings written independently by the working
// group: both must give the same solutions, and the nested triple term of
// the second row is checked against the terms read off the files by hand.
func TestReadTripleTermsW3C(t *testing.T) {
	for _, name := range []string{"results-tripleterms-1", "results-reifiedtriples-1"} {
		jf, err := os.Open(w3c12 + name + ".srj")
		if err != nil {
			t.Fatal(err)
		}
		fromJSON, err := ReadJSON(jf)
		jf.Close()
		if err != nil {
			t.Fatalf("%s.srj: %v", name, err)
		}
		xf, err := os.Open(w3c12 + name + ".srx")
		if err != nil {
			t.Fatal(err)
		}
		fromXML, err := ReadXML(xf)
		xf.Close()
		if err != nil {
			t.Fatalf("%s.srx: %v", name, err)
		}
		if !reflect.DeepEqual(fromJSON, fromXML) {
			t.Errorf("%s: JSON and XML differ:\n%v\n%v", name, fromJSON.Rows, fromXML.Rows)
		}
	}
	f, err := os.Open(w3c12 + "results-tripleterms-1.srj")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rs, err := ReadJSON(f)
	if err != nil {
		t.Fatal(err)
	}
	ex := func(s string) kb.Term { return kb.IRI("http://example/" + s) }
	inner := kb.TripleTerm(ex("x2"), ex("y3"), kb.Literal("123", ontology.XSDInteger))
	want := kb.TripleTerm(ex("s"), ex("p"), inner)
	found := false
	for _, row := range rs.Rows {
		if row[2] == want {
			found = true
		}
	}
	if !found {
		t.Errorf("no row binds o to %s: %v", want, rs.Rows)
	}
}

// TestTripleTermsWritten checks the writers against the SPARQL 1.2
// results formats, written out by hand, and reads each back.
func TestTripleTermsWritten(t *testing.T) {
	ex := func(s string) kb.Term { return kb.IRI("http://example/" + s) }
	tt := kb.TripleTerm(kb.Blank("b"), ex("p"), kb.TripleTerm(ex("s"), ex("q"), kb.DirLangLiteral("x", "ar", "rtl")))
	row := []kb.Term{tt, kb.DirLangLiteral("y", "en", "ltr")}
	tests := []struct {
		format Format
		want   string
		read   func(*bytes.Buffer) (*ResultSet, error)
	}{
		{JSON, `{"o":{"type":"triple","value":{"subject":{"type":"bnode","value":"b"},"predicate":{"type":"uri","value":"http://example/p"},` +
			`"object":{"type":"triple","value":{"subject":{"type":"uri","value":"http://example/s"},"predicate":{"type":"uri","value":"http://example/q"},` +
			`"object":{"type":"literal","value":"x","xml:lang":"ar","its:dir":"rtl"}}}}},"l":{"type":"literal","value":"y","xml:lang":"en","its:dir":"ltr"}}`,
			func(b *bytes.Buffer) (*ResultSet, error) { return ReadJSON(b) }},
		{XML, `<binding name="o"><triple><subject><bnode>b</bnode></subject><predicate><uri>http://example/p</uri></predicate>` +
			`<object><triple><subject><uri>http://example/s</uri></subject><predicate><uri>http://example/q</uri></predicate>` +
			`<object><literal xml:lang="ar" xmlns:its="http://www.w3.org/2005/11/its" its:dir="rtl">x</literal></object></triple></object></triple></binding>`,
			func(b *bytes.Buffer) (*ResultSet, error) { return ReadXML(b) }},
		{TSV, `<<( _:b <http://example/p> <<( <http://example/s> <http://example/q> "x"@ar--rtl )>> )>>` + "\t" + `"y"@en--ltr`,
			func(b *bytes.Buffer) (*ResultSet, error) { return ReadTSV(b) }},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		w, err := NewSolutionWriter(&buf, tc.format)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Begin([]string{"o", "l"}); err != nil {
			t.Fatal(err)
		}
		if err := w.Row(row); err != nil {
			t.Fatal(err)
		}
		if err := w.End(); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		if !strings.Contains(strings.ReplaceAll(text, " ", ""), strings.ReplaceAll(tc.want, " ", "")) {
			t.Errorf("%s: wrote\n%s\nwant it to contain\n%s", tc.format, text, tc.want)
		}
		rs, err := tc.read(&buf)
		if err != nil {
			t.Fatalf("%s: reading back: %v\n%s", tc.format, err, text)
		}
		if len(rs.Rows) != 1 || !reflect.DeepEqual(rs.Rows[0], row) {
			t.Errorf("%s: read back %v, want %v", tc.format, rs.Rows, row)
		}
	}
	// CSV writes the triple term in N-Triples and reads it back as one.
	var buf bytes.Buffer
	w, _ := NewSolutionWriter(&buf, CSV)
	_ = w.Begin([]string{"o"})
	_ = w.Row([]kb.Term{tt})
	_ = w.End()
	rs, err := ReadCSV(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if len(rs.Rows) != 1 || rs.Rows[0][0] != tt {
		t.Errorf("CSV: read back %v, want %v", rs.Rows, tt)
	}
}
