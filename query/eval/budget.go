package eval

import (
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
)

// LimitQueryMemory is the name of the per-query memory limit, as its flag
// (perfkb serve/query --query-memory) spells it.
const LimitQueryMemory = "query-memory"

// LimitQueryMemoryTotal is the name of the limit on what all the queries
// sharing a MemoryPool hold together (perfkb serve --query-memory-total).
const LimitQueryMemoryTotal = "query-memory-total"

// ErrLimit matches every *LimitError with errors.Is.
var ErrLimit = errors.New("query limit exceeded")

// LimitError reports a query stopped because it needed more of a bounded
// resource than its limit allows. It is an error of the query, not of the
// server: HTTP answers it with 422, the CLI with exit status 3.
type LimitError struct {
	// Limit names the limit, as its flag does ("query-memory").
	Limit string
	// Value is the limit (bytes for query-memory).
	Value int64
	// Op names the operator that asked for more ("ORDER BY", "DISTINCT",
	// "GROUP BY", …), to tell the user what to change.
	Op string
}

func (e *LimitError) Error() string {
	msg := fmt.Sprintf("%s limit of %s exceeded", e.Limit, formatBytes(e.Value))
	switch {
	case e.Busy():
		msg += " (by " + e.Op + ", with the other queries running now: retry later)"
	case e.Op != "":
		msg += " (by " + e.Op + "; add a LIMIT, filter earlier, or raise --" + e.Limit + ")"
	}
	return msg
}

// Busy reports a limit shared with other queries (query-memory-total):
// the same query may succeed once they finish, so a server answers 503
// with Retry-After rather than 422.
func (e *LimitError) Busy() bool { return e.Limit == LimitQueryMemoryTotal }

// LimitName returns Limit (the server reads it through an interface).
func (e *LimitError) LimitName() string { return e.Limit }

// Is makes errors.Is(err, ErrLimit) true for every LimitError.
func (e *LimitError) Is(target error) bool { return target == ErrLimit }

// formatBytes prints a byte count in binary units, as the size flags
// accept them: 512 MiB, 1.5 GiB, 300 KiB, 17 B.
func formatBytes(n int64) string {
	units := []struct {
		name string
		size int64
	}{{"TiB", 1 << 40}, {"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}}
	for _, u := range units {
		if n >= u.size {
			if n%u.size == 0 {
				return fmt.Sprintf("%d %s", n/u.size, u.name)
			}
			return fmt.Sprintf("%.1f %s", float64(n)/float64(u.size), u.name)
		}
	}
	return fmt.Sprintf("%d B", n)
}

// MemoryPool bounds what all the queries sharing it hold together (a
// server's queries: --query-memory-total), on top of each query's own
// budget. Its zero value is not usable; see NewMemoryPool.
type MemoryPool struct {
	limit int64
	used  atomic.Int64
}

// NewMemoryPool returns a pool of limit bytes (nil, no pool, when limit
// is not positive).
func NewMemoryPool(limit int64) *MemoryPool {
	if limit <= 0 {
		return nil
	}
	return &MemoryPool{limit: limit}
}

// InUse returns the bytes the pool's queries hold now.
func (p *MemoryPool) InUse() int64 {
	if p == nil {
		return 0
	}
	return p.used.Load()
}

// memBudget accounts the memory one query's buffering operators hold:
// every operator that keeps rows or values beyond the current one (GROUP
// BY state, ORDER BY, top-k, DISTINCT, hash-join and MINUS tables,
// VALUES, property-path visited sets and frontiers, CONSTRUCT and DESCRIBE
// graphs, the per-query dictionary) charges what it adds and releases it
// when it is done, so no operator grows without bound. The sizes are
// estimates of the Go heap they take (slots × 8 plus slice and map
// overhead), not measurements. Charges go to the query's pool too, if it
// has one; close gives the pool back whatever the query still holds. A nil
// budget charges nothing. It is safe for concurrent use (SERVICE calls
// run in goroutines).
type memBudget struct {
	limit  int64 // 0: only the pool bounds the query
	pool   *MemoryPool
	mu     sync.Mutex
	used   int64
	closed bool // the pool has been given back everything
}

func newMemBudget(limit int64, pool *MemoryPool) *memBudget {
	if limit <= 0 && pool == nil {
		return nil
	}
	return &memBudget{limit: max(limit, 0), pool: pool}
}

// charge adds n bytes held by op; past the query's limit or the pool's it
// takes them back and returns a *LimitError.
func (b *memBudget) charge(n int64, op string) error {
	if b == nil || n <= 0 {
		return nil
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit > 0 && b.used+n > b.limit {
		return &LimitError{Limit: LimitQueryMemory, Value: b.limit, Op: op}
	}
	if b.pool != nil && !b.closed {
		if b.pool.used.Add(n) > b.pool.limit {
			b.pool.used.Add(-n)
			return &LimitError{Limit: LimitQueryMemoryTotal, Value: b.pool.limit, Op: op}
		}
	}
	b.used += n
	return nil
}

// tryCharge charges n bytes for an optional cache only while the budget
// (and the pool) is less than a quarter used, so caches give way to the
// operators that need memory to answer. It reports whether the bytes were
// charged.
func (b *memBudget) tryCharge(n int64) bool {
	if b == nil {
		return true
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.limit > 0 && b.used+n > b.limit/4 {
		return false
	}
	if b.pool != nil && !b.closed {
		if b.pool.used.Add(n) > b.pool.limit/4 {
			b.pool.used.Add(-n)
			return false
		}
	}
	b.used += n
	return true
}

// release gives back n bytes charged earlier.
func (b *memBudget) release(n int64) {
	if b == nil || n <= 0 {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	b.used -= n
	if b.pool != nil && !b.closed {
		b.pool.used.Add(-n)
	}
}

// close ends the query: the pool gets back what it still holds (tables
// kept for the whole query, the dictionary, result graphs). Charges after
// close count against the query alone.
func (b *memBudget) close() {
	if b == nil {
		return
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.pool != nil && !b.closed {
		b.pool.used.Add(-b.used)
	}
	b.closed = true
}

// inUse returns the bytes charged now (for tests and explain).
func (b *memBudget) inUse() int64 {
	if b == nil {
		return 0
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.used
}

// account is one operator run's share of the budget: it charges as the
// run buffers and releases everything at once when the run ends.
type account struct {
	b    *memBudget
	op   string
	held int64
}

func (ex *executor) account(op string) *account { return &account{b: ex.mem, op: op} }

// charge adds n bytes to the run's share.
func (a *account) charge(n int64) error {
	if a.b == nil {
		return nil
	}
	if err := a.b.charge(n, a.op); err != nil {
		return err
	}
	a.held += n
	return nil
}

// release gives back n bytes of the run's share (a row it dropped).
func (a *account) release(n int64) {
	if a.b == nil {
		return
	}
	a.b.release(n)
	a.held -= n
}

// done releases the run's share.
func (a *account) done() {
	a.b.release(a.held)
	a.held = 0
}

// Size estimates, in bytes of Go heap. A slice header is 24 bytes, a map
// entry costs its key and value plus roughly half again for the table's
// slack and control bytes, and small allocations round up to a size class.
const (
	sliceHeader   = int64(unsafe.Sizeof([]kb.ID(nil)))
	mapEntryExtra = 40
	termSize      = int64(unsafe.Sizeof(kb.Term{}))
	allocExtra    = 16 // size-class rounding and header, per allocation
)

// rowBytes is a row of n slots held in a slice of rows.
func rowBytes(n int) int64 { return sliceHeader + int64(n)*8 + allocExtra }

// keyBytes is a map entry keyed by a rowKey of n slots (the key string is
// its own allocation), with a value of v bytes.
func keyBytes(n int, v int64) int64 { return 16 + int64(n)*8 + allocExtra + v + mapEntryExtra }

// idSetBytes is one entry of a map keyed by kb.ID (or a small ID array)
// with a value of v bytes.
func idSetBytes(key, v int64) int64 { return key + v + mapEntryExtra }

// termBytes is a term held by value, with its own lexical form.
func termBytes(t kb.Term) int64 { return termSize + int64(len(t.Value)+len(t.Lang)) }

// Limit returns the pool's bound in bytes (0 for a nil pool: no bound).
func (p *MemoryPool) Limit() int64 {
	if p == nil {
		return 0
	}
	return p.limit
}
