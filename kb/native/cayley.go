package native

import (
	"context"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cayleygraph/quad"
	"github.com/cockroachdb/pebble/v2"

	"github.com/perfkb/perfkb/kb"

	"github.com/perfkb/perfkb/ontology"
)

// CayleyBackend is the name the native store is registered under with
// Cayley: cayley.NewGraph(CayleyBackend, path, nil) opens a native store
// directory ("" opens an empty in-memory store).
const CayleyBackend = "perfkb"

func init() {
	graph.RegisterQuadStore(CayleyBackend, graph.QuadStoreRegistration{
		NewFunc: func(path string, opts graph.Options) (graph.QuadStore, error) {
			if path == "" {
				return &QuadStore{s: OpenPebbleMemory(), owned: true}, nil
			}
			ro, err := opts.BoolKey("read_only", false)
			if err != nil {
				return nil, err
			}
			noSync, err := opts.BoolKey("nosync", false)
			if err != nil {
				return nil, err
			}
			s, err := Open(context.Background(), path, Options{ReadOnly: ro, NoSync: noSync})
			if err != nil {
				return nil, err
			}
			if err := s.completeForCayley(context.Background()); err != nil {
				s.Close()
				return nil, err
			}
			return &QuadStore{s: s, owned: true}, nil
		},
		InitFunc: func(path string, opts graph.Options) error {
			if path == "" {
				return nil
			}
			s, err := Open(context.Background(), path, Options{})
			if err != nil {
				return err
			}
			return s.Close()
		},
		IsPersistent: true,
	})
}

// QuadStore is the native store seen through Cayley's graph.QuadStore
// interface, so Cayley's path API, query languages and tools work on it.
// Quads without a label are stored in kb.DefaultGraph and come back without
// one.
type QuadStore struct {
	s     *Store
	owned bool // Close closes s
}

var _ graph.QuadStore = (*QuadStore)(nil)

// Cayley returns a graph.QuadStore over s. Closing it does not close s.
func (s *Store) Cayley() *QuadStore { return &QuadStore{s: s} }

// Store returns the native store under qs.
func (qs *QuadStore) Store() *Store { return qs.s }

// nodeRef is a node: a term ID.
type nodeRef kb.ID

func (r nodeRef) Key() interface{} { return r }

// quadRef is a stored quad.
type quadRef kb.Quad

func (r quadRef) Key() interface{} { return r }

const (
	xsdInteger  = ontology.XSDInteger
	xsdDouble   = ontology.XSDDouble
	xsdBoolean  = ontology.XSDBoolean
	xsdDateTime = ontology.XSDDateTime
)

// TermFromValue converts a Cayley value to a term. Native numbers, booleans
// and times become xsd-typed literals; it reports false for nil and for
// value types it does not know.
func TermFromValue(v quad.Value) (kb.Term, bool) {
	switch v := v.(type) {
	case quad.IRI:
		return kb.IRI(string(v)), true
	case quad.BNode:
		return kb.Blank(string(v)), true
	case quad.String:
		return kb.String(string(v)), true
	case quad.LangString:
		return kb.LangLiteral(string(v.Value), v.Lang), true
	case quad.TypedString:
		return kb.Literal(string(v.Value), string(v.Type)), true
	case quad.Int:
		return kb.Literal(strconv.FormatInt(int64(v), 10), xsdInteger), true
	case quad.Float:
		return kb.Literal(formatDouble(float64(v)), xsdDouble), true
	case quad.Bool:
		return kb.Literal(strconv.FormatBool(bool(v)), xsdBoolean), true
	case quad.Time:
		return kb.Literal(time.Time(v).Format(time.RFC3339Nano), xsdDateTime), true
	}
	return kb.Term{}, false
}

func formatDouble(f float64) string {
	switch {
	case math.IsInf(f, 1):
		return "INF"
	case math.IsInf(f, -1):
		return "-INF"
	case math.IsNaN(f):
		return "NaN"
	}
	return strconv.FormatFloat(f, 'E', -1, 64)
}

// ValueFromTerm converts a term to a Cayley value. A literal whose lexical
// form is the canonical one for its xsd type comes back as the native value
// (quad.Int, quad.Float, quad.Bool, quad.Time); any other literal is a
// quad.TypedString or quad.LangString with its lexical form unchanged.
func ValueFromTerm(t kb.Term) quad.Value {
	switch t.Kind {
	case kb.KindIRI:
		return quad.IRI(t.Value)
	case kb.KindBlank:
		return quad.BNode(t.Value)
	case kb.KindLiteral:
		switch t.Datatype {
		case ontology.XSDString, "":
			return quad.String(t.Value)
		case ontology.RDFLangString:
			return quad.LangString{Value: quad.String(t.Value), Lang: t.Lang}
		case xsdInteger:
			if n, err := strconv.ParseInt(t.Value, 10, 64); err == nil && strconv.FormatInt(n, 10) == t.Value {
				return quad.Int(n)
			}
		case xsdDouble:
			if f, err := strconv.ParseFloat(t.Value, 64); err == nil && formatDouble(f) == t.Value {
				return quad.Float(f)
			}
		case xsdBoolean:
			if t.Value == "true" || t.Value == "false" {
				return quad.Bool(t.Value == "true")
			}
		case xsdDateTime:
			if tm, err := time.Parse(time.RFC3339Nano, t.Value); err == nil && tm.Format(time.RFC3339Nano) == t.Value {
				return quad.Time(tm)
			}
		}
		return quad.TypedString{Value: quad.String(t.Value), Type: quad.IRI(t.Datatype)}
	}
	return nil
}

// ValueOf implements graph.Namer.
func (qs *QuadStore) ValueOf(v quad.Value) graph.Ref {
	t, ok := TermFromValue(v)
	if !ok {
		return nil
	}
	id, ok, err := qs.s.Lookup(context.Background(), t)
	if err != nil || !ok {
		return nil
	}
	return nodeRef(id)
}

// NameOf implements graph.Namer.
func (qs *QuadStore) NameOf(r graph.Ref) quad.Value {
	switch r := r.(type) {
	case nodeRef:
		t, err := qs.s.Resolve(context.Background(), kb.ID(r))
		if err != nil {
			return nil
		}
		return ValueFromTerm(t)
	case graph.PreFetchedValue:
		return r.NameOf()
	}
	return nil
}

// ValuesOf implements graph.BatchQuadStore.
func (qs *QuadStore) ValuesOf(ctx context.Context, refs []graph.Ref) ([]quad.Value, error) {
	out := make([]quad.Value, len(refs))
	for i, r := range refs {
		out[i] = qs.NameOf(r)
	}
	return out, nil
}

// RefsOf implements graph.BatchQuadStore.
func (qs *QuadStore) RefsOf(ctx context.Context, nodes []quad.Value) ([]graph.Ref, error) {
	out := make([]graph.Ref, len(nodes))
	for i, v := range nodes {
		out[i] = qs.ValueOf(v)
		if out[i] == nil {
			return nil, fmt.Errorf("not found: %v", v)
		}
	}
	return out, nil
}

// Quad implements graph.QuadIndexer.
func (qs *QuadStore) Quad(r graph.Ref) quad.Quad {
	q, ok := r.(quadRef)
	if !ok {
		return quad.Quad{}
	}
	ctx := context.Background()
	tq, err := kb.ResolveQuad(ctx, qs.s, kb.Quad(q))
	if err != nil {
		return quad.Quad{}
	}
	out := quad.Quad{Subject: ValueFromTerm(tq.S), Predicate: ValueFromTerm(tq.P), Object: ValueFromTerm(tq.O)}
	if tq.G != kb.DefaultGraph {
		out.Label = ValueFromTerm(tq.G)
	}
	return out
}

func (qs *QuadStore) defaultGraphID() kb.ID {
	id, ok, err := qs.s.Lookup(context.Background(), kb.DefaultGraph)
	if err != nil || !ok {
		return 0
	}
	return id
}

// QuadDirection implements graph.QuadIndexer.
func (qs *QuadStore) QuadDirection(r graph.Ref, d quad.Direction) graph.Ref {
	q, ok := r.(quadRef)
	if !ok {
		return nil
	}
	var id kb.ID
	switch d {
	case quad.Subject:
		id = q.S
	case quad.Predicate:
		id = q.P
	case quad.Object:
		id = q.O
	case quad.Label:
		if q.G == qs.defaultGraphID() {
			return nil
		}
		id = q.G
	default:
		return nil
	}
	return nodeRef(id)
}

func patternFor(d quad.Direction, r graph.Ref) (kb.Pattern, bool) {
	n, ok := r.(nodeRef)
	if !ok || n == 0 {
		return kb.Pattern{}, false
	}
	var p kb.Pattern
	switch d {
	case quad.Subject:
		p.S = kb.ID(n)
	case quad.Predicate:
		p.P = kb.ID(n)
	case quad.Object:
		p.O = kb.ID(n)
	case quad.Label:
		p.G = kb.ID(n)
	default:
		return p, false
	}
	return p, true
}

// QuadIterator implements graph.QuadIndexer.
func (qs *QuadStore) QuadIterator(d quad.Direction, r graph.Ref) graph.Iterator {
	p, ok := patternFor(d, r)
	return qs.newQuadsIterator(p, !ok, fmt.Sprintf("perfkb.Quads(%v)", d))
}

// QuadIteratorSize implements graph.QuadIndexer.
func (qs *QuadStore) QuadIteratorSize(ctx context.Context, d quad.Direction, r graph.Ref) (graph.Size, error) {
	p, ok := patternFor(d, r)
	if !ok {
		return graph.Size{Size: 0, Exact: true}, nil
	}
	n, err := qs.s.Count(ctx, p, false)
	return graph.Size{Size: n, Exact: n < estimateScanLimit || boundMask(p)&^10 == 0}, err
}

// QuadsAllIterator implements graph.QuadStore.
func (qs *QuadStore) QuadsAllIterator() graph.Iterator {
	return qs.newQuadsIterator(kb.Pattern{}, false, "perfkb.AllQuads")
}

// NodesAllIterator implements graph.QuadStore: every term used by at least
// one quad (kb.DefaultGraph excepted).
func (qs *QuadStore) NodesAllIterator() graph.Iterator {
	sh := &nodesShape{qs: qs}
	return graph.NewLegacy(sh, nil)
}

// Stats implements graph.QuadStore. Exact node counts scan the indexes.
func (qs *QuadStore) Stats(ctx context.Context, exact bool) (graph.Stats, error) {
	st, err := qs.s.Stats(ctx)
	if err != nil {
		return graph.Stats{}, err
	}
	out := graph.Stats{
		Quads: graph.Size{Size: st.Quads, Exact: true},
		Nodes: graph.Size{Size: st.Terms, Exact: false},
	}
	if exact {
		n := int64(0)
		err := qs.eachUsedNode(ctx, func(kb.ID) bool { n++; return true })
		if err != nil {
			return graph.Stats{}, err
		}
		out.Nodes = graph.Size{Size: n, Exact: true}
	}
	return out, nil
}

// used reports whether a quad mentions id in any position.
func (qs *QuadStore) used(it *pebble.Iterator, id kb.ID) bool {
	if m := qs.s.readSide(); m != nil {
		// Pebble's indexes hold only the base under a delta log.
		for _, p := range []kb.Pattern{{S: id}, {P: id}, {O: id}, {G: id}} {
			var r memRange
			m.ranges(p, &r)
			if r.next() {
				return true
			}
		}
		return false
	}
	for _, k := range []int{0, 1, 2, 3} { // SPOG, POSG, OSPG, GSPO: each position first
		prefix := appendID([]byte{prefixIndex + byte(k)}, id)
		if it.SeekGE(prefix) && strings.HasPrefix(string(it.Key()), string(prefix)) {
			return true
		}
	}
	return false
}

// eachUsedNode calls fn for every term ID used by a quad.
func (qs *QuadStore) eachUsedNode(ctx context.Context, fn func(kb.ID) bool) error {
	it, err := qs.s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixIndex}, UpperBound: []byte{prefixIndex + numOrders}})
	if err != nil {
		return fmt.Errorf("native: %w", err)
	}
	defer it.Close()
	dg := qs.defaultGraphID()
	limit := qs.s.dict.limit()
	for id := kb.ID(1); id < limit; id++ {
		if id&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if id != dg && qs.used(it, id) && !fn(id) {
			break
		}
	}
	return it.Error()
}

// ApplyDeltas implements graph.QuadStore: the deltas are applied in order,
// as one atomic kb.Delta.
func (qs *QuadStore) ApplyDeltas(in []graph.Delta, opts graph.IgnoreOpts) error {
	ctx := context.Background()
	s := qs.s
	// Hold the writer lock across the existence checks and the write so
	// the checks stay true; Apply is called through applyLocked.
	s.wmu.Lock()
	defer s.wmu.Unlock()
	if err := s.checkOpen(); err != nil {
		return err
	}
	type state struct {
		before, now bool
	}
	states := make(map[kb.Quad]*state)
	var order []kb.Quad
	for _, d := range in {
		if d.Action != graph.Add && d.Action != graph.Delete {
			return &graph.DeltaError{Delta: d, Err: graph.ErrInvalidAction}
		}
		q, known, err := qs.toIDs(ctx, d.Quad, d.Action == graph.Add)
		if err != nil {
			return &graph.DeltaError{Delta: d, Err: err}
		}
		if !known { // a term never seen: the quad cannot exist
			if !opts.IgnoreMissing {
				return &graph.DeltaError{Delta: d, Err: graph.ErrQuadNotExist}
			}
			continue
		}
		st := states[q]
		if st == nil {
			had, err := s.has(q)
			if err != nil {
				return err
			}
			st = &state{before: had, now: had}
			states[q] = st
			order = append(order, q)
		}
		switch d.Action {
		case graph.Add:
			if st.now && !opts.IgnoreDup {
				return &graph.DeltaError{Delta: d, Err: graph.ErrQuadExists}
			}
			st.now = true
		case graph.Delete:
			if !st.now && !opts.IgnoreMissing {
				return &graph.DeltaError{Delta: d, Err: graph.ErrQuadNotExist}
			}
			st.now = false
		}
	}
	var delta kb.Delta
	for _, q := range order {
		st := states[q]
		switch {
		case st.now && !st.before:
			delta.Add = append(delta.Add, q)
		case !st.now && st.before:
			delta.Remove = append(delta.Remove, q)
		}
	}
	if len(delta.Add) == 0 && len(delta.Remove) == 0 {
		return nil
	}
	return s.applyLocked(ctx, delta)
}

var errInvalidQuad = errors.New("native: quad needs a subject, a predicate and an object")

// toIDs converts a Cayley quad to IDs, interning its terms when intern is
// set; otherwise known is false when a term is not in the dictionary.
func (qs *QuadStore) toIDs(ctx context.Context, q quad.Quad, intern bool) (kb.Quad, bool, error) {
	var terms [4]kb.Term
	for i, v := range []quad.Value{q.Subject, q.Predicate, q.Object} {
		t, ok := TermFromValue(v)
		if !ok {
			return kb.Quad{}, false, fmt.Errorf("%w: unsupported value %#v", errInvalidQuad, v)
		}
		terms[i] = t
	}
	terms[3] = kb.DefaultGraph
	if q.Label != nil {
		t, ok := TermFromValue(q.Label)
		if !ok {
			return kb.Quad{}, false, fmt.Errorf("%w: unsupported label %#v", errInvalidQuad, q.Label)
		}
		terms[3] = t
	}
	if intern {
		ids, err := qs.s.Intern(ctx, terms[:])
		if err != nil {
			return kb.Quad{}, false, err
		}
		return kb.Quad{S: ids[0], P: ids[1], O: ids[2], G: ids[3]}, true, nil
	}
	var ids [4]kb.ID
	for i, t := range terms {
		id, ok, err := qs.s.Lookup(ctx, t)
		if err != nil || !ok {
			return kb.Quad{}, false, err
		}
		ids[i] = id
	}
	return kb.Quad{S: ids[0], P: ids[1], O: ids[2], G: ids[3]}, true, nil
}

// NewQuadWriter implements graph.QuadStore. Quads are buffered and written
// in batches of 10,000 (duplicates ignored); Close writes the rest.
func (qs *QuadStore) NewQuadWriter() (quad.WriteCloser, error) {
	return &quadWriter{qs: qs}, nil
}

type quadWriter struct {
	qs  *QuadStore
	mu  sync.Mutex
	buf []graph.Delta
}

func (w *quadWriter) WriteQuad(q quad.Quad) error {
	_, err := w.WriteQuads([]quad.Quad{q})
	return err
}

func (w *quadWriter) WriteQuads(quads []quad.Quad) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	for _, q := range quads {
		w.buf = append(w.buf, graph.Delta{Quad: q, Action: graph.Add})
	}
	if len(w.buf) >= 10000 {
		if err := w.flush(); err != nil {
			return 0, err
		}
	}
	return len(quads), nil
}

func (w *quadWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	err := w.qs.ApplyDeltas(w.buf, graph.IgnoreOpts{IgnoreDup: true})
	w.buf = w.buf[:0]
	return err
}

func (w *quadWriter) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.flush()
}

// Close implements graph.QuadStore.
func (qs *QuadStore) Close() error {
	if qs.owned {
		return qs.s.Close()
	}
	return nil
}

// quadsShape iterates the quads matching a pattern.
type quadsShape struct {
	qs    *QuadStore
	p     kb.Pattern
	empty bool
	name  string
}

func (qs *QuadStore) newQuadsIterator(p kb.Pattern, empty bool, name string) graph.Iterator {
	return graph.NewLegacy(&quadsShape{qs: qs, p: p, empty: empty, name: name}, nil)
}

func (sh *quadsShape) String() string                                       { return sh.name }
func (sh *quadsShape) SubIterators() []graph.IteratorShape                  { return nil }
func (sh *quadsShape) Optimize(context.Context) (graph.IteratorShape, bool) { return sh, false }

func (sh *quadsShape) Stats(ctx context.Context) (graph.IteratorCosts, error) {
	if sh.empty {
		return graph.IteratorCosts{Size: graph.Size{Exact: true}}, nil
	}
	n, err := sh.qs.s.Count(ctx, sh.p, false)
	return graph.IteratorCosts{
		NextCost:     1,
		ContainsCost: 2,
		Size:         graph.Size{Size: n, Exact: n < estimateScanLimit || boundMask(sh.p)&^10 == 0},
	}, err
}

func (sh *quadsShape) Iterate() graph.Scanner {
	return &quadsScanner{sh: sh}
}

func (sh *quadsShape) Lookup() graph.Index {
	return &quadsIndex{sh: sh}
}

type quadsScanner struct {
	sh  *quadsShape
	it  kb.QuadIterator
	cur graph.Ref
	err error
}

func (sc *quadsScanner) Next(ctx context.Context) bool {
	sc.cur = nil
	if sc.sh.empty || sc.err != nil {
		return false
	}
	if sc.it == nil {
		sc.it = sc.sh.qs.s.Match(ctx, sc.sh.p)
	}
	if !sc.it.Next() {
		sc.err = sc.it.Err()
		return false
	}
	sc.cur = quadRef(sc.it.Quad())
	return true
}

func (sc *quadsScanner) Result() graph.Ref               { return sc.cur }
func (sc *quadsScanner) NextPath(context.Context) bool   { return false }
func (sc *quadsScanner) TagResults(map[string]graph.Ref) {}
func (sc *quadsScanner) Err() error                      { return sc.err }
func (sc *quadsScanner) String() string                  { return sc.sh.name }
func (sc *quadsScanner) Close() error {
	if sc.it != nil {
		err := sc.it.Close()
		sc.it = nil
		return err
	}
	return nil
}

type quadsIndex struct {
	sh  *quadsShape
	cur graph.Ref
	err error
}

func (ix *quadsIndex) Contains(ctx context.Context, r graph.Ref) bool {
	ix.cur = nil
	q, ok := r.(quadRef)
	if !ok || ix.sh.empty || !ix.sh.p.Matches(kb.Quad(q)) {
		return false
	}
	has, err := ix.sh.qs.s.has(kb.Quad(q))
	if err != nil {
		ix.err = err
		return false
	}
	if has {
		ix.cur = q
	}
	return has
}

func (ix *quadsIndex) Result() graph.Ref               { return ix.cur }
func (ix *quadsIndex) NextPath(context.Context) bool   { return false }
func (ix *quadsIndex) TagResults(map[string]graph.Ref) {}
func (ix *quadsIndex) Err() error                      { return ix.err }
func (ix *quadsIndex) Close() error                    { return nil }
func (ix *quadsIndex) String() string                  { return ix.sh.name }

// nodesShape iterates every node used by a quad.
type nodesShape struct{ qs *QuadStore }

func (sh *nodesShape) String() string                      { return "perfkb.AllNodes" }
func (sh *nodesShape) SubIterators() []graph.IteratorShape { return nil }
func (sh *nodesShape) Optimize(context.Context) (graph.IteratorShape, bool) {
	return sh, false
}

func (sh *nodesShape) Stats(ctx context.Context) (graph.IteratorCosts, error) {
	return graph.IteratorCosts{
		NextCost:     4,
		ContainsCost: 4,
		Size:         graph.Size{Size: int64(sh.qs.s.dict.limit() - 1), Exact: false},
	}, nil
}

func (sh *nodesShape) Iterate() graph.Scanner { return &nodesScanner{sh: sh} }
func (sh *nodesShape) Lookup() graph.Index    { return &nodesIndex{sh: sh} }

type nodesScanner struct {
	sh    *nodesShape
	it    *pebble.Iterator
	next  kb.ID
	limit kb.ID
	dg    kb.ID
	cur   graph.Ref
	err   error
}

func (sc *nodesScanner) Next(ctx context.Context) bool {
	sc.cur = nil
	if sc.err != nil {
		return false
	}
	if sc.it == nil {
		if sc.next != 0 {
			return false // closed
		}
		it, err := sc.sh.qs.s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixIndex}, UpperBound: []byte{prefixIndex + numOrders}})
		if err != nil {
			sc.err = fmt.Errorf("native: %w", err)
			return false
		}
		sc.it, sc.next, sc.limit, sc.dg = it, 1, sc.sh.qs.s.dict.limit(), sc.sh.qs.defaultGraphID()
	}
	for ; sc.next < sc.limit; sc.next++ {
		if err := ctx.Err(); err != nil {
			sc.err = err
			return false
		}
		id := sc.next
		if id != sc.dg && sc.sh.qs.used(sc.it, id) {
			sc.next++
			sc.cur = nodeRef(id)
			return true
		}
	}
	return false
}

func (sc *nodesScanner) Result() graph.Ref               { return sc.cur }
func (sc *nodesScanner) NextPath(context.Context) bool   { return false }
func (sc *nodesScanner) TagResults(map[string]graph.Ref) {}
func (sc *nodesScanner) Err() error                      { return sc.err }
func (sc *nodesScanner) String() string                  { return "perfkb.AllNodes" }
func (sc *nodesScanner) Close() error {
	if sc.it != nil {
		err := sc.it.Close()
		sc.it = nil
		sc.next = math.MaxUint64
		return err
	}
	return nil
}

type nodesIndex struct {
	sh  *nodesShape
	cur graph.Ref
	err error
}

func (ix *nodesIndex) Contains(ctx context.Context, r graph.Ref) bool {
	ix.cur = nil
	n, ok := r.(nodeRef)
	if !ok || n == 0 || kb.ID(n) == ix.sh.qs.defaultGraphID() {
		return false
	}
	it, err := ix.sh.qs.s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixIndex}, UpperBound: []byte{prefixIndex + numOrders}})
	if err != nil {
		ix.err = fmt.Errorf("native: %w", err)
		return false
	}
	defer it.Close()
	if ix.sh.qs.used(it, kb.ID(n)) {
		ix.cur = n
		return true
	}
	return false
}

func (ix *nodesIndex) Result() graph.Ref               { return ix.cur }
func (ix *nodesIndex) NextPath(context.Context) bool   { return false }
func (ix *nodesIndex) TagResults(map[string]graph.Ref) {}
func (ix *nodesIndex) Err() error                      { return ix.err }
func (ix *nodesIndex) Close() error                    { return nil }
func (ix *nodesIndex) String() string                  { return "perfkb.AllNodes" }
