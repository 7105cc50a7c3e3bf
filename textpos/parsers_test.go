package textpos_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/sensor"
	"github.com/perfkb/perfkb/convert/tau"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/syntax"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/textpos"
)

// decodeAll reads every statement of an RDF syntax through rdfio's
// registry, returning the error that stops it.
func decodeAll(format string) func(string, []byte) error {
	return func(name string, data []byte) error {
		f, ok := rdfio.Lookup(format)
		if !ok {
			return errors.New("no format " + format)
		}
		dec := f.NewDecoder(bytes.NewReader(data), rdfio.Options{Source: name})
		return drain(dec)
	}
}

func drain(dec rdfio.Decoder) error {
	for {
		if _, err := dec.Next(); err != nil {
			if err == io.EOF {
				return nil
			}
			return err
		}
	}
}

// TestEveryParserReportsTextpos feeds one bad input per syntax (in
// testdata/) to its parser and expects the one positioned-error type, found
// with errors.As, at the source, line and column where the input goes
// wrong (worked out by hand from the file, columns counting characters),
// with a message saying what was found or expected.
func TestEveryParserReportsTextpos(t *testing.T) {
	tests := []struct {
		syntax    string
		file      string
		parse     func(name string, data []byte) error
		line, col int
		msg       string
	}{
		// "  FILTER(?o > )": the ')' is column 15.
		{"SPARQL query", "bad.rq", func(name string, data []byte) error {
			_, err := syntax.ParseQuery(string(data), syntax.Options{Source: name})
			return err
		}, 3, 15, "found ')'"},
		// The same through the query facade the CLI and server use.
		{"SPARQL query (query.Prepare)", "bad.rq", func(name string, data []byte) error {
			_, err := query.Prepare(string(data), query.Options{Source: name})
			return err
		}, 3, 15, "found ')'"},
		// "  ex:s ex:p ?o .": the variable is column 13.
		{"SPARQL update", "bad.ru", func(name string, data []byte) error {
			_, err := syntax.ParseUpdate(string(data), syntax.Options{Source: name})
			return err
		}, 3, 13, "variables are not allowed in INSERT DATA"},
		// "WHERE (?x, <http://ex/p>, )": the ')' is column 27.
		{"RDQL", "bad.rdql", func(name string, data []byte) error {
			_, err := syntax.ParseRDQL(string(data), syntax.Options{Source: name})
			return err
		}, 2, 27, "found ')'"},
		// "[r2: (?a ex:p ?b -> …": the '->' is column 18.
		{"rules (syntax)", "bad.rules", func(name string, data []byte) error {
			_, err := reasoner.ParseProgram(name, data, reasoner.ParseOptions{})
			return err
		}, 3, 18, "expected ')'"},
		// "[r1: (?a ex:p ?b) noSuchBuiltin(?a)": the call is column 19.
		{"rules (compile)", "badbuiltin.rules", func(name string, data []byte) error {
			_, err := reasoner.ParseProgram(name, data, reasoner.ParseOptions{})
			return err
		}, 2, 19, "unknown builtin noSuchBuiltin"},
		// `<http://ex/s> <http://ex/p> "unterminated .`: the literal opens
		// at column 29.
		{"N-Triples", "bad.nt", decodeAll("ntriples"), 2, 29, "unterminated"},
		// The fifth term, <http://ex/x>, starts at column 57.
		{"N-Quads", "bad.nq", decodeAll("nquads"), 2, 57, "expected"},
		// "   ex:q .": the '.' where an object belongs is column 9.
		{"Turtle", "bad.ttl", decodeAll("turtle"), 3, 9, "expected"},
		// "}" where the object of "  ex:s ex:p" belongs: line 5, column 1.
		{"TriG", "bad.trig", decodeAll("trig"), 5, 1, "expected"},
		// rdf:resource and rdf:parseType on one property element: the
		// element starts at column 5.
		{"RDF/XML", "bad.rdf", decodeAll("rdfxml"), 4, 5, "parseType"},
		// `  "http://ex/p": [1, 2,]`: the ']' after a comma is column 24.
		{"JSON-LD", "bad.jsonld", func(name string, data []byte) error {
			return drain(rdfio.NewJSONLDDecoder(bytes.NewReader(data), rdfio.Options{Source: name}))
		}, 3, 24, "invalid character ']'"},
		// The native bulk path: rdfio.Load parses N-Triples lines in parallel
		// chunks (load_lines.go), not through the streaming decoder.
		{"bulk N-Triples load", "bad.nt", func(name string, data []byte) error {
			_, err := rdfio.Load(context.Background(), kbtest.NewMemory(), bytes.NewReader(data), rdfio.LoadOptions{Format: rdfio.NTriples, SourceName: name})
			return err
		}, 2, 29, "unterminated"},
		// A TAU profile: "x" where the Subrs count belongs, on line 3 (TAU
		// profile errors name the line only).
		{"TAU profile (convert)", "profile.0.0.0", func(name string, data []byte) error {
			_, err := tau.Parse(bytes.NewReader(data), name)
			return err
		}, 3, 0, ""},
		// "  </sensordataentri>" closes <sensordataentry>. encoding/xml
		// finds it at the end of the tag, column 21 (just past the '>'),
		// and the sensor reader reports where the decoder stopped.
		{"sensor XML (convert)", "bad-sensor.xml", func(name string, data []byte) error {
			r := sensor.NewReader(bytes.NewReader(data), sensor.ReaderOptions{Source: name})
			for {
				if _, err := r.Next(); err != nil {
					if err == io.EOF {
						return nil
					}
					return err
				}
			}
		}, 4, 21, "closed by </sensordataentri>"},
	}
	for _, tc := range tests {
		t.Run(tc.syntax, func(t *testing.T) {
			name := filepath.Join("testdata", tc.file)
			data, err := os.ReadFile(name)
			if err != nil {
				t.Fatal(err)
			}
			err = tc.parse(name, data)
			var pe *textpos.Error
			if !errors.As(err, &pe) {
				t.Fatalf("error %v (%T) holds no *textpos.Error", err, err)
			}
			want := textpos.Position{Source: name, Line: tc.line, Column: tc.col}
			if pe.Position() != want {
				t.Errorf("position %v, want %v (error %q)", pe.Position(), want, pe)
			}
			if !strings.Contains(pe.Msg, tc.msg) {
				t.Errorf("message %q does not say %q", pe.Msg, tc.msg)
			}
			if !strings.HasPrefix(pe.Error(), want.String()+": ") {
				t.Errorf("error text %q does not start with %q", pe.Error(), want.String()+": ")
			}
			var invalid interface{ InvalidInput() bool }
			if !errors.As(err, &invalid) || !invalid.InvalidInput() {
				t.Errorf("error %v is not marked as invalid input", err)
			}
		})
	}
}
