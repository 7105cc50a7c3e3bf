package compensate

import (
	"container/heap"
	"context"
	"fmt"
	"iter"
	"math"

	"github.com/perfkb/perfkb/convert/trace"
)

// newEngine prepares an engine over src whose committed events go to out.
func newEngine(ctx context.Context, src trace.Source, m *Model, out func(loc int, e trace.Event, a float64)) (*engine, func()) {
	d := src.Defs()
	res := float64(d.Resolution)
	if res == 0 {
		res = 1e6
	}
	en := &engine{d: d, m: m, perUs: res / 1e6, chans: map[trace.Channel][]*msg{}, colls: map[collKey]*collInst{},
		rep: Report{Cases: map[Case]int64{}, Flags: map[string]int64{}}}
	en.o = m.OverheadUs * en.perUs
	var stops []func()
	for loc := range d.Locations {
		next, stop := iter.Pull2(src.Events(ctx, loc))
		stops = append(stops, stop)
		en.locs = append(en.locs, &locState{next: next, stop: stop, out: func(e trace.Event, a float64) { out(loc, e, a) }})
	}
	return en, func() {
		for _, s := range stops {
			s()
		}
	}
}

// step approximates the next event of loc if its dependencies allow:
// progressed reports whether it did, done whether loc has no events left.
func (en *engine) step(loc int) (progressed, done bool, err error) {
	L := en.locs[loc]
	e, ok, err := en.peek(L, 0)
	if err != nil || !ok {
		return false, !ok, err
	}
	a, ready, err := en.approx(loc, L, &e)
	if err != nil || !ready {
		return false, false, err
	}
	en.commit(L, &e, a)
	return true, false, nil
}

type qitem struct {
	e trace.Event
	a float64
}

type headHeap struct {
	q   [][]qitem
	idx []int // locations with a non-empty queue
}

func (h *headHeap) Len() int { return len(h.idx) }
func (h *headHeap) Less(i, j int) bool {
	a, b := h.q[h.idx[i]][0], h.q[h.idx[j]][0]
	if a.a != b.a {
		return a.a < b.a
	}
	if a.e.Loc != b.e.Loc {
		return a.e.Loc < b.e.Loc
	}
	return a.e.Seq < b.e.Seq
}
func (h *headHeap) Swap(i, j int) { h.idx[i], h.idx[j] = h.idx[j], h.idx[i] }
func (h *headHeap) Push(x any)    { h.idx = append(h.idx, x.(int)) }
func (h *headHeap) Pop() any {
	x := h.idx[len(h.idx)-1]
	h.idx = h.idx[:len(h.idx)-1]
	return x
}

// Stream compensates src and yields its events merged by approximated
// time (ties: location, then index), with Time set to the approximated
// time rounded to ticks. It keeps a bounded window (003 §4): an event is
// released once every location that still has events has one approximated,
// and locations are advanced on demand, so memory grows with the distance
// between dependent events, not with the trace length. The invariants of
// Verify are checked on the fly; a violation is returned as an error (a
// bug). The report is complete when the sequence ends.
func Stream(ctx context.Context, src trace.Source, m *Model, rep *Report) iter.Seq2[trace.Event, error] {
	src = trace.Corrected(src)
	return func(yield func(trace.Event, error) bool) {
		n := len(src.Defs().Locations)
		h := &headHeap{q: make([][]qitem, n)}
		en, stop := newEngine(ctx, src, m, func(loc int, e trace.Event, a float64) {
			h.q[loc] = append(h.q[loc], qitem{e, a})
		})
		defer stop()
		defer func() {
			if rep != nil {
				*rep = en.rep
			}
		}()
		done := make([]bool, n)
		inHeap := make([]bool, n)
		v := newVerifier(src.Defs())
		remaining := n
		for remaining > 0 || h.Len() > 0 {
			// Fill every unfinished location's empty queue, on demand.
			progress := false
			waiting := false
			for loc := range n {
				for !done[loc] && len(h.q[loc]) == 0 {
					p, d, err := en.step(loc)
					if err != nil {
						yield(trace.Event{}, err)
						return
					}
					if d {
						done[loc] = true
						remaining--
						break
					}
					if !p {
						waiting = true
						break
					}
					progress = true
				}
				if len(h.q[loc]) > 0 && !inHeap[loc] {
					heap.Push(h, loc)
					inHeap[loc] = true
				}
			}
			if waiting {
				// Some location waits for a dependency with nothing queued:
				// advance the others (their queues grow) until it can go on.
				for loc := range n {
					if done[loc] {
						continue
					}
					p, d, err := en.step(loc)
					if err != nil {
						yield(trace.Event{}, err)
						return
					}
					if d {
						done[loc] = true
						remaining--
					}
					if p {
						progress = true
						if !inHeap[loc] {
							heap.Push(h, loc)
							inHeap[loc] = true
						}
					}
				}
				if !progress {
					yield(trace.Event{}, en.stuck())
					return
				}
				continue
			}
			if h.Len() == 0 {
				continue
			}
			loc := h.idx[0]
			it := h.q[loc][0]
			h.q[loc] = h.q[loc][1:]
			if len(h.q[loc]) == 0 {
				heap.Pop(h)
				inHeap[loc] = false
				h.q[loc] = nil
			} else {
				heap.Fix(h, 0)
			}
			if err := v.check(&it.e, it.a); err != nil {
				yield(trace.Event{}, fmt.Errorf("compensation produced an inconsistent trace (a bug): %w", err))
				return
			}
			e := it.e
			if e.Kind == trace.BufferFlush {
				e.Stop = trace.Time(math.Round(it.a))
			}
			e.Time = trace.Time(math.Round(it.a))
			if !yield(e, nil) {
				return
			}
		}
		if err := v.finish(); err != nil {
			yield(trace.Event{}, fmt.Errorf("compensation produced an inconsistent trace (a bug): %w", err))
		}
	}
}

// verifier checks Verify's invariants on a stream merged by approximated time.
type verifier struct {
	d     *trace.Defs
	prev  []float64
	stack [][]float64
	sends map[trace.Channel][]float64
	recvs map[trace.Channel][]float64
}

func newVerifier(d *trace.Defs) *verifier {
	v := &verifier{d: d, prev: make([]float64, len(d.Locations)), stack: make([][]float64, len(d.Locations)),
		sends: map[trace.Channel][]float64{}, recvs: map[trace.Channel][]float64{}}
	for i := range v.prev {
		v.prev[i] = math.Inf(-1)
	}
	return v
}

func (v *verifier) check(e *trace.Event, a float64) error {
	loc := e.Loc
	if a < v.prev[loc] {
		return fmt.Errorf("location %d event %d: approximated time %.3f before its predecessor's %.3f", loc, e.Seq, a, v.prev[loc])
	}
	if a < float64(v.d.Start) {
		return fmt.Errorf("location %d event %d: approximated time %.3f before the trace start", loc, e.Seq, a)
	}
	v.prev[loc] = a
	switch e.Kind {
	case trace.Enter:
		v.stack[loc] = append(v.stack[loc], a)
	case trace.Leave:
		if s := v.stack[loc]; len(s) > 0 {
			v.stack[loc] = s[:len(s)-1]
		}
	case trace.Send, trace.Isend:
		k := trace.Channel{Comm: e.Comm, Src: loc, Dst: e.Peer, Tag: e.Tag}
		if q := v.recvs[k]; len(q) > 0 {
			if q[0] < a {
				return fmt.Errorf("message on channel %+v: recv_a %.3f before send_a %.3f", k, q[0], a)
			}
			v.recvs[k] = q[1:]
		} else {
			v.sends[k] = append(v.sends[k], a)
		}
	case trace.Recv, trace.Irecv:
		if s := v.stack[loc]; len(s) > 0 && a < s[len(s)-1] {
			return fmt.Errorf("location %d event %d: eq. (7) violated: recv_a %.3f before enter.recv_a %.3f", loc, e.Seq, a, s[len(s)-1])
		}
		k := trace.Channel{Comm: e.Comm, Src: e.Peer, Dst: loc, Tag: e.Tag}
		if q := v.sends[k]; len(q) > 0 {
			if a < q[0] {
				return fmt.Errorf("message on channel %+v: recv_a %.3f before send_a %.3f", k, a, q[0])
			}
			v.sends[k] = q[1:]
		} else {
			v.recvs[k] = append(v.recvs[k], a)
		}
	}
	return nil
}

// finish reports receives whose send never came: in a time-merged stream a
// receive seen first and never matched means recv_a < send_a of a send
// that was lost, which the engine cannot produce for a consistent trace.
func (v *verifier) finish() error {
	for k, q := range v.recvs {
		if len(q) > 0 {
			return fmt.Errorf("channel %+v: %d receives before their sends", k, len(q))
		}
	}
	return nil
}
