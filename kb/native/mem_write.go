package native

import (
	"context"
	"fmt"
	"math"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
)

// checkMemIDs reports kb.ErrUnknownID when a quad holds an ID the
// dictionary never issued (or zero).
func checkMemIDs(quads []kb.Quad, limit kb.ID) error {
	for _, q := range quads {
		if q.S == 0 || q.P == 0 || q.O == 0 || q.G == 0 ||
			q.S >= limit || q.P >= limit || q.O >= limit || q.G >= limit {
			return fmt.Errorf("native: quad %v: %w", q, kb.ErrUnknownID)
		}
	}
	return nil
}

// cmpKey orders keys lexicographically.
func cmpKey(a, b key32) int {
	for j := 0; j < 4; j++ {
		if a[j] != b[j] {
			if a[j] < b[j] {
				return -1
			}
			return 1
		}
	}
	return 0
}

// radixSortMin is the length from which sortKeys uses radixSort32, whose
// fixed cost (2 MiB of digit counts, up to eight passes) radixSort8 undercuts
// for fewer keys; radix8Min is the length from which radixSort8 beats a
// comparison sort.
const (
	radixSortMin = 1 << 14
	radix8Min    = 256
)

// sortKeys sorts keys lexicographically.
func sortKeys(keys []key32) {
	switch {
	case len(keys) < radix8Min:
		slices.SortFunc(keys, cmpKey)
	case len(keys) < radixSortMin:
		radixSort8(keys, make([]key32, len(keys)))
	default:
		radixSort32(keys, make([]key32, len(keys)))
	}
}

// sortedKeys returns quads as SPOG keys, sorted, without duplicates.
func sortedKeys(quads []kb.Quad) []key32 {
	keys := toKey32(make([]key32, 0, len(quads)), quads)
	sortKeys(keys)
	return compactKeys(keys)
}

// permuted returns a sorted copy of SPOG keys permuted for order k.
func permuted(keys []key32, k int) []key32 {
	out := make([]key32, len(keys))
	permuteCopy(out, keys, k)
	if k != 0 {
		sortKeys(out)
	}
	return out
}

// permuteCopy writes SPOG keys src into dst permuted for order k.
func permuteCopy(dst, src []key32, k int) {
	o := orders[k]
	for i, q := range src {
		dst[i] = key32{q[o[0]], q[o[1]], q[o[2]], q[o[3]]}
	}
}

// mergeSorted returns old with ins added and rem removed, in a new slice
// (old itself when both are empty). All three are sorted; ins is disjoint
// from old and rem is a subset of it.
func mergeSorted(old, ins, rem []key32) []key32 {
	if len(ins) == 0 && len(rem) == 0 {
		return old
	}
	n := len(old) + len(ins) - len(rem)
	if n == 0 {
		return nil
	}
	out := make([]key32, 0, n)
	i, r := 0, 0
	for _, k := range old {
		for i < len(ins) && lessKey(ins[i], k) {
			out = append(out, ins[i])
			i++
		}
		if r < len(rem) && rem[r] == k {
			r++
			continue
		}
		out = append(out, k)
	}
	return append(out, ins[i:]...)
}

// unionSorted merges two sorted, disjoint key lists.
func unionSorted(a, b []key32) []key32 {
	switch {
	case len(a) == 0:
		return b
	case len(b) == 0:
		return a
	}
	return mergeSorted(a, b, nil)
}

// deltaLimit is the size the delta of a snapshot with a base of n quads
// may reach before Apply folds it into the base. Each Apply copies the
// delta and each fold copies the base; with changes of about a quads per
// Apply, a limit near √(2na) balances the two.
func deltaLimit(n, a int) int {
	return max(4096, int(math.Sqrt(2*float64(n)*float64(max(a, 16)))))
}

// Apply implements kb.Dataset: removals, then additions, published as one
// new snapshot. It is atomic for readers; an in-memory store has nothing
// to make durable.
func (m *MemStore) Apply(ctx context.Context, d kb.Delta) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.closed.Load() {
		return kb.ErrClosed
	}
	limit := m.dict.limit()
	if err := checkMemIDs(d.Remove, limit); err != nil {
		return err
	}
	if err := checkMemIDs(d.Add, limit); err != nil {
		return err
	}
	if next := m.snap.Load().withDelta(d.Add, d.Remove); next != nil {
		m.snap.Store(next)
	}
	return nil
}

// withDelta returns the snapshot that holds s's quads with remove removed
// and then add added, or nil when that changes nothing. s is unchanged.
func (s *memSnapshot) withDelta(add, remove []kb.Quad) *memSnapshot {
	adds := sortedKeys(add)
	var addNew, addBack []key32 // new quads; removed base quads coming back
	for _, k := range adds {
		switch {
		case s.has(k):
		case contains(s.base[0], k):
			addBack = append(addBack, k)
		default:
			addNew = append(addNew, k)
		}
	}
	var remAdded, remBase []key32 // removed quads of the delta; of the base
	for _, k := range sortedKeys(remove) {
		if contains(adds, k) || !s.has(k) {
			continue // added back by the same delta, or absent
		}
		if contains(s.adds[0], k) {
			remAdded = append(remAdded, k)
		} else {
			remBase = append(remBase, k)
		}
	}
	changes := len(addNew) + len(addBack) + len(remAdded) + len(remBase)
	if changes == 0 {
		return nil
	}
	next := &memSnapshot{base: s.base, first: s.first, counts: s.counts.clone(), pin: s.pin}
	for k := 0; k < numOrders; k++ {
		next.adds[k] = mergeSorted(s.adds[k], permuted(addNew, k), permuted(remAdded, k))
		next.dels[k] = mergeSorted(s.dels[k], permuted(remBase, k), permuted(addBack, k))
	}
	for _, set := range []struct {
		keys []key32
		n    int64
	}{{addNew, 1}, {addBack, 1}, {remAdded, -1}, {remBase, -1}} {
		for _, k := range set.keys {
			next.counts.add(kb.ID(k[1]), kb.ID(k[3]), set.n)
		}
	}
	if len(next.adds[0])+len(next.dels[0]) > deltaLimit(len(next.base[0]), changes) {
		next.fold()
	}
	return next
}

// merged returns the snapshot's quads in every order: base with the
// delta applied (the base itself where there is no delta).
func (s *memSnapshot) merged() [numOrders][]key32 {
	var out [numOrders][]key32
	parallelOrders(func(k int, _ []key32) {
		out[k] = mergeSorted(s.base[k], s.adds[k], s.dels[k])
	}, 0)
	return out
}

// clone returns a copy of c that can be changed without changing c.
func (c *counters) clone() *counters {
	return &counters{quads: c.quads, byPG: copyCounts(c.byPG), byP: copyCounts(c.byP), byG: copyCounts(c.byG)}
}

// fold merges the delta of an unpublished snapshot into its base, one
// order per goroutine on two goroutines.
func (s *memSnapshot) fold() {
	parallelOrders(func(k int, _ []key32) {
		s.base[k] = mergeSorted(s.base[k], s.adds[k], s.dels[k])
		s.first[k] = firstIndex(s.base[k])
		s.adds[k], s.dels[k] = nil, nil
	}, 0)
}

// parallelOrders calls fn for every order on two goroutines, each with
// its own scratch slice of scratch keys (nil when scratch is 0).
func parallelOrders(fn func(k int, tmp []key32), scratch int) {
	var next atomic.Int32
	worker := func() {
		var tmp []key32
		if scratch > 0 {
			tmp = make([]key32, scratch)
		}
		for {
			k := int(next.Add(1) - 1)
			if k >= numOrders {
				return
			}
			fn(k, tmp)
		}
	}
	wait := fork(worker)
	worker()
	wait()
}

// BeginBulk implements kb.Dataset. Add stages quads as 16-byte keys;
// Commit radix-sorts them once per order (two orders at a time), merges
// them with the stored quads and publishes the result in one snapshot
// swap, so nothing is visible before Commit and everything after.
func (m *MemStore) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	if m.closed.Load() {
		return nil, kb.ErrClosed
	}
	return &memBulkWriter{m: m}, nil
}

type memBulkWriter struct {
	m    *MemStore
	mu   sync.Mutex
	keys []key32
	done bool
}

// Add implements kb.BulkWriter.
func (w *memBulkWriter) Add(ctx context.Context, quads []kb.Quad) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errBulkDone
	}
	if err := checkMemIDs(quads, w.m.dict.limit()); err != nil {
		return err
	}
	w.keys = toKey32(w.keys, quads)
	return nil
}

// Abort implements kb.BulkWriter.
func (w *memBulkWriter) Abort() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.done = true
	w.keys = nil
	return nil
}

// Commit implements kb.BulkWriter.
func (w *memBulkWriter) Commit(ctx context.Context) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.done {
		return errBulkDone
	}
	w.done = true
	keys := w.keys
	w.keys = nil
	if err := ctx.Err(); err != nil {
		return err
	}
	m := w.m
	m.wmu.Lock()
	defer m.wmu.Unlock()
	if m.closed.Load() {
		return kb.ErrClosed
	}
	return m.commitBulk(ctx, keys)
}

// commitBulk publishes a snapshot holding the stored quads and keys (which
// it reorders). The caller holds wmu.
func (m *MemStore) commitBulk(ctx context.Context, keys []key32) error {
	if len(keys) == 0 {
		return nil
	}
	if cap(keys) > len(keys)+len(keys)/4 {
		keys = slices.Clone(keys) // do not keep the staging slack
	}
	var sc sortScratch
	spog, free := sortSPOG(keys, make([]key32, len(keys)), &sc)
	spog = compactKeys(spog)
	s := m.snap.Load()
	if !s.empty() {
		spog = s.dropPresent(spog)
		if len(spog) == 0 {
			return nil
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	m.snap.Store(s.withSorted(sortOrders(spog, free)))
	return nil
}

// withSorted returns the snapshot holding s's quads and sorted, the keys
// of new quads (disjoint from s) sorted in every order. The slices of
// sorted may become the new snapshot's base; s is unchanged.
func (s *memSnapshot) withSorted(sorted [numOrders][]key32) *memSnapshot {
	added := countGPOS(sorted[4])
	next := &memSnapshot{pin: s.pin} // mergeSorted may return s's base
	parallelOrders(func(k int, _ []key32) {
		if s.empty() {
			next.base[k] = sorted[k]
		} else {
			next.base[k] = mergeSorted(s.base[k], unionSorted(s.adds[k], sorted[k]), s.dels[k])
		}
		next.first[k] = firstIndex(next.base[k])
	}, 0)
	next.counts = s.counts.clone()
	for pg, n := range added.byPG {
		next.counts.add(pg[0], pg[1], n)
	}
	return next
}

// withSortedDelta is withSorted for new quads that are few beside the
// base: they join the delta (copied, as Apply's do) instead of a merge that
// copies the whole base in every order, until the delta reaches
// deltaLimit. A snapshot with removals in its delta takes withSorted.
func (s *memSnapshot) withSortedDelta(sorted [numOrders][]key32) *memSnapshot {
	n := len(sorted[0])
	if s.empty() || len(s.dels[0]) > 0 || len(s.adds[0])+n > deltaLimit(len(s.base[0]), n) {
		return s.withSorted(sorted)
	}
	next := &memSnapshot{base: s.base, first: s.first, counts: s.counts.clone(), pin: s.pin}
	parallelOrders(func(k int, _ []key32) {
		next.adds[k] = mergeSorted(s.adds[k], sorted[k], nil)
	}, 0)
	for pg, c := range countGPOS(sorted[4]).byPG {
		next.counts.add(pg[0], pg[1], c)
	}
	return next
}

// countGPOS counts keys sorted in GPOS order per (predicate, graph).
func countGPOS(keys []key32) *counters {
	c := newCounters()
	for i := 0; i < len(keys); {
		g, p := keys[i][0], keys[i][1]
		j := i + 1
		for j < len(keys) && keys[j][0] == g && keys[j][1] == p {
			j++
		}
		c.add(kb.ID(p), kb.ID(g), int64(j-i))
		i = j
	}
	return &c
}

// dropPresent removes from keys (sorted SPOG, no duplicates) the quads the
// snapshot holds, walking keys and the SPOG arrays together.
func (s *memSnapshot) dropPresent(keys []key32) []key32 {
	base, dels, adds := s.base[0], s.dels[0], s.adds[0]
	out := keys[:0]
	for _, k := range keys {
		base = skipBelow(base, k)
		dels = skipBelow(dels, k)
		adds = skipBelow(adds, k)
		present := len(adds) > 0 && adds[0] == k ||
			len(base) > 0 && base[0] == k && !(len(dels) > 0 && dels[0] == k)
		if !present {
			out = append(out, k)
		}
	}
	return out
}

// skipBelow drops the keys of sorted a that are less than k: a linear step
// when the next key is close, a binary search otherwise.
func skipBelow(a []key32, k key32) []key32 {
	for n := 0; n < 8; n++ {
		if len(a) == 0 || !lessKey(a[0], k) {
			return a
		}
		a = a[1:]
	}
	return a[searchKey(a, k, false):]
}
