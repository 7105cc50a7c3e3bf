package compensate

import (
	"context"
	"fmt"
	"math"

	"github.com/perfkb/perfkb/convert/trace"
)

// Result is a compensated trace in the common model: Trace has the
// approximated times rounded to ticks; Approx keeps the exact values per
// location and event index; Measured the original times.
type Result struct {
	Trace    *trace.Mem
	Approx   [][]float64
	Measured [][]trace.Time
	Report   Report
}

// Run compensates src into memory and verifies the result (Verify); a
// verification failure is a bug in the engine and is returned as error.
func Run(ctx context.Context, src trace.Source, m *Model) (*Result, error) {
	src = trace.Corrected(src)
	d := *src.Defs()
	r := &Result{Trace: &trace.Mem{D: d, Stream: make([][]trace.Event, len(d.Locations))},
		Approx: make([][]float64, len(d.Locations)), Measured: make([][]trace.Time, len(d.Locations))}
	rep, err := Compensate(ctx, src, m, func(e trace.Event, a float64) error {
		r.Measured[e.Loc] = append(r.Measured[e.Loc], e.Time)
		r.Approx[e.Loc] = append(r.Approx[e.Loc], a)
		if e.Kind == trace.BufferFlush {
			e.Stop = trace.Time(math.Round(a)) // the flush takes no time any more
		}
		e.Time = trace.Time(math.Round(a))
		r.Trace.Stream[e.Loc] = append(r.Trace.Stream[e.Loc], e)
		return nil
	})
	r.Report = rep
	if err != nil {
		return r, err
	}
	if err := Verify(r); err != nil {
		return r, fmt.Errorf("compensation produced an inconsistent trace (a bug): %w", err)
	}
	return r, nil
}

// Verify checks the invariants of a compensated trace: each location's
// times are non-decreasing and not before the trace start; every receive
// is not before its send (recv_a ≥ send_a) nor before the enter of its
// receive region (eq. 7, non-strict where the copy cost is zero).
func Verify(r *Result) error {
	d := &r.Trace.D
	type ch = trace.Channel
	sends := map[ch][]float64{}
	recvs := map[ch][][2]float64{} // recv_a, enter.recv_a
	for loc, evs := range r.Trace.Stream {
		var stack []float64
		prev := math.Inf(-1)
		for i, e := range evs {
			a := r.Approx[loc][i]
			if a < prev {
				return fmt.Errorf("location %d event %d: approximated time %.3f before its predecessor's %.3f", loc, i, a, prev)
			}
			if a < float64(d.Start) {
				return fmt.Errorf("location %d event %d: approximated time %.3f before the trace start %d", loc, i, a, d.Start)
			}
			prev = a
			switch e.Kind {
			case trace.Enter:
				stack = append(stack, a)
			case trace.Leave:
				if len(stack) > 0 {
					stack = stack[:len(stack)-1]
				}
			case trace.Send, trace.Isend:
				k := ch{Comm: e.Comm, Src: loc, Dst: e.Peer, Tag: e.Tag}
				sends[k] = append(sends[k], a)
			case trace.Recv, trace.Irecv:
				k := ch{Comm: e.Comm, Src: e.Peer, Dst: loc, Tag: e.Tag}
				enter := math.Inf(-1)
				if len(stack) > 0 {
					enter = stack[len(stack)-1]
				}
				if a < enter {
					return fmt.Errorf("location %d event %d: eq. (7) violated: recv_a %.3f before enter.recv_a %.3f", loc, i, a, enter)
				}
				recvs[k] = append(recvs[k], [2]float64{a, enter})
			}
		}
	}
	for k, rs := range recvs {
		ss := sends[k]
		for i, rv := range rs {
			if i < len(ss) && rv[0] < ss[i] {
				return fmt.Errorf("message %d on channel %+v: recv_a %.3f before send_a %.3f", i, k, rv[0], ss[i])
			}
		}
	}
	return nil
}
