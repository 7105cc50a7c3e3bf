package monitor

import (
	"sync"
	"time"
)

// largeMessageFree is how many bytes of a sensor message are read at the
// connection's own pace before the rest of it is read at
// SensorOptions.LargeMessageRate: an ordinary sensor's message (under a
// kilobyte) never reaches it.
const largeMessageFree = 64 << 10

// rateChunk bounds one read of a large message's bytes, so that each
// wait for the rate is short and the connection's deadlines and eviction
// are seen between waits.
const rateChunk = 16 << 10

// DefaultLargeMessageRate is SensorOptions.LargeMessageRate's default:
// a lone message of the default --max-message (1 MiB) arrives in about
// four seconds, eight at once in about half a minute, and parsing them
// takes a bounded share of a processor however many connections send
// them.
const DefaultLargeMessageRate = 256 << 10

// byteRate hands out bytes at a fixed rate to every caller together, in
// the order they ask: reserve returns when the asked bytes may be used.
type byteRate struct {
	perSec float64
	mu     sync.Mutex
	next   time.Time // when the bytes reserved so far are all paid
}

// reserve books n bytes and returns the time they are due.
func (r *byteRate) reserve(n int) time.Time {
	r.mu.Lock()
	defer r.mu.Unlock()
	now := time.Now()
	if r.next.Before(now) {
		r.next = now
	}
	due := r.next
	r.next = r.next.Add(time.Duration(float64(n) / r.perSec * float64(time.Second)))
	return due
}

// waitUntil sleeps until t, in steps of at most 100ms, returning early
// (false) when stop says so.
func waitUntil(t time.Time, stop func() bool) bool {
	for {
		d := time.Until(t)
		if d <= 0 {
			return true
		}
		if stop() {
			return false
		}
		time.Sleep(min(d, 100*time.Millisecond))
	}
}
