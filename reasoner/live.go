package reasoner

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/perfkb/perfkb/kb"
)

// Live is a store whose writes keep a program's closure in step: every
// Apply (and every bulk load) goes through an Engine that holds the
// store's working memory, so an insert derives its consequences and a
// delete (SPARQL DELETE, DROP, CLEAR, a Graph Store DELETE or PUT, a graph
// a converter replaces) withdraws the derived triples and findings that
// no longer follow, in the same Dataset.Apply as the write itself (more
// only beyond the engine's hold limits). Reads go to the store.
//
// Live serialises writes; reads run beside them. It keeps the engine's
// working memory (every triple the rules read) for as long as it lives.
type Live struct {
	kb.Dataset
	mu  sync.Mutex
	eng *Engine
	// onChange, when set, runs after every write that reached the store.
	onChange func(Summary)
}

// NewLive binds prog to ds, derives what the store does not hold of its
// closure yet (Engine.Run), and returns the store with reasoning on write.
// onChange, when not nil, is called after each write with what the rules
// did (a findings feed uses it to look at once instead of at its next
// poll).
func NewLive(ctx context.Context, ds kb.Dataset, prog *Program, opts Options, onChange func(Summary)) (*Live, Summary, error) {
	eng, err := NewEngine(ctx, ds, prog, opts)
	if err != nil {
		return nil, Summary{}, err
	}
	if err := eng.retractable(); err != nil {
		return nil, Summary{}, err
	}
	sum, err := eng.Run(ctx)
	if err != nil {
		return nil, sum, err
	}
	return &Live{Dataset: ds, eng: eng, onChange: onChange}, sum, nil
}

// SetOnChange replaces the function called after each write.
func (l *Live) SetOnChange(fn func(Summary)) {
	l.mu.Lock()
	l.onChange = fn
	l.mu.Unlock()
}

// Apply writes d and what follows from it (see Engine.Change).
func (l *Live) Apply(ctx context.Context, d kb.Delta) error {
	if len(d.Add) == 0 && len(d.Remove) == 0 {
		return nil
	}
	l.mu.Lock()
	before := l.eng.summary
	sum, err := l.eng.Change(ctx, d)
	fn := l.onChange
	l.mu.Unlock()
	if fn != nil {
		sum.Derived -= before.Derived
		sum.Retracted -= before.Retracted
		fn(sum)
	}
	if err != nil {
		return fmt.Errorf("reasoner: writing with live rules: %w", err)
	}
	return nil
}

// BeginBulk stages a bulk load and, at Commit, writes it through Apply,
// so that its consequences are derived with it.
func (l *Live) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	return &liveBulk{l: l}, nil
}

type liveBulk struct {
	l    *Live
	mu   sync.Mutex
	add  []kb.Quad
	done bool
}

var errBulkDone = errors.New("reasoner: bulk load already committed or aborted")

func (b *liveBulk) Add(ctx context.Context, quads []kb.Quad) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return errBulkDone
	}
	b.add = append(b.add, quads...)
	return nil
}

func (b *liveBulk) Commit(ctx context.Context) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.done {
		return errBulkDone
	}
	b.done = true
	add := b.add
	b.add = nil
	return b.l.Apply(ctx, kb.Delta{Add: add})
}

func (b *liveBulk) Abort() error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done, b.add = true, nil
	return nil
}

// The store's optional read capabilities (kb/capabilities.go) pass
// through, so that queries over a Live store take the same fast paths as
// over the store itself; a store without one answers as kb documents for
// "not available".

// TermOf implements kb.TermTable.
func (l *Live) TermOf(id kb.ID) (kb.Term, bool) {
	if tt, ok := l.Dataset.(kb.TermTable); ok {
		return tt.TermOf(id)
	}
	return kb.Term{}, false
}

// MatchQuads implements kb.QuadSource.
func (l *Live) MatchQuads(p kb.Pattern) ([]kb.Quad, bool) {
	if qs, ok := l.Dataset.(kb.QuadSource); ok {
		return qs.MatchQuads(p)
	}
	return nil, false
}

// MemoryLookups implements kb.MemoryLookups.
func (l *Live) MemoryLookups() bool {
	m, ok := l.Dataset.(kb.MemoryLookups)
	return ok && m.MemoryLookups()
}

// GraphLast implements kb.GraphLast.
func (l *Live) GraphLast() bool {
	g, ok := l.Dataset.(kb.GraphLast)
	return ok && g.GraphLast()
}

// PredicateDistinct implements kb.PredicateStats.
func (l *Live) PredicateDistinct(p kb.ID) (subjects, objects int64, ok bool) {
	if ps, has := l.Dataset.(kb.PredicateStats); has {
		return ps.PredicateDistinct(p)
	}
	return 0, 0, false
}

// ScanQuads implements kb.QuadScanner (by Match when the store has no
// scanner of its own).
func (l *Live) ScanQuads(ctx context.Context, p kb.Pattern, fn func(kb.Quad) bool) error {
	if qs, ok := l.Dataset.(kb.QuadScanner); ok {
		return qs.ScanQuads(ctx, p, fn)
	}
	it := l.Dataset.Match(ctx, p)
	defer it.Close()
	for it.Next() {
		if !fn(it.Quad()) {
			return nil
		}
	}
	return it.Err()
}

// InternsConcurrently implements kb.ConcurrentInterner.
func (l *Live) InternsConcurrently() bool {
	ci, ok := l.Dataset.(kb.ConcurrentInterner)
	return ok && ci.InternsConcurrently()
}
