package backend

import (
	"context"
	"testing"
	"time"

	"github.com/perfkb/perfkb/query"
)

// TestLongQueries: a query past the age limit pauses at its checkpoints
// while a short query runs — at most MaxPause each time — and not at all
// once no short query runs; young queries never pause.
func TestLongQueries(t *testing.T) {
	l := NewLongQueries(100*time.Millisecond, 4)
	l.MaxPause = 300 * time.Millisecond
	l.Burst = 0 // rests: TestLongQueryRests
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

// TestLongQueryLanes: with one lane, a second long query waits for the
// first to reach its next checkpoint (which hands the turn over), or for
// laneWait when the first holds its turn without reaching one (blocked
// writing to a client that does not read); an ended query gives its turn
// back, also when it ends while waiting for one.
func TestLongQueryLanes(t *testing.T) {
	l := NewLongQueries(time.Millisecond, 1)
	l.Burst = 0 // rests: TestLongQueryRests
	ctx := context.Background()
	a, b := l.begin(), l.begin()
	time.Sleep(5 * time.Millisecond)
	if err := a.yield(ctx); err != nil || !a.turn.Load() {
		t.Fatalf("the first long query did not get the free lane (%v)", err)
	}

	// b waits while a holds the turn and reaches no checkpoint.
	start := time.Now()
	if err := b.yield(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < laneWait-5*time.Millisecond {
		t.Errorf("the second long query went on after %v while the only lane was held, want about %v", d, laneWait)
	}
	if b.turn.Load() {
		t.Error("the second query took a turn that was never given back")
	}

	// a's next checkpoint hands the turn to b, which waits for it.
	got := make(chan time.Duration)
	go func() {
		start := time.Now()
		b.yield(ctx)
		got <- time.Since(start)
	}()
	time.Sleep(10 * time.Millisecond)
	a.end() // ends holding the turn: gives it back
	if d := <-got; d > laneWait/2 || !b.turn.Load() {
		t.Errorf("the second query waited %v (turn %v) after the first ended, want the turn at once", d, b.turn.Load())
	}
	b.end()
	if n := len(l.lane); n != 0 {
		t.Errorf("%d turns held after every query ended", n)
	}

	// A query that ends while it waits for a turn does not keep one.
	c, d := l.begin(), l.begin()
	time.Sleep(5 * time.Millisecond)
	c.yield(ctx)
	done := make(chan struct{})
	go func() { d.yield(ctx); close(done) }()
	time.Sleep(5 * time.Millisecond)
	d.end()
	c.end()
	<-done
	if n := len(l.lane); n != 0 {
		t.Errorf("%d turns held after a query ended while waiting for one", n)
	}
}

// TestLongQueryRests: while short queries keep beginning, a long query
// that has run Burst or more rests about as long at its checkpoint; when
// none has begun for a while, it runs on.
func TestLongQueryRests(t *testing.T) {
	l := NewLongQueries(time.Millisecond, 1)
	l.Burst = 20 * time.Millisecond
	l.MaxPause = 0
	ctx := context.Background()
	q := l.begin()
	time.Sleep(2 * time.Millisecond)
	q.yield(ctx) // long now; its run starts
	time.Sleep(30 * time.Millisecond)
	l.begin().end() // a short query comes and goes
	start := time.Now()
	if err := q.yield(ctx); err != nil {
		t.Fatal(err)
	}
	if d := time.Since(start); d < 25*time.Millisecond {
		t.Errorf("a long query that ran 30ms among short ones rested %v, want about 30ms", d)
	}
	// No short query for 50 bursts: no rest.
	time.Sleep(50*l.Burst + 30*time.Millisecond)
	start = time.Now()
	q.yield(ctx)
	if d := time.Since(start); d > 15*time.Millisecond {
		t.Errorf("a long query with no short ones around rested %v", d)
	}
	q.end()
}

// TestLongQuerySteps: a query is long once it has taken Steps evaluation
// steps, however little time that took; with Steps 0 only its age counts.
func TestLongQuerySteps(t *testing.T) {
	ctx := context.Background()
	l := NewLongQueries(time.Hour, 1)
	l.Burst, l.Steps = 0, 3*query.YieldEvery
	q := l.begin()
	for i := 1; i <= 3; i++ {
		if err := q.yield(ctx); err != nil {
			t.Fatal(err)
		}
		if long := q.state.Load() == queryLong; long != (i == 3) {
			t.Fatalf("after %d checkpoints: long %v, want %v", i, long, i == 3)
		}
	}
	q.end()
	l.Steps = 0
	q = l.begin()
	for range 10 {
		q.yield(ctx)
	}
	if q.state.Load() != queryShort {
		t.Error("a young query became long by its steps with Steps 0")
	}
	q.end()
}
