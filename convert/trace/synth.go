package trace

import (
	"context"
	"iter"
)

// Synthetic is a generated Source for benchmarks and tests of scale: each
// of its locations runs main with iterations of compute, a send to the
// next location, a receive from the previous one, and every 64th iteration
// a barrier. Events are produced on the fly, so a trace of any length costs
// no memory. Ticks are nanoseconds.
type Synthetic struct {
	d          Defs
	iterations int
}

// Synthetic region IDs.
const (
	synMain = iota
	synCompute
	synSend
	synRecv
	synBarrier
)

// NewSynthetic returns a synthetic trace of about eventsPerLocation events
// on each of locations locations.
func NewSynthetic(locations, eventsPerLocation int) *Synthetic {
	s := &Synthetic{iterations: max(1, eventsPerLocation/8)}
	s.d.Resolution = 1_000_000_000
	all := make([]int, locations)
	for i := range locations {
		all[i] = i
		s.d.Locations = append(s.d.Locations, Location{ID: i, Node: "node", Process: i})
	}
	s.d.Regions = []Region{{ID: synMain, Name: "main"}, {ID: synCompute, Name: "compute"},
		{ID: synSend, Name: "MPI_Send", Paradigm: ParadigmMPI}, {ID: synRecv, Name: "MPI_Recv", Paradigm: ParadigmMPI},
		{ID: synBarrier, Name: "MPI_Barrier", Paradigm: ParadigmMPI}}
	s.d.Comms = []Comm{{ID: 0, Members: all}}
	s.d.Offsets = make([][]ClockOffset, locations)
	return s
}

// Defs implements Source.
func (s *Synthetic) Defs() *Defs { return &s.d }

// Events implements Source.
func (s *Synthetic) Events(ctx context.Context, loc int) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		n := len(s.d.Locations)
		var seq int64
		emit := func(e Event) bool {
			e.Loc, e.Seq = loc, seq
			seq++
			return yield(e, nil)
		}
		if !emit(Event{Kind: Enter, Region: synMain, Time: 0}) {
			return
		}
		for k := 0; k < s.iterations; k++ {
			if k&1023 == 0 && ctx.Err() != nil {
				yield(Event{}, ctx.Err())
				return
			}
			t := Time(k)*1000 + 10
			// Compute time varies by location so receives sometimes wait.
			work := Time(100 + (loc*37+k*11)%200)
			ok := emit(Event{Kind: Enter, Region: synCompute, Time: t}) &&
				emit(Event{Kind: Leave, Region: synCompute, Time: t + work}) &&
				emit(Event{Kind: Enter, Region: synSend, Time: t + work + 10}) &&
				emit(Event{Kind: Send, Peer: (loc + 1) % n, Tag: 1, Bytes: 4096, Time: t + work + 20}) &&
				emit(Event{Kind: Leave, Region: synSend, Time: t + work + 30}) &&
				emit(Event{Kind: Enter, Region: synRecv, Time: t + work + 40}) &&
				emit(Event{Kind: Recv, Peer: (loc + n - 1) % n, Tag: 1, Bytes: 4096, Time: t + 700}) &&
				emit(Event{Kind: Leave, Region: synRecv, Time: t + 710})
			if ok && k%64 == 63 {
				ok = emit(Event{Kind: Enter, Region: synBarrier, Time: t + 720 + Time(loc%64)}) &&
					emit(Event{Kind: CollectiveEnd, Op: OpBarrier, Root: -1, Time: t + 800}) &&
					emit(Event{Kind: Leave, Region: synBarrier, Time: t + 810})
			}
			if !ok {
				return
			}
		}
		emit(Event{Kind: Leave, Region: synMain, Time: Time(s.iterations)*1000 + 10})
	}
}
