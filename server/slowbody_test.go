package server

import (
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server/graphstore"
)

// trickle opens a POST /sparql with a 100,000-byte body and sends one
// byte of it every interval until the server hangs up or the test ends;
// what the server answered comes back on the channel.
func trickle(t *testing.T, base string, interval time.Duration) <-chan string {
	host := strings.TrimPrefix(base, "http://")
	c := rawConn(t, base, "POST /sparql HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+testToken+
		"\r\nContent-Type: application/sparql-query\r\nContent-Length: 100000\r\n\r\nS")
	done := make(chan struct{})
	t.Cleanup(func() { close(done) })
	go func() {
		tick := time.NewTicker(interval)
		defer tick.Stop()
		for {
			select {
			case <-done:
				return
			case <-tick.C:
				if _, err := c.Write([]byte(" ")); err != nil {
					return
				}
			}
		}
	}()
	answer := make(chan string, 1)
	go func() {
		_ = c.SetReadDeadline(time.Now().Add(20 * time.Second))
		b, _ := io.ReadAll(c)
		answer <- string(b)
	}()
	return answer
}

// TestSlowBodiesDoNotHoldPostSlots reproduces the hardening issue's
// item 8: clients that send a byte now and then never trip the stall
// guard, and twice MaxConcurrent of them held every body reader, so POST
// queries answered 503. The minimum body rate cuts them with 408 after
// the grace of one stall timeout, and the POST queries are served.
func TestSlowBodiesDoNotHoldPostSlots(t *testing.T) {
	s := New(Options{Query: &fakeQuery{}, Graphs: graphstore.New(native.OpenMemory()), Token: testToken,
		MaxConcurrent: 2, Timeout: 30 * time.Second, StallTimeout: 500 * time.Millisecond, QueueWait: time.Second})
	base := startServer(t, s)
	var answers []<-chan string
	for range 2 * cap(s.readers) {
		answers = append(answers, trickle(t, base, 100*time.Millisecond))
	}
	time.Sleep(1500 * time.Millisecond)
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 6 {
		req, _ := http.NewRequest(http.MethodPost, base+"/sparql", strings.NewReader("SELECT ?s ?n WHERE {}"))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/sparql-query")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST query %d while slow senders trickle: status %d %s", i, resp.StatusCode, b)
		}
	}
	// Every slow sender is disconnected: with 408, or with 503 when it
	// found no free body reader; a 408 may be lost to the reset that
	// closing a connection with unread input causes.
	slow := 0
	for i, a := range answers {
		select {
		case got := <-a:
			if strings.HasPrefix(got, "HTTP/1.1 408") && strings.Contains(got, "too slowly") {
				slow++
			}
			t.Logf("slow sender %d: %q", i, firstLine(got))
		case <-time.After(10 * time.Second):
			t.Errorf("slow sender %d still connected", i)
		}
	}
	if slow == 0 {
		t.Errorf("no slow sender was answered 408 (too slowly)")
	}
}

// TestBodyTimeout checks the whole-body deadline: a sender fast enough for
// any minimum rate that still has not finished after BodyTimeout is cut
// with 408.
func TestBodyTimeout(t *testing.T) {
	s := New(Options{Query: &fakeQuery{}, Graphs: graphstore.New(native.OpenMemory()), Token: testToken,
		Timeout: 30 * time.Second, StallTimeout: 2 * time.Second, MinBodyRate: -1, BodyTimeout: time.Second})
	base := startServer(t, s)
	start := time.Now()
	a := trickle(t, base, 50*time.Millisecond)
	select {
	case got := <-a:
		if took := time.Since(start); took > 4*time.Second {
			t.Errorf("body cut after %v, want about 1s", took)
		}
		if !strings.HasPrefix(got, "HTTP/1.1 408") || !strings.Contains(got, "not complete after 1s") {
			t.Errorf("answered %q, want 408 (not complete after 1s)", got)
		}
	case <-time.After(8 * time.Second):
		t.Fatal("a body still arriving after BodyTimeout was not cut")
	}
}

// TestSlowBodiesCannotTakeEveryReader: the soak's item 8 attack (128
// connections sending a POST body a byte every 3 s, reconnecting as soon as
// they are cut) held all 2×MaxConcurrent body readers most of the time, so
// normal POST queries answered 503 "request bodies being received". Body
// memory is bounded by BodyMemory, so the readers are many more than the
// slots: as many slow senders as that old cap leave POST queries served.
func TestSlowBodiesCannotTakeEveryReader(t *testing.T) {
	const maxConcurrent = 4
	s := New(Options{Query: &fakeQuery{}, Graphs: graphstore.New(native.OpenMemory()), Token: testToken,
		MaxConcurrent: maxConcurrent, Timeout: 30 * time.Second, StallTimeout: 10 * time.Second, MinBodyRate: -1, QueueWait: time.Second})
	base := startServer(t, s)
	for range 2*maxConcurrent + 2 {
		trickle(t, base, 100*time.Millisecond)
	}
	time.Sleep(500 * time.Millisecond)
	client := &http.Client{Timeout: 10 * time.Second}
	for i := range 4 {
		req, _ := http.NewRequest(http.MethodPost, base+"/sparql", strings.NewReader("SELECT ?s ?n WHERE {}"))
		req.Header.Set("Authorization", "Bearer "+testToken)
		req.Header.Set("Content-Type", "application/sparql-query")
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("POST query %d beside %d slow senders: status %d %s", i, 2*maxConcurrent+2, resp.StatusCode, b)
		}
	}
}
