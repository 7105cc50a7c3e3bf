package trace

import (
	"container/heap"
	"context"
	"iter"
	"sort"
)

// Corrector maps one location's local times to global times by linear
// interpolation between its clock offset records; before the first and
// after the last record the nearest offset holds.
type Corrector struct {
	offs []ClockOffset
	i    int // segment hint: times arrive non-decreasing in practice
}

// NewCorrector returns the corrector of a location's offset records
// (sorted by time; nil for none).
func NewCorrector(offs []ClockOffset) *Corrector {
	if !sort.SliceIsSorted(offs, func(i, j int) bool { return offs[i].Time < offs[j].Time }) {
		offs = append([]ClockOffset(nil), offs...)
		sort.Slice(offs, func(i, j int) bool { return offs[i].Time < offs[j].Time })
	}
	return &Corrector{offs: offs}
}

// Global returns the corrected time of local time t.
func (c *Corrector) Global(t Time) Time {
	o := c.offs
	switch {
	case len(o) == 0:
		return t
	case t <= o[0].Time:
		return t + Time(o[0].Offset)
	case t >= o[len(o)-1].Time:
		return t + Time(o[len(o)-1].Offset)
	}
	if c.i >= len(o)-1 || o[c.i].Time > t || o[c.i+1].Time < t {
		c.i = sort.Search(len(o), func(k int) bool { return o[k].Time > t }) - 1
	}
	a, b := o[c.i], o[c.i+1]
	// Interpolate in float64: tick counts times offsets can overflow int64.
	f := float64(t-a.Time) / float64(b.Time-a.Time)
	off := float64(a.Offset) + f*float64(b.Offset-a.Offset)
	return t + Time(off+0.5*sign(off))
}

func sign(x float64) float64 {
	if x < 0 {
		return -1
	}
	return 1
}

type cursor struct {
	ev   Event
	next func() (Event, error, bool)
	stop func()
	corr *Corrector
}

type mergeHeap []*cursor

func (h mergeHeap) Len() int { return len(h) }
func (h mergeHeap) Less(i, j int) bool {
	a, b := &h[i].ev, &h[j].ev
	if a.Time != b.Time {
		return a.Time < b.Time
	}
	if a.Loc != b.Loc {
		return a.Loc < b.Loc
	}
	return a.Seq < b.Seq
}
func (h mergeHeap) Swap(i, j int) { h[i], h[j] = h[j], h[i] }
func (h *mergeHeap) Push(x any)   { *h = append(*h, x.(*cursor)) }
func (h *mergeHeap) Pop() any {
	old := *h
	c := old[len(old)-1]
	*h = old[:len(old)-1]
	return c
}

// Merge yields the events of all locations of src in global time order:
// times are corrected by the locations' clock offsets, ties go to the lower
// location ID, then the lower sequence number (MERGE, 002 §2.2). A
// BufferFlush's Stop is corrected too. Memory is O(locations).
//
// Merge assumes each stream is non-decreasing after correction; a stream
// that is not still comes out in stream order per location (Check reports it).
func Merge(ctx context.Context, src Source) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		d := src.Defs()
		h := make(mergeHeap, 0, len(d.Locations))
		defer func() {
			for _, c := range h {
				c.stop()
			}
		}()
		for loc := range d.Locations {
			next, stop := iter.Pull2(src.Events(ctx, loc))
			var offs []ClockOffset
			if loc < len(d.Offsets) {
				offs = d.Offsets[loc]
			}
			c := &cursor{next: next, stop: stop, corr: NewCorrector(offs)}
			ev, err, ok := next()
			if err != nil {
				stop()
				yield(Event{}, err)
				return
			}
			if !ok {
				stop()
				continue
			}
			c.setEvent(ev)
			h = append(h, c)
		}
		heap.Init(&h)
		for len(h) > 0 {
			c := h[0]
			if !yield(c.ev, nil) {
				return
			}
			ev, err, ok := c.next()
			if err != nil {
				yield(Event{}, err)
				return
			}
			if !ok {
				c.stop()
				heap.Pop(&h)
				continue
			}
			c.setEvent(ev)
			heap.Fix(&h, 0)
		}
	}
}

func (c *cursor) setEvent(ev Event) {
	if ev.Kind == BufferFlush {
		ev.Stop = c.corr.Global(ev.Stop)
	}
	ev.Time = c.corr.Global(ev.Time)
	c.ev = ev
}

// corrected is a Source whose locations' times have their clock offsets
// applied.
type corrected struct {
	src Source
	d   Defs
}

// Corrected returns src with each location's clock offsets applied to its
// event times (and buffer flush ends), and no offsets left in its
// definitions: for replays that compare times across locations stream by
// stream rather than through Merge (overhead compensation).
func Corrected(src Source) Source {
	d := *src.Defs()
	if len(d.Offsets) == 0 {
		return src
	}
	d.Offsets = nil
	return &corrected{src: src, d: d}
}

func (c *corrected) Defs() *Defs { return &c.d }

func (c *corrected) Events(ctx context.Context, loc int) iter.Seq2[Event, error] {
	var offs []ClockOffset
	if o := c.src.Defs().Offsets; loc < len(o) {
		offs = o[loc]
	}
	corr := NewCorrector(offs)
	return func(yield func(Event, error) bool) {
		for e, err := range c.src.Events(ctx, loc) {
			if err == nil {
				if e.Kind == BufferFlush {
					e.Stop = corr.Global(e.Stop)
				}
				e.Time = corr.Global(e.Time)
			}
			if !yield(e, err) || err != nil {
				return
			}
		}
	}
}
