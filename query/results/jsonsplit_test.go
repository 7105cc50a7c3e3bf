package results

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/perfkb/perfkb/kb"
)

// TestJSONBindingsSplit checks the reading of the bindings array by
// cutting objects out of the bytes against encoding/json reading the
// whole document: every valid document gives the same rows (compared as
// one map of variable to term per row), every invalid one (by json.Valid)
// fails, whole and fed one byte at a time (every buffer boundary), and
// in a document past the splitter's 64 KiB buffer.
func TestJSONBindingsSplit(t *testing.T) {
	const s = `{"type":"uri","value":"http://e/s"}`
	const o = `{"type":"literal","value":"x"}`
	docs := []string{
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + `}]}}`,
		`{"head":{"vars":["s","o"]},"results":{"bindings":[]}}`,
		`{"head":{"vars":["s","o"]},"results":{"bindings":[ ]}}`,
		" {\n \"head\" : {\"vars\":[\"s\",\"o\"]} ,\n \"results\" : { \"bindings\" : [\n  {\"s\":" + s + "} ,\r\n\t{\"o\":" + o + ",\"s\":" + s + "}\n ] }\n}\n",
		`{"results":{"bindings":[{"s":` + s + `},{"o":` + o + `}]},"head":{"vars":["s","o"]}}`,
		`{"head":{"vars":["s"]},"results":{"distinct":false,"bindings":[{"s":` + s + `}],"ordered":true},"link":["x"]}`,
		`{"head":{"vars":["o"]},"results":{"bindings":[{"o":{"type":"literal","value":"} ] { [ \" \\\\ \\u007d"}}]}}`,
		`{"head":{"vars":["t"]},"results":{"bindings":[{"t":{"type":"triple","value":{"subject":` + s + `,"predicate":` + s + `,"object":` + o + `}}}]}}`,
		// Invalid JSON, each a way the splitter could let through.
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + `}{"s":` + s + `}]}}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + `},]}}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[,{"s":` + s + `}]}}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + `}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s,
		`{"head":{"vars":["o"]},"results":{"bindings":[{"o":{"type":"literal","value":"a` + "\n" + `b"}}]}}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + `} x]}}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + `]]}}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + ` "x"}]}}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + `}]},}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[{"s":` + s + `}]} x}`,
		// Valid JSON that is no results document.
		`{"head":{"vars":["s"]},"results":{"bindings":[1]}}`,
		`{"head":{"vars":["s"]},"results":{"bindings":[["s"]]}}`,
	}
	var long strings.Builder
	long.WriteString(`{"head":{"vars":["s","o"]},"results":{"bindings":[`)
	for i := range 3000 {
		if i > 0 {
			long.WriteString(",\n")
		}
		long.WriteString(`{"s":` + s + `,"o":{"type":"literal","value":"` + strings.Repeat("v", i%97) + `"}}`)
	}
	long.WriteString(`]}}`)
	docs = append(docs, long.String())
	for _, doc := range docs {
		want, wantErr := referenceRows(doc)
		for _, feed := range []struct {
			name string
			r    func() io.Reader
		}{
			{"whole", func() io.Reader { return strings.NewReader(doc) }},
			{"byte by byte", func() io.Reader { return iotest.OneByteReader(strings.NewReader(doc)) }},
		} {
			rs, err := ReadJSON(feed.r())
			name := doc
			if len(name) > 120 {
				name = name[:120] + "…"
			}
			switch {
			case wantErr != nil && err == nil:
				t.Errorf("%s, %s: read, want an error like encoding/json's (%v)", name, feed.name, wantErr)
			case wantErr == nil && err != nil:
				t.Errorf("%s, %s: %v", name, feed.name, err)
			case err == nil && !reflect.DeepEqual(rowMaps(rs), want):
				t.Errorf("%s, %s:\n got %v\nwant %v", name, feed.name, rowMaps(rs), want)
			}
		}
	}
}

// referenceRows reads doc with encoding/json whole: its rows as maps of
// variable to term, or an error where it is no valid results document.
func referenceRows(doc string) ([]map[string]kb.Term, error) {
	var d struct {
		Results struct {
			Bindings []map[string]jsonTerm `json:"bindings"`
		} `json:"results"`
	}
	if err := json.Unmarshal([]byte(doc), &d); err != nil {
		return nil, err
	}
	var rows []map[string]kb.Term
	for _, b := range d.Results.Bindings {
		row := map[string]kb.Term{}
		for name, v := range b {
			t, err := v.term(0)
			if err != nil {
				return nil, err
			}
			row[name] = t
		}
		rows = append(rows, row)
	}
	return rows, nil
}

// rowMaps turns rs's rows into maps of variable to bound term.
func rowMaps(rs *ResultSet) []map[string]kb.Term {
	var rows []map[string]kb.Term
	for _, r := range rs.Rows {
		row := map[string]kb.Term{}
		for i, t := range r {
			if t != (kb.Term{}) {
				row[rs.Vars[i]] = t
			}
		}
		rows = append(rows, row)
	}
	return rows
}
