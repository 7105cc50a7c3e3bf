package federation

import (
	"context"
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestClientBlankNodesPerAnswer checks that blank node labels are scoped to
// one answer: two sites' _:b0 are two nodes, while _:b0 twice in one answer
// is one node.
func TestClientBlankNodesPerAnswer(t *testing.T) {
	const twoRows = `{"head":{"vars":["x","v"]},"results":{"bindings":[
{"x":{"type":"bnode","value":"b0"},"v":{"type":"literal","value":"1"}},
{"x":{"type":"bnode","value":"b0"},"v":{"type":"literal","value":"2"}}]}}`
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(twoRows))
	}))
	defer srv.Close()
	tests := []struct {
		query string
		want  int
	}{
		{`SELECT DISTINCT ?x { SERVICE <` + srv.URL + `/a> { ?x ?p ?v } }`, 1},
		{`SELECT DISTINCT ?x { { SERVICE <` + srv.URL + `/a> { ?x ?p ?v } } UNION { SERVICE <` + srv.URL + `/b> { ?x ?p ?v } } }`, 2},
	}
	for _, tc := range tests {
		q, err := syntax.ParseQuery(tc.query, syntax.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := eval.Query(context.Background(), native.OpenMemory(), q, eval.Options{Service: NewClient(nil)})
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for _, ok := res.Next(); ok; _, ok = res.Next() {
			n++
		}
		if err := res.Err(); err != nil || n != tc.want {
			t.Errorf("%s: %d distinct blank nodes (error %v), want %d", tc.query, n, err, tc.want)
		}
		res.Close()
	}
}
