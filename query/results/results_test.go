package results

import (
	"bytes"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

var sampleRows = [][]kb.Term{
	{kb.IRI("http://example.org/a"), kb.String("plain \"quoted\"\ttab")},
	{kb.Blank("b0"), kb.LangLiteral("chat", "fr")},
	{kb.Literal("42", "http://www.w3.org/2001/XMLSchema#integer"), {}},
	{{}, kb.Literal("1.5E0", "http://www.w3.org/2001/XMLSchema#double")},
}

func TestRoundTrip(t *testing.T) {
	vars := []string{"x", "y"}
	readers := map[Format]func(*bytes.Buffer) (*ResultSet, error){
		JSON: func(b *bytes.Buffer) (*ResultSet, error) { return ReadJSON(b) },
		XML:  func(b *bytes.Buffer) (*ResultSet, error) { return ReadXML(b) },
		TSV:  func(b *bytes.Buffer) (*ResultSet, error) { return ReadTSV(b) },
	}
	for format, read := range readers {
		var buf bytes.Buffer
		w, err := NewSolutionWriter(&buf, format)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Begin(vars); err != nil {
			t.Fatal(err)
		}
		for _, r := range sampleRows {
			if err := w.Row(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.End(); err != nil {
			t.Fatal(err)
		}
		text := buf.String()
		rs, err := read(&buf)
		if err != nil {
			t.Fatalf("%s: reading back: %v\n%s", format, err, text)
		}
		if !reflect.DeepEqual(rs.Vars, vars) || !reflect.DeepEqual(rs.Rows, sampleRows) {
			t.Errorf("%s round trip:\n%s\ngot %v %v", format, text, rs.Vars, rs.Rows)
		}
	}
}

func TestBooleanAndCSV(t *testing.T) {
	tests := []struct {
		format Format
		want   string
	}{
		{JSON, `"boolean":true`},
		{XML, `<boolean>true</boolean>`},
		{CSV, "_askResult\r\ntrue\r\n"},
		{TSV, "?_askResult\ntrue\n"},
	}
	for _, tc := range tests {
		var buf bytes.Buffer
		w, _ := NewSolutionWriter(&buf, tc.format)
		if err := w.WriteBoolean(true); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), tc.want) {
			t.Errorf("%s boolean: %q, want %q", tc.format, buf.String(), tc.want)
		}
	}
	var buf bytes.Buffer
	w, _ := NewSolutionWriter(&buf, CSV)
	_ = w.Begin([]string{"x", "y"})
	for _, r := range sampleRows {
		_ = w.Row(r)
	}
	_ = w.End()
	want := "x,y\r\nhttp://example.org/a,\"plain \"\"quoted\"\"\ttab\"\r\n_:b0,chat\r\n42,\r\n,1.5E0\r\n"
	if buf.String() != want {
		t.Errorf("CSV:\n%q\nwant\n%q", buf.String(), want)
	}
}

func TestWriteGraph(t *testing.T) {
	triples := []kb.Triple{
		{S: kb.IRI("http://a"), P: kb.IRI("http://p"), O: kb.String("1")},
		{S: kb.IRI("http://a"), P: kb.IRI("http://p"), O: kb.String("2")},
		{S: kb.IRI("http://a"), P: kb.IRI("http://q"), O: kb.Blank("b")},
		{S: kb.Blank("b"), P: kb.IRI("http://www.w3.org/1999/02/22-rdf-syntax-ns#type"), O: kb.IRI("http://www.par.univie.ac.at/project/scalea/perfonto#Region")},
	}
	var buf bytes.Buffer
	if err := WriteGraph(&buf, Turtle, triples); err != nil {
		t.Fatal(err)
	}
	want := `@prefix rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#> .
@prefix rdfs: <http://www.w3.org/2000/01/rdf-schema#> .
@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .
@prefix owl: <http://www.w3.org/2002/07/owl#> .
@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .

<http://a> <http://p> "1" ,
        "2" ;
    <http://q> _:b .

_:b a perfonto:Region .
`
	if buf.String() != want {
		t.Errorf("Turtle:\n%s\nwant\n%s", buf.String(), want)
	}
	// Every graph format reads back as the same triples.
	for _, f := range []Format{NTriples, Turtle, NQuads, RDFXML} {
		buf.Reset()
		if err := WriteGraph(&buf, f, triples); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		rf, _ := rdfio.Lookup(string(f))
		dec := rf.NewDecoder(bytes.NewReader(buf.Bytes()), rdfio.Options{})
		var got []kb.Triple
		for {
			q, err := dec.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: reading back: %v\n%s", f, err, buf.String())
			}
			tr := kb.Triple{}
			for i, x := range []kb.Term{q.S, q.P, q.O} {
				*[...]*kb.Term{&tr.S, &tr.P, &tr.O}[i] = kb.Term{Kind: kb.TermKind(x.Kind), Value: x.Value, Datatype: x.Datatype, Lang: x.Lang}
			}
			got = append(got, tr)
		}
		if !reflect.DeepEqual(got, triples) {
			t.Errorf("%s: read back %v, want %v\n%s", f, got, triples, buf.String())
		}
	}
	if _, err := NewGraphWriter(&buf, CSV); err == nil {
		t.Error("NewGraphWriter(csv): no error")
	}
}

// TestServerGoldens writes the result of the server test's fake query
// service (server/fakes_test.go) and compares it with the server's golden
// files: one encoder, one oracle, for the CLI and HTTP faces alike.
func TestServerGoldens(t *testing.T) {
	rows := [][]kb.Term{
		{kb.IRI("http://www.par.univie.ac.at/project/scalea/perfonto#rs1"), kb.Literal("3.5E8", "http://www.w3.org/2001/XMLSchema#double")},
		{kb.Blank("b0"), {}},
		{kb.LangLiteral("a \"quoted\", value", "EN"), kb.String("line\nbreak\ttab")},
	}
	for _, f := range []Format{JSON, XML, CSV, TSV} {
		var sel, ask bytes.Buffer
		w, err := NewSolutionWriter(&sel, f)
		if err != nil {
			t.Fatal(err)
		}
		if err := w.Begin([]string{"s", "n"}); err != nil {
			t.Fatal(err)
		}
		for _, r := range rows {
			if err := w.Row(r); err != nil {
				t.Fatal(err)
			}
		}
		if err := w.End(); err != nil {
			t.Fatal(err)
		}
		w, _ = NewSolutionWriter(&ask, f)
		if err := w.WriteBoolean(true); err != nil {
			t.Fatal(err)
		}
		for name, got := range map[string]string{"select": sel.String(), "ask": ask.String()} {
			path := "../../server/testdata/" + name + "." + string(f)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if got != string(want) {
				t.Errorf("%s:\n--- got ---\n%s\n--- want ---\n%s", path, got, want)
			}
		}
	}
}

func TestJSONHeadMember(t *testing.T) {
	var buf bytes.Buffer
	w, _ := NewSolutionWriter(&buf, JSON)
	w.(HeadExtender).AddHeadMember("federation", []byte(`{"sites":2}`))
	_ = w.Begin([]string{"x"})
	_ = w.Row([]kb.Term{kb.String("<&>")})
	_ = w.End()
	want := "{\"head\":{\"vars\":[\"x\"],\"federation\":{\"sites\":2}},\"results\":{\"bindings\":[\n{\"x\":{\"type\":\"literal\",\"value\":\"\\u003c\\u0026\\u003e\"}}\n]}}\n"
	if buf.String() != want {
		t.Errorf("got\n%q\nwant\n%q", buf.String(), want)
	}
}

// TestTSVTerm: the Turtle number tokens are written bare exactly when
// Turtle reads the token back as the same literal.
func TestTSVTerm(t *testing.T) {
	const xsd = ontology.XSDNamespace
	tests := []struct {
		term kb.Term
		want string
	}{
		{kb.Literal("4", ontology.XSDInteger), `4`},
		{kb.Literal("-42", ontology.XSDInteger), `-42`},
		{kb.Literal("+7", ontology.XSDInteger), `+7`},
		{kb.Literal("007", ontology.XSDInteger), `007`},
		{kb.Literal(" 7", ontology.XSDInteger), `" 7"^^<` + xsd + `integer>`},
		{kb.Literal("", ontology.XSDInteger), `""^^<` + xsd + `integer>`},
		{kb.Literal("-", ontology.XSDInteger), `"-"^^<` + xsd + `integer>`},
		{kb.Literal("5.5", ontology.XSDDecimal), `5.5`},
		{kb.Literal(".5", ontology.XSDDecimal), `.5`},
		{kb.Literal("-0.0", ontology.XSDDecimal), `-0.0`},
		{kb.Literal("3", ontology.XSDDecimal), `"3"^^<` + xsd + `decimal>`},
		{kb.Literal("5.", ontology.XSDDecimal), `"5."^^<` + xsd + `decimal>`},
		{kb.Literal("1.0E6", ontology.XSDDouble), `1.0E6`},
		{kb.Literal("1.0e-6", ontology.XSDDouble), `1.0e-6`},
		{kb.Literal("1.e6", ontology.XSDDouble), `1.e6`},
		{kb.Literal(".5E1", ontology.XSDDouble), `.5E1`},
		{kb.Literal("2E+3", ontology.XSDDouble), `2E+3`},
		{kb.Literal("6", ontology.XSDDouble), `"6"^^<` + xsd + `double>`},
		{kb.Literal("0.2", ontology.XSDDouble), `"0.2"^^<` + xsd + `double>`},
		{kb.Literal("INF", ontology.XSDDouble), `"INF"^^<` + xsd + `double>`},
		{kb.Literal("NaN", ontology.XSDDouble), `"NaN"^^<` + xsd + `double>`},
		{kb.Literal(".E1", ontology.XSDDouble), `".E1"^^<` + xsd + `double>`},
		{kb.Literal("1E", ontology.XSDDouble), `"1E"^^<` + xsd + `double>`},
		{kb.Literal("1.5", ontology.XSDFloat), `"1.5"^^<` + xsd + `float>`},
		{kb.Literal("-3", ontology.XSDNegativeInteger), `"-3"^^<` + xsd + `negativeInteger>`},
		{kb.Literal("true", ontology.XSDBoolean), `"true"^^<` + xsd + `boolean>`},
		{kb.Literal("4", "http://example.org/integer"), `"4"^^<http://example.org/integer>`},
		{kb.LangLiteral("4", "en"), `"4"@en`},
		{kb.String("a\tb\nc"), `"a\tb\nc"`},
		{kb.IRI("http://example.org/s"), `<http://example.org/s>`},
		{kb.Blank("b0"), `_:b0`},
	}
	for _, tc := range tests {
		got := TSVTerm(tc.term)
		if got != tc.want {
			t.Errorf("TSVTerm(%s) = %s, want %s", tc.term, got, tc.want)
			continue
		}
		back, err := ParseTerm(got)
		if err != nil || back != tc.term {
			t.Errorf("ParseTerm(%s) = %s, %v; want %s", got, back, err, tc.term)
		}
	}
	for _, bad := range []string{"0x10", "Inf", "1_000", "1e", "+", "."} {
		if term, err := ParseTerm(bad); err == nil {
			t.Errorf("ParseTerm(%q) = %s, want an error", bad, term)
		}
	}
}
