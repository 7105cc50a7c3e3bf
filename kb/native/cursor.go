package native

import (
	"context"

	"github.com/perfkb/perfkb/kb"
)

// Lookup cursors: an index nested-loop join looks up one pattern per
// input row, and the rows often arrive in the order of the index it
// probes (a pattern's matches are sorted on their free positions, so
// `?m :name "wtime" . ?rs :hasMetric ?m` probes POSG with ascending ?m).
// A cursor remembers where its last lookup's range began in the sorted
// base; a lookup whose key is not below the last one's within the same
// range gallops forward from there (distance d costs about 2·log2 d
// comparisons over nearby memory) instead of binary searching the whole
// range (a predicate's hundreds of thousands of keys, cache misses from
// the first step). A key below the last one, another range or another
// snapshot searches from the start, so any probe order gives the same
// answers.

// scanCursor is a kb.QuadScanner over one store that remembers its last
// lookup. It is used by one goroutine at a time.
type scanCursor struct {
	load func() (*memSnapshot, error) // the snapshot a scan reads; nil: none (use scan)
	scan kb.QuadScanner               // the store itself, when it has no read side
	c    lookupCursor
}

// lookupCursor is the position of a cursor's last lookup: the base range
// it searched (identified by its snapshot, order and first key field),
// the key it searched for and the index in that range of the first key
// not below it.
type lookupCursor struct {
	snap  *memSnapshot
	order int
	first uint32
	n     int // length of the searched range
	lo    key32
	at    int
	valid bool
}

// NewScanCursor returns a kb.QuadScanner over s whose lookups resume
// from the previous one (see the lookup cursors above). Without a read
// side in memory its scans are s.ScanQuads.
func (s *Store) NewScanCursor() kb.QuadScanner {
	return &scanCursor{scan: s, load: func() (*memSnapshot, error) {
		if err := s.checkOpen(); err != nil {
			return nil, err
		}
		return s.readSide(), nil
	}}
}

// NewScanCursor is Store.NewScanCursor for the in-memory store.
func (m *MemStore) NewScanCursor() kb.QuadScanner {
	return &scanCursor{scan: m, load: m.load}
}

// ScanQuads implements kb.QuadScanner.
func (sc *scanCursor) ScanQuads(ctx context.Context, p kb.Pattern, fn func(kb.Quad) bool) error {
	m, err := sc.load()
	if err != nil {
		return err
	}
	if m == nil {
		return sc.scan.ScanQuads(ctx, p, fn)
	}
	var r memRange
	m.rangesAt(p, &r, &sc.c)
	return emitRange(ctx, &r, fn)
}

// Count returns the number of quads matching p, exactly, searching like
// ScanQuads (a CountJoin probes a pattern per key, keys ascending).
func (sc *scanCursor) Count(ctx context.Context, p kb.Pattern) (int64, error) {
	m, err := sc.load()
	if err != nil {
		return 0, err
	}
	if m == nil {
		n := int64(0)
		err := sc.scan.ScanQuads(ctx, p, func(kb.Quad) bool { n++; return true })
		return n, err
	}
	var r memRange
	m.rangesAt(p, &r, &sc.c)
	return int64(len(r.base) - len(r.dels) + len(r.adds)), nil
}

// keyRange is keyRange(base, lo, hi) for the base range of s's order
// whose keys start with first, galloping from the cursor's last position
// when lo is not below its last key in the same range.
func (c *lookupCursor) keyRange(s *memSnapshot, order int, first uint32, base []key32, lo, hi key32) []key32 {
	if len(base) == 0 {
		c.valid = false
		return nil
	}
	var i int
	if c.valid && c.snap == s && c.order == order && c.first == first && c.n == len(base) && !lessKey(lo, c.lo) {
		i = gallopKey(base, c.at, lo)
	} else {
		i = searchKey(base, lo, false)
	}
	*c = lookupCursor{snap: s, order: order, first: first, n: len(base), lo: lo, at: i, valid: true}
	return keyRangeFrom(base, i, hi)
}

// gallopKey returns the index of the first key of sorted a, at or after
// from, that is not less than k; every key before from is less than k.
func gallopKey(a []key32, from int, k key32) int {
	if from >= len(a) || !lessKey(a[from], k) {
		return from
	}
	// a[from] < k: double the step until a key not less than k is passed.
	step := 1
	for from+step < len(a) && lessKey(a[from+step], k) {
		from += step
		step <<= 1
	}
	// a[from] < k and a[from+step] >= k (or the end): search between.
	end := min(from+step+1, len(a))
	return from + 1 + searchKey(a[from+1:end], k, false)
}
