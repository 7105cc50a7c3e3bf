package main

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptrace"
	"slices"
	"strings"
	"sync"
	"time"
)

// phases are where one read's time went on the client's side, each an
// offset from the read's scheduled start (ns; -1 when the step did not
// happen): the call into the HTTP client (how late the reader's goroutine
// woke, or, with -shared-client, how long the reader's previous read ran
// past this one's schedule), the connection in hand, the request written, the answer's first
// byte. Dial is the TCP connect's own time (0 on a reused connection),
// Reused whether the connection was an idle one kept from an earlier
// read. With the server's request log (read_unix_us, accept_ms, read_ms)
// they place a slow read's wait: in the client, in the dial, in the
// kernel before the server read the request, or in the server.
type phases struct {
	Call, GotConn, Wrote, FirstByte, Dial int64
	Reused                                bool
}

// traced returns ctx with a trace noting the phases, offsets from start,
// and a function that returns them so far (a dial that lost the race to
// an idle connection may finish after the request).
func traced(ctx context.Context, start time.Time) (context.Context, func() phases) {
	p := &phases{Call: int64(time.Since(start)), GotConn: -1, Wrote: -1, FirstByte: -1}
	var mu sync.Mutex // the hooks may run on the transport's goroutines
	var dialStart time.Time
	at := func(f *int64) {
		mu.Lock()
		*f = int64(time.Since(start))
		mu.Unlock()
	}
	snapshot := func() phases { mu.Lock(); defer mu.Unlock(); return *p }
	return httptrace.WithClientTrace(ctx, &httptrace.ClientTrace{
		ConnectStart: func(string, string) { mu.Lock(); dialStart = time.Now(); mu.Unlock() },
		ConnectDone: func(string, string, error) {
			mu.Lock()
			p.Dial = int64(time.Since(dialStart))
			mu.Unlock()
		},
		GotConn: func(i httptrace.GotConnInfo) {
			mu.Lock()
			p.GotConn, p.Reused = int64(time.Since(start)), i.Reused
			mu.Unlock()
		},
		WroteRequest:         func(httptrace.WroteRequestInfo) { at(&p.Wrote) },
		GotFirstResponseByte: func() { at(&p.FirstByte) },
	}), snapshot
}

// readerClient is one reader's HTTP client. Each reader stands for one
// analyst's program (a browser tab, a notebook, a script), which keeps its
// connections to the server alive between requests and, when a request is
// still out, opens another, up to six, as browsers do. A reader sends each
// read at its scheduled time (open loop, runReaders): a read is never held
// back by the reader's previous one, and its latency counts from its
// scheduled start, so a server that falls behind is charged for every
// read it delayed (no coordinated omission) and a slow read is not charged
// to the reads after it. A real analyst's client, which sends the next
// request when the last is answered and times it from there, measures no
// more than this. With shared, the readers share one client with Go's
// default pool (2 idle connections per host), and each reader sends its
// next read only once the last is answered, timed from its scheduled
// start: the soak's readers until session 14, which charged one slow read
// to every read scheduled while it ran.
func readerClient(shared *http.Client) *http.Client {
	if shared != nil {
		return shared
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.MaxConnsPerHost = 6
	t.MaxIdleConnsPerHost = 6
	return &http.Client{Timeout: 15 * time.Second, Transport: t}
}

// slowPhases summarises the client-side phases of the slowest share q of
// the reads (by latency): mean offsets of each step from the scheduled
// start, the mean dial, and how many came on a new connection.
func (l *latencies) slowPhases(q float64) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	if len(l.phases) != len(l.d) || len(l.d) == 0 {
		return "no client phases"
	}
	idx := make([]int, len(l.d))
	for i := range idx {
		idx[i] = i
	}
	slices.SortFunc(idx, func(a, b int) int { return int(l.d[b] - l.d[a]) })
	n := max(1, int(float64(len(idx))*q))
	var sum phases
	var fresh, dials int
	var counts [4]int
	for _, i := range idx[:n] {
		p := l.phases[i]
		for k, v := range []int64{p.Call, p.GotConn, p.Wrote, p.FirstByte} {
			if v >= 0 {
				counts[k]++
				switch k {
				case 0:
					sum.Call += v
				case 1:
					sum.GotConn += v
				case 2:
					sum.Wrote += v
				case 3:
					sum.FirstByte += v
				}
			}
		}
		if !p.Reused {
			fresh++
		}
		if p.Dial > 0 {
			dials++
			sum.Dial += p.Dial
		}
	}
	mean := func(v int64, c int) string {
		if c == 0 {
			return "-"
		}
		return time.Duration(v / int64(c)).Round(time.Millisecond).String()
	}
	var b strings.Builder
	fmt.Fprintf(&b, "slowest %d reads, mean from the scheduled start: call %s, connection %s, request written %s, first byte %s; %d on a new connection (mean dial %s)",
		n, mean(sum.Call, counts[0]), mean(sum.GotConn, counts[1]), mean(sum.Wrote, counts[2]), mean(sum.FirstByte, counts[3]), fresh, mean(sum.Dial, dials))
	return b.String()
}
