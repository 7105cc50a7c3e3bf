package kb

import (
	"context"
	"errors"
)

// ID is a dictionary-encoded term. IDs are only meaningful within the
// Dataset that issued them. The zero ID is never a term: in a Pattern it is
// a wildcard.
type ID uint64

// Any is the wildcard in a Pattern position.
const Any ID = 0

// Quad is a quad of term IDs. Every stored quad has a graph.
type Quad struct{ S, P, O, G ID }

// Pattern is a quad pattern: each position holds an ID or Any.
type Pattern struct{ S, P, O, G ID }

// Matches reports whether q matches the pattern.
func (p Pattern) Matches(q Quad) bool {
	return (p.S == Any || p.S == q.S) && (p.P == Any || p.P == q.P) &&
		(p.O == Any || p.O == q.O) && (p.G == Any || p.G == q.G)
}

// QuadIterator walks the quads that match a pattern. The usual loop is
//
//	it := ds.Match(ctx, pattern)
//	defer it.Close()
//	for it.Next() { use(it.Quad()) }
//	if err := it.Err(); err != nil { … }
//
// Quads come in no particular order. An iterator sees a consistent snapshot
// of the store as of the Match call.
type QuadIterator interface {
	Next() bool
	Quad() Quad
	Err() error
	Close() error
}

// Delta is a batch of removals and additions, applied atomically: removals
// first, then additions. Adding a quad that exists and removing one that does
// not are not errors.
type Delta struct {
	Remove []Quad
	Add    []Quad
}

// Stats are the statistics a query planner needs. Counts are exact unless
// Approximate is set.
type Stats struct {
	Quads       int64
	Terms       int64
	Approximate bool
	// ByPredicate counts quads per predicate, over all graphs.
	ByPredicate map[ID]int64
	// ByGraph counts quads per graph.
	ByGraph map[ID]int64
	// ByPredicateGraph counts quads per (predicate, graph).
	ByPredicateGraph map[[2]ID]int64
}

// Dataset is the store interface the query engine and the reasoner use.
//
// Implementations are safe for concurrent use: any number of readers and
// one writer at a time (writes may serialise internally).
type Dataset interface {
	// Intern returns the IDs of terms, adding the missing ones to the
	// dictionary. Interning alone changes no visible data.
	Intern(ctx context.Context, terms []Term) ([]ID, error)
	// Lookup returns the ID of a term, or false when the store has never
	// seen it (so no quad can match it).
	Lookup(ctx context.Context, t Term) (ID, bool, error)
	// Resolve returns the term for an ID.
	Resolve(ctx context.Context, id ID) (Term, error)

	// Match returns an iterator over the stored quads that match p.
	Match(ctx context.Context, p Pattern) QuadIterator
	// Count returns the number of quads matching p. When exact is false the
	// implementation may return an estimate (for the planner).
	Count(ctx context.Context, p Pattern, exact bool) (int64, error)
	// Stats returns statistics over the whole store.
	Stats(ctx context.Context) (Stats, error)
	// Graphs returns the IDs of the graphs that hold at least one quad.
	Graphs(ctx context.Context) ([]ID, error)

	// Apply applies a delta atomically and durably: when it returns nil,
	// all of it is stored; otherwise none of it is.
	Apply(ctx context.Context, d Delta) error
	// BeginBulk starts a bulk load. Nothing added through it is visible
	// until Commit, which makes all of it visible at once; Abort discards it.
	BeginBulk(ctx context.Context) (BulkWriter, error)

	Close() error
}

// BulkWriter receives the quads of one bulk load. See Dataset.BeginBulk.
type BulkWriter interface {
	// Add stages quads. The slice may be reused by the caller after Add
	// returns.
	Add(ctx context.Context, quads []Quad) error
	// Commit makes every staged quad visible atomically.
	Commit(ctx context.Context) error
	// Abort discards every staged quad. It is safe after Commit (a no-op).
	Abort() error
}

// ErrClosed is returned by operations on a closed Dataset.
var ErrClosed = errors.New("kb: dataset is closed")

// ErrUnknownID is returned by Resolve for an ID the dictionary never issued.
var ErrUnknownID = errors.New("kb: unknown term ID")

// sliceIterator iterates a slice of quads; implementations that materialise
// matches share it.
type sliceIterator struct {
	quads []Quad
	i     int
}

// NewSliceIterator returns an iterator over quads.
func NewSliceIterator(quads []Quad) QuadIterator { return &sliceIterator{quads: quads, i: -1} }

func (it *sliceIterator) Next() bool   { it.i++; return it.i < len(it.quads) }
func (it *sliceIterator) Quad() Quad   { return it.quads[it.i] }
func (it *sliceIterator) Err() error   { return nil }
func (it *sliceIterator) Close() error { it.quads = nil; return nil }

// errIterator is an iterator that yields nothing and reports err.
type errIterator struct{ err error }

// NewErrorIterator returns an iterator that yields no quads and reports err.
func NewErrorIterator(err error) QuadIterator { return errIterator{err} }

func (it errIterator) Next() bool   { return false }
func (it errIterator) Quad() Quad   { return Quad{} }
func (it errIterator) Err() error   { return it.err }
func (it errIterator) Close() error { return nil }

// Collect drains an iterator into a slice and closes it.
func Collect(it QuadIterator) ([]Quad, error) {
	defer it.Close()
	var out []Quad
	for it.Next() {
		out = append(out, it.Quad())
	}
	return out, it.Err()
}

// InternQuads interns the terms of quads and returns their ID quads.
func InternQuads(ctx context.Context, ds Dataset, quads []TermQuad) ([]Quad, error) {
	terms := make([]Term, 0, 4*len(quads))
	for _, q := range quads {
		g := q.G
		if g.IsZero() {
			g = DefaultGraph
		}
		terms = append(terms, q.S, q.P, q.O, g)
	}
	ids, err := ds.Intern(ctx, terms)
	if err != nil {
		return nil, err
	}
	out := make([]Quad, len(quads))
	for i := range out {
		out[i] = Quad{ids[4*i], ids[4*i+1], ids[4*i+2], ids[4*i+3]}
	}
	return out, nil
}

// ResolveQuad returns the terms of an ID quad.
func ResolveQuad(ctx context.Context, ds Dataset, q Quad) (TermQuad, error) {
	var out TermQuad
	var err error
	if out.S, err = ds.Resolve(ctx, q.S); err != nil {
		return out, err
	}
	if out.P, err = ds.Resolve(ctx, q.P); err != nil {
		return out, err
	}
	if out.O, err = ds.Resolve(ctx, q.O); err != nil {
		return out, err
	}
	out.G, err = ds.Resolve(ctx, q.G)
	return out, err
}

var (
	errZeroTerm = errors.New("kb: cannot intern the zero term")
	errBulkDone = errors.New("kb: bulk load already committed or aborted")
)
