package results

import (
	"bytes"
	"reflect"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
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
	}
	var buf bytes.Buffer
	if err := WriteGraph(&buf, Turtle, triples); err != nil {
		t.Fatal(err)
	}
	want := "<http://a> <http://p> \"1\" ,\n        \"2\" ;\n    <http://q> _:b .\n"
	if buf.String() != want {
		t.Errorf("Turtle:\n%s\nwant\n%s", buf.String(), want)
	}
}
