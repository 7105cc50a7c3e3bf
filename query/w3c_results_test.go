package query_test

import (
	"bytes"
	"context"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/results"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
)

// TestW3CResultFormats runs the W3C json-res and csv-tsv-res suites against
// the results encoder and against the server: each query's result is
// written by query/results (and served by /sparql) in the format of the
// expected file, read back, and compared with the
// expected result by RDF term equality (blank nodes up to renaming). JSON
// is read back with encoding/json, not with our own reader, so a bug the
// writer and reader share cannot hide. CSV is lossy, so CSV results are
// compared as strings cell by cell (blank-node labels up to renaming).
func TestW3CResultFormats(t *testing.T) {
	if _, err := os.Stat(w3cRoot); err != nil {
		t.Fatalf("W3C SPARQL test suites not found at %s (they are part of the repository): %v", w3cRoot, err)
	}
	var suites []struct{ name, manifest string }
	for _, d := range []string{"json-res", "csv-tsv-res"} {
		suites = append(suites, struct{ name, manifest string }{"sparql11/" + d, filepath.Join(w3cRoot, "sparql11", d, "manifest.ttl")})
	}
	// Each test runs twice: the encoder called directly (as perfkb query
	// does), and /sparql of a real server on loopback asked for the
	// format's media type. Both bodies are checked against the expected
	// result, and they must be the same bytes.
	for _, viaServer := range []bool{false, true} {
		name := "encoder"
		if viaServer {
			name = "server"
		}
		t.Run(name, func(t *testing.T) {
			runSuites(t, suites, nil, earlTestIRI, func(tc w3cTest) (res outcome, why string) {
				defer func() {
					if p := recover(); p != nil {
						res, why = failed, fmt.Sprintf("panic: %v", p)
					}
				}()
				ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
				defer cancel()
				return runResultFormatTest(ctx, tc, viaServer)
			})
		})
	}
}

// mediaTypes are the Accept headers of the result formats.
var mediaTypes = map[results.Format]string{
	results.JSON: "application/sparql-results+json",
	results.TSV:  "text/tab-separated-values",
	results.CSV:  "text/csv",
}

// serverResult asks a server on loopback over ds for the query's result
// in format.
func serverResult(ctx context.Context, ds kb.Dataset, text string, format results.Format) ([]byte, error) {
	srv := server.New(server.Options{Query: &backend.QueryEngine{DS: ds}})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	sctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(sctx, l) }()
	defer func() {
		stop()
		<-done
	}()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+l.Addr().String()+"/sparql", strings.NewReader(text))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/sparql-query")
	req.Header.Set("Accept", mediaTypes[format])
	transport := &http.Transport{}
	defer transport.CloseIdleConnections()
	resp, err := (&http.Client{Transport: transport}).Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("HTTP %d: %s", resp.StatusCode, body)
	}
	if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, mediaTypes[format]) {
		return nil, fmt.Errorf("Content-Type %q, want %s", ct, mediaTypes[format])
	}
	return body, nil
}

func runResultFormatTest(ctx context.Context, tc w3cTest, viaServer bool) (outcome, string) {
	var format results.Format
	switch strings.ToLower(filepath.Ext(tc.result)) {
	case ".srj":
		format = results.JSON
	case ".tsv":
		format = results.TSV
	case ".csv":
		format = results.CSV
	default:
		return skipped, "result format of " + tc.result
	}
	text, err := os.ReadFile(tc.query)
	if err != nil {
		return failed, err.Error()
	}
	p, err := query.Prepare(string(text), query.Options{Base: fileIRI(tc.query)})
	if err != nil {
		return failed, "parse: " + err.Error()
	}
	ds, err := loadDataset(ctx, func() kb.Dataset { return native.OpenMemory() }, tc.data, tc.graphData)
	if err != nil {
		return skipped, "loading data: " + err.Error()
	}
	defer ds.Close()
	spec := eval.DatasetSpec{Default: []kb.Term{kb.DefaultGraph}, NamedNone: true}
	res, err := query.Exec(ctx, ds, p, query.Options{Base: fileIRI(tc.query), Dataset: spec})
	if err != nil {
		return failed, "exec: " + err.Error()
	}
	var out bytes.Buffer
	if err := res.Write(&out, format); err != nil {
		return failed, "write: " + err.Error()
	}
	if viaServer {
		// The server's query engine reads the store's default graph, where
		// loadDataset put the test data.
		body, err := serverResult(ctx, ds, string(text), format)
		if err != nil {
			return failed, "server: " + err.Error()
		}
		if !bytes.Equal(body, out.Bytes()) {
			return failed, fmt.Sprintf("the server's body differs from the encoder's:\n%s\n---\n%s", body, out.Bytes())
		}
		out.Reset()
		out.Write(body)
	}
	expected, err := os.ReadFile(tc.result)
	if err != nil {
		return skipped, err.Error()
	}
	ordered := isOrdered(p.Query.Pattern)
	switch format {
	case results.JSON:
		return compareJSONResults(out.Bytes(), expected, ordered)
	case results.TSV:
		return compareTSVResults(out.Bytes(), expected, ordered)
	default:
		return compareCSVResults(out.Bytes(), expected, ordered)
	}
}

// jsonResults is the SPARQL 1.1 Query Results JSON Format, decoded with
// encoding/json.
type jsonResults struct {
	Head struct {
		Vars []string `json:"vars"`
		Link []string `json:"link"`
	} `json:"head"`
	Results *struct {
		Bindings []map[string]struct {
			Type     string `json:"type"`
			Value    string `json:"value"`
			Datatype string `json:"datatype"`
			Lang     string `json:"xml:lang"`
		} `json:"bindings"`
	} `json:"results"`
	Boolean *bool `json:"boolean"`
}

func decodeJSONResults(b []byte) (*jsonResults, [][]kb.Term, error) {
	var r jsonResults
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&r); err != nil {
		return nil, nil, err
	}
	if dec.More() {
		return nil, nil, fmt.Errorf("data after the JSON object")
	}
	if (r.Results == nil) == (r.Boolean == nil) {
		return nil, nil, fmt.Errorf("want exactly one of results and boolean")
	}
	if r.Results == nil {
		return &r, nil, nil
	}
	var rows [][]kb.Term
	for _, b := range r.Results.Bindings {
		row := make([]kb.Term, len(r.Head.Vars))
		for name, v := range b {
			i := slices.Index(r.Head.Vars, name)
			if i < 0 {
				return nil, nil, fmt.Errorf("binding of %q, which head.vars does not list", name)
			}
			switch v.Type {
			case "uri":
				row[i] = kb.IRI(v.Value)
			case "bnode":
				row[i] = kb.Blank(v.Value)
			case "literal", "typed-literal":
				switch {
				case v.Lang != "":
					row[i] = kb.LangLiteral(v.Value, v.Lang)
				case v.Datatype != "":
					row[i] = kb.Literal(v.Value, v.Datatype)
				default:
					row[i] = kb.String(v.Value)
				}
			default:
				return nil, nil, fmt.Errorf("term type %q", v.Type)
			}
		}
		rows = append(rows, row)
	}
	return &r, rows, nil
}

func compareJSONResults(got, want []byte, ordered bool) (outcome, string) {
	g, grows, err := decodeJSONResults(got)
	if err != nil {
		return failed, fmt.Sprintf("our JSON: %v\n%s", err, got)
	}
	w, wrows, err := decodeJSONResults(want)
	if err != nil {
		return skipped, "expected JSON: " + err.Error()
	}
	if w.Boolean != nil {
		if g.Boolean == nil || *g.Boolean != *w.Boolean {
			return failed, fmt.Sprintf("boolean: got %s", got)
		}
		return passed, ""
	}
	if !slices.Equal(g.Head.Vars, w.Head.Vars) {
		return failed, fmt.Sprintf("head.vars %v, want %v", g.Head.Vars, w.Head.Vars)
	}
	if !rowsMatch(wrows, grows, ordered) {
		return failed, fmt.Sprintf("solutions differ:\nwant\n%sgot\n%s", formatRows(w.Head.Vars, wrows), formatRows(g.Head.Vars, grows))
	}
	return passed, ""
}

func compareTSVResults(got, want []byte, ordered bool) (outcome, string) {
	// The header line is exact: ?-prefixed names, tab-separated.
	gh, _, _ := bytes.Cut(got, []byte("\n"))
	wh, _, _ := bytes.Cut(want, []byte("\n"))
	if !bytes.Equal(gh, wh) {
		return failed, fmt.Sprintf("header %q, want %q", gh, wh)
	}
	g, err := results.ReadTSV(bytes.NewReader(got))
	if err != nil {
		return failed, fmt.Sprintf("our TSV: %v\n%s", err, got)
	}
	w, err := results.ReadTSV(bytes.NewReader(want))
	if err != nil {
		return skipped, "expected TSV: " + err.Error()
	}
	if !rowsMatch(project(w, g.Vars), g.Rows, ordered) {
		return failed, fmt.Sprintf("solutions differ:\nwant\n%sgot\n%s", want, got)
	}
	return passed, ""
}

func compareCSVResults(got, want []byte, ordered bool) (outcome, string) {
	read := func(b []byte) ([][]string, error) {
		r := csv.NewReader(bytes.NewReader(b))
		r.FieldsPerRecord = 0 // every record as long as the header
		return r.ReadAll()
	}
	g, err := read(got)
	if err != nil {
		return failed, fmt.Sprintf("our CSV: %v\n%s", err, got)
	}
	w, err := read(want)
	if err != nil {
		return skipped, "expected CSV: " + err.Error()
	}
	if len(g) == 0 || len(w) == 0 || !slices.Equal(g[0], w[0]) {
		return failed, fmt.Sprintf("header differs:\n%s\nwant\n%s", got, want)
	}
	// Cells as terms, so that rowsMatch maps blank-node labels: a cell
	// "_:x" is a blank node, any other cell a string (CSV keeps no types).
	toRows := func(recs [][]string) [][]kb.Term {
		var rows [][]kb.Term
		for _, rec := range recs[1:] {
			row := make([]kb.Term, len(rec))
			for i, c := range rec {
				switch {
				case c == "":
				case strings.HasPrefix(c, "_:"):
					row[i] = kb.Blank(c[2:])
				default:
					row[i] = kb.String(c)
				}
			}
			rows = append(rows, row)
		}
		return rows
	}
	if !rowsMatch(toRows(w), toRows(g), ordered) {
		return failed, fmt.Sprintf("rows differ:\nwant\n%sgot\n%s", want, got)
	}
	if !bytes.HasSuffix(got, []byte("\r\n")) {
		return failed, "our CSV lines do not end with CRLF"
	}
	return passed, ""
}
