package native

import (
	"sync"

	"github.com/perfkb/perfkb/kb"
)

// idColumnPages bounds each column: 2,048 pages of 4,096 IDs, 16 bytes an
// ID, is at most 128 MiB, and a column is only as large as the pages of
// IDs its users touched (the numeric values of a 1M-triple store's metrics
// fill about 10 MiB).
const idColumnPages = 2048

// idColumns holds a store's per-ID columns by name. IDs are never
// reissued and terms never change, so a column stays right across writes
// and lives as long as the store: a write only adds IDs the column does
// not hold yet. An on-disk store keeps a column's values for the IDs of
// its side files in a file (idcolfile.go) for the next process.
type idColumns struct {
	mu   sync.Mutex
	cols map[string]*kb.IDColumn
}

// get returns the column under name; onNew, where not nil, is called
// with a column made by this call before anyone else sees it.
func (c *idColumns) get(name string, onNew func(*kb.IDColumn)) *kb.IDColumn {
	c.mu.Lock()
	defer c.mu.Unlock()
	col, ok := c.cols[name]
	if !ok {
		if c.cols == nil {
			c.cols = map[string]*kb.IDColumn{}
		}
		col = kb.NewIDColumn(idColumnPages)
		if onNew != nil {
			onNew(col)
		}
		c.cols[name] = col
	}
	return col
}

// IDColumn returns the store's column under name (created empty on first
// use): a value per term ID that the caller computes from the term and
// stores, for example the query evaluator's numeric value of a literal.
// On a store read from side files the column starts with the values an
// earlier process kept for their IDs (idcolfile.go).
func (s *Store) IDColumn(name string) *kb.IDColumn {
	return s.idcols.get(name, func(col *kb.IDColumn) { s.attachKept(name, col) })
}

// IDColumn is Store.IDColumn on the in-memory store.
func (m *MemStore) IDColumn(name string) *kb.IDColumn { return m.idcols.get(name, nil) }
