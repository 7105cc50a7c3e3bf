package server

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server/graphstore"
)

// startServer serves s on a loopback port with Serve (the production
// http.Server settings) and returns its base URL.
func startServer(t *testing.T, s *Server) string {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, smallSendBuffers{l}) }()
	t.Cleanup(func() {
		cancel()
		<-done
	})
	return "http://" + l.Addr().String()
}

// smallSendBuffers gives every accepted connection a small send buffer, so
// a server writing to a client that never reads blocks after kilobytes,
// not after the megabytes loopback autotuning allows — which, under -race
// on a loaded machine, take longer to produce than the test waits.
type smallSendBuffers struct{ net.Listener }

func (l smallSendBuffers) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetWriteBuffer(4096)
	}
	return c, err
}

// rawConn opens a connection and sends text without reading anything.
// Its receive buffer is small, so a server writing to it blocks after a
// few kilobytes instead of after the megabytes loopback buffers can take
// (which, under -race, take longer to produce than the test waits).
func rawConn(t *testing.T, base, text string) net.Conn {
	t.Helper()
	u, _ := url.Parse(base)
	c, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	if tc, ok := c.(*net.TCPConn); ok {
		_ = tc.SetReadBuffer(4096)
	}
	t.Cleanup(func() { c.Close() })
	if _, err := io.WriteString(c, text); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestStalledClientsDoNotLockOutOthers reproduces the hardening issue's
// item 2: clients that send headers and then stall, clients that never
// read a large answer, and a writer that stalls mid-upload must not keep
// other clients from being served.
func TestStalledClientsDoNotLockOutOthers(t *testing.T) {
	q := &fakeQuery{}
	ds := native.OpenMemory()
	s := New(Options{Query: q, Graphs: graphstore.New(ds), Token: testToken, ProtectReads: true,
		MaxConcurrent: 4, Timeout: 20 * time.Second, StallTimeout: 300 * time.Millisecond, QueueWait: 8 * time.Second})
	base := startServer(t, s)
	host := strings.TrimPrefix(base, "http://")

	// Four senders without a token that stall after the headers: refused
	// before their bodies are read.
	for range 4 {
		rawConn(t, base, "POST /sparql HTTP/1.1\r\nHost: "+host+"\r\nContent-Type: application/sparql-query\r\nContent-Length: 100000\r\n\r\nSELECT")
	}
	// Four authenticated senders that stall mid-body, and four that ask
	// for a large answer and never read it.
	for range 4 {
		rawConn(t, base, "POST /sparql HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+testToken+
			"\r\nContent-Type: application/sparql-query\r\nContent-Length: 100000\r\n\r\nSELECT")
	}
	for range 4 {
		rawConn(t, base, "GET /sparql?query="+url.QueryEscape("SELECT ROWS=5000000")+" HTTP/1.1\r\nHost: "+host+
			"\r\nAuthorization: Bearer "+testToken+"\r\nAccept: text/csv\r\n\r\n")
	}
	// An authenticated PUT that stalls mid-body.
	rawConn(t, base, "PUT /data?graph=http://example.org/g HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+testToken+
		"\r\nContent-Type: application/n-triples\r\nContent-Length: 100000\r\n\r\n<http://example.org/s> <http://example.org/p> ")
	time.Sleep(100 * time.Millisecond)

	client := &http.Client{Timeout: 10 * time.Second}
	do := func(method, target, ctype, body string) (int, string, time.Duration) {
		req, _ := http.NewRequest(method, base+target, strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+testToken)
		if ctype != "" {
			req.Header.Set("Content-Type", ctype)
		}
		start := time.Now()
		resp, err := client.Do(req)
		if err != nil {
			t.Fatalf("%s %s: %v", method, target, err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b), time.Since(start)
	}
	for i := range 8 {
		// Served at all is the point: a locked-out server answers 503
		// after QueueWait.
		code, body, _ := do(http.MethodPost, "/sparql", "application/sparql-query", "SELECT ?s ?n WHERE {}")
		if code != http.StatusOK {
			t.Fatalf("query %d while others stall: status %d %s", i, code, body)
		}
	}
	code, body, took := do(http.MethodPost, "/data?graph=http://example.org/other", "application/n-triples",
		"<http://example.org/s> <http://example.org/p> <http://example.org/o> .\n")
	// Without the spooled upload the write waits for the stalled PUT's
	// lock until the client gives up (10 s).
	if code/100 != 2 || took > 8*time.Second {
		t.Fatalf("a write while a PUT stalls mid-body: status %d after %v: %s", code, took, body)
	}
}

// TestStalledBodyIsCut checks that a stalled upload is answered with 408
// within the stall timeout instead of holding its request open until the
// request timeout.
func TestStalledBodyIsCut(t *testing.T) {
	s := New(Options{Query: &fakeQuery{}, Graphs: graphstore.New(native.OpenMemory()), Token: testToken,
		Timeout: 20 * time.Second, StallTimeout: 200 * time.Millisecond})
	base := startServer(t, s)
	host := strings.TrimPrefix(base, "http://")
	c := rawConn(t, base, "PUT /data?graph=http://example.org/g HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+testToken+
		"\r\nContent-Type: application/n-triples\r\nContent-Length: 1000\r\n\r\n<http://example.org/s> ")
	_ = c.SetReadDeadline(time.Now().Add(5 * time.Second))
	start := time.Now()
	b, _ := io.ReadAll(c)
	if took := time.Since(start); took > 3*time.Second {
		t.Fatalf("stalled upload held for %v: %q", took, b)
	}
	if !strings.HasPrefix(string(b), "HTTP/1.1 408") {
		t.Fatalf("stalled upload answered %q, want 408", firstLine(string(b)))
	}
}

func firstLine(s string) string {
	line, _, _ := strings.Cut(s, "\r\n")
	return fmt.Sprintf("%.80s", line)
}
