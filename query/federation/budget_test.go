package federation

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/results"
	"github.com/perfkb/perfkb/query/syntax"
)

// bigAnswer is a results document of n rows of three bindings each, in
// the format of media type mt (about 150 bytes a row on the wire).
func bigAnswer(mt string, n int) string {
	var b strings.Builder
	switch mt {
	case "application/sparql-results+json":
		b.WriteString(`{"head":{"vars":["s","p","o"]},"results":{"bindings":[`)
		for i := range n {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, `{"s":{"type":"uri","value":"http://example.org/s%d"},"p":{"type":"uri","value":"http://example.org/p"},"o":{"type":"literal","value":"value %d"}}`, i, i)
		}
		b.WriteString(`]}}`)
	case "application/sparql-results+xml":
		b.WriteString(`<?xml version="1.0"?><sparql xmlns="http://www.w3.org/2005/sparql-results#"><head><variable name="s"/><variable name="p"/><variable name="o"/></head><results>`)
		for i := range n {
			fmt.Fprintf(&b, `<result><binding name="s"><uri>http://example.org/s%d</uri></binding><binding name="p"><uri>http://example.org/p</uri></binding><binding name="o"><literal>value %d</literal></binding></result>`, i, i)
		}
		b.WriteString(`</results></sparql>`)
	case "text/tab-separated-values":
		b.WriteString("?s\t?p\t?o\n")
		for i := range n {
			fmt.Fprintf(&b, "<http://example.org/s%d>\t<http://example.org/p>\t\"value %d\"\n", i, i)
		}
	case "text/csv":
		b.WriteString("s,p,o\r\n")
		for i := range n {
			fmt.Fprintf(&b, "http://example.org/s%d,http://example.org/p,value %d\r\n", i, i)
		}
	}
	return b.String()
}

// TestServiceAnswerCharged checks that a SERVICE answer counts against the
// query's memory budget and the server-wide pool: 10,000 rows (about 1.5 MB
// on the wire, more decoded) fail under a 256 KiB budget or pool with the
// budget's *LimitError, in every results format, and are counted exactly
// under a budget that holds them. COUNT(*) over the block alone keeps no
// row, so the same budget holds it (but for CSV, read whole).
func TestServiceAnswerCharged(t *testing.T) {
	const rows = 10000
	for _, mt := range []string{"application/sparql-results+json", "application/sparql-results+xml", "text/tab-separated-values", "text/csv"} {
		doc := bigAnswer(mt, rows)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", mt)
			w.Write([]byte(doc))
		}))
		// COUNT(?s) reads the rows: every one binds ?s.
		text := `SELECT (COUNT(?s) AS ?n) { SERVICE <` + srv.URL + `> { ?s ?p ?o } }`
		countOnly := `SELECT (COUNT(*) AS ?n) { SERVICE <` + srv.URL + `> { ?s ?p ?o } }`
		tests := []struct {
			name      string
			text      string
			opts      eval.Options
			wantLimit string // "": the count is rows
		}{
			{"query-memory", text, eval.Options{QueryMemory: 256 << 10}, eval.LimitQueryMemory},
			{"pool", text, eval.Options{MemoryPool: eval.NewMemoryPool(256 << 10)}, eval.LimitQueryMemoryTotal},
			{"room", text, eval.Options{QueryMemory: 256 << 20}, ""},
			{"count-only", countOnly, eval.Options{QueryMemory: 256 << 10}, ""},
		}
		if mt == "text/csv" {
			// CSV's quoting makes its reader hold the whole text,
			// charged as it is read: counting keeps that too.
			tests[3].wantLimit = eval.LimitQueryMemory
		}
		for _, tc := range tests {
			t.Run(mt+"/"+tc.name, func(t *testing.T) {
				q, err := syntax.ParseQuery(tc.text, syntax.Options{})
				if err != nil {
					t.Fatal(err)
				}
				c := NewClient(nil)
				c.Timeout = time.Minute // decoding under -race on a loaded machine is slow
				tc.opts.Service = c
				res, err := eval.Query(context.Background(), native.OpenMemory(), q, tc.opts)
				var got []kb.Term
				if err == nil {
					for r, ok := res.Next(); ok; r, ok = res.Next() {
						got = append(got, r[0])
					}
					err = res.Err()
					res.Close()
				}
				if tc.wantLimit == "" {
					if err != nil || len(got) != 1 || got[0].Value != fmt.Sprint(rows) {
						t.Fatalf("count %v, error %v; want %d", got, err, rows)
					}
					return
				}
				var le *eval.LimitError
				if !errors.As(err, &le) || le.Limit != tc.wantLimit {
					t.Fatalf("error %v (count %v), want a %s LimitError", err, got, tc.wantLimit)
				}
				if tc.opts.MemoryPool != nil && tc.opts.MemoryPool.InUse() != 0 {
					t.Errorf("the pool holds %d bytes after the query", tc.opts.MemoryPool.InUse())
				}
			})
		}
		srv.Close()
	}
}

// TestServiceDecodingStopsWithRequest checks that decoding a site's answer
// stops soon after the request is cancelled, even when the rest of the
// answer has already arrived: the request is cancelled from the charge
// hook after the 100th row of 40,000, and at most one context-check
// interval more rows may be decoded.
func TestServiceDecodingStopsWithRequest(t *testing.T) {
	for _, mt := range []string{"application/sparql-results+json", "application/sparql-results+xml", "text/tab-separated-values"} {
		doc := bigAnswer(mt, 40000)
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", mt)
			w.Write([]byte(doc))
		}))
		ctx, cancel := context.WithCancel(context.Background())
		charged := 0
		req := eval.ServiceRequest{Endpoint: kb.IRI(srv.URL), Text: "{ ?s ?p ?o }", Charge: func(int64) error {
			charged++
			if charged == 100 {
				cancel()
			}
			return nil
		}}
		_, err := NewClient(nil).Handle(ctx, req)
		if !errors.Is(err, context.Canceled) {
			t.Errorf("%s: error %v, want context.Canceled", mt, err)
		}
		if charged > 100+results.ContextCheckRows {
			t.Errorf("%s: %d rows decoded after the request was cancelled at row 100", mt, charged-100)
		}
		cancel()
		srv.Close()
	}
}

// TestServiceAnswerStopsAtBudget checks that the budget stops the answer
// while it is being read, not after it has been decoded whole: the site
// streams up to 200,000 rows (about 30 MB), and under a 256 KiB budget the
// client hangs up long before the site has written them all (what the
// socket buffers hold is a few MB, well under half the answer).
func TestServiceAnswerStopsAtBudget(t *testing.T) {
	const total = 200000
	written := make(chan int, 1)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		n := 0
		defer func() { written <- n }()
		if _, err := w.Write([]byte(`{"head":{"vars":["s","p","o"]},"results":{"bindings":[`)); err != nil {
			return
		}
		for ; n < total; n++ {
			sep := ","
			if n == 0 {
				sep = ""
			}
			if _, err := fmt.Fprintf(w, `%s{"s":{"type":"uri","value":"http://example.org/s%d"},"p":{"type":"uri","value":"http://example.org/p"},"o":{"type":"literal","value":"value %d"}}`, sep, n, n); err != nil {
				return
			}
			if n%1000 == 0 {
				w.(http.Flusher).Flush()
			}
		}
		w.Write([]byte(`]}}`))
	}))
	defer srv.Close()
	q, err := syntax.ParseQuery(`SELECT (COUNT(?s) AS ?n) { SERVICE <`+srv.URL+`> { ?s ?p ?o } }`, syntax.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := eval.Query(context.Background(), native.OpenMemory(), q, eval.Options{Service: NewClient(nil), QueryMemory: 256 << 10})
	if err == nil {
		for _, ok := res.Next(); ok; _, ok = res.Next() {
		}
		err = res.Err()
		res.Close()
	}
	var le *eval.LimitError
	if !errors.As(err, &le) {
		t.Fatalf("error %v, want a query-memory LimitError", err)
	}
	if n := <-written; n > total/2 {
		t.Errorf("the site wrote %d of %d rows before the client hung up; the answer was read past the budget", n, total)
	}
}
