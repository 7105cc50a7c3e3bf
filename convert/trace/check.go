package trace

import (
	"context"
	"fmt"
	"iter"
	"sort"
)

// ViolationKind names one kind of CHECKTRACE violation.
type ViolationKind string

// Violation kinds. Fatal kinds (see Fatal) make summaries wrong.
const (
	NonMonotoneTime      ViolationKind = "non-monotone-time"
	UnmatchedLeave       ViolationKind = "unmatched-leave"
	UnmatchedSend        ViolationKind = "unmatched-send"
	UnmatchedRecv        ViolationKind = "unmatched-recv"
	RecvBeforeSend       ViolationKind = "recv-before-send"
	IncompleteRequest    ViolationKind = "incomplete-request"
	UnknownRequest       ViolationKind = "unknown-request"
	CollectiveMismatch   ViolationKind = "collective-mismatch"
	CollectiveIncomplete ViolationKind = "collective-incomplete"
	MatchAcrossGap       ViolationKind = "match-across-gap"
	UnclosedRegion       ViolationKind = "unclosed-region"
)

// Fatal reports whether a violation of kind k makes region summaries wrong,
// so that a conversion fails unless violations are accepted.
func (k ViolationKind) Fatal() bool {
	switch k {
	case NonMonotoneTime, UnmatchedLeave, UnmatchedSend, UnmatchedRecv:
		return true
	}
	return false
}

// Ref points at one event.
type Ref struct {
	Loc   int   `json:"location"`
	Index int64 `json:"index"`
	Time  Time  `json:"time"`
}

// Violation is one CHECKTRACE finding.
type Violation struct {
	Kind    ViolationKind `json:"kind"`
	Fatal   bool          `json:"fatal"`
	Loc     int           `json:"location"`
	Index   int64         `json:"index"`
	Time    Time          `json:"time"`
	Related *Ref          `json:"related,omitempty"`
	Detail  string        `json:"detail"`
}

func (v Violation) String() string {
	s := fmt.Sprintf("%s: location %d event %d time %d: %s", v.Kind, v.Loc, v.Index, v.Time, v.Detail)
	if v.Related != nil {
		s += fmt.Sprintf(" (related: location %d event %d time %d)", v.Related.Loc, v.Related.Index, v.Related.Time)
	}
	return s
}

func ref(e *Event) *Ref { return &Ref{Loc: e.Loc, Index: e.Seq, Time: e.Time} }

// Channel identifies a point-to-point channel; messages on one channel are
// matched in FIFO order (MPI's non-overtaking rule).
type Channel struct{ Comm, Src, Dst, Tag int }

// p2pKey returns the channel of a send or receive event and whether the
// event is one.
func p2pKey(e *Event) (Channel, bool, bool) {
	switch e.Kind {
	case Send, Isend:
		return Channel{e.Comm, e.Loc, e.Peer, e.Tag}, true, true
	case Recv, Irecv:
		return Channel{e.Comm, e.Peer, e.Loc, e.Tag}, false, true
	}
	return Channel{}, false, false
}

type pendingMsg struct {
	ev  Event
	seg int // segment of its own location when recorded
}

type checkLoc struct {
	last     Event
	seen     bool
	stack    []Event
	seg      int
	segStart Time
	reqs     map[uint64]Event
	collN    map[int]int // per communicator: collective instances joined
}

type collKey struct{ comm, k int }

type collInst struct {
	first  Event
	joined map[int]bool
}

// Check runs CHECKTRACE over the merged events of src and returns the
// violations in the order found (end-of-trace findings sorted by location
// and index). A read error is returned as error.
func Check(ctx context.Context, src Source) ([]Violation, error) {
	return CheckEvents(src.Defs(), Merge(ctx, src))
}

// CheckEvents is Check over an already merged event sequence.
func CheckEvents(d *Defs, events iter.Seq2[Event, error]) ([]Violation, error) {
	var out []Violation
	add := func(k ViolationKind, e *Event, rel *Ref, format string, args ...any) {
		out = append(out, Violation{Kind: k, Fatal: k.Fatal(), Loc: e.Loc, Index: e.Seq, Time: e.Time, Related: rel, Detail: fmt.Sprintf(format, args...)})
	}
	locs := make([]checkLoc, len(d.Locations))
	sends := map[Channel][]pendingMsg{}
	recvs := map[Channel][]pendingMsg{}
	colls := map[collKey]*collInst{}
	members := make([]map[int]bool, len(d.Comms))
	for i, c := range d.Comms {
		members[i] = map[int]bool{}
		for _, m := range c.Members {
			members[i][m] = true
		}
	}
	// crossed reports whether a message whose send is s and whose receive is
	// r cannot be matched because one side had a measurement gap between them.
	crossed := func(s, r pendingMsg) bool {
		if locs[s.ev.Loc].seg != s.seg || locs[r.ev.Loc].seg != r.seg {
			return true
		}
		lo := min(s.ev.Time, r.ev.Time)
		return s.seg > 0 && locs[s.ev.Loc].segStart > lo || r.seg > 0 && locs[r.ev.Loc].segStart > lo
	}
	for e, err := range events {
		if err != nil {
			return out, err
		}
		if e.Loc < 0 || e.Loc >= len(locs) {
			return out, fmt.Errorf("event %d names location %d, the trace defines %d", e.Seq, e.Loc, len(locs))
		}
		L := &locs[e.Loc]
		if L.seen && e.Time < L.last.Time {
			add(NonMonotoneTime, &e, ref(&L.last), "time goes back by %d ticks", L.last.Time-e.Time)
		}
		L.last, L.seen = e, true
		switch e.Kind {
		case Enter:
			L.stack = append(L.stack, e)
		case Leave:
			if len(L.stack) == 0 {
				add(UnmatchedLeave, &e, nil, "leave of region %d with no open region", e.Region)
				break
			}
			top := L.stack[len(L.stack)-1]
			if top.Region != e.Region {
				add(UnmatchedLeave, &e, ref(&top), "leave of region %d, innermost open region is %d", e.Region, top.Region)
				break
			}
			L.stack = L.stack[:len(L.stack)-1]
		case MeasurementOnOff:
			if e.On {
				L.seg++
				L.segStart = e.Time
			}
		case Isend, IrecvRequest:
			if L.reqs == nil {
				L.reqs = map[uint64]Event{}
			}
			L.reqs[e.Request] = e
		case IsendComplete:
			if _, ok := L.reqs[e.Request]; !ok {
				add(UnknownRequest, &e, nil, "completion of request %d that was never issued", e.Request)
			}
			delete(L.reqs, e.Request)
		case Irecv:
			if _, ok := L.reqs[e.Request]; !ok {
				add(UnknownRequest, &e, nil, "completion of receive request %d that was never posted", e.Request)
			}
			delete(L.reqs, e.Request)
		case CollectiveEnd:
			if e.Comm < 0 || e.Comm >= len(d.Comms) || !members[e.Comm][e.Loc] {
				add(CollectiveMismatch, &e, nil, "collective on communicator %d of which the location is not a member", e.Comm)
				break
			}
			if L.collN == nil {
				L.collN = map[int]int{}
			}
			k := collKey{e.Comm, L.collN[e.Comm]}
			L.collN[e.Comm]++
			inst := colls[k]
			if inst == nil {
				inst = &collInst{first: e, joined: map[int]bool{}}
				colls[k] = inst
			} else if inst.first.Op != e.Op || inst.first.Root != e.Root {
				add(CollectiveMismatch, &e, ref(&inst.first), "collective #%d on communicator %d is %s root %d here, %s root %d at the related event",
					k.k, e.Comm, e.Op, e.Root, inst.first.Op, inst.first.Root)
			}
			inst.joined[e.Loc] = true
			if len(inst.joined) == len(d.Comms[e.Comm].Members) {
				delete(colls, k)
			}
		}
		ch, isSend, ok := p2pKey(&e)
		if !ok {
			continue
		}
		me := pendingMsg{ev: e, seg: L.seg}
		if isSend {
			if q := recvs[ch]; len(q) > 0 {
				r := q[0]
				recvs[ch] = q[1:]
				if crossed(me, r) {
					add(MatchAcrossGap, &r.ev, ref(&e), "receive and send are separated by a measurement gap")
				} else if r.ev.Time < e.Time {
					add(RecvBeforeSend, &r.ev, ref(&e), "receive completes %d ticks before its send", e.Time-r.ev.Time)
				}
				continue
			}
			sends[ch] = append(sends[ch], me)
		} else {
			if q := sends[ch]; len(q) > 0 {
				s := q[0]
				sends[ch] = q[1:]
				if crossed(s, me) {
					add(MatchAcrossGap, &e, ref(&s.ev), "receive and send are separated by a measurement gap")
				}
				continue
			}
			recvs[ch] = append(recvs[ch], me)
		}
	}
	var tail []Violation
	for _, q := range sends {
		for _, s := range q {
			tail = append(tail, Violation{Kind: UnmatchedSend, Fatal: true, Loc: s.ev.Loc, Index: s.ev.Seq, Time: s.ev.Time,
				Detail: fmt.Sprintf("send to location %d tag %d on communicator %d has no receive", s.ev.Peer, s.ev.Tag, s.ev.Comm)})
		}
	}
	for _, q := range recvs {
		for _, r := range q {
			tail = append(tail, Violation{Kind: UnmatchedRecv, Fatal: true, Loc: r.ev.Loc, Index: r.ev.Seq, Time: r.ev.Time,
				Detail: fmt.Sprintf("receive from location %d tag %d on communicator %d has no send", r.ev.Peer, r.ev.Tag, r.ev.Comm)})
		}
	}
	for i := range locs {
		for _, r := range locs[i].reqs {
			tail = append(tail, Violation{Kind: IncompleteRequest, Loc: r.Loc, Index: r.Seq, Time: r.Time,
				Detail: fmt.Sprintf("request %d is never completed", r.Request)})
		}
		for _, en := range locs[i].stack {
			tail = append(tail, Violation{Kind: UnclosedRegion, Loc: en.Loc, Index: en.Seq, Time: en.Time,
				Detail: fmt.Sprintf("region %d is still open at the end of the trace (truncated trace?)", en.Region)})
		}
	}
	for k, inst := range colls {
		var missing []int
		for _, m := range d.Comms[k.comm].Members {
			if !inst.joined[m] {
				missing = append(missing, m)
			}
		}
		tail = append(tail, Violation{Kind: CollectiveIncomplete, Loc: inst.first.Loc, Index: inst.first.Seq, Time: inst.first.Time,
			Detail: fmt.Sprintf("collective #%d (%s) on communicator %d never joined by locations %v", k.k, inst.first.Op, k.comm, missing)})
	}
	sort.Slice(tail, func(i, j int) bool {
		if tail[i].Loc != tail[j].Loc {
			return tail[i].Loc < tail[j].Loc
		}
		if tail[i].Index != tail[j].Index {
			return tail[i].Index < tail[j].Index
		}
		return tail[i].Kind < tail[j].Kind
	})
	return append(out, tail...), nil
}

// AnyFatal reports whether vs holds a violation that fails a conversion.
func AnyFatal(vs []Violation) bool {
	for _, v := range vs {
		if v.Fatal {
			return true
		}
	}
	return false
}
