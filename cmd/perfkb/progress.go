package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress draws a one-line counter on a terminal while long work runs
// (loading, reasoning, federation). On anything but a terminal it stays
// silent, so pipes and logs get only the final summary.
type Progress struct {
	mu       sync.Mutex
	w        io.Writer
	label    string
	unit     string
	start    time.Time
	lastDraw time.Time
	count    int64
	enabled  bool
	drawn    bool
}

// NewProgress starts a progress line on stderr when it is a terminal.
func (a *App) NewProgress(label, unit string) *Progress {
	return &Progress{w: a.Stderr, label: label, unit: unit, start: time.Now(), enabled: a.IsTerminal(a.Stderr)}
}

// Set records the count reached so far; it is safe to call often and from
// several goroutines.
func (p *Progress) Set(count int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count = count
	if !p.enabled {
		return
	}
	now := time.Now()
	if now.Sub(p.lastDraw) < 100*time.Millisecond {
		return
	}
	p.lastDraw = now
	p.draw(now)
}

// Add adds n to the count.
func (p *Progress) Add(n int64) {
	p.mu.Lock()
	count := p.count + n
	p.mu.Unlock()
	p.Set(count)
}

func (p *Progress) draw(now time.Time) {
	elapsed := now.Sub(p.start).Seconds()
	rate := 0.0
	if elapsed > 0 {
		rate = float64(p.count) / elapsed
	}
	fmt.Fprintf(p.w, "\r\033[K%s %s %s (%s %s/s, %.1fs)", p.label, humanCount(p.count), p.unit, humanCount(int64(rate)), p.unit, elapsed)
	p.drawn = true
}

// Done clears the progress line and returns the elapsed time.
func (p *Progress) Done() time.Duration {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
	}
	return time.Since(p.start)
}

// humanCount renders 1234567 as "1,234,567".
func humanCount(n int64) string {
	s := fmt.Sprint(n)
	if n < 0 {
		return "-" + humanCount(-n)
	}
	out := make([]byte, 0, len(s)+len(s)/3)
	for i := range len(s) {
		if i > 0 && (len(s)-i)%3 == 0 {
			out = append(out, ',')
		}
		out = append(out, s[i])
	}
	return string(out)
}
