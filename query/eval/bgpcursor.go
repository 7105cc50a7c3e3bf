package eval

import (
	"context"

	"github.com/perfkb/perfkb/kb"
)

// cursorStore is implemented by stores whose lookups can resume from the
// previous one (kb/native: a lookup at a key not below the last one in
// the same index range gallops forward instead of searching the range
// from the start). Each level of a BGP gets its own cursor, so the rows
// a level is fed in index order (a pattern's matches come sorted on
// their free positions) cost a short forward step each.
type cursorStore interface {
	NewScanCursor() kb.QuadScanner
}

// levelScanner returns the scanner level uses: its own cursor when the
// store has cursors, else ex.scanner.
func (n *bgpNode) levelScanner(ex *executor, level int) kb.QuadScanner {
	if noCursors {
		return ex.scanner
	}
	if n.cursors == nil {
		cs, ok := ex.ds.(cursorStore)
		if !ok {
			return ex.scanner
		}
		n.cursors = make([]kb.QuadScanner, len(n.pats))
		n.cursorOf = cs
	}
	if n.cursors[level] == nil {
		n.cursors[level] = n.cursorOf.NewScanCursor()
	}
	return n.cursors[level]
}

// noCursors makes every level use the store's plain lookups (tests
// compare the two).
var noCursors = false

// cursorCounter is a store cursor that also counts (kb/native's).
type cursorCounter interface {
	Count(ctx context.Context, p kb.Pattern) (int64, error)
}

// probeCounter returns how a run of per-key probes counts a pattern's
// matches: through one cursor of the store when it has cursors (the keys
// ascend, so each lookup gallops forward from the last), else
// kb.Dataset.Count.
func probeCounter(ex *executor) func(kb.Pattern) (int64, error) {
	if cs, ok := ex.ds.(cursorStore); ok && !noCursors {
		if c, ok := cs.NewScanCursor().(cursorCounter); ok {
			return func(p kb.Pattern) (int64, error) { return c.Count(ex.ctx, p) }
		}
	}
	return func(p kb.Pattern) (int64, error) { return ex.ds.Count(ex.ctx, p, true) }
}
