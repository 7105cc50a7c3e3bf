package server

import (
	"context"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/gin-gonic/gin"
)

// requestTiming records where a request's time went before its handler's
// own work: receiving the body, waiting for a concurrency slot, and (from
// the query service, NoteAdmissionWait) waiting for a run slot. The
// request log writes it beside the request's whole time, so that a slow
// request's wait can be told from its work, and a client whose latency is
// far above the server's own figures is known to have waited outside the
// handlers (in the kernel's accept queue, or in its own process).
type requestTiming struct {
	start time.Time
	// conn is the connection's timing (conntiming.go), nil when the
	// server was not started by Serve; nth is the request's number on
	// it, from 1.
	conn *connTiming
	nth  int64
	// read is when the request's header was read (Unix ns), zero when
	// unknown.
	read  int64
	body  atomic.Int64 // ns receiving and buffering the body
	slot  atomic.Int64 // ns waiting for a concurrency slot (limit)
	admit atomic.Int64 // ns waiting for a query run slot (backend.Admission)
}

type timingKey struct{}

// timed starts a request's timing and puts it in the request's context.
func timed(c *gin.Context) {
	t := &requestTiming{start: time.Now()}
	if ct := connTimingOf(c.Request.Context()); ct != nil {
		t.conn, t.nth, t.read = ct, ct.requests.Add(1), ct.lastRead.Load()
	}
	c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), timingKey{}, t))
	c.Next()
}

func timingOf(ctx context.Context) *requestTiming {
	t, _ := ctx.Value(timingKey{}).(*requestTiming)
	return t
}

// NoteAdmissionWait adds d to the time the request of ctx waited for the
// query service to let it run; the request log reports it.
func NoteAdmissionWait(ctx context.Context, d time.Duration) {
	if t := timingOf(ctx); t != nil {
		t.admit.Add(int64(d))
	}
}

// noteSlotWait adds d to the time the request waited for a concurrency
// slot.
func noteSlotWait(c *gin.Context, d time.Duration) {
	if t := timingOf(c.Request.Context()); t != nil {
		t.slot.Add(int64(d))
	}
}

func noteBodyTime(c *gin.Context, d time.Duration) {
	if t := timingOf(c.Request.Context()); t != nil {
		t.body.Add(int64(d))
	}
}

func ms(ns int64) float64 { return float64(ns/1000) / 1000 }

// attrs are the timing's parts for the request log (none when all are
// zero).
func (t *requestTiming) attrs() []slog.Attr {
	if t == nil {
		return nil
	}
	var out []slog.Attr
	if t.conn != nil {
		// The request's place on its connection, and the time from the
		// header's read (and, for a connection's first request, from the
		// accept) to the first middleware: the server's own wait before
		// its handlers, on a loaded machine the wait for a processor.
		out = append(out, slog.Int64("conn_req", t.nth))
		if t.nth == 1 {
			out = append(out, slog.Float64("accept_ms", ms(t.start.Sub(t.conn.accepted).Nanoseconds())))
		}
		if t.read > 0 {
			out = append(out, slog.Int64("read_unix_us", t.read/1000), slog.Float64("read_ms", ms(t.start.UnixNano()-t.read)))
		}
	}
	for _, p := range []struct {
		name string
		ns   int64
	}{{"body_ms", t.body.Load()}, {"slot_wait_ms", t.slot.Load()}, {"admit_wait_ms", t.admit.Load()}} {
		if p.ns > 0 {
			out = append(out, slog.Float64(p.name, ms(p.ns)))
		}
	}
	return out
}
