package results

import (
	"fmt"
	"io"
	"strings"

	"github.com/perfkb/perfkb/kb/rdfio"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// ResultSet is a decoded SELECT or ASK result. For SELECT, Rows hold one
// term per variable of Vars (the zero kb.Term when unbound). For ASK,
// Boolean is set.
type ResultSet struct {
	Vars    []string
	Rows    [][]kb.Term
	Boolean *bool
	// Count is the number of rows read: len(Rows), or with
	// ReadOptions.CountOnly the only record of them.
	Count int
}

// ReadJSON decodes SPARQL 1.1 Query Results JSON.
func ReadJSON(r io.Reader) (*ResultSet, error) { return Read(r, JSON, ReadOptions{}) }

// ReadXML decodes the SPARQL Query Results XML Format (.srx).
func ReadXML(r io.Reader) (*ResultSet, error) { return Read(r, XML, ReadOptions{}) }

// ReadTSV decodes the SPARQL 1.1 TSV results format.
func ReadTSV(r io.Reader) (*ResultSet, error) { return Read(r, TSV, ReadOptions{}) }

// ReadCSV decodes the SPARQL 1.1 CSV results format. CSV loses term kinds:
// values that look like IRIs become IRIs, "_:x" blank nodes, the rest plain
// literals.
func ReadCSV(r io.Reader) (*ResultSet, error) { return Read(r, CSV, ReadOptions{}) }

// literal builds a literal from a results format's fields; a language
// tag or direction that no RDF syntax could write is an error, not a term
// that would print as `"v"@en"@x`.
func literal(value, datatype, lang, dir string) (kb.Term, error) {
	if err := checkTag(value, lang, dir); err != nil {
		return kb.Term{}, err
	}
	if lang != "" && dir != "" {
		return kb.DirLangLiteral(value, lang, dir), nil
	}
	if lang != "" {
		return kb.LangLiteral(value, lang), nil
	}
	return kb.Literal(value, datatype), nil
}

// checkTag is literal's check of a language tag and direction.
func checkTag(value, lang, dir string) error {
	if lang == "" && dir == "" {
		return nil
	}
	if err := rdfio.CheckLanguageTag(lang, dir); err != nil {
		return fmt.Errorf("results: literal %q: invalid language tag %q (direction %q): %w", clip(value), lang, dir, err)
	}
	return nil
}

// checkLiteral is literal's check, for a reader that keeps no term.
func checkLiteral(value, lang, dir []byte) error {
	if len(lang) == 0 && len(dir) == 0 {
		return nil
	}
	return checkTag(string(value), string(lang), string(dir))
}

// clip shortens a value quoted in an error message.
func clip(s string) string {
	if len(s) > 40 {
		return strings.ToValidUTF8(s[:40], "") + "…"
	}
	return s
}

func parseCSV(s string) [][]string {
	var out [][]string
	var rec []string
	var field strings.Builder
	inQuote := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case inQuote && c == '"' && i+1 < len(s) && s[i+1] == '"':
			field.WriteByte('"')
			i++
		case c == '"':
			inQuote = !inQuote
		case !inQuote && c == ',':
			rec = append(rec, field.String())
			field.Reset()
		case !inQuote && (c == '\n' || c == '\r'):
			if c == '\r' && i+1 < len(s) && s[i+1] == '\n' {
				i++
			}
			rec = append(rec, field.String())
			field.Reset()
			out = append(out, rec)
			rec = nil
		default:
			field.WriteByte(c)
		}
	}
	if field.Len() > 0 || len(rec) > 0 {
		out = append(out, append(rec, field.String()))
	}
	return out
}

// ParseTerm parses one RDF term in N-Triples/Turtle syntax as used by TSV:
// <iri>, _:label, "lexical"[@lang|^^<dt>], or a bare number / boolean.
func ParseTerm(s string) (kb.Term, error) {
	switch {
	case strings.HasPrefix(s, "<"), strings.HasPrefix(s, "_:"), strings.HasPrefix(s, `"`):
		// An N-Triples term: the one term decoder, rdfio's.
		return rdfio.ParseTerm(s)
	case s == "true" || s == "false":
		return kb.Literal(s, ontology.XSDBoolean), nil
	}
	// Bare Turtle numbers: the token is the lexical form.
	switch {
	case turtleInteger(s):
		return kb.Literal(s, ontology.XSDInteger), nil
	case turtleDecimal(s):
		return kb.Literal(s, ontology.XSDDecimal), nil
	case turtleDouble(s):
		return kb.Literal(s, ontology.XSDDouble), nil
	}
	return kb.Term{}, fmt.Errorf("cannot parse term %q", s)
}
