package server

import (
	"bufio"
	"bytes"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a log sink safe for the server's goroutines.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// TestRequestLogPlacesConnectionWait: the request log says which request
// on its connection a request was, how long after the accept a
// connection's first request reached the handlers, and when its header
// was read, so that a client's wait can be placed before or after the
// server read the request. The client here connects and waits 200 ms
// before it sends: that wait is the first request's accept_ms, and not
// the second's, which comes on the same connection.
func TestRequestLogPlacesConnectionWait(t *testing.T) {
	var logs lockedBuffer
	s, _, _ := newTestServer(t, func(o *Options) {
		o.Logger = slog.New(slog.NewTextHandler(&logs, &slog.HandlerOptions{Level: slog.LevelInfo}))
	})
	base := startServer(t, s)
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	const wait = 200 * time.Millisecond
	time.Sleep(wait)
	r := bufio.NewReader(c)
	var sent []time.Time
	for i := 1; i <= 2; i++ {
		sent = append(sent, time.Now())
		fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: example.com\r\nX-Request-Id: conn-%d\r\n\r\n", i)
		resp, err := http.ReadResponse(r, nil)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
	}
	field := func(line, name string) (float64, bool) {
		m := regexp.MustCompile(` ` + name + `=(\S+)`).FindStringSubmatch(line)
		if m == nil {
			return 0, false
		}
		v, err := strconv.ParseFloat(m[1], 64)
		return v, err == nil
	}
	var lines [2]string
	deadline := time.Now().Add(5 * time.Second)
	for lines[1] == "" && time.Now().Before(deadline) {
		for _, l := range strings.Split(logs.String(), "\n") {
			for i := range lines {
				if strings.Contains(l, fmt.Sprintf("id=conn-%d", i+1)) {
					lines[i] = l
				}
			}
		}
		time.Sleep(10 * time.Millisecond)
	}
	for i, l := range lines {
		if l == "" {
			t.Fatalf("no request log line for request %d:\n%s", i+1, logs.String())
		}
		if n, ok := field(l, "conn_req"); !ok || n != float64(i+1) {
			t.Errorf("request %d: conn_req %v (%v), want %d: %s", i+1, n, ok, i+1, l)
		}
		us, ok := field(l, "read_unix_us")
		if !ok {
			t.Errorf("request %d: no read_unix_us: %s", i+1, l)
			continue
		}
		// The header was read after the client sent it and within the
		// test's run.
		read := time.UnixMicro(int64(us))
		if read.Before(sent[i].Add(-time.Millisecond)) || read.After(time.Now()) {
			t.Errorf("request %d: header read at %v, sent at %v", i+1, read, sent[i])
		}
		if _, ok := field(l, "read_ms"); !ok {
			t.Errorf("request %d: no read_ms: %s", i+1, l)
		}
	}
	if a, ok := field(lines[0], "accept_ms"); !ok || a < float64(wait/time.Millisecond) {
		t.Errorf("first request: accept_ms %v (%v), want at least the client's %v before sending: %s", a, ok, wait, lines[0])
	}
	if _, ok := field(lines[1], "accept_ms"); ok {
		t.Errorf("second request on the connection has accept_ms: %s", lines[1])
	}
}
