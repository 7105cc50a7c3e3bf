package results

import (
	"bufio"
	"encoding/json"
	"encoding/xml"
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
}

// ReadJSON decodes SPARQL 1.1 Query Results JSON.
func ReadJSON(r io.Reader) (*ResultSet, error) {
	var doc struct {
		Head struct {
			Vars []string `json:"vars"`
		} `json:"head"`
		Boolean *bool `json:"boolean"`
		Results *struct {
			Bindings []map[string]jsonTerm `json:"bindings"`
		} `json:"results"`
	}
	if err := json.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("results: reading JSON: %w", err)
	}
	rs := &ResultSet{Vars: doc.Head.Vars, Boolean: doc.Boolean}
	if doc.Results == nil {
		return rs, nil
	}
	index := map[string]int{}
	for i, v := range rs.Vars {
		index[v] = i
	}
	for _, b := range doc.Results.Bindings {
		row := make([]kb.Term, len(rs.Vars))
		for name, v := range b {
			i, ok := index[name]
			if !ok {
				rs.Vars = append(rs.Vars, name)
				i = len(rs.Vars) - 1
				index[name] = i
				for j := range rs.Rows {
					rs.Rows[j] = append(rs.Rows[j], kb.Term{})
				}
				row = append(row, kb.Term{})
			}
			t, err := v.term(0)
			if err != nil {
				return nil, err
			}
			row[i] = t
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

func literal(value, datatype, lang, dir string) kb.Term {
	if lang != "" && dir != "" {
		return kb.DirLangLiteral(value, lang, dir)
	}
	if lang != "" {
		return kb.LangLiteral(value, lang)
	}
	return kb.Literal(value, datatype)
}

// ReadXML decodes the SPARQL Query Results XML Format (.srx).
func ReadXML(r io.Reader) (*ResultSet, error) {
	var doc struct {
		Head struct {
			Variables []struct {
				Name string `xml:"name,attr"`
			} `xml:"variable"`
		} `xml:"head"`
		Boolean *string `xml:"boolean"`
		Results struct {
			Results []struct {
				Bindings []struct {
					Name string `xml:"name,attr"`
					xmlTerm
				} `xml:"binding"`
			} `xml:"result"`
		} `xml:"results"`
	}
	if err := xml.NewDecoder(r).Decode(&doc); err != nil {
		return nil, fmt.Errorf("results: reading XML: %w", err)
	}
	rs := &ResultSet{}
	if doc.Boolean != nil {
		b := strings.TrimSpace(*doc.Boolean) == "true"
		rs.Boolean = &b
		return rs, nil
	}
	index := map[string]int{}
	for _, v := range doc.Head.Variables {
		index[v.Name] = len(rs.Vars)
		rs.Vars = append(rs.Vars, v.Name)
	}
	for _, res := range doc.Results.Results {
		row := make([]kb.Term, len(rs.Vars))
		for _, b := range res.Bindings {
			i, ok := index[b.Name]
			if !ok {
				return nil, fmt.Errorf("results: binding of undeclared variable %q", b.Name)
			}
			t, err := b.term(0)
			if err != nil {
				return nil, err
			}
			row[i] = t
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
}

// ReadTSV decodes the SPARQL 1.1 TSV results format.
func ReadTSV(r io.Reader) (*ResultSet, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<26)
	rs := &ResultSet{}
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		fields := strings.Split(text, "\t")
		if line == 1 {
			for _, f := range fields {
				f = strings.TrimSpace(f)
				if f == "" {
					continue
				}
				rs.Vars = append(rs.Vars, strings.TrimLeft(f, "?$"))
			}
			continue
		}
		if text == "" && len(rs.Vars) != 1 {
			continue
		}
		row := make([]kb.Term, len(rs.Vars))
		for i, f := range fields {
			if i >= len(row) {
				break
			}
			f = strings.TrimSpace(f)
			if f == "" {
				continue
			}
			t, err := ParseTerm(f)
			if err != nil {
				return nil, fmt.Errorf("results: TSV line %d column %d: %w", line, i+1, err)
			}
			row[i] = t
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, sc.Err()
}

// ReadCSV decodes the SPARQL 1.1 CSV results format. CSV loses term kinds:
// values that look like IRIs become IRIs, "_:x" blank nodes, the rest plain
// literals.
func ReadCSV(r io.Reader) (*ResultSet, error) {
	data, err := io.ReadAll(r)
	if err != nil {
		return nil, err
	}
	records := parseCSV(string(data))
	rs := &ResultSet{}
	for n, rec := range records {
		if n == 0 {
			rs.Vars = rec
			continue
		}
		row := make([]kb.Term, len(rs.Vars))
		for i, f := range rec {
			if i >= len(row) || f == "" {
				continue
			}
			switch {
			case strings.HasPrefix(f, "_:"):
				row[i] = kb.Blank(f[2:])
			case strings.HasPrefix(f, "<<("):
				t, err := rdfio.ParseTerm(f)
				if err != nil {
					return nil, fmt.Errorf("results: CSV row %d: %w", n, err)
				}
				row[i] = t
			case strings.Contains(f, "://") || strings.HasPrefix(f, "mailto:") || strings.HasPrefix(f, "urn:"):
				row[i] = kb.IRI(f)
			default:
				row[i] = kb.String(f)
			}
		}
		rs.Rows = append(rs.Rows, row)
	}
	return rs, nil
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
