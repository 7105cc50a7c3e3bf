package main

import (
	"bytes"
	"strings"
	"sync"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer safe for the ticker goroutine.
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

func TestProgressLine(t *testing.T) {
	p := newProgress(&bytes.Buffer{}, "writing x.nt:", "quads", false, time.Hour)
	defer p.Done()
	p.start = time.Now().Add(-2 * time.Second)
	p.phaseStart = p.start
	p.SetTotal(1000)
	p.Set(250)
	line := p.line(p.start.Add(2 * time.Second))
	for _, want := range []string{"writing x.nt: 250 of 1,000 quads", "125 quads/s", "25%", "ETA 6s", "2.0s"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
	p.Phase("round 2 of rules", "triples derived")
	if line := p.line(time.Now()); !strings.HasPrefix(line, "round 2 of rules 0 triples derived") || strings.Contains(line, "%") {
		t.Errorf("after Phase, line = %q; want the new phase, count reset, no percent", line)
	}
}

// TestProgressTicks: with nothing reported the line is still redrawn, so a
// long phase does not look hung.
// TestProgressInputShare: with no total of its own, a phase reading a
// file shows its share of the file and the ETA it implies (a quarter of
// the bytes in 2 s: 6 s to go).
func TestProgressInputShare(t *testing.T) {
	p := newProgress(&bytes.Buffer{}, "reading x.nt", "triples", false, time.Hour)
	defer p.Done()
	p.start = time.Now().Add(-2 * time.Second)
	p.phaseStart = p.start
	p.Set(5000)
	p.SetInput(1<<20, 4<<20)
	line := p.line(p.start.Add(2 * time.Second))
	for _, want := range []string{"reading x.nt 5,000 triples", "2,500 triples/s", "25% of the input", "ETA 6s"} {
		if !strings.Contains(line, want) {
			t.Errorf("line %q lacks %q", line, want)
		}
	}
}

func TestProgressTicks(t *testing.T) {
	var out lockedBuffer
	p := newProgress(&out, "sorting", "quads", true, 5*time.Millisecond)
	deadline := time.Now().Add(5 * time.Second)
	for strings.Count(out.String(), "\r") < 3 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	p.Done()
	if n := strings.Count(out.String(), "\r"); n < 3 {
		t.Fatalf("progress drew %d times without any Set; want the ticker to redraw", n)
	}
	if !strings.Contains(out.String(), "sorting 0 quads") {
		t.Errorf("output %q lacks the phase label", out.String())
	}
}

func TestProgressIdleAndCountless(t *testing.T) {
	p := newProgress(&bytes.Buffer{}, "reading x.nq", "triples", false, time.Hour)
	defer p.Done()
	p.SetIdle("sorting and writing the indexes of x.nq")
	p.Set(500)
	if line := p.line(time.Now()); !strings.HasPrefix(line, "reading x.nq 500 triples") {
		t.Errorf("while counting: %q", line)
	}
	if line := p.line(time.Now().Add(2 * time.Second)); !strings.HasPrefix(line, "sorting and writing the indexes of x.nq after 500 triples") {
		t.Errorf("after a second without progress: %q", line)
	}
	q := newProgress(&bytes.Buffer{}, "flushing the store", "", false, time.Hour)
	defer q.Done()
	if line := q.line(q.start.Add(1500 * time.Millisecond)); line != "flushing the store (1.5s)" {
		t.Errorf("countless phase: %q", line)
	}
}
