package main

import (
	"fmt"
	"io"
	"sync"
	"time"
)

// Progress draws a one-line counter on a terminal while long work runs
// (loading, reasoning, federation): the phase, the count, the rate, and
// percent and ETA when the total is known. A ticker redraws the line at
// least twice a second, so the elapsed time moves even while a phase
// reports nothing (an index being written, a long rule round) and the
// command never looks hung. On anything but a terminal it stays silent, so
// pipes and logs get only the final summary.
type Progress struct {
	mu         sync.Mutex
	w          io.Writer
	label      string
	unit       string
	start      time.Time
	phaseStart time.Time
	lastDraw   time.Time
	count      int64
	total      int64
	inRead     int64 // bytes of the input read, when its size is known
	inSize     int64
	lastSet    time.Time
	idleLabel  string
	enabled    bool
	drawn      bool
	stop       chan struct{}
	stopped    sync.Once
}

// progressTick is how often the line is redrawn when nothing is reported.
const progressTick = 500 * time.Millisecond

// NewProgress starts a progress line on stderr when it is a terminal.
func (a *App) NewProgress(label, unit string) *Progress {
	return newProgress(a.Stderr, label, unit, a.IsTerminal(a.Stderr), progressTick)
}

func newProgress(w io.Writer, label, unit string, enabled bool, tick time.Duration) *Progress {
	now := time.Now()
	p := &Progress{w: w, label: label, unit: unit, start: now, phaseStart: now, enabled: enabled, stop: make(chan struct{})}
	if enabled {
		go p.tick(tick)
	}
	return p
}

func (p *Progress) tick(every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case now := <-t.C:
			p.mu.Lock()
			if now.Sub(p.lastDraw) >= every/2 {
				p.lastDraw = now
				p.draw(now)
			}
			p.mu.Unlock()
		}
	}
}

// Phase names a new phase of the work (e.g. "round 3 of rules"); the count
// and total restart when the label changes.
func (p *Progress) Phase(label, unit string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if label == p.label && unit == p.unit {
		return
	}
	p.label, p.unit = label, unit
	p.count, p.total, p.idleLabel = 0, 0, ""
	p.phaseStart = time.Now()
	if p.enabled {
		p.lastDraw = p.phaseStart
		p.draw(p.phaseStart)
	}
}

// SetIdle names what is going on when the count has not moved for a
// second (a store sorting and writing what it was given after the last
// batch), so that the line does not claim the earlier phase is still
// running.
func (p *Progress) SetIdle(label string) {
	p.mu.Lock()
	p.idleLabel = label
	p.mu.Unlock()
}

// SetTotal records the count the current phase will reach, for percent and
// ETA; 0 means unknown.
func (p *Progress) SetTotal(total int64) {
	p.mu.Lock()
	p.total = total
	p.mu.Unlock()
}

// SetInput records how far through its input the work is (bytes read of
// a file's size): when the count's own total is unknown, percent and ETA
// come from it.
func (p *Progress) SetInput(read, size int64) {
	p.mu.Lock()
	p.inRead, p.inSize = read, size
	p.mu.Unlock()
}

// Set records the count reached so far; it is safe to call often and from
// several goroutines.
func (p *Progress) Set(count int64) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.count = count
	p.lastSet = time.Now()
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

// line renders the progress line at now.
func (p *Progress) line(now time.Time) string {
	elapsed := now.Sub(p.start).Seconds()
	inPhase := now.Sub(p.phaseStart).Seconds()
	rate := 0.0
	if inPhase > 0 {
		rate = float64(p.count) / inPhase
	}
	if p.unit == "" {
		return fmt.Sprintf("%s (%.1fs)", p.label, elapsed)
	}
	if p.idleLabel != "" && !p.lastSet.IsZero() && now.Sub(p.lastSet) >= time.Second {
		return fmt.Sprintf("%s after %s %s (%.1fs)", p.idleLabel, humanCount(p.count), p.unit, elapsed)
	}
	s := fmt.Sprintf("%s %s", p.label, humanCount(p.count))
	if p.total > 0 {
		s += " of " + humanCount(p.total)
	}
	s += fmt.Sprintf(" %s (%s %s/s", p.unit, humanCount(int64(rate)), p.unit)
	if p.total > 0 && p.count > 0 {
		pct := 100 * float64(p.count) / float64(p.total)
		s += fmt.Sprintf(", %.0f%%", pct)
		if rate > 0 && p.count < p.total {
			eta := time.Duration(float64(p.total-p.count) / rate * float64(time.Second))
			s += ", ETA " + eta.Round(time.Second).String()
		}
	}
	if p.total == 0 && p.inSize > 0 && p.inRead > 0 {
		frac := float64(p.inRead) / float64(p.inSize)
		s += fmt.Sprintf(", %.0f%% of the input", 100*frac)
		if p.inRead < p.inSize && inPhase > 0 {
			eta := time.Duration(inPhase * (1 - frac) / frac * float64(time.Second))
			s += ", ETA " + eta.Round(time.Second).String()
		}
	}
	return s + fmt.Sprintf(", %.1fs)", elapsed)
}

func (p *Progress) draw(now time.Time) {
	fmt.Fprintf(p.w, "\r\033[K%s", p.line(now))
	p.drawn = true
}

// Done stops the ticker, clears the progress line and returns the elapsed
// time.
func (p *Progress) Done() time.Duration {
	p.stopped.Do(func() { close(p.stop) })
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.drawn {
		fmt.Fprint(p.w, "\r\033[K")
		p.drawn = false
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
