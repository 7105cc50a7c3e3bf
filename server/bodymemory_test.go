package server

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestBodyMemory checks the server-wide budget of request bodies held
// whole (issue 30, items 1 and 2: a few clients sending the largest query
// texts or rule files at once ran the server out of memory): a body
// larger than the whole budget is refused with 413, in every route that
// holds one; while one request holds most of the budget another large
// body is refused with 503 and Retry-After; once the first ends, the
// budget is whole again.
func TestBodyMemory(t *testing.T) {
	const budget = 1 << 20
	s, _, _ := newTestServer(t, func(o *Options) { o.BodyMemory = budget })
	big := strings.Repeat("#", budget+1)
	for _, tc := range []struct{ target, ctype, body string }{
		{"/sparql", "application/sparql-query", "SELECT * {} " + big},
		{"/sparql", "application/x-www-form-urlencoded", "query=" + big},
		{"/rules/check", "text/plain", big},
	} {
		rec := do(s, "POST", tc.target, tc.ctype, tc.body)
		if rec.Code != http.StatusRequestEntityTooLarge || !strings.Contains(rec.Body.String(), "--body-memory") {
			t.Errorf("%s %s, %d bytes: %d %.200s; want 413 naming --body-memory", tc.target, tc.ctype, len(tc.body), rec.Code, rec.Body)
		}
	}

	// A rule check whose body is 700 KB, sent but for its last byte:
	// the server holds its 700 KB while it waits for the rest.
	srv := httptest.NewServer(s)
	defer srv.Close()
	const part = 700 << 10
	pr, pw := io.Pipe()
	first := make(chan int, 1)
	go func() {
		req, _ := http.NewRequest("POST", srv.URL+"/rules/check", pr)
		req.ContentLength = part
		req.Header.Set("Content-Type", "text/plain")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			first <- 0
			return
		}
		resp.Body.Close()
		first <- resp.StatusCode
	}()
	if _, err := pw.Write([]byte(strings.Repeat("#", part-1))); err != nil {
		t.Fatal(err)
	}
	second := func() *http.Response {
		resp, err := http.Post(srv.URL+"/sparql", "application/sparql-query", strings.NewReader("ASK {} #"+strings.Repeat("x", part)))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		return resp
	}
	// The first body's bytes are charged before they are read: the
	// second, as large, does not fit beside it.
	deadline := time.Now().Add(10 * time.Second)
	var resp *http.Response
	for {
		resp = second()
		if resp.StatusCode == http.StatusServiceUnavailable || time.Now().After(deadline) {
			break
		}
		time.Sleep(20 * time.Millisecond)
	}
	if resp.StatusCode != http.StatusServiceUnavailable || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("a second 700 KB body beside the first: %d (Retry-After %q); want 503 with Retry-After", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
	pw.Write([]byte("#"))
	pw.Close()
	if code := <-first; code != http.StatusBadRequest && code != http.StatusOK {
		t.Fatalf("the first request: %d", code)
	}
	if resp := second(); resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusRequestEntityTooLarge {
		t.Fatalf("after the first request ended: %d; want the budget whole again", resp.StatusCode)
	}
}
