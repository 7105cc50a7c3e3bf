package backend

import (
	"context"
	"testing"
	"time"
)

// TestLongQueries: a query past the age limit pauses at its checkpoints
// while a short query runs — at most MaxPause each time — and not at all
// once no short query runs; young queries never pause.
func TestLongQueries(t *testing.T) {
	l := NewLongQueries(100 * time.Millisecond)
	l.MaxPause = 300 * time.Millisecond
	long := l.begin()
	time.Sleep(150 * time.Millisecond)
	ctx := context.Background()

	// Alone: the long query goes on at once.
	start := time.Now()
	if err := long.yield(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d > 100*time.Millisecond {
		t.Errorf("a long query alone paused %v", d)
	}

	// A short query runs: the long one waits for it, up to MaxPause.
	short := l.begin()
	start = time.Now()
	if err := short.yield(ctx); err != nil || time.Since(start) > 100*time.Millisecond {
		t.Fatalf("a young query paused (%v, %v)", time.Since(start), err)
	}
	start = time.Now()
	if err := long.yield(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 250*time.Millisecond {
		t.Errorf("the long query went on after %v while a short one ran, want about MaxPause", d)
	}

	// The short query ends while the long one waits: it goes on then.
	go func() { time.Sleep(50 * time.Millisecond); short.end() }()
	start = time.Now()
	if err := long.yield(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 40*time.Millisecond || d > 250*time.Millisecond {
		t.Errorf("the long query paused %v, want until the short one ended (~50ms)", d)
	}
	short.end() // twice is harmless
	long.end()
	if n := l.short.Load(); n != 0 {
		t.Errorf("%d short queries counted after all ended", n)
	}

	// A canceled query stops pausing with its context's error.
	long2 := l.begin()
	blocker := l.begin()
	time.Sleep(150 * time.Millisecond)
	blocker2 := l.begin() // still short
	canceled, cancel := context.WithCancel(ctx)
	cancel()
	if err := long2.yield(canceled); err == nil {
		t.Error("a canceled long query went on without an error")
	}
	long2.end()
	blocker.end()
	blocker2.end()

	var none *LongQueries
	if q := none.begin(); q.yieldFunc() != nil {
		t.Error("a nil scheduler schedules")
	}
}
