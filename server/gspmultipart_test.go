package server

import (
	"net/http"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// multipartBody builds a multipart/form-data body with boundary B from
// (file name, Content-Type, document) parts.
func multipartBody(parts ...[3]string) string {
	var b strings.Builder
	for _, p := range parts {
		b.WriteString("--B\r\nContent-Disposition: form-data; name=\"f\"; filename=\"" + p[0] + "\"\r\n")
		if p[1] != "" {
			b.WriteString("Content-Type: " + p[1] + "\r\n")
		}
		b.WriteString("\r\n" + p[2] + "\r\n")
	}
	b.WriteString("--B--\r\n")
	return b.String()
}

// TestGraphStoreMultipart posts several documents in one multipart body
// (Graph Store Protocol 5.5): each part in its own syntax, blank nodes of
// one label in two parts kept apart, and a part that fails refusing the
// whole request with the graph unchanged.
func TestGraphStoreMultipart(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	const graph = "http://example.org/site/multi"
	q := "?graph=" + strings.ReplaceAll(strings.ReplaceAll(graph, ":", "%3A"), "/", "%2F")
	good := multipartBody(
		[3]string{"a.ttl", "text/turtle", "@prefix x: <http://x/> .\nx:a x:p _:b .\n_:b x:q 1 ."},
		[3]string{"b.nt", "", "<http://x/c> <http://x/p> _:b ."}, // syntax from the file name
	)
	rec := do(srv, "POST", "/data"+q, "multipart/form-data; boundary=B", good, bearer...)
	if rec.Code != http.StatusCreated {
		t.Fatalf("multipart POST: status %d: %s", rec.Code, rec.Body)
	}
	lines := graphLines(t, mem, kb.IRI(graph))
	if len(lines) != 3 {
		t.Fatalf("graph after the multipart POST:\n%s\nwant 3 triples", strings.Join(lines, "\n"))
	}
	// _:b of the Turtle part is the object of x:a and the subject of x:q;
	// _:b of the N-Triples part is another node.
	var ofA, ofC, subjQ string
	for _, l := range lines {
		f := strings.Fields(l)
		switch {
		case f[0] == "<http://x/a>":
			ofA = f[2]
		case f[0] == "<http://x/c>":
			ofC = f[2]
		case f[1] == "<http://x/q>":
			subjQ = f[0]
		}
	}
	if !strings.HasPrefix(ofA, "_:") || ofA != subjQ || ofA == ofC || !strings.HasPrefix(ofC, "_:") {
		t.Errorf("blank nodes: object of a %s, subject of q %s, object of c %s; want the first two the same and the third another", ofA, subjQ, ofC)
	}

	for _, tc := range []struct {
		name   string
		body   string
		status int
		msg    string
	}{
		{"a part with a syntax error", multipartBody(
			[3]string{"a.nt", "application/n-triples", "<http://x/d> <http://x/p> \"1\" ."},
			[3]string{"b.ttl", "text/turtle", "<http://x/e> <http://x/p> oops ."}), http.StatusBadRequest, "part 2 (b.ttl)"},
		{"a part of an unknown type", multipartBody(
			[3]string{"a.nt", "application/n-triples", "<http://x/d> <http://x/p> \"1\" ."},
			[3]string{"b.png", "image/png", "x"}), http.StatusUnsupportedMediaType, "part 2 (b.png)"},
		{"no parts", "--B--\r\n", http.StatusBadRequest, "no parts"},
	} {
		rec := do(srv, "POST", "/data"+q, "multipart/form-data; boundary=B", tc.body, bearer...)
		if rec.Code != tc.status {
			t.Errorf("%s: status %d, want %d: %s", tc.name, rec.Code, tc.status, rec.Body)
			continue
		}
		if e := errorBody(t, rec); !strings.Contains(e.Error, tc.msg) {
			t.Errorf("%s: error %q, want it to name %q", tc.name, e.Error, tc.msg)
		}
		if after := graphLines(t, mem, kb.IRI(graph)); strings.Join(after, "\n") != strings.Join(lines, "\n") {
			t.Errorf("%s changed the graph:\n%s", tc.name, strings.Join(after, "\n"))
		}
	}
}
