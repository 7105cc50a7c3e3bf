package eval

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// Kept probe indexes: on a store with in-memory lookups a bound level
// (`?m :hasMetricValue ?v` with ?m bound) is answered by a lookup in the
// store's sorted read-side arrays, a binary search per input row. A
// query of the served workload probes the same predicates thousands of
// times per request, and the next request again; a hash index of the
// predicate keyed on the bound position, kept with the store's derived
// values (kb/native's PredicateDerived) until the next write, turns each
// probe into one map lookup. The index is built only once the probes of
// the queries since the last write would have paid for it (probeCostRatio
// probes per indexed quad), counted in a kept counter, so a one-shot
// query never builds one it would use once.

// bgpKeptOn lets bound levels read kept probe indexes; tests turn it off
// to compare against the store's own lookups.
var bgpKeptOn = true

// keptProbesMin and keptCostRatio are probesBeforeIndex and
// probeCostRatio for kept indexes; tests lower them to index small data.
var (
	keptProbesMin         = probesBeforeIndex
	keptCostRatio float64 = probeCostRatio
)

// bgpKeptMatchOn lets a level with a kept index read it in place
// (keptMatch); tests turn it off to compare against the quads keptProbe
// builds.
var bgpKeptMatchOn = true

// bgpKeptBuilds counts the kept indexes built (tests check that one was).
var bgpKeptBuilds atomic.Int64

// keptProbeIndex is a predicate's quads sorted by one position (then by
// the other, then by graph): keys
// holds the distinct keys in order, and the quads of keys[i] are
// quads[start[i]:start[i+1]]. Sorted arrays rather than a hash map: a
// level's bound keys mostly arrive in ascending order (the rows come from
// an index scan), and a forward gallop from the last key found stays in
// cache where hashing each key would not (a hash index of a 200k-quad
// predicate was slower than the store's own lookups).
//
// Only the position other than the key is held per quad (the predicate
// is the index's, the graph one for all when the quads are in one graph):
// a third of the bytes a probe reads from memory.
type keptProbeIndex struct {
	key   int // 0: keyed on the subject, 2: on the object
	p     kb.ID
	keys  []kb.ID
	start []uint32
	other []kb.ID // the non-key position of each quad
	g     kb.ID   // the graph of every quad, when gs is nil
	gs    []kb.ID // each quad's graph
}

// find returns the index of k in keys, starting the search at *pos (the
// index of the previous key found) and leaving there the index of k or
// of the first key past it; ok is false when k is not a key.
func (idx *keptProbeIndex) find(k kb.ID, pos *int) (int, bool) {
	keys := idx.keys
	i := *pos
	if i >= len(keys) || keys[i] > k {
		i = 0
	}
	// Gallop: double the step while keys[i+step] < k, then bisect.
	lo, step := i, 1
	hi := len(keys)
	for lo+step < len(keys) && keys[lo+step] < k {
		lo += step
		step *= 2
	}
	if lo+step < hi {
		hi = lo + step + 1
	}
	for lo < hi {
		m := int(uint(lo+hi) >> 1)
		if keys[m] < k {
			lo = m + 1
		} else {
			hi = m
		}
	}
	*pos = lo
	return lo, lo < len(keys) && keys[lo] == k
}

// lookup returns k's quads, searching as find does.
func (idx *keptProbeIndex) lookup(k kb.ID, pos *int, buf *[]kb.Quad) []kb.Quad {
	lo, ok := idx.find(k, pos)
	if !ok {
		return nil
	}
	a, b := idx.start[lo], idx.start[lo+1]
	out := (*buf)[:0]
	for j := a; j < b; j++ {
		q := kb.Quad{S: k, P: idx.p, O: idx.other[j], G: idx.g}
		if idx.key == 2 {
			q.S, q.O = q.O, k
		}
		if idx.gs != nil {
			q.G = idx.gs[j]
		}
		out = append(out, q)
	}
	*buf = out
	return out
}

// keptMatch is match for a level whose kept index is known (n.kept) and
// whose row binds the index's key but not the pattern's other end: the
// other end's IDs are read from the index's arrays in place and bound in
// r one after the other, as visit binds a quad's. A probe through
// keptProbe built a quad per match, a frame and a visit per quad (the
// frames and quads were half of Fig. 6.29's CPU at 5M, 8,081 matches of
// one ID each per request). ok is false to match the level as usual: no
// index, the key unbound, the other end bound, a level that stops at its
// first match, or the split of a GROUP BY's first level. Over several
// graphs a triple's quads are side by side in the index, so a repeat is
// the ID just bound again.
func (n *bgpNode) keptMatch(ex *executor, level int, r row, emit func(row) bool) (bool, error) {
	idx := n.kept[level]
	p := &n.pats[level]
	keySlot, valSlot := p.pos[0].slot, p.pos[2].slot
	if idx.key == 2 {
		keySlot, valSlot = valSlot, keySlot
	}
	k := r[keySlot]
	if !bgpKeptMatchOn || k == 0 || r[valSlot] != 0 || (level == 0 && n.split != nil) ||
		(level < len(n.exists) && n.exists[level]) {
		return false, nil
	}
	_, dedupe := n.graphsFor(ex, r)
	dedupe = dedupe && idx.gs != nil // one graph holds each triple once
	n.keptHits[level]++
	lo, ok := idx.find(k, &n.keptPos[level])
	if !ok {
		return true, nil
	}
	hide := ex.hidden != nil && n.graph.kind == gDefault
	if hide && idx.gs == nil && ex.hidden[idx.g] {
		return true, nil // perfkb's bookkeeping is not part of the union default graph
	}
	var err error
	var last kb.ID // IDs are never 0
	for j, end := idx.start[lo], idx.start[lo+1]; j < end; j++ {
		if err = ex.check(); err != nil {
			break
		}
		if hide && idx.gs != nil && ex.hidden[idx.gs[j]] {
			continue
		}
		v := idx.other[j]
		if dedupe {
			if v == last {
				continue // the triple again, from another graph
			}
			last = v
		}
		r[valSlot] = v
		if pr := n.prune; pr != nil && pr.level == level && pr.has(r) {
			continue // a row the GROUP BY had already (groupprune.go)
		}
		pass := true
		if n.sels != nil {
			pass, err = n.selPass(ex, level, r)
		}
		if err == nil && pass {
			pass, err = ex.filterRow(n.filters[level+1], r)
		}
		if err == nil && pass {
			n.rows[level]++
			err = n.match(ex, level+1, r, emit)
		}
		if err != nil {
			break
		}
	}
	r[valSlot] = 0
	return true, err
}

// keptProbe answers level's lookup with ids from a kept index on the
// pattern's predicate when the level binds exactly one of subject and
// object and nothing else is constant; ok is false to use the store.
func (n *bgpNode) keptProbe(ex *executor, level int, ids [3]kb.ID, graphs []kb.ID, mask uint8) ([]kb.Quad, bool, error) {
	pd, isPD := ex.ds.(predicateDeriver)
	p := &n.pats[level]
	if !bgpKeptOn || !isPD || (mask != 1 && mask != 4) ||
		p.pos[1].slot >= 0 || p.pos[0].slot < 0 || p.pos[2].slot < 0 || p.pos[1].id == 0 {
		return nil, false, nil
	}
	pred := p.pos[1].id
	key := 0
	if mask == 4 {
		key = 2
	}
	if n.kept == nil {
		n.kept = make([]*keptProbeIndex, len(n.pats))
		n.keptTried = make([]bool, len(n.pats))
		n.keptPos = make([]int, len(n.pats))
		n.keptBuf = make([][]kb.Quad, len(n.pats))
		n.keptBusy = make([]int, len(n.pats))
		n.keptHits = make([]int64, len(n.pats))
	}
	if idx := n.kept[level]; idx != nil {
		return n.keptLookup(idx, level, ids[key]), true, nil
	}
	if n.keptTried[level] {
		return nil, false, nil
	}
	n.probes[level]++
	if n.probes[level] < keptProbesMin {
		return nil, false, nil
	}
	// Past probesBeforeIndex the level asks the store once: is the index
	// kept, or have the probes since the last write paid for it?
	n.keptTried[level] = true
	kind := fmt.Sprintf("bgp probe key=%d graphs=%v", key, graphs)
	if ex.opts.OneShot {
		// A process that answers one query never builds an index for
		// itself; it reads one only when one is kept already.
		return n.keptOf(ex, level, pd, pred, kind, ids[key], func() (any, int64, error) {
			return nil, 0, errNotKept
		})
	}
	if q, ok, err := n.keptOf(ex, level, pd, pred, kind, ids[key], func() (any, int64, error) {
		return nil, 0, errNotKept
	}); ok || err != nil {
		return q, ok, err
	}
	cv, _, ok, err := pd.PredicateDerived(pred, "count "+kind, func() (any, int64, error) {
		return new(atomic.Int64), 8, nil
	})
	if err != nil || !ok {
		return nil, false, err
	}
	counter, _ := cv.(*atomic.Int64)
	if counter == nil {
		return nil, false, nil
	}
	// This query's own probes count as if it had made them all: the
	// estimate of its input rows stands in for the rest.
	seen := counter.Add(int64(max(float64(n.probes[level]), n.rowsIn(level))))
	if float64(seen)*keptCostRatio < p.base {
		return nil, false, nil
	}
	// One query builds it (outside the store's lock on kept values:
	// the scan's checkpoints may wait for a run slot that a query
	// waiting on that lock holds); the others meanwhile, and every query
	// when the store could not keep it, use the store's lookups.
	for {
		old := counter.Load()
		if old < 0 {
			return nil, false, nil
		}
		if counter.CompareAndSwap(old, math.MinInt64/2) {
			break
		}
	}
	state := predicateState(ex.ds)
	if ex.opts.Background != nil && ex.source == nil && ex.scanner != nil {
		// Off the query's path: this query goes on with the store's
		// lookups, and the ones after it read the index once built. The
		// build reads the store as it is then; the index is kept only if
		// pred's quads are still as they were when this query asked.
		scanner, ds := ex.scanner, ex.ds
		go ex.opts.Background(func() {
			idx, bytes, err := buildKeptIndex(context.Background(), pred, key, graphs, func(ctx context.Context, p kb.Pattern, each func(kb.Quad) error) error {
				var inner error
				err := scanner.ScanQuads(ctx, p, func(q kb.Quad) bool {
					inner = each(q)
					return inner == nil
				})
				return cmp.Or(inner, err)
			})
			if err == nil {
				_, _, _, err = pd.PredicateDerived(pred, kind, func() (any, int64, error) {
					if !predicateUnchanged(ds, state, pred) {
						return nil, 0, errNotKept
					}
					return idx, bytes, nil
				})
			}
			if err != nil {
				counter.Store(0)
			}
		})
		return nil, false, nil
	}
	built, bytes, err := n.buildKept(ex, pred, key, graphs)
	if err != nil {
		counter.Store(0)
		return nil, false, err
	}
	q, ok, err := n.keptOf(ex, level, pd, pred, kind, ids[key], func() (any, int64, error) {
		if !predicateUnchanged(ex.ds, state, pred) {
			return nil, 0, errNotKept
		}
		return built, bytes, nil
	})
	return q, ok, err
}

// keptOf reads (or has build make) pred's index of kind, keeps it for
// level and looks k up in it.
func (n *bgpNode) keptOf(ex *executor, level int, pd predicateDeriver, pred kb.ID, kind string, k kb.ID, build func() (any, int64, error)) ([]kb.Quad, bool, error) {
	v, _, ok, err := pd.PredicateDerived(pred, kind, build)
	if errors.Is(err, errNotKept) || err == nil && !ok {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, err
	}
	idx, _ := v.(*keptProbeIndex)
	if idx == nil {
		return nil, false, nil
	}
	n.kept[level] = idx
	return n.keptLookup(idx, level, k), true, nil
}

// keptLookup returns k's quads in level's buffer, or in a fresh one while
// the level's buffer is still being read (re-entry: see scanState).
func (n *bgpNode) keptLookup(idx *keptProbeIndex, level int, k kb.ID) []kb.Quad {
	n.keptBusy[level]++
	if n.keptBusy[level] > 1 {
		var buf []kb.Quad
		return idx.lookup(k, &n.keptPos[level], &buf)
	}
	return idx.lookup(k, &n.keptPos[level], &n.keptBuf[level])
}

// keptRelease ends the read of a slice keptLookup returned; on a node
// whose lookups are not kept (keptBusy nil) the probe answered from a
// probe index and there is nothing to release.
func (n *bgpNode) keptRelease(level int) {
	if level < len(n.keptBusy) && n.keptBusy[level] > 0 {
		n.keptBusy[level]--
	}
}

// rowsIn is the optimizer's estimate of the rows entering level.
func (n *bgpNode) rowsIn(level int) float64 {
	rows := 1.0
	for i := range level {
		rows *= max(n.pats[i].est, 0)
	}
	return rows
}

// buildKept reads pred's quads in graphs and groups them by position key.
func (n *bgpNode) buildKept(ex *executor, pred kb.ID, key int, graphs []kb.ID) (any, int64, error) {
	return buildKeptIndex(ex.ctx, pred, key, graphs, func(_ context.Context, p kb.Pattern, each func(kb.Quad) error) error {
		return ex.scan(p, func(q kb.Quad) error {
			if err := each(q); err != nil {
				return err
			}
			return ex.check()
		})
	})
}

// buildKeptIndex reads pred's quads in graphs through scan and groups
// them by position key.
func buildKeptIndex(ctx context.Context, pred kb.ID, key int, graphs []kb.ID, scan func(context.Context, kb.Pattern, func(kb.Quad) error) error) (*keptProbeIndex, int64, error) {
	bgpKeptBuilds.Add(1)
	var quads []kb.Quad
	for _, g := range graphs {
		if err := scan(ctx, kb.Pattern{P: pred, G: g}, func(q kb.Quad) error {
			quads = append(quads, q)
			return nil
		}); err != nil {
			return nil, 0, err
		}
	}
	keyOf := func(q kb.Quad) kb.ID {
		if key == 0 {
			return q.S
		}
		return q.O
	}
	// By key, then by the other end, so that a triple held in several
	// graphs has its quads side by side (keptMatch drops the repeats).
	otherOf := func(q kb.Quad) kb.ID {
		if key == 0 {
			return q.O
		}
		return q.S
	}
	slices.SortFunc(quads, func(a, b kb.Quad) int {
		return cmp.Or(cmp.Compare(keyOf(a), keyOf(b)), cmp.Compare(otherOf(a), otherOf(b)), cmp.Compare(a.G, b.G))
	})
	idx := &keptProbeIndex{key: key, p: pred, other: make([]kb.ID, len(quads))}
	oneGraph := true
	for i, q := range quads {
		if k := keyOf(q); i == 0 || k != idx.keys[len(idx.keys)-1] {
			idx.keys = append(idx.keys, k)
			idx.start = append(idx.start, uint32(i))
		}
		idx.other[i] = q.S
		if key == 0 {
			idx.other[i] = q.O
		}
		oneGraph = oneGraph && q.G == quads[0].G
	}
	idx.start = append(idx.start, uint32(len(quads)))
	bytes := int64(len(quads))*8 + int64(len(idx.keys))*12
	if len(quads) > 0 {
		idx.g = quads[0].G
	}
	if !oneGraph {
		idx.gs = make([]kb.ID, len(quads))
		for i, q := range quads {
			idx.gs[i] = q.G
		}
		bytes += int64(len(quads)) * 8
	}
	return idx, bytes, nil
}
