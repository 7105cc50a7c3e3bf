package trace

import (
	"context"
	"fmt"
	"iter"
	"math"
	"sort"
)

// Node is one node of a location's dynamic region graph (Truong Def. 3.17):
// all executions of a region reached by an equivalent stack trace share a
// node. Durations are in ticks.
type Node struct {
	ID       int // index in Summary.Nodes (stable, in order of first entry)
	Loc      int
	Region   int
	Parent   *Node
	Children []*Node // in order of first entry

	Calls     int64 // executions (ncalls)
	Subs      int64 // executions of direct sub regions (nsubs)
	Incl      Time  // total inclusive time
	Excl      Time  // total exclusive time
	Min, Max  Time  // shortest and longest execution
	SumSq     float64
	MsgsSent  int64
	BytesSent int64
	MsgsRecv  int64
	BytesRecv int64
	LSWait    Time // Late Sender waiting time (003 §5)
	LSCount   int64
	NxNWait   Time // Wait at N×N, barriers included
	NxNCount  int64

	childIdx map[int]*Node
}

// Mean returns the mean inclusive duration in ticks.
func (n *Node) Mean() float64 {
	if n.Calls == 0 {
		return 0
	}
	return float64(n.Incl) / float64(n.Calls)
}

// StdDev returns the population standard deviation of the inclusive
// duration in ticks.
func (n *Node) StdDev() float64 {
	if n.Calls == 0 {
		return 0
	}
	m := n.Mean()
	v := n.SumSq/float64(n.Calls) - m*m
	if v < 0 {
		v = 0 // rounding
	}
	return math.Sqrt(v)
}

// Path returns the region IDs from the root down to n.
func (n *Node) Path() []int {
	var p []int
	for x := n; x != nil; x = x.Parent {
		p = append(p, x.Region)
	}
	for i, j := 0, len(p)-1; i < j; i, j = i+1, j-1 {
		p[i], p[j] = p[j], p[i]
	}
	return p
}

func (n *Node) child(region int, nodes *[]*Node) *Node {
	if c := n.childIdx[region]; c != nil {
		return c
	}
	c := newNode(n.Loc, region, n, nodes)
	if n.childIdx == nil {
		n.childIdx = map[int]*Node{}
	}
	n.childIdx[region] = c
	n.Children = append(n.Children, c)
	return c
}

func newNode(loc, region int, parent *Node, nodes *[]*Node) *Node {
	c := &Node{ID: len(*nodes), Loc: loc, Region: region, Parent: parent, Min: math.MaxInt64}
	*nodes = append(*nodes, c)
	return c
}

// MsgStat counts point-to-point messages.
type MsgStat struct {
	Src, Dst int
	Count    int64
	Bytes    int64
}

// Summary is the result of one pass over a merged trace: the DRG of every
// location plus message statistics.
type Summary struct {
	Defs     *Defs
	Nodes    []*Node   // all DRG nodes, by ID
	Roots    [][]*Node // per location: top-level nodes
	Messages map[[2]int]*MsgStat
	Events   int64
	Span     [2]Time // first and last event time
	// Flags records model extensions used (e.g. non-blocking wait states).
	Flags map[string]bool
}

type frame struct {
	node  *Node
	enter Time
	child Time // inclusive time of direct children so far
}

type sumLoc struct {
	stack []frame
	root  map[int]*Node
	collN map[int]int
}

type sentMsg struct {
	enter Time // enter time of the region holding the send
	bytes int64
	node  *Node
}

type recvWait struct {
	enter Time
	node  *Node
	bytes int64
}

type collWait struct {
	enters map[int]Time
	nodes  map[int]*Node
}

// Summarize builds the DRGs, statistics and wait states of src.
func Summarize(ctx context.Context, src Source) (*Summary, error) {
	return SummarizeEvents(src.Defs(), Merge(ctx, src))
}

// SummarizeEvents is Summarize over an already merged event sequence. It
// tolerates violations (unmatched leaves are ignored, open regions are
// closed at the location's last event).
func SummarizeEvents(d *Defs, events iter.Seq2[Event, error]) (*Summary, error) {
	s := &Summary{Defs: d, Roots: make([][]*Node, len(d.Locations)), Messages: map[[2]int]*MsgStat{}, Flags: map[string]bool{}}
	locs := make([]sumLoc, len(d.Locations))
	last := make([]Time, len(d.Locations))
	sends := map[Channel][]sentMsg{}
	recvs := map[Channel][]recvWait{}
	colls := map[collKey]*collWait{}
	first := true
	for e, err := range events {
		if err != nil {
			return nil, err
		}
		if e.Loc < 0 || e.Loc >= len(locs) {
			return nil, fmt.Errorf("event %d names location %d, the trace defines %d", e.Seq, e.Loc, len(locs))
		}
		s.Events++
		if first {
			s.Span[0], first = e.Time, false
		}
		s.Span[1] = max(s.Span[1], e.Time)
		last[e.Loc] = e.Time
		L := &locs[e.Loc]
		switch e.Kind {
		case Enter:
			var n *Node
			if len(L.stack) == 0 {
				if L.root == nil {
					L.root = map[int]*Node{}
				}
				n = L.root[e.Region]
				if n == nil {
					n = newNode(e.Loc, e.Region, nil, &s.Nodes)
					L.root[e.Region] = n
					s.Roots[e.Loc] = append(s.Roots[e.Loc], n)
				}
			} else {
				top := &L.stack[len(L.stack)-1]
				n = top.node.child(e.Region, &s.Nodes)
				top.node.Subs++
			}
			L.stack = append(L.stack, frame{node: n, enter: e.Time})
		case Leave:
			if len(L.stack) == 0 || L.stack[len(L.stack)-1].node.Region != e.Region {
				continue // reported by Check
			}
			closeFrame(L, e.Time)
		}
		if len(L.stack) == 0 {
			continue
		}
		top := &L.stack[len(L.stack)-1]
		switch e.Kind {
		case Send, Isend:
			top.node.MsgsSent++
			top.node.BytesSent += e.Bytes
			k := [2]int{e.Loc, e.Peer}
			m := s.Messages[k]
			if m == nil {
				m = &MsgStat{Src: e.Loc, Dst: e.Peer}
				s.Messages[k] = m
			}
			m.Count++
			m.Bytes += e.Bytes
			if e.Kind == Isend {
				s.Flags["nonblocking"] = true
			}
			ch, _, _ := p2pKey(&e)
			if q := recvs[ch]; len(q) > 0 {
				r := q[0]
				recvs[ch] = q[1:]
				lateSender(r.node, r.enter, top.enter)
				continue
			}
			sends[ch] = append(sends[ch], sentMsg{enter: top.enter, bytes: e.Bytes, node: top.node})
		case Recv, Irecv:
			top.node.MsgsRecv++
			top.node.BytesRecv += e.Bytes
			ch, _, _ := p2pKey(&e)
			if q := sends[ch]; len(q) > 0 {
				sm := q[0]
				sends[ch] = q[1:]
				lateSender(top.node, top.enter, sm.enter)
				continue
			}
			recvs[ch] = append(recvs[ch], recvWait{enter: top.enter, node: top.node, bytes: e.Bytes})
		case CollectiveEnd:
			if e.Op.Pattern() != "n-to-n" || e.Comm < 0 || e.Comm >= len(d.Comms) {
				continue
			}
			if L.collN == nil {
				L.collN = map[int]int{}
			}
			k := collKey{e.Comm, L.collN[e.Comm]}
			L.collN[e.Comm]++
			c := colls[k]
			if c == nil {
				c = &collWait{enters: map[int]Time{}, nodes: map[int]*Node{}}
				colls[k] = c
			}
			c.enters[e.Loc] = top.enter
			c.nodes[e.Loc] = top.node
			if len(c.enters) == len(d.Comms[e.Comm].Members) {
				var latest Time = math.MinInt64
				for _, t := range c.enters {
					latest = max(latest, t)
				}
				for l, t := range c.enters {
					if w := latest - t; w > 0 {
						c.nodes[l].NxNWait += w
						c.nodes[l].NxNCount++
					}
				}
				delete(colls, k)
			}
		}
	}
	// Close regions left open (truncated traces) at the location's last event.
	for i := range locs {
		for len(locs[i].stack) > 0 {
			closeFrame(&locs[i], last[i])
		}
	}
	return s, nil
}

// lateSender records the waiting time of a receive entered at recvEnter
// whose matching send was entered at sendEnter (003 §5).
func lateSender(n *Node, recvEnter, sendEnter Time) {
	if sendEnter > recvEnter {
		n.LSWait += sendEnter - recvEnter
		n.LSCount++
	}
}

func closeFrame(L *sumLoc, t Time) {
	f := L.stack[len(L.stack)-1]
	L.stack = L.stack[:len(L.stack)-1]
	d := t - f.enter
	n := f.node
	n.Calls++
	n.Incl += d
	n.Excl += d - f.child
	n.Min = min(n.Min, d)
	n.Max = max(n.Max, d)
	n.SumSq += float64(d) * float64(d)
	if len(L.stack) > 0 {
		L.stack[len(L.stack)-1].child += d
	}
}

// RegionStat is TRCSTAT's line for a region (Loc = -1) or a region on one
// location. Durations are in microseconds.
type RegionStat struct {
	Region  int
	Name    string
	Loc     int
	Count   int64
	Total   float64
	Mean    float64
	Min     float64
	Max     float64
	StdDev  float64
	Excl    float64
	Msgs    int64
	Bytes   int64
	LSWait  float64
	NxNWait float64
}

// RegionStats aggregates the DRG nodes by region (byLoc false) or by
// region × location (byLoc true), sorted by total time descending.
func (s *Summary) RegionStats(byLoc bool) []RegionStat {
	type key struct{ r, l int }
	type acc struct {
		n           int64
		incl, excl  Time
		min, max    Time
		sumsq       float64
		msgs, bytes int64
		lsw, nxw    Time
	}
	m := map[key]*acc{}
	for _, n := range s.Nodes {
		if n.Calls == 0 {
			continue
		}
		k := key{n.Region, -1}
		if byLoc {
			k.l = n.Loc
		}
		a := m[k]
		if a == nil {
			a = &acc{min: math.MaxInt64}
			m[k] = a
		}
		a.n += n.Calls
		a.incl += n.Incl
		a.excl += n.Excl
		a.min = min(a.min, n.Min)
		a.max = max(a.max, n.Max)
		a.sumsq += n.SumSq
		a.msgs += n.MsgsSent
		a.bytes += n.BytesSent
		a.lsw += n.LSWait
		a.nxw += n.NxNWait
	}
	us := s.Defs.Micros
	out := make([]RegionStat, 0, len(m))
	for k, a := range m {
		mean := float64(a.incl) / float64(a.n)
		v := a.sumsq/float64(a.n) - mean*mean
		if v < 0 {
			v = 0
		}
		name := ""
		if k.r >= 0 && k.r < len(s.Defs.Regions) {
			name = s.Defs.Regions[k.r].Name
		}
		out = append(out, RegionStat{Region: k.r, Name: name, Loc: k.l, Count: a.n, Total: us(a.incl), Mean: us(Time(0)) + mean*us(1),
			Min: us(a.min), Max: us(a.max), StdDev: math.Sqrt(v) * us(1), Excl: us(a.excl), Msgs: a.msgs, Bytes: a.bytes,
			LSWait: us(a.lsw), NxNWait: us(a.nxw)})
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Total != out[j].Total {
			return out[i].Total > out[j].Total
		}
		if out[i].Region != out[j].Region {
			return out[i].Region < out[j].Region
		}
		return out[i].Loc < out[j].Loc
	})
	return out
}

// MessageStats returns the per (source, destination) message counts,
// sorted by source then destination.
func (s *Summary) MessageStats() []MsgStat {
	out := make([]MsgStat, 0, len(s.Messages))
	for _, m := range s.Messages {
		out = append(out, *m)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Src != out[j].Src {
			return out[i].Src < out[j].Src
		}
		return out[i].Dst < out[j].Dst
	})
	return out
}
