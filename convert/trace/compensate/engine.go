package compensate

import (
	"context"
	"fmt"
	"iter"
	"math"

	"github.com/perfkb/perfkb/convert/trace"
)

// Report counts what the compensation did.
type Report struct {
	Events int64
	Cases  map[Case]int64 // point-to-point and 1-to-n receives by case
	NtoN   int64          // n-to-n collective exits (eq. 12 or 13)
	// Flags names the extensions beyond the paper that were used:
	// "nonblocking", "n-to-1-as-n-to-n", "clamped" (a measured gap
	// shorter than O).
	Flags map[string]int64
	// Flushes is the total buffer flush time removed, in ticks.
	Flushes float64
}

type frame struct {
	enterM, enterA float64
}

type msg struct {
	sendM, sendA float64
	size         int64
	loc          int   // sender
	seq          int64 // the send event's index
	depth        int   // sender stack depth at the send
	exitM        float64
	exitKnown    bool
}

type locState struct {
	// open holds the sends whose enclosing region is not yet left, in
	// commit order: the leave that closes it is their exit.send.
	open    []*msg
	next    func() (trace.Event, error, bool)
	stop    func()
	buf     []trace.Event // lookahead queue; buf[head] is the next event to approximate
	head    int
	eof     bool
	started bool
	prevM   float64
	prevA   float64
	stack   []frame
	collN   map[int]int
	out     func(e trace.Event, approx float64)
}

type collEntry struct {
	enterM, enterA, exitM float64
}

type collInst struct {
	op      trace.CollOp
	members int
	entries map[int]collEntry
	exits   map[int]float64 // computed approximated exits
	root    *msg            // 1-to-n: the root's pseudo-message
}

type collKey struct{ comm, k int }

// engine replays a trace location by location; an event waits in its
// location's queue until the events it depends on are approximated.
type engine struct {
	d     *trace.Defs
	m     *Model
	o     float64 // O in ticks
	perUs float64 // ticks per microsecond
	locs  []*locState
	chans map[trace.Channel][]*msg
	colls map[collKey]*collInst
	rep   Report
}

// Compensate approximates every event time of src and calls out for each
// event in its location's stream order with the approximated time in
// ticks (fractional). It fails on inconsistent traces (a receive without a
// send, a collective some member never joins).
func Compensate(ctx context.Context, src trace.Source, m *Model, out func(e trace.Event, approx float64) error) (Report, error) {
	d := src.Defs()
	res := float64(d.Resolution)
	if res == 0 {
		res = 1e6
	}
	en := &engine{d: d, m: m, perUs: res / 1e6, chans: map[trace.Channel][]*msg{}, colls: map[collKey]*collInst{},
		rep: Report{Cases: map[Case]int64{}, Flags: map[string]int64{}}}
	en.o = m.OverheadUs * en.perUs
	var outErr error
	for loc := range d.Locations {
		next, stop := iter.Pull2(src.Events(ctx, loc))
		defer stop()
		en.locs = append(en.locs, &locState{next: next, stop: stop, out: func(e trace.Event, a float64) {
			if outErr == nil {
				outErr = out(e, a)
			}
		}})
	}
	for {
		progress, done := false, true
		for loc, L := range en.locs {
			for {
				e, ok, err := en.peek(L, 0)
				if err != nil {
					return en.rep, err
				}
				if !ok {
					break
				}
				done = false
				a, ready, err := en.approx(loc, L, &e)
				if err != nil {
					return en.rep, err
				}
				if !ready {
					break
				}
				en.commit(L, &e, a)
				progress = true
				if outErr != nil {
					return en.rep, outErr
				}
				if en.rep.Events&8191 == 0 {
					if err := ctx.Err(); err != nil {
						return en.rep, err
					}
				}
			}
		}
		if done {
			return en.rep, nil
		}
		if !progress {
			return en.rep, en.stuck()
		}
	}
}

// stuck describes why no location can proceed.
func (en *engine) stuck() error {
	for loc, L := range en.locs {
		if e, ok, _ := en.peek(L, 0); ok {
			return fmt.Errorf("compensation cannot proceed: location %d event %d (%s at %d) waits for a send or collective partner that never comes (run perfkb trace check)", loc, e.Seq, e.Kind, e.Time)
		}
	}
	return fmt.Errorf("compensation cannot proceed")
}

// peek returns the event i positions after the next one of L, reading
// ahead as needed.
func (en *engine) peek(L *locState, i int) (trace.Event, bool, error) {
	for L.head+i >= len(L.buf) {
		if L.eof {
			return trace.Event{}, false, nil
		}
		e, err, ok := L.next()
		if err != nil {
			return trace.Event{}, false, err
		}
		if !ok {
			L.eof = true
			return trace.Event{}, false, nil
		}
		if L.head > 1024 && L.head*2 > len(L.buf) {
			L.buf = append(L.buf[:0], L.buf[L.head:]...)
			L.head = 0
		}
		L.buf = append(L.buf, e)
	}
	return L.buf[L.head+i], true, nil
}

// independent is eq. (1), clamped to the predecessor; the first event of a
// location keeps its measured time.
func (en *engine) independent(L *locState, m float64) float64 {
	if !L.started {
		return max(m, float64(en.d.Start))
	}
	a := Independent(L.prevA, L.prevM, m, en.o)
	if a < L.prevA {
		en.rep.Flags["clamped"]++
		a = L.prevA
	}
	return a
}

func (en *engine) commit(L *locState, e *trace.Event, a float64) {
	m := float64(e.Time)
	switch e.Kind {
	case trace.Enter:
		L.stack = append(L.stack, frame{enterM: m, enterA: a})
	case trace.Leave:
		if len(L.stack) > 0 {
			L.stack = L.stack[:len(L.stack)-1]
		}
		closeSends(L, m)
	}
	L.started = true
	L.prevA, L.prevM = a, m
	if e.Kind == trace.BufferFlush && e.Stop > e.Time {
		// The flush is measurement overhead: the next gap is measured from
		// its end, so the flush time disappears (003 §4).
		L.prevM = float64(e.Stop)
		en.rep.Flushes += float64(e.Stop - e.Time)
	}
	L.head++
	en.rep.Events++
	L.out(*e, a)
}

// approx returns the approximated time of e, or ready=false when it
// depends on something not yet approximated.
func (en *engine) approx(loc int, L *locState, e *trace.Event) (float64, bool, error) {
	m := float64(e.Time)
	switch e.Kind {
	case trace.Send, trace.Isend:
		if e.Kind == trace.Isend {
			en.rep.Flags["nonblocking"]++
		}
		a := en.independent(L, m)
		ch := trace.Channel{Comm: e.Comm, Src: loc, Dst: e.Peer, Tag: e.Tag}
		s := &msg{sendM: m, sendA: a, size: e.Bytes, loc: loc, seq: e.Seq, depth: len(L.stack)}
		if s.depth == 0 {
			// A send outside any region is its own exit.send.
			s.exitM, s.exitKnown = m, true
		} else {
			L.open = append(L.open, s)
		}
		en.chans[ch] = append(en.chans[ch], s)
		return a, true, nil
	case trace.Recv, trace.Irecv:
		ch := trace.Channel{Comm: e.Comm, Src: e.Peer, Dst: loc, Tag: e.Tag}
		q := en.chans[ch]
		if len(q) == 0 {
			return 0, false, nil
		}
		s := q[0]
		exit, err := en.exitSend(s)
		if err != nil {
			return 0, false, err
		}
		en.chans[ch] = q[1:]
		if e.Kind == trace.Irecv {
			en.rep.Flags["nonblocking"]++
		}
		return en.recv(L, s.sendM, s.sendA, exit, m, e.Bytes), true, nil
	case trace.CollectiveEnd:
		return en.collective(loc, L, e)
	}
	return en.independent(L, m), true, nil
}

// recv applies eqs. (2)–(11) with the enclosing region's enter as enter.recv.
func (en *engine) recv(L *locState, sendM, sendA, exitSendM, recvM float64, size int64) float64 {
	f := frame{enterM: L.prevM, enterA: L.prevA}
	if len(L.stack) > 0 {
		f = L.stack[len(L.stack)-1]
	}
	p := P2P{SendM: sendM, SendA: sendA, ExitSendM: exitSendM, EnterRecvM: f.enterM, EnterRecvA: f.enterA,
		RecvM: recvM, CopyCost: en.m.CopyUs(size) * en.perUs}
	a, c := p.Recv(en.m.Bound)
	en.rep.Cases[c]++
	if a < L.prevA {
		en.rep.Flags["clamped"]++
		a = L.prevA
	}
	return a
}

// closeSends records m, the measured time of a leave just committed on L,
// as exit.send of every open send whose region it closed. A send still
// open is no deeper than the current stack, so L.open is ordered by depth
// and the closed ones are at its end.
func closeSends(L *locState, m float64) {
	i := len(L.open)
	for i > 0 && L.open[i-1].depth > len(L.stack) {
		i--
		L.open[i].exitM, L.open[i].exitKnown = m, true
		L.open[i] = nil
	}
	L.open = L.open[:i]
}

// exitSend returns the measured exit.send of a send. Once the sender has
// committed the leave of the send's region, commit has recorded it;
// otherwise the sender is still inside that region and the leave is read
// ahead in its queue (the bounded reorder window of 003 §4), counting
// depth from the sender's current stack, since events after the send may
// already be committed. A sender whose trace ends inside the region exits
// at its last event.
func (en *engine) exitSend(s *msg) (float64, error) {
	if s.exitKnown {
		return s.exitM, nil
	}
	L := en.locs[s.loc]
	depth := len(L.stack)
	last := L.prevM
	for i := 0; ; i++ {
		e, ok, err := en.peek(L, i)
		if err != nil {
			return 0, err
		}
		if !ok {
			return last, nil // truncated inside the send's region
		}
		last = float64(e.Time)
		switch e.Kind {
		case trace.Enter:
			depth++
		case trace.Leave:
			depth--
		}
		if depth < s.depth {
			return last, nil
		}
	}
}

// collective approximates the end of a collective operation.
func (en *engine) collective(loc int, L *locState, e *trace.Event) (float64, bool, error) {
	if L.collN == nil {
		L.collN = map[int]int{}
	}
	k := collKey{e.Comm, L.collN[e.Comm]}
	if e.Comm < 0 || e.Comm >= len(en.d.Comms) {
		return 0, false, fmt.Errorf("location %d event %d: collective on undefined communicator %d", loc, e.Seq, e.Comm)
	}
	c := en.colls[k]
	if c == nil {
		c = &collInst{op: e.Op, members: len(en.d.Comms[e.Comm].Members), entries: map[int]collEntry{}, exits: map[int]float64{}}
		en.colls[k] = c
	}
	f := frame{enterM: L.prevM, enterA: L.prevA}
	if len(L.stack) > 0 {
		f = L.stack[len(L.stack)-1]
	}
	m := float64(e.Time)
	finish := func(a float64) (float64, bool, error) {
		L.collN[e.Comm]++
		c.members--
		if c.members == 0 {
			delete(en.colls, k)
		}
		return a, true, nil
	}
	if e.Op.Pattern() == "1-to-n" {
		if loc == e.Root {
			// send := enter.send; exit.send is the leave of the root's
			// collective region, found as for a point-to-point send.
			a := en.independent(L, m)
			c.root = &msg{sendM: f.enterM, sendA: f.enterA, loc: loc, seq: e.Seq, depth: len(L.stack)}
			if c.root.depth == 0 {
				c.root.exitM, c.root.exitKnown = m, true
			} else {
				L.open = append(L.open, c.root)
			}
			return finish(a)
		}
		if c.root == nil {
			return 0, false, nil
		}
		exit, err := en.exitSend(c.root)
		if err != nil {
			return 0, false, err
		}
		return finish(en.recv(L, c.root.sendM, c.root.sendA, exit, m, e.Recvd))
	}
	if e.Op.Pattern() == "n-to-1" {
		en.rep.Flags["n-to-1-as-n-to-n"]++
	}
	if _, ok := c.entries[loc]; !ok {
		c.entries[loc] = collEntry{enterM: f.enterM, enterA: f.enterA, exitM: m}
	}
	if len(c.entries) < len(en.d.Comms[e.Comm].Members) {
		return 0, false, nil
	}
	if len(c.exits) == 0 {
		latestM, latestA, earliestExit := math.Inf(-1), math.Inf(-1), math.Inf(1)
		for _, x := range c.entries {
			latestM = max(latestM, x.enterM)
			latestA = max(latestA, x.enterA)
			earliestExit = min(earliestExit, x.exitM)
		}
		for l, x := range c.entries {
			exitM := earliestExit // eq. (12)
			if en.m.Collective == CollPerProcess {
				exitM = x.exitM // eq. (13)
			}
			c.exits[l] = NtoNExit(latestA, exitM, latestM)
		}
	}
	a := c.exits[loc]
	en.rep.NtoN++
	if a < L.prevA {
		en.rep.Flags["clamped"]++
		a = L.prevA
	}
	return finish(a)
}
