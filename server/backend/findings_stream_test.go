package backend

import (
	"bufio"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/server"
)

type sseEvent struct {
	id, event string
	finding   server.Finding
	at        time.Time
}

// readEvents parses a Server-Sent Events stream into events until it ends.
func readEvents(t *testing.T, body *bufio.Scanner, out chan<- sseEvent) {
	defer close(out)
	var ev sseEvent
	for body.Scan() {
		line := body.Text()
		switch {
		case line == "":
			if ev.event != "" {
				ev.at = time.Now()
				out <- ev
			}
			ev = sseEvent{}
		case strings.HasPrefix(line, "id: "):
			ev.id = strings.TrimPrefix(line, "id: ")
		case strings.HasPrefix(line, "event: "):
			ev.event = strings.TrimPrefix(line, "event: ")
		case strings.HasPrefix(line, "data: "):
			if err := json.Unmarshal([]byte(strings.TrimPrefix(line, "data: ")), &ev.finding); err != nil {
				t.Errorf("event data %q: %v", line, err)
			}
		}
	}
}

// TestFindingsStream subscribes to /findings/stream over HTTP and checks
// that a finding a write adds reaches the client within a second of the
// write's answer, and that its withdrawal does after the delete, both for
// a finding written directly and for one a rule run derives.
func TestFindingsStream(t *testing.T) {
	srv, _, _ := newFixture(t)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/findings/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("stream: %d %s", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	events := make(chan sseEvent, 1000)
	go readEvents(t, bufio.NewScanner(resp.Body), events)

	write := func(update string) time.Time {
		t.Helper()
		rec := post(t, srv, "/sparql", "application/sparql-update",
			"PREFIX perfonto: <"+ontology.Namespace+">\nPREFIX ex: <http://example.org/>\n"+update, "Authorization", "Bearer "+token)
		if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
			t.Fatalf("update: %d %s", rec.Code, rec.Body)
		}
		return time.Now()
	}
	// await waits for the event about subject and reports how long after
	// since it came.
	await := func(kind, subject string, since time.Time) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("stream ended before %s %s", kind, subject)
				}
				if ev.event != kind || ev.finding.Subject.Value != subject {
					continue
				}
				lag := ev.at.Sub(since)
				t.Logf("%s %s: %v after the write", kind, subject, lag)
				if lag > time.Second {
					t.Errorf("%s %s reached the client %v after the write, want ≤ 1s", kind, subject, lag)
				}
				return
			case <-timeout:
				t.Fatalf("no %s event for %s within 10s", kind, subject)
			}
		}
	}

	at := write(`INSERT DATA { GRAPH ex:g { ex:rs1 perfonto:hasProblem ex:p1 . ex:p1 a perfonto:BigMessage ; perfonto:severity 0.5 } }`)
	await("finding", "http://example.org/rs1", at)
	at = write(`DELETE DATA { GRAPH ex:g { ex:rs1 perfonto:hasProblem ex:p1 } }`)
	await("withdrawn", "http://example.org/rs1", at)

	// A finding a rule run derives.
	write(`INSERT DATA { GRAPH ex:g { ex:rs2 ex:slow ex:yes } }`)
	rec := post(t, srv, "/rules/run", "application/json",
		`{"name":"slow.rules","rules":"@prefix ex: <http://example.org/>.\n@prefix perfonto: <`+ontology.Namespace+`>.\n[slow: (?x ex:slow ex:yes) -> (?x perfonto:hasProblem ex:p2), (ex:p2 rdf:type perfonto:LoadImbalance)]"}`,
		"Authorization", "Bearer "+token)
	if rec.Code != http.StatusOK {
		t.Fatalf("rule run: %d %s", rec.Code, rec.Body)
	}
	await("finding", "http://example.org/rs2", time.Now())
	// Its withdrawal when the derived triple is deleted.
	at = write(`DELETE WHERE { GRAPH ?g { ex:rs2 perfonto:hasProblem ?p } }`)
	await("withdrawn", "http://example.org/rs2", at)
}

// TestFindingsStreamResume reconnects with Last-Event-ID and expects the
// changes made while disconnected (and no snapshot), and with an id the
// server does not know a resync followed by the current findings.
func TestFindingsStreamResume(t *testing.T) {
	srv, _, _ := newFixture(t)
	ts := httptest.NewServer(srv)
	defer ts.Close()
	write := func(update string) {
		t.Helper()
		rec := post(t, srv, "/sparql", "application/sparql-update",
			"PREFIX perfonto: <"+ontology.Namespace+">\nPREFIX ex: <http://example.org/>\n"+update, "Authorization", "Bearer "+token)
		if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
			t.Fatalf("update: %d %s", rec.Code, rec.Body)
		}
	}
	// open connects and returns the events up to and including the
	// first one of kind until (or after n events when until is "").
	open := func(lastID, until string, n int) []sseEvent {
		t.Helper()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		req, _ := http.NewRequestWithContext(ctx, "GET", ts.URL+"/findings/stream", nil)
		if lastID != "" {
			req.Header.Set("Last-Event-ID", lastID)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		events := make(chan sseEvent, 1000)
		go readEvents(t, bufio.NewScanner(resp.Body), events)
		var got []sseEvent
		timeout := time.After(10 * time.Second)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("stream ended after %+v", got)
				}
				got = append(got, ev)
				if (until != "" && ev.event == until) || (until == "" && len(got) == n) {
					return got
				}
			case <-timeout:
				t.Fatalf("waited 10s; got %+v", got)
			}
		}
	}
	kinds := func(evs []sseEvent) string {
		var b strings.Builder
		for _, ev := range evs {
			b.WriteString(ev.event + " " + ev.finding.Subject.Value + "; ")
		}
		return b.String()
	}

	write(`INSERT DATA { GRAPH ex:g { ex:rs1 perfonto:hasProblem ex:p1 . ex:p1 a perfonto:BigMessage ; perfonto:severity 0.5 } }`)
	first := open("", "synced", 0)
	if got := kinds(first); !strings.Contains(got, "finding http://example.org/rs1; ") {
		t.Fatalf("first connection: %s; want the finding of rs1 before synced", got)
	}
	last := first[len(first)-1].id
	if last == "" {
		t.Fatal("synced event without an id")
	}

	// While disconnected: one finding appears, one is withdrawn.
	write(`INSERT DATA { GRAPH ex:g { ex:rs3 perfonto:hasProblem ex:p3 . ex:p3 a perfonto:BigMessage ; perfonto:severity 0.7 } }`)
	write(`DELETE DATA { GRAPH ex:g { ex:rs1 perfonto:hasProblem ex:p1 } }`)
	resumed := open(last, "", 2)
	if got, want := kinds(resumed), "finding http://example.org/rs3; withdrawn http://example.org/rs1; "; got != want {
		t.Errorf("resumed from %s: %s; want %s", last, got, want)
	}
	for _, ev := range resumed {
		if ev.id == "" || ev.id == last {
			t.Errorf("resumed event %+v: want a new id after %s", ev, last)
		}
	}

	// An id the server never gave: resync, then the findings as they are.
	again := open("0.1", "synced", 0)
	got := kinds(again)
	if !strings.HasPrefix(got, "resync ; ") || !strings.Contains(got, "finding http://example.org/rs3; ") || strings.Contains(got, "rs1") {
		t.Errorf("unknown id: %s; want resync, then the findings with rs3 and without rs1, then synced", got)
	}
}
