package backend

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// TestGraphStoreOnNative checks the Graph Store Protocol's atomicity on
// the embedded store, on both write paths: small uploads (one Apply) and
// uploads of unknown size (the store's bulk load).
func TestGraphStoreOnNative(t *testing.T) {
	ds := native.OpenMemory()
	defer ds.Close()
	st := graphstore.New(ds)
	srv := server.New(server.Options{Graphs: st, Token: token})
	graph := kb.IRI("http://native.example/g")
	target := "/data?graph=http%3A%2F%2Fnative.example%2Fg"

	var good strings.Builder
	for i := 0; i < 5000; i++ {
		fmt.Fprintf(&good, "<http://native.example/s%d> <http://native.example/p> \"%d\" .\n", i, i)
	}
	bad := good.String() + "<http://native.example/broken> <http://native.example/p> .\n"

	send := func(method, body string, chunked bool) *httptest.ResponseRecorder {
		var r io.Reader = strings.NewReader(body)
		req := httptest.NewRequest(method, target, r)
		if chunked {
			req.ContentLength = -1
		}
		req.Header.Set("Content-Type", "application/n-triples")
		req.Header.Set("Authorization", "Bearer "+token)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		return rec
	}
	size := func() int64 {
		n, err := st.Size(context.Background(), graph)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	for _, chunked := range []bool{false, true} {
		for _, method := range []string{"PUT", "POST"} {
			if rec := send(method, bad, chunked); rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), `"line":5001`) {
				t.Errorf("%s (chunked %v) with an error on line 5001: %d %s", method, chunked, rec.Code, rec.Body)
			}
			if n := size(); n != 0 {
				t.Fatalf("%s (chunked %v) with a syntax error left %d triples", method, chunked, n)
			}
		}
	}
	if rec := send("POST", good.String(), true); rec.Code != http.StatusCreated {
		t.Fatalf("bulk POST: %d %s", rec.Code, rec.Body)
	}
	if n := size(); n != 5000 {
		t.Fatalf("after bulk POST: %d triples", n)
	}
	// A replace of existing content takes the Apply path.
	if rec := send("PUT", "<http://native.example/only> <http://native.example/p> \"1\" .\n", false); rec.Code != http.StatusOK {
		t.Fatalf("PUT: %d %s", rec.Code, rec.Body)
	}
	if n := size(); n != 1 {
		t.Fatalf("after PUT: %d triples, want 1", n)
	}
}
