package native

import (
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// Per-predicate shape statistics for the query planner: how many distinct
// subjects and objects the quads of each predicate have. With them the
// planner can tell that `?m hasMetricName "wtime"` keeps 1 in 7 metrics
// and that `?rs hasMetric ?m` fans out 7 metrics per summary; the counters
// alone (quads per predicate) cannot, and a wrong start made a GROUP BY
// over 1M quads do four times the lookups it needed.
//
// They are computed from a read-side snapshot (one pass over the SPOG and
// POSG arrays, about 2 ms per million quads) on first use and reused until
// the store has grown or shrunk by a tenth: estimates need not follow
// every write.

// predShape is one predicate's distinct subjects and objects.
type predShape struct{ subjects, objects int64 }

// predStats are the shapes of every predicate of one snapshot.
type predStats struct {
	quads int64 // size of the snapshot they were computed from
	by    map[uint32]predShape
}

// predStatsCache holds the last predStats of a store.
type predStatsCache struct {
	mu  sync.Mutex // one computation at a time
	cur atomic.Pointer[predStats]
	// refreshing is set while stale statistics are recomputed in the
	// background.
	refreshing atomic.Bool
}

// stale reports whether stats computed at n quads no longer describe m.
func (st *predStats) stale(m *memSnapshot) bool {
	d := m.counts.quads - st.quads
	return d > st.quads/10+1000 || -d > st.quads/10+1000
}

// get returns statistics that describe m, computing them when the cached
// ones are stale (dir: the store's directory, whose statistics file
// holds those of a mapped base; "" for none).
//
// With a background runner (SetBackgroundRunner: a server), stale
// statistics are recomputed there and returned meanwhile: a pass over a
// store of millions of quads takes tens of milliseconds, and under the
// hardening soak's sensor flood, which grows the store by a tenth every
// few seconds, the light query that came upon stale statistics paid for
// it (and every query planned meanwhile waited on mu).
func (c *predStatsCache) get(m *memSnapshot, dir string) *predStats {
	st := c.cur.Load()
	if st != nil && !st.stale(m) {
		return st
	}
	if st != nil && backgroundRunner.Load() != nil {
		if c.refreshing.CompareAndSwap(false, true) && !inBackground(func() {
			defer c.refreshing.Store(false)
			c.compute(m, dir)
		}) {
			c.refreshing.Store(false)
		}
		return st
	}
	return c.compute(m, dir)
}

// compute returns statistics that describe m, computing them unless
// another computation just did.
func (c *predStatsCache) compute(m *memSnapshot, dir string) *predStats {
	c.mu.Lock()
	defer c.mu.Unlock()
	if st := c.cur.Load(); st != nil && !st.stale(m) {
		return st
	}
	st := sidePredStats(m, dir) // statsfile.go
	if st == nil {
		st = m.predStats()
	}
	c.cur.Store(st)
	return st
}

// predStats counts, per predicate, the distinct (S, P) pairs in SPOG order
// and the distinct (P, O) pairs in POSG order, over the base and the added
// delta (removed quads are ignored: an estimate).
func (s *memSnapshot) predStats() *predStats {
	st := &predStats{quads: s.counts.quads, by: make(map[uint32]predShape)}
	var counts []predShape
	slot := make(map[uint32]int)
	// A direct-mapped cache in front of slot: a subject's predicates
	// repeat across subjects, and a map lookup per pair would dominate.
	var cache [256]struct {
		p    uint32
		slot int
	}
	for i := range cache {
		cache[i].slot = -1
	}
	shape := func(p uint32) *predShape {
		c := &cache[p&255]
		if c.slot < 0 || c.p != p {
			j, ok := slot[p]
			if !ok {
				j = len(counts)
				slot[p] = j
				counts = append(counts, predShape{})
			}
			c.p, c.slot = p, j
		}
		return &counts[c.slot]
	}
	for _, part := range [][]key32{s.base[0], s.adds[0]} {
		// SPOG: a new (S, P) pair is a new subject of P.
		for i, k := range part {
			if i == 0 || k[0] != part[i-1][0] || k[1] != part[i-1][1] {
				shape(k[1]).subjects++
			}
		}
	}
	for _, part := range [][]key32{s.base[1], s.adds[1]} {
		// POSG: a new (P, O) pair is a new object of P.
		for i, k := range part {
			if i == 0 || k[0] != part[i-1][0] || k[1] != part[i-1][1] {
				shape(k[0]).objects++
			}
		}
	}
	for p, j := range slot {
		st.by[p] = counts[j]
	}
	return st
}

// predicateDistinct is PredicateDistinct on the snapshot m.
func (c *predStatsCache) predicateDistinct(m *memSnapshot, dir string, p kb.ID) (subjects, objects int64, ok bool) {
	if m == nil || p == 0 || p > 1<<32-1 {
		return 0, 0, false
	}
	sh, ok := c.get(m, dir).by[uint32(p)]
	return sh.subjects, sh.objects, ok && sh.subjects > 0 && sh.objects > 0
}

// PredicateDistinct implements kb.PredicateStats while reads come from
// the read side: the distinct subjects and objects of the quads with
// predicate p (approximate).
func (s *Store) PredicateDistinct(p kb.ID) (subjects, objects int64, ok bool) {
	return s.predStats.predicateDistinct(s.readSide(), s.dir, p)
}

// PredicateDistinct implements kb.PredicateStats (approximate).
func (m *MemStore) PredicateDistinct(p kb.ID) (subjects, objects int64, ok bool) {
	s, err := m.load()
	if err != nil {
		return 0, 0, false
	}
	return m.predStats.predicateDistinct(s, "", p)
}
