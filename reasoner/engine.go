package reasoner

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"runtime/metrics"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// DerivationPredicateIRI links a derived triple's subject to one
// derivation record (a literal, see derivation.go).
const DerivationPredicateIRI = "urn:x-perfkb:derivation"

// DerivationFirstPredicateIRI links the lowest subject ID of a derivation
// batch to the batch, and DerivationLastPredicateIRI the highest (written
// only when it differs), so that Explain finds a subject's batches from
// two quads per batch instead of one quad per subject (see derivation.go).
const (
	DerivationFirstPredicateIRI = "urn:x-perfkb:derivation-first"
	DerivationLastPredicateIRI  = "urn:x-perfkb:derivation-last"
)

// DerivationDatatypeIRI is the datatype of derivation record literals.
const DerivationDatatypeIRI = "urn:x-perfkb:derivation-record"

// DerivationsGraph is the graph of derivation records
// (kb.DerivationsGraphIRI): for every triple the engine derives, the rule
// and premises that produced it.
var DerivationsGraph = kb.IRI(kb.DerivationsGraphIRI)

// Errors that stop a run early. The triples derived before the limit are
// written; Summary says how far the run got.
var (
	ErrMaxIterations = errors.New("reasoner: rounds limit reached before a fixpoint (raise MaxIterations, or look for a rule that keeps making new nodes)")
	ErrMaxDerived    = errors.New("reasoner: derived-triples limit reached (raise MaxDerived)")
	// ErrTermTooLarge stops a run whose builtins make a term longer than
	// MaxTermBytes (a strConcat that keeps doubling a string, say).
	ErrTermTooLarge = errors.New("reasoner: a builtin made a term larger than the limit (raise MaxTermBytes, --max-term-bytes)")
	// ErrMemoryBudget stops a run whose heap grew past MemoryBudget.
	ErrMemoryBudget = errors.New("reasoner: the run's memory budget is exhausted (raise MemoryBudget, --rules-memory)")
)

// Options tune a run. The zero value is usable.
type Options struct {
	// MaxIterations bounds the number of rounds (0: 10000).
	MaxIterations int
	// MaxDerived bounds the number of derived triples (0: no bound).
	MaxDerived int64
	// MaxTermBytes bounds the length of a term a builtin makes
	// (0: DefaultMaxTermBytes; negative: no bound).
	MaxTermBytes int
	// MemoryBudget bounds how much the heap may grow during the run, in
	// bytes (0: DefaultMemoryBudget; negative: no bound). It is checked
	// every few thousand new terms and after every round.
	MemoryBudget int64
	// BatchSize is the number of quads per Dataset.Apply (0: 50000 for
	// Add; Run then holds its writes up to RunHoldQuads).
	BatchSize int
	// ReadGraphs restricts the graphs rules read; nil reads every graph
	// (asserted and inferred) except the derivations graph.
	ReadGraphs []kb.Term
	// InferredGraph receives derived triples (zero: kb.InferredGraph).
	InferredGraph kb.Term
	// NoDerivations skips writing derivation records (faster, smaller; no
	// explanations for this run's triples).
	NoDerivations bool
	// Reset clears the inferred and derivations graphs before the run, for
	// a clean materialisation after the rules changed.
	Reset bool
	// Workers is the number of goroutines that a round's joins are
	// spread over (0: GOMAXPROCS). Programs with print, remove, drop or
	// makeTemp run on one, since their effects depend on the order of
	// matches.
	Workers int
	// Print receives print() output (nil: discarded).
	Print io.Writer
	// Progress, when set, is called after loading and after each round.
	Progress func(Progress)
	// Now is the clock for now() (nil: time.Now).
	Now func() time.Time
	// LoadOnDemand starts the working memory empty and reads from the
	// store only the keys the engine's lookups need (ondemand.go): for an
	// engine made to Remove a few quads from a large store once, as
	// perfkb drop-graph --retract does. Such an engine runs on one
	// worker; Run, Add, Change and Forget read the whole store first.
	LoadOnDemand bool
}

// Progress reports how a run is going.
type Progress struct {
	Phase   string // "load", "round", "done"
	Round   int
	Loaded  int64
	Derived int64
	Removed int64
	Elapsed time.Duration
}

// Summary describes a finished run.
type Summary struct {
	Rules   int   `json:"rules"`
	Loaded  int64 `json:"loaded"`  // distinct triples read from the store
	Derived int64 `json:"derived"` // new triples written to the inferred graph
	Removed int64 `json:"removed"` // triples deleted by remove/drop
	// Retracted counts derived triples withdrawn because what they were
	// derived from was deleted (Remove, RunRetract) or, for noValue, added.
	Retracted int64 `json:"retracted,omitempty"`
	Rounds    int   `json:"rounds"`
	// UpToDate is set when the store was already at the program's
	// fixpoint, as recorded by an earlier Run, and nothing was evaluated.
	UpToDate bool `json:"up_to_date,omitempty"`
	// Firings counts derived triples per rule label.
	Firings map[string]int64 `json:"firings,omitempty"`
	// RuleTime is the time spent joining each rule (by label), to find the
	// expensive ones.
	RuleTime map[string]time.Duration `json:"-"`
	// Duration is the run's wall time; reports put it under "timing",
	// apart from what two runs of the same rules over the same data share.
	Duration time.Duration `json:"-"`
}

// Run materialises prog over ds: it reads the store, derives every
// consequence to a fixpoint, writes new triples to the inferred graph (and
// derivation records), and returns what it did.
//
// A run that reaches the fixpoint records it in the store (fixpoint.go);
// a later Run of the same program over a store with the same quads
// outside the derivations graph returns at once with Summary.UpToDate,
// after one scan of the store instead of loading and joining it all.
// Options.Reset always runs in full.
func Run(ctx context.Context, ds kb.Dataset, prog *Program, opts Options) (Summary, error) {
	start := time.Now()
	key, keyed := fixpointKey(prog, opts)
	var digest *contentDigest
	if keyed && !opts.Reset {
		m, d, ok, err := atFixpoint(ctx, ds, key)
		if err != nil {
			return Summary{}, err
		}
		if ok {
			sum := Summary{Rules: prog.Len(), Loaded: m.triples, UpToDate: true, Duration: time.Since(start)}
			if opts.Progress != nil {
				opts.Progress(Progress{Phase: "done", Loaded: m.triples, Elapsed: sum.Duration})
			}
			return sum, nil
		}
		digest = d
	}
	e, err := NewEngine(ctx, ds, prog, opts)
	if err != nil {
		return Summary{}, err
	}
	sum, err := e.Run(ctx)
	if err != nil || !keyed {
		return sum, err
	}
	if sum.Derived != 0 || sum.Removed != 0 || sum.Retracted != 0 || opts.Reset {
		// The run changed the store: the engine digested what it loaded
		// and what it wrote; without that, digest the store again.
		digest = nil
		if e.digestOK {
			digest = &e.digest
		}
	}
	if err := markFixpoint(ctx, ds, key, digest, sum.Loaded+sum.Derived); err != nil {
		return sum, err
	}
	sum.Duration = time.Since(start)
	return sum, nil
}

// RunIncremental derives only the consequences of added, quads already
// stored in ds, assuming the rest of ds was closed under prog (for example
// by an earlier Run). It costs a pass over the store to build the working
// memory, but only joins involving the new triples.
func RunIncremental(ctx context.Context, ds kb.Dataset, prog *Program, added []kb.Quad, opts Options) (Summary, error) {
	skip := make(map[kb.Quad]bool, len(added))
	for _, q := range added {
		skip[q] = true
	}
	e, err := newEngine(ctx, ds, prog, opts, skip)
	if err != nil {
		return Summary{}, err
	}
	e.ranOnce = true
	return e.addRows(ctx, added, nil)
}

// Engine holds a program bound to a store with its working memory, so that
// new data can be reasoned over incrementally (Add). It is not safe for
// concurrent use.
type Engine struct {
	ds    kb.Dataset
	prog  *Program
	opts  Options
	ts    *tripleStore
	rules []*boundRule
	cur   uint32 // the newest generation

	inferredG, derivG, derivP kb.ID
	// derivFirstP and derivLastP bound the subject IDs of a batch.
	derivFirstP, derivLastP kb.ID
	// labelP links the derivations graph to the rule labels its records
	// use, so that the labels' IDs are stored with them.
	labelP kb.ID
	// internalG receives helper triples (predicates in
	// kb.RulesInternalNamespace), kept out of the union default graph;
	// internalP caches which predicates are helpers.
	internalG  kb.ID
	internalP  map[kb.ID]bool
	readGraphs map[kb.ID]bool

	terms termCache
	// classes answers kind tests from IDs (kindtest.go); nil when the
	// store cannot.
	classes termClasser
	ids     map[kb.Term]kb.ID
	// nextLocal numbers terms that builtins made and the store does not
	// have yet; they get store IDs only if a derived triple uses them.
	nextLocal kb.ID
	heapStart uint64 // live heap when the run began, for MemoryBudget
	regexps   map[string]*regexp.Regexp
	blanks    int
	runID     string

	// out collects the round's derived triples (workers' outputs are
	// merged into it in task order); removes the round's removals.
	out     output
	removes [][3]kb.ID
	// mu guards the term caches (terms, ids, nextLocal), the regexp cache,
	// blanks and Print, which a round's workers share.
	mu sync.RWMutex
	// workers is the number of goroutines a round's joins run on.
	workers int

	summary Summary
	start   time.Time
	ranOnce bool

	// During Add and Run, writes are collected in held (up to holdLimit
	// quads) and applied once at the end, so a batch and all its rounds
	// reach the store in one Apply instead of one per round.
	holding   bool
	held      kb.Delta
	holdLimit int
	// runHold is holdLimit during Run: BatchSize when the caller set it,
	// else RunHoldQuads.
	runHold int

	// addGens is the first generation of each Add still in the working
	// memory (see Forget).
	addGens []uint32
	// negation: some rule tests noValue, so adding a triple may take a
	// derivation away (see retract.go).
	negation bool
	// aggLabels are the label IDs of the program's SPARQL rules
	// (aggregate.go).
	aggLabels []kb.ID
	// retractPlans and the pattern references keep what retractions plan
	// (retract.go) for the next one: a server's engine retracts often.
	retractPlans map[planKey]*plan
	// phases, when not nil, sums the time of retraction's phases
	// (retract.go's timePhase; the benchmarks report it).
	phases      *phaseTimes
	byPredRefs  map[kb.ID][]*patternRef
	anyPredRefs []*patternRef

	// digest is the fixpoint digest (fixpoint.go) of the store's quads
	// outside the derivations graph, kept while digestOK: load digests
	// what it reads when it reads every graph, and each write of only
	// new quads adds them, so that the marker of a run that changed the
	// store needs no second scan of it. A removal, or a load of part of
	// the store, turns it off.
	digest   contentDigest
	digestOK bool

	// demand is set while the working memory is loaded on demand
	// (Options.LoadOnDemand); nil once it holds the whole store.
	demand *demand
}

type premRef struct {
	t   *table
	row int32
}

type derivedTriple struct {
	s, p, o kb.ID
	rule    int32
	prem    []premRef
}

// NewEngine binds prog to ds and loads the working memory.
func NewEngine(ctx context.Context, ds kb.Dataset, prog *Program, opts Options) (*Engine, error) {
	return newEngine(ctx, ds, prog, opts, nil)
}

// Defaults for the resource bounds of a run.
const (
	DefaultMaxTermBytes = 64 << 10
	DefaultMemoryBudget = 4 << 30
)

func newEngine(ctx context.Context, ds kb.Dataset, prog *Program, opts Options, skip map[kb.Quad]bool) (*Engine, error) {
	if opts.MaxTermBytes == 0 {
		opts.MaxTermBytes = DefaultMaxTermBytes
	}
	if opts.MemoryBudget == 0 {
		opts.MemoryBudget = DefaultMemoryBudget
	}
	if opts.MaxIterations <= 0 {
		opts.MaxIterations = 10000
	}
	runHold := opts.BatchSize
	if opts.BatchSize <= 0 {
		opts.BatchSize = 50000
		runHold = RunHoldQuads
	}
	if opts.InferredGraph.IsZero() {
		opts.InferredGraph = kb.InferredGraph
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	e := &Engine{
		ds: ds, prog: prog, opts: opts, ts: newTripleStore(),
		terms: newTermCache(), ids: map[kb.Term]kb.ID{}, regexps: map[string]*regexp.Regexp{},
		nextLocal: localBase,
		start:     time.Now(),
		heapStart: heapBytes(),
		runID:     strconv.FormatInt(time.Now().UnixNano(), 36),
		runHold:   runHold,
	}
	e.classes, _ = ds.(termClasser)
	e.summary.Rules = prog.Len()
	e.summary.Firings = map[string]int64{}
	e.summary.RuleTime = map[string]time.Duration{}
	ids, err := e.internAll(ctx, []kb.Term{opts.InferredGraph, DerivationsGraph, kb.IRI(DerivationPredicateIRI), kb.IRI(kb.RulesInternalGraphIRI), kb.IRI(ruleLabelPredicateIRI),
		kb.IRI(DerivationFirstPredicateIRI), kb.IRI(DerivationLastPredicateIRI)})
	if err != nil {
		return nil, err
	}
	e.inferredG, e.derivG, e.derivP, e.internalG, e.labelP = ids[0], ids[1], ids[2], ids[3], ids[4]
	e.derivFirstP, e.derivLastP = ids[5], ids[6]
	e.internalP = map[kb.ID]bool{}
	if opts.ReadGraphs != nil {
		e.readGraphs = map[kb.ID]bool{}
		for _, g := range opts.ReadGraphs {
			id, ok, err := ds.Lookup(ctx, g)
			if err != nil {
				return nil, err
			}
			if ok {
				e.readGraphs[id] = true
			}
		}
	}
	if opts.Reset {
		if err := e.reset(ctx); err != nil {
			return nil, err
		}
	}
	if opts.LoadOnDemand && skip == nil {
		e.demand = newDemand(ctx)
	} else if err := e.load(ctx, skip); err != nil {
		return nil, err
	}
	if err := e.bind(ctx); err != nil {
		return nil, err
	}
	if err := e.bindAggregates(ctx); err != nil {
		return nil, err
	}
	return e, nil
}

func (e *Engine) internAll(ctx context.Context, terms []kb.Term) ([]kb.ID, error) {
	out := make([]kb.ID, len(terms))
	var missing []kb.Term
	var at []int
	for i, t := range terms {
		if id, ok := e.ids[t]; ok {
			out[i] = id
			continue
		}
		missing = append(missing, t)
		at = append(at, i)
	}
	if len(missing) == 0 {
		return out, nil
	}
	ids, err := e.ds.Intern(ctx, missing)
	if err != nil {
		return nil, fmt.Errorf("reasoner: interning terms: %w", err)
	}
	for j, id := range ids {
		out[at[j]] = id
		e.ids[missing[j]] = id
		e.terms.set(id, missing[j])
	}
	return out, nil
}

func (e *Engine) intern(ctx context.Context, t kb.Term) (kb.ID, error) {
	if id, ok := e.ids[t]; ok {
		return id, nil
	}
	ids, err := e.internAll(ctx, []kb.Term{t})
	if err != nil {
		return 0, err
	}
	return ids[0], nil
}

// localBase is the first engine-local ID; store IDs stay below it.
const localBase kb.ID = 1 << 62

func isLocal(id kb.ID) bool { return id >= localBase }

// internLocal returns the ID of a term a builtin made: the store's ID when
// the store has the term, else an engine-local ID, so that intermediate
// values (a product compared with a threshold) never reach the dictionary.
func (e *Engine) internLocal(ctx context.Context, t kb.Term) (kb.ID, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if id, ok := e.ids[t]; ok {
		return id, nil
	}
	id, ok, err := e.ds.Lookup(ctx, t)
	if err != nil {
		return 0, fmt.Errorf("reasoner: looking up a term: %w", err)
	}
	if !ok {
		if e.opts.MaxTermBytes > 0 && len(t.Value) > e.opts.MaxTermBytes {
			return 0, fmt.Errorf("%w: %d bytes, limit %d", ErrTermTooLarge, len(t.Value), e.opts.MaxTermBytes)
		}
		id = e.nextLocal
		e.nextLocal++
		if id&4095 == 0 {
			if err := e.checkMemory(); err != nil {
				return 0, err
			}
		}
	}
	e.ids[t] = id
	e.terms.set(id, t)
	return id, nil
}

// checkMemory fails the run when the heap has grown past the budget since
// the run began. The heap is the process's, so this is an estimate, but it
// is the one that matters: it is what runs a server out of memory.
func (e *Engine) checkMemory() error {
	if e.opts.MemoryBudget < 0 {
		return nil
	}
	if grown := int64(heapBytes()) - int64(e.heapStart); grown > e.opts.MemoryBudget {
		return fmt.Errorf("%w: grew by %d MiB, budget %d MiB", ErrMemoryBudget, grown>>20, e.opts.MemoryBudget>>20)
	}
	return nil
}

// heapBytes reads the live heap from runtime/metrics (cheap: no stop the
// world, unlike runtime.ReadMemStats).
func heapBytes() uint64 {
	sample := []metrics.Sample{{Name: "/memory/classes/heap/objects:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return sample[0].Value.Uint64()
}

// globalize replaces engine-local IDs in the pending triples by store IDs.
func (e *Engine) globalize(ctx context.Context) error {
	var terms []kb.Term
	seen := map[kb.ID]bool{}
	for i := range e.out.pending {
		d := &e.out.pending[i]
		for _, id := range [3]kb.ID{d.s, d.p, d.o} {
			if isLocal(id) && !seen[id] {
				seen[id] = true
				t, _ := e.terms.get(id)
				terms = append(terms, t)
			}
		}
	}
	if len(terms) == 0 {
		return nil
	}
	ids, err := e.ds.Intern(ctx, terms)
	if err != nil {
		return fmt.Errorf("reasoner: interning derived terms: %w", err)
	}
	real := make(map[kb.ID]kb.ID, len(ids))
	for i, id := range ids {
		real[e.ids[terms[i]]] = id
		e.ids[terms[i]] = id
		e.terms.set(id, terms[i])
	}
	for i := range e.out.pending {
		d := &e.out.pending[i]
		for _, id := range []*kb.ID{&d.s, &d.p, &d.o} {
			if r, ok := real[*id]; ok {
				*id = r
			}
		}
	}
	return nil
}

func (e *Engine) term(ctx context.Context, id kb.ID) (kb.Term, error) {
	// The workers of a round mostly read terms known already.
	e.mu.RLock()
	t, ok := e.terms.get(id)
	e.mu.RUnlock()
	if ok {
		return t, nil
	}
	e.mu.Lock()
	defer e.mu.Unlock()
	if t, ok := e.terms.get(id); ok {
		return t, nil
	}
	t, err := e.ds.Resolve(ctx, id)
	if err != nil {
		return kb.Term{}, fmt.Errorf("reasoner: resolving term %d: %w", id, err)
	}
	e.terms.set(id, t)
	e.ids[t] = id
	return t, nil
}

func (e *Engine) reset(ctx context.Context) error {
	for _, g := range []kb.ID{e.inferredG, e.derivG, e.internalG} {
		quads, err := kb.Collect(e.ds.Match(ctx, kb.Pattern{G: g}))
		if err != nil {
			return fmt.Errorf("reasoner: reading graph to reset: %w", err)
		}
		for len(quads) > 0 {
			n := min(len(quads), e.opts.BatchSize)
			if err := e.ds.Apply(ctx, kb.Delta{Remove: quads[:n]}); err != nil {
				return fmt.Errorf("reasoner: clearing graph: %w", err)
			}
			quads = quads[n:]
		}
	}
	return nil
}

// isDerivedGraph reports whether g holds only what rules derived (the
// inferred and rules-internal graphs), so that its triples count as
// derived, not asserted, when retracting.
func (e *Engine) isDerivedGraph(g kb.ID) bool { return g == e.inferredG || g == e.internalG }

func (e *Engine) reads(g kb.ID) bool {
	if g == e.derivG {
		return false
	}
	return e.readGraphs == nil || e.readGraphs[g]
}

func (e *Engine) load(ctx context.Context, skip map[kb.Quad]bool) error {
	graphs, err := e.ds.Graphs(ctx)
	if err != nil {
		return fmt.Errorf("reasoner: listing graphs: %w", err)
	}
	// Every graph but the derivations graph is read, as storeDigest does.
	e.digest, e.digestOK = contentDigest{}, e.readGraphs == nil && skip == nil
	for _, g := range graphs {
		if !e.reads(g) {
			continue
		}
		it := e.ds.Match(ctx, kb.Pattern{G: g})
		derived := e.isDerivedGraph(g)
		n := 0
		var t *table // the table of the last quad's predicate
		for it.Next() {
			q := it.Quad()
			if skip != nil && skip[q] {
				continue
			}
			if e.digestOK {
				e.digest.add(q)
			}
			if t == nil || t.p != q.P {
				t = e.ts.table(q.P, true)
			}
			fresh := false
			if derived {
				fresh = t.insert(q.S, q.O, 0)
			} else {
				fresh = t.assert(q.S, q.O, 0)
			}
			if fresh {
				e.summary.Loaded++
			}
			if n++; n&0xffff == 0 {
				if err := ctx.Err(); err != nil {
					it.Close()
					return err
				}
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return fmt.Errorf("reasoner: reading the store: %w", err)
		}
	}
	e.progress("load", 0)
	return nil
}

func (e *Engine) progress(phase string, round int) {
	if e.opts.Progress == nil {
		return
	}
	e.opts.Progress(Progress{Phase: phase, Round: round, Loaded: e.summary.Loaded,
		Derived: e.summary.Derived, Removed: e.summary.Removed, Elapsed: time.Since(e.start)})
}

// RunHoldQuads is how many derived quads (triples and derivation records)
// Run holds before it writes them, when Options.BatchSize is not set: 128
// MiB of quads. A run that derives fewer reaches the store in one
// Dataset.Apply at its end, which a store writes as one atomic, sorted
// ingest (the native store) instead of one batch per round, each flushed
// and compacted again: a kill during such a run leaves none of it.
const RunHoldQuads = 1 << 22

// Run derives every consequence of the loaded data to a fixpoint. Calling
// it again without new data derives nothing. What it derives is written
// at the end, in one Dataset.Apply up to RunHoldQuads quads (or
// Options.BatchSize), and before a rule's removal reads the store.
func (e *Engine) Run(ctx context.Context) (Summary, error) {
	if err := e.needAll(); err != nil {
		return e.finish(), err
	}
	first := !e.ranOnce
	e.ranOnce = true
	e.holding, e.holdLimit = true, e.runHold
	err := e.rounds(ctx, first)
	if err == nil {
		err = e.aggregates(ctx)
	}
	e.holding = false
	// As in Add: the working memory has what was derived before an
	// error, so the store gets it too.
	if ferr := e.writeHeld(context.WithoutCancel(ctx)); ferr != nil {
		err = errors.Join(err, fmt.Errorf("reasoner: writing derived triples: %w", ferr))
	}
	return e.finish(), err
}

// Add stores quads (in their graphs) and derives only their consequences.
// The quads and everything derived from them are written in one
// Dataset.Apply at the end (more than one only beyond BatchSize quads, or
// when a rule removes triples), so a reader of the store sees a batch
// with its consequences or not at all.
func (e *Engine) Add(ctx context.Context, quads []kb.Quad) (Summary, error) {
	if err := e.needAll(); err != nil {
		return e.finish(), err
	}
	e.digestOK = false // the store may hold some of quads already
	stored, err := e.storedOf(ctx, quads)
	if err != nil {
		return e.finish(), err
	}
	e.holding, e.holdLimit = true, e.opts.BatchSize
	e.held = kb.Delta{Add: append(e.held.Add[:0], quads...), Remove: e.held.Remove[:0]}
	sum, err := e.addRows(ctx, quads, stored)
	e.holding = false
	// The working memory has the quads and what was derived before any
	// error, so the store gets them too, even when ctx ended meanwhile.
	if ferr := e.writeHeld(context.WithoutCancel(ctx)); ferr != nil {
		if err == nil {
			return e.finish(), fmt.Errorf("reasoner: adding quads: %w", ferr)
		}
		err = errors.Join(err, ferr)
	}
	return sum, err
}

// storedOf returns the quads the store has already: they are not
// asserted a second time while the working memory has their triple (it
// counts the asserted graphs of each triple).
func (e *Engine) storedOf(ctx context.Context, quads []kb.Quad) (map[kb.Quad]bool, error) {
	var stored map[kb.Quad]bool
	for _, q := range quads {
		has, err := kb.Collect(e.ds.Match(ctx, kb.Pattern{S: q.S, P: q.P, O: q.O, G: q.G}))
		if err != nil {
			return nil, fmt.Errorf("reasoner: adding quads: %w", err)
		}
		if len(has) > 0 {
			if stored == nil {
				stored = map[kb.Quad]bool{}
			}
			stored[q] = true
		}
	}
	return stored, nil
}

// apply writes a delta, or holds it during Add and Run; held writes go out
// when they reach holdLimit quads.
func (e *Engine) apply(ctx context.Context, d kb.Delta) error {
	if !e.holding {
		return e.write(ctx, d)
	}
	if len(d.Remove) > 0 {
		// Removals come after what is held.
		if err := e.writeHeld(ctx); err != nil {
			return err
		}
		return e.write(ctx, d)
	}
	e.held.Add = append(e.held.Add, d.Add...)
	if len(e.held.Add) >= e.holdLimit {
		return e.writeHeld(ctx)
	}
	return nil
}

// writeHeld applies what Add or Run holds.
func (e *Engine) writeHeld(ctx context.Context) error {
	if len(e.held.Add) == 0 && len(e.held.Remove) == 0 {
		return nil
	}
	err := e.write(ctx, e.held)
	clear(e.held.Add)
	clear(e.held.Remove)
	e.held.Add, e.held.Remove = e.held.Add[:0], e.held.Remove[:0]
	return err
}

// write applies d to the store and keeps the digest: the quads a run
// derives are new to the store (the working memory holds every triple of
// the graphs it digests), so each one outside the derivations graph adds
// to it; a removal turns it off, as does Add, whose quads the store may
// hold already.
func (e *Engine) write(ctx context.Context, d kb.Delta) error {
	if len(d.Remove) > 0 {
		e.digestOK = false
	}
	if err := e.ds.Apply(ctx, d); err != nil {
		e.digestOK = false
		return err
	}
	if e.digestOK {
		for _, q := range d.Add {
			if q.G != e.derivG {
				e.digest.add(q)
			}
		}
	}
	return nil
}

// addRows puts quads into the working memory and derives their
// consequences; quads in stored are in the store already, so they count
// as asserted only when the working memory lacks their triple.
func (e *Engine) addRows(ctx context.Context, quads []kb.Quad, stored map[kb.Quad]bool) (Summary, error) {
	next := e.cur + 1
	added := 0
	var neg [][3]kb.ID // triples new to the working memory, for noValue
	seen := make(map[kb.Quad]bool, len(quads))
	for _, q := range quads {
		if seen[q] {
			continue
		}
		seen[q] = true
		if !e.reads(q.G) {
			continue
		}
		t := e.ts.table(q.P, true)
		if stored[q] && t.lookup(q.S, q.O) >= 0 {
			continue
		}
		fresh := false
		if e.isDerivedGraph(q.G) {
			fresh = t.insert(q.S, q.O, next)
		} else {
			fresh = t.assert(q.S, q.O, next)
		}
		if fresh {
			if e.negation {
				neg = append(neg, [3]kb.ID{q.S, q.P, q.O})
			}
			added++
			e.summary.Loaded++
		}
	}
	if added == 0 {
		return e.finish(), nil
	}
	e.cur = next
	e.addGens = append(e.addGens, next)
	if len(neg) > 0 {
		// What a noValue test allowed before these triples came may not
		// follow any more.
		rt := e.newRetraction()
		if err := rt.negated(ctx, neg); err != nil {
			return e.finish(), err
		}
		if len(rt.marked) > 0 {
			if err := e.retractable(); err != nil {
				return e.finish(), err
			}
			err := e.maintain(ctx, rt)
			if err == nil {
				err = e.aggregates(ctx)
			}
			if err == nil && !e.holding {
				err = e.writeHeld(ctx)
			}
			return e.finish(), err
		}
	}
	err := e.rounds(ctx, false)
	if err == nil {
		err = e.aggregates(ctx)
	}
	return e.finish(), err
}

func (e *Engine) finish() Summary {
	s := e.summary
	s.Duration = time.Since(e.start)
	s.Firings = make(map[string]int64, len(e.summary.Firings))
	for k, v := range e.summary.Firings {
		s.Firings[k] = v
	}
	s.RuleTime = make(map[string]time.Duration, len(e.summary.RuleTime))
	for k, v := range e.summary.RuleTime {
		s.RuleTime[k] = v
	}
	return s
}

// rounds runs semi-naive rounds from generation e.cur until nothing new is
// derived. fromScratch marks the first round over freshly loaded data,
// where every row is new and none is old.
func (e *Engine) rounds(ctx context.Context, fromScratch bool) error {
	for round := 0; ; round++ {
		if err := ctx.Err(); err != nil {
			return err
		}
		if round >= e.opts.MaxIterations {
			return ErrMaxIterations
		}
		if round > 0 || !fromScratch {
			if err := e.replan(ctx); err != nil {
				return err
			}
		}
		limitHit, err := e.evaluateRound(ctx, fromScratch && round == 0)
		if err != nil {
			return e.stop(ctx, err)
		}
		e.summary.Rounds++
		changed, err := e.commit(ctx)
		if err != nil {
			return err
		}
		if err := e.checkMemory(); err != nil {
			return err
		}
		e.progress("round", round+1)
		if limitHit {
			return ErrMaxDerived
		}
		if !changed {
			e.progress("done", round+1)
			return nil
		}
		e.cur++
	}
}

// stop writes what was derived before an error, then returns the error.
func (e *Engine) stop(ctx context.Context, err error) error {
	if ctx.Err() == nil {
		if _, cerr := e.commit(ctx); cerr != nil {
			return errors.Join(err, cerr)
		}
	}
	return err
}

func (e *Engine) hasDelta(pl *plan) bool {
	st := pl.steps[0]
	if st.p.mode == modeConst {
		t := e.ts.tables[st.p.id]
		return t != nil && t.hasDelta(e.cur)
	}
	for _, t := range e.ts.order {
		if t.hasDelta(e.cur) {
			return true
		}
	}
	return false
}

// commit applies the round's removals and additions to the working memory
// and the store. It reports whether anything changed.
func (e *Engine) commit(ctx context.Context) (bool, error) {
	changed := false
	var delta kb.Delta
	flush := func() error {
		if len(delta.Add) == 0 && len(delta.Remove) == 0 {
			return nil
		}
		if err := e.apply(ctx, delta); err != nil {
			return fmt.Errorf("reasoner: writing derived triples: %w", err)
		}
		delta = kb.Delta{}
		return nil
	}
	for _, r := range e.removes {
		if isLocal(r[0]) || isLocal(r[1]) || isLocal(r[2]) {
			continue // made by a builtin: not stored anywhere
		}
		t := e.ts.tables[r[1]]
		if t == nil || !t.remove(r[0], r[2]) {
			continue
		}
		changed = true
		e.summary.Removed++
		// The store must have what Add holds before it is searched.
		if err := e.writeHeld(ctx); err != nil {
			return false, fmt.Errorf("reasoner: writing derived triples: %w", err)
		}
		quads, err := kb.Collect(e.ds.Match(ctx, kb.Pattern{S: r[0], P: r[1], O: r[2]}))
		if err != nil {
			return false, fmt.Errorf("reasoner: finding triples to remove: %w", err)
		}
		for _, q := range quads {
			if q.G != e.derivG {
				delta.Remove = append(delta.Remove, q)
			}
		}
	}
	e.removes = e.removes[:0]
	if err := e.globalize(ctx); err != nil {
		return false, err
	}
	next := e.cur + 1
	var fresh []int32 // indexes in e.out.pending of this batch's new triples
	for i := range e.out.pending {
		d := &e.out.pending[i]
		e.need(d.p, d.s, d.o)
		if !e.ts.table(d.p, true).insert(d.s, d.o, next) {
			continue
		}
		changed = true
		e.summary.Derived++
		e.summary.Firings[e.rules[d.rule].cr.label]++
		delta.Add = append(delta.Add, kb.Quad{S: d.s, P: d.p, O: d.o, G: e.graphOf(d.p)})
		if !e.opts.NoDerivations {
			fresh = append(fresh, int32(i))
		}
		if len(delta.Add) >= e.opts.BatchSize {
			if err := e.addRecords(ctx, &delta, fresh); err != nil {
				return false, err
			}
			fresh = fresh[:0]
			if err := flush(); err != nil {
				return false, err
			}
		}
	}
	if err := e.addRecords(ctx, &delta, fresh); err != nil {
		return false, err
	}
	if err := flush(); err != nil {
		return false, err
	}
	e.out.pending = e.out.pending[:0]
	e.out.premArea = nil
	e.out.set.clear()
	return changed, nil
}

// graphOf is the graph a derived triple with predicate p goes to: the
// rules-internal graph for helper predicates, else the inferred graph.
func (e *Engine) graphOf(p kb.ID) kb.ID {
	internal, ok := e.internalP[p]
	if !ok {
		t, _ := e.terms.get(p)
		internal = strings.HasPrefix(t.Value, kb.RulesInternalNamespace) && t.Kind == kb.KindIRI
		e.internalP[p] = internal
	}
	if internal {
		return e.internalG
	}
	return e.inferredG
}

// addRecords adds to delta the derivation batches of the pending triples
// fresh (see derivation.go): sorted by subject, recordBatch to a literal,
// and the quads that bound the literal's subject IDs.
func (e *Engine) addRecords(ctx context.Context, delta *kb.Delta, fresh []int32) error {
	if len(fresh) == 0 {
		return nil
	}
	slices.SortStableFunc(fresh, func(a, b int32) int { return cmp.Compare(e.out.pending[a].s, e.out.pending[b].s) })
	var (
		lits   []kb.Term
		bounds [][2]kb.ID // per literal, its lowest and highest subject
		buf    []byte
		prem   [][3]kb.ID
	)
	for start := 0; start < len(fresh); start += recordBatch {
		chunk := fresh[start:min(start+recordBatch, len(fresh))]
		buf = buf[:0]
		for k, i := range chunk {
			d := &e.out.pending[i]
			prem = prem[:0]
			for _, pr := range d.prem {
				if pr.t != nil {
					prem = append(prem, [3]kb.ID{pr.t.s[pr.row], pr.t.p, pr.t.o[pr.row]})
				}
			}
			if k > 0 {
				buf = append(buf, '\n')
			}
			buf = appendEntry(buf, e.rules[d.rule].labelID, [3]kb.ID{d.s, d.p, d.o}, prem)
		}
		lits = append(lits, kb.Literal(string(buf), DerivationBatchDatatypeIRI))
		bounds = append(bounds, [2]kb.ID{e.out.pending[chunk[0]].s, e.out.pending[chunk[len(chunk)-1]].s})
	}
	ids, err := e.ds.Intern(ctx, lits)
	if err != nil {
		return fmt.Errorf("reasoner: interning derivation records: %w", err)
	}
	for i, id := range ids {
		delta.Add = append(delta.Add, kb.Quad{S: bounds[i][0], P: e.derivFirstP, O: id, G: e.derivG})
		if bounds[i][1] != bounds[i][0] {
			delta.Add = append(delta.Add, kb.Quad{S: bounds[i][1], P: e.derivLastP, O: id, G: e.derivG})
		}
	}
	// A store keeps only the terms its quads use: each label the records
	// name goes into a quad of the same write (adding it again is a no-op).
	labels := map[kb.ID]bool{}
	for _, i := range fresh {
		if l := e.rules[e.out.pending[i].rule].labelID; !labels[l] {
			labels[l] = true
			delta.Add = append(delta.Add, kb.Quad{S: e.derivG, P: e.labelP, O: l, G: e.derivG})
		}
	}
	return nil
}

// --- builtins.Env for engine-level state ---

func (e *Engine) regexp(pattern string) (*regexp.Regexp, error) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if re, ok := e.regexps[pattern]; ok {
		return re, nil
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("regex: %w", err)
	}
	e.regexps[pattern] = re
	return re, nil
}

func (e *Engine) newBlank() kb.Term {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.blanks++
	return kb.Blank("t" + e.runID + "x" + strconv.Itoa(e.blanks))
}

func (e *Engine) print(line string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.opts.Print != nil {
		fmt.Fprintln(e.opts.Print, line)
	}
}
