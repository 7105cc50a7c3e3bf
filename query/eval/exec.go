package eval

import (
	"context"
	"errors"
	"fmt"
	"iter"
	"slices"
	"strings"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
	"github.com/perfkb/perfkb/query/opt"
)

// Typed evaluation errors; callers map them to exit codes and HTTP statuses.
var (
	// ErrQueryTimeout: the query ran longer than Options.Timeout.
	ErrQueryTimeout = errors.New("query timed out")
	// ErrQueryCanceled: the caller canceled the context.
	ErrQueryCanceled = errors.New("query canceled")
	// ErrTooManyRows: the result has more rows than Options.MaxRows.
	ErrTooManyRows = errors.New("query result exceeds the row limit")
	// ErrUnsupportedService: no handler for a SERVICE endpoint.
	ErrUnsupportedService = errors.New("unsupported service")
)

// DatasetSpec says which graphs of the store form the query's RDF dataset.
// The zero value is the perfkb default: the default graph is the union of
// all graphs (the sites' graphs and the inferred graph) and every graph is
// a named graph.
type DatasetSpec struct {
	// Default lists the graphs merged into the default graph. When nil the
	// default graph is the union of all graphs, unless DefaultEmpty is set.
	Default []kb.Term
	// DefaultEmpty makes the default graph empty when Default is nil.
	DefaultEmpty bool
	// Named lists the named graphs; when nil every graph of the store
	// except kb.DefaultGraph is named, unless NamedNone is set.
	Named []kb.Term
	// NamedNone means there are no named graphs when Named is nil.
	NamedNone bool
}

// Options configure one evaluation.
type Options struct {
	// CheckUpdate, when set, is called by Update with the quads an update
	// request adds, before anything is applied; an error from it refuses
	// the whole request, leaving the dataset unchanged (a server checks
	// the writes against SHACL shapes this way).
	CheckUpdate func(ctx context.Context, added []kb.TermQuad) error
	// Timeout bounds the evaluation (0: none).
	Timeout time.Duration
	// MaxRows caps the number of result rows or triples (0: none).
	MaxRows int64
	// Dataset selects the default and named graphs; FROM / FROM NAMED in
	// the query override it.
	Dataset DatasetSpec
	// Service handles SERVICE; nil means DefaultServiceHandler.
	Service ServiceHandler
	// ServiceBatch is the number of left rows per bind-join request
	// (0: DefaultServiceBatch).
	ServiceBatch int
	// ServiceConcurrency bounds the SERVICE calls in flight (0:
	// DefaultServiceConcurrency).
	ServiceConcurrency int
	// Base is the base IRI for IRI(); the query's own BASE wins.
	Base string
	// Now fixes NOW(); the zero time means the current time.
	Now time.Time
	// Explain marks a run whose plan will be printed. Row counters are
	// cheap and always kept, so it changes nothing in evaluation today.
	Explain bool
	// Load says which files SPARQL LOAD may read.
	Load LoadPolicy
	// QueryMemory bounds, in bytes, what the query's buffering operators
	// may hold at once (0: no bound); past it the query fails with a
	// *LimitError naming LimitQueryMemory. See memBudget.
	QueryMemory int64
	// MemoryPool, when set, also bounds what this query holds together
	// with the other queries sharing the pool (a *LimitError naming
	// LimitQueryMemoryTotal, Busy).
	MemoryPool *MemoryPool
	// Yield, when set, is called every YieldEvery evaluation steps. A
	// server's scheduler may block in it, so that queries which have run
	// long wait while short ones run; an error stops the query with it.
	Yield func(ctx context.Context) error
	// Workers, when set, says how many goroutines one operator of the
	// query may use at once now (a parallel aggregate scan, a sort); nil
	// means GOMAXPROCS. A server with every core busy answers 1, so that a
	// query's own workers do not crowd out the queries it admitted.
	Workers func() int
	// NoOptimize runs the algebra as written (opt.Options.NoOptimize):
	// triple patterns in syntactic order, FILTERs at the end of their
	// group, and joins by value wherever more than a BGP, path or VALUES
	// table is fed bindings. For checking the optimizer; slow.
	NoOptimize bool
	// OneShot says the process answers this query and exits (perfkb
	// query): the planner then estimates from value orders already built
	// and does not build one for an estimate, since it would not outlive
	// the query (a server builds it once and keeps it).
	OneShot bool
	// Background, when set, runs work that a later query profits from
	// and this one need not wait for (building a kept probe index after
	// a write dropped the last one): the query starts it with go
	// Background(fn) and goes on with the store's own lookups. A server
	// sets it, with fn run on a thread of lowered priority; nil builds
	// such values on the query's own path.
	Background func(fn func())
	// Functions resolves function calls: built-in keywords, casts and
	// extension functions by IRI. Nil means function.Builtin().
	Functions *function.Registry
	// ReuseRows lets Result.Next return the same slice for every row,
	// overwritten by the next call: for a caller that writes each row out
	// before it asks for the next (a server encoding its answer), which
	// then allocates nothing per row.
	ReuseRows bool
}

// executor holds the state of one evaluation.
type executor struct {
	ctx      context.Context
	ds       kb.Dataset
	dict     *dictionary
	env      *FuncEnv
	opts     Options
	vars     *varTable
	defaults []kb.ID // default graph IDs, when not unionAll
	unionAll bool
	// hidden holds the graphs the union default graph leaves out
	// (kb.HiddenGraphs present in the store); nil when there are none.
	hidden map[kb.ID]bool
	multi  bool // the store has more than one graph (dedupe unions)
	// graphLast: the store yields a triple's quads together when the graph
	// is unbound (kb.GraphLast), so the union dedupes by neighbours.
	graphLast bool
	named     []kb.ID
	namedSet  map[kb.ID]bool
	ticks     uint32
	service   ServiceHandler
	source    kb.QuadSource  // ds as a kb.QuadSource, or nil
	scanner   kb.QuadScanner // ds as a kb.QuadScanner, or nil
	svc       *serviceState
	mem       *memBudget   // nil: no QueryMemory bound
	plan      *opt.Plan    // the optimizer's plan of the pattern being compiled
	keyBuf    []byte       // scratch for hash join keys (hashjoin.go)
	numcol    *kb.IDColumn // the store's numeric value per ID, or nil (numcolumn.go)
	// lets, while a FILTER fused with its BIND compiles, maps the BIND's
	// slot to the node that computes its value (extendfilter.go).
	lets map[int]*extendFilterNode
}

// YieldEvery is how many evaluation steps (a row visited, joined or
// tested) come between two calls of Options.Yield.
const YieldEvery = 1024

// check reports cancellation every YieldEvery calls.
func (ex *executor) check() error {
	ex.ticks++
	if ex.ticks%YieldEvery != 0 {
		return nil
	}
	if err := ctxErr(ex.ctx); err != nil {
		return err
	}
	if ex.opts.Yield != nil {
		if err := ex.opts.Yield(ex.ctx); err != nil {
			if ctx := ctxErr(ex.ctx); ctx != nil {
				return ctx // the wait ended with the query's own deadline
			}
			return err
		}
	}
	return nil
}

func ctxErr(ctx context.Context) error {
	switch err := ctx.Err(); {
	case err == nil:
		return nil
	case errors.Is(err, context.DeadlineExceeded):
		return ErrQueryTimeout
	default:
		return ErrQueryCanceled
	}
}

func newExecutor(ctx context.Context, ds kb.Dataset, opts Options, base string, qds *algebra.Dataset) (_ *executor, err error) {
	now := opts.Now
	if now.IsZero() {
		now = time.Now()
	}
	if base == "" {
		base = opts.Base
	}
	ex := &executor{ctx: ctx, ds: ds, dict: newDictionary(ctx, ds), env: NewFuncEnv(now, base), opts: opts, vars: newVarTable(), service: opts.Service}
	ex.numcol = numColumnOf(ds)
	ex.mem = newMemBudget(opts.QueryMemory, opts.MemoryPool)
	ex.dict.mem = ex.mem
	defer func() {
		if err != nil {
			ex.mem.close() // the pool gets back the lookups' charges
		}
	}()
	if ex.service == nil {
		ex.service = DefaultServiceHandler{}
	}
	ex.source, _ = ds.(kb.QuadSource)
	ex.scanner, _ = ds.(kb.QuadScanner)
	if gl, ok := ds.(kb.GraphLast); ok {
		ex.graphLast = gl.GraphLast()
	}
	spec := opts.Dataset
	if qds != nil {
		spec = DatasetSpec{NamedNone: true, DefaultEmpty: true}
		for _, g := range qds.Default {
			spec.Default = append(spec.Default, kb.IRI(g))
		}
		for _, g := range qds.Named {
			spec.Named = append(spec.Named, kb.IRI(g))
		}
	}
	graphs, err := ds.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	ex.multi = len(graphs) > 1
	switch {
	case spec.Default != nil:
		for _, g := range spec.Default {
			if id, ok, err := ex.dict.lookup(g); err != nil {
				return nil, err
			} else if ok {
				ex.defaults = append(ex.defaults, id)
			}
		}
		ex.unionAll, err = ex.defaultsAreUnion(graphs)
		if err != nil {
			return nil, err
		}
		if ex.unionAll {
			ex.defaults = nil
		}
	case !spec.DefaultEmpty:
		ex.unionAll = true
		// The union leaves out perfkb's bookkeeping graphs (kb.HiddenGraphs)
		// when the store has them: matches in them are dropped as they are
		// visited, so stores without them pay one nil check per quad.
		for _, g := range kb.HiddenGraphs {
			if id, ok, err := ex.dict.lookup(g); err != nil {
				return nil, err
			} else if ok && slices.Contains(graphs, id) {
				if ex.hidden == nil {
					ex.hidden = map[kb.ID]bool{}
				}
				ex.hidden[id] = true
			}
		}
	}
	ex.namedSet = map[kb.ID]bool{}
	switch {
	case spec.Named != nil:
		for _, g := range spec.Named {
			if id, ok, err := ex.dict.lookup(g); err != nil {
				return nil, err
			} else if ok && !ex.namedSet[id] {
				ex.named = append(ex.named, id)
				ex.namedSet[id] = true
			}
		}
	case !spec.NamedNone:
		// Every graph but the unnamed one (kb.DefaultGraph) is named.
		def, hasDef, err := ex.dict.lookup(kb.DefaultGraph)
		if err != nil {
			return nil, err
		}
		for _, g := range graphs {
			if hasDef && g == def {
				continue
			}
			ex.named = append(ex.named, g)
			ex.namedSet[g] = true
		}
	}
	return ex, nil
}

// Result is the outcome of a query. For SELECT, Next streams the
// solutions (Vars order); for ASK, Boolean is set; for CONSTRUCT and
// DESCRIBE, NextTriple streams the graph.
type Result struct {
	Form    algebra.QueryForm
	Vars    []algebra.Var
	Boolean bool

	next       func() ([]kb.Term, bool)
	nextTriple func() (kb.Triple, bool)
	stop       func()
	err        error
	rows       int64
	max        int64
	plan       node
	ex         *executor
	close      func()
}

// ReusesRows reports whether Next overwrites the slice it returned before
// (Options.ReuseRows).
func (r *Result) ReusesRows() bool { return r.ex != nil && r.ex.opts.ReuseRows }

// Next returns the next SELECT row (one term per Vars entry, the zero Term
// for unbound) or false at the end or on an error (see Err). With
// Options.ReuseRows the slice is overwritten by the next call.
func (r *Result) Next() ([]kb.Term, bool) {
	if r.next == nil || r.err != nil {
		return nil, false
	}
	row, ok := r.next()
	if !ok {
		r.Close()
		return nil, false
	}
	r.rows++
	if r.max > 0 && r.rows > r.max {
		r.err = fmt.Errorf("%w (%d)", ErrTooManyRows, r.max)
		r.Close()
		return nil, false
	}
	return row, true
}

// NextTriple returns the next triple of a CONSTRUCT or DESCRIBE result, or
// false at the end or on an error (see Err). Each triple comes once: the
// result is a set, and the triples already given are kept (and charged to
// the query memory budget) to drop repeats.
func (r *Result) NextTriple() (kb.Triple, bool) {
	if r.nextTriple == nil || r.err != nil {
		return kb.Triple{}, false
	}
	t, ok := r.nextTriple()
	if !ok || r.err != nil {
		r.Close()
		return kb.Triple{}, false
	}
	return t, true
}

// AllTriples drains a CONSTRUCT or DESCRIBE result into a slice.
func (r *Result) AllTriples() ([]kb.Triple, error) {
	var out []kb.Triple
	for {
		t, ok := r.NextTriple()
		if !ok {
			return out, r.Err()
		}
		out = append(out, t)
	}
}

// Err returns the error that ended the row stream, if any.
func (r *Result) Err() error { return r.err }

// Close releases the evaluation; it is safe to call more than once.
func (r *Result) Close() {
	if r.stop != nil {
		r.stop()
		r.stop = nil
	}
	if r.close != nil {
		r.close()
		r.close = nil
	}
}

// Explain prints the optimizer's plan (package opt: the annotated
// algebra, with the store's counts and estimates) and then the executed
// plan with estimated and actual row counts (the actual counts are
// complete once the rows have been read).
func (r *Result) Explain() string {
	if r.plan == nil {
		return ""
	}
	var b strings.Builder
	if r.ex != nil && r.ex.plan != nil {
		b.WriteString("optimizer:\n")
		b.WriteString(r.ex.plan.String())
		b.WriteString("execution:\n")
	}
	b.WriteString(explainPlan(r.plan))
	return b.String()
}

// Query evaluates a parsed query over ds. For SELECT the rows stream
// through Result.Next; the caller must drain or Close the result.
func Query(ctx context.Context, ds kb.Dataset, q *algebra.Query, opts Options) (*Result, error) {
	cancel := func() {}
	if opts.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
	}
	ex, err := newExecutor(ctx, ds, opts, q.BaseIRI, q.Dataset)
	if err != nil {
		cancel()
		return nil, err
	}
	ex.initServices(q)
	stop := func() { ex.stopServices(); cancel(); ex.mem.close() }
	res := &Result{Form: q.Form, Vars: q.Vars, max: opts.MaxRows, ex: ex, close: stop}
	plan, err := ex.compileQuery(q)
	if err != nil {
		stop()
		return nil, err
	}
	res.plan = plan
	ex.startServices()
	switch q.Form {
	case algebra.FormSelect:
		slots := make([]int, len(q.Vars))
		for i, v := range q.Vars {
			slots[i] = ex.vars.slot(v)
		}
		seq := func(yield func([]kb.Term) bool) {
			var shared []kb.Term
			if opts.ReuseRows {
				shared = make([]kb.Term, len(slots))
			}
			err := guard(func() error {
				return plan.run(ex, ex.newRow(), func(r row) bool {
					out := shared
					if out == nil {
						out = make([]kb.Term, len(slots))
					}
					for i, s := range slots {
						t, err := ex.dict.term(r[s])
						if err != nil {
							res.err = err
							return false
						}
						out[i] = t
					}
					return yield(out)
				})
			})
			if err != nil && !errors.Is(err, errStop) && res.err == nil {
				res.err = err
			}
		}
		res.next, res.stop = iter.Pull(iter.Seq[[]kb.Term](seq))
		return res, nil
	case algebra.FormAsk:
		found := false
		err := guard(func() error {
			return plan.run(ex, ex.newRow(), func(row) bool { found = true; return false })
		})
		defer res.Close()
		if err != nil && !errors.Is(err, errStop) {
			return nil, err
		}
		res.Boolean = found
		return res, nil
	case algebra.FormConstruct, algebra.FormDescribe:
		// The triples stream to the caller as the solutions are
		// found; nothing but the set of triples given so far is held.
		produce := func(emit func(kb.Triple) bool) error {
			if q.Form == algebra.FormConstruct {
				return ex.construct(plan, q.Template, emit)
			}
			return ex.describe(plan, q, emit)
		}
		if q.Form == algebra.FormDescribe && len(q.DescribeAt) > 0 {
			// A DESCRIBE at endpoints merges their answers first, so
			// that the SERVICE report (Services) is complete when the
			// result is returned, as a fan-out's response headers
			// need.
			var remote []kb.Triple
			if err := guard(func() (err error) { remote, err = ex.describeRemote(plan, q); return err }); err != nil {
				res.Close()
				return nil, err
			}
			produce = func(emit func(kb.Triple) bool) error {
				for _, t := range remote {
					if !emit(t) {
						return errStop
					}
				}
				return nil
			}
		}
		seq := func(yield func(kb.Triple) bool) {
			var n int64
			emit := func(t kb.Triple) bool {
				if n++; ex.opts.MaxRows > 0 && n > ex.opts.MaxRows {
					res.err = fmt.Errorf("%w (%d)", ErrTooManyRows, ex.opts.MaxRows)
					return false
				}
				return yield(t)
			}
			err := guard(func() error { return produce(emit) })
			if err != nil && !errors.Is(err, errStop) && res.err == nil {
				res.err = err
			}
		}
		res.nextTriple, res.stop = iter.Pull(iter.Seq[kb.Triple](seq))
		return res, nil
	}
	cancel()
	return nil, fmt.Errorf("eval: unknown query form %v", q.Form)
}

// ErrInternal reports a bug in the evaluator (a recovered panic).
var ErrInternal = errors.New("eval: internal error")

// guard runs fn, turning a panic into ErrInternal so one bad query cannot
// bring down a server. The iterator protocol's own panics pass through.
func guard(fn func() error) (err error) {
	defer func() {
		if p := recover(); p != nil {
			err = fmt.Errorf("%w: %v", ErrInternal, p)
		}
	}()
	return fn()
}

// construct instantiates the template with every solution (§16.2) and
// gives each resulting triple to emit once; it returns errStop when emit
// asks to stop.
func (ex *executor) construct(plan node, template []algebra.TriplePattern, emit func(kb.Triple) bool) error {
	seen := map[kb.Triple]struct{}{}
	var memErr error
	stopped := false
	err := plan.run(ex, ex.newRow(), func(r row) bool {
		bnodes := map[string]kb.Term{}
		for _, tp := range template {
			var terms [3]kb.Term
			ok := true
			for i, n := range [3]algebra.Node{tp.S, tp.P, tp.O} {
				t, err := ex.instantiate(n, r, bnodes)
				if err != nil || t.IsZero() {
					ok = false
					break
				}
				terms[i] = t
			}
			if !ok || terms[0].IsLiteral() || !terms[1].IsIRI() {
				continue
			}
			tr := kb.Triple{S: terms[0], P: terms[1], O: terms[2]}
			// A triple with a blank node of the template is new
			// (the node is fresh for this solution): it need not
			// be remembered.
			fresh := isTemplateBlank(tp.S) || isTemplateBlank(tp.O)
			if !fresh {
				if _, dup := seen[tr]; dup {
					continue
				}
				if memErr = ex.mem.charge(tripleBytes(tr), "CONSTRUCT"); memErr != nil {
					return false
				}
				seen[tr] = struct{}{}
			}
			if !emit(tr) {
				stopped = true
				return false
			}
		}
		return ex.check() == nil
	})
	if memErr != nil {
		return memErr
	}
	if stopped {
		return errStop
	}
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	return ctxErr(ex.ctx)
}

// isTemplateBlank reports whether a template node is a blank node (a
// fresh one per solution), not a variable.
func isTemplateBlank(n algebra.Node) bool { return !n.IsVar() && n.Term.IsBlank() }

// tripleBytes is a result triple held in the set of triples already
// given, with its lexical forms.
func tripleBytes(tr kb.Triple) int64 {
	return mapEntryExtra + termBytes(tr.S) + termBytes(tr.P) + termBytes(tr.O)
}

// instantiate turns a template node into a term for solution r; blank
// node labels map to fresh nodes per solution.
func (ex *executor) instantiate(n algebra.Node, r row, bnodes map[string]kb.Term) (kb.Term, error) {
	if n.IsVar() {
		s, ok := ex.vars.slots[n.Var]
		if !ok || r[s] == 0 {
			return kb.Term{}, nil
		}
		return ex.dict.term(r[s])
	}
	if n.Term.IsBlank() {
		b, ok := bnodes[n.Term.Value]
		if !ok {
			b = ex.env.FreshBlank()
			bnodes[n.Term.Value] = b
		}
		return b, nil
	}
	return n.Term, nil
}

// describe gives emit the concise description of each resource: the
// triples with it as subject in the default graph, following blank-node
// objects (DESCRIBE at endpoints is describeRemote).
func (ex *executor) describe(plan node, q *algebra.Query, emit func(kb.Triple) bool) error {
	resources := map[kb.ID]bool{}
	var order []kb.ID
	var memErr error
	add := func(id kb.ID) {
		if id != 0 && !isTemp(id) && !resources[id] && memErr == nil {
			if memErr = ex.mem.charge(idSetBytes(8, 1)+8, "DESCRIBE"); memErr != nil {
				return
			}
			resources[id] = true
			order = append(order, id)
		}
	}
	var varSlots []int
	for _, n := range q.Describe {
		if n.IsVar() {
			varSlots = append(varSlots, ex.vars.slot(n.Var))
		} else if id, ok, err := ex.dict.lookup(n.Term); err != nil {
			return err
		} else if ok {
			add(id)
		}
	}
	if q.Star {
		for _, v := range q.Vars {
			varSlots = append(varSlots, ex.vars.slot(v))
		}
	}
	if len(varSlots) > 0 {
		err := plan.run(ex, ex.newRow(), func(r row) bool {
			for _, s := range varSlots {
				add(r[s])
			}
			return memErr == nil
		})
		if memErr != nil {
			return memErr
		}
		if err != nil && !errors.Is(err, errStop) {
			return err
		}
	}
	return ex.describeEach(order, emit)
}

// describeIDs returns the concise descriptions of the resources (see
// describeEach).
func (ex *executor) describeIDs(order []kb.ID) ([]kb.Triple, error) {
	var out []kb.Triple
	err := ex.describeEach(order, func(t kb.Triple) bool { out = append(out, t); return true })
	return out, err
}

// describeEach gives emit the concise descriptions of the resources: the
// triples with each as subject in the default graph, following blank-node
// objects; it returns errStop when emit asks to stop.
func (ex *executor) describeEach(order []kb.ID, emit func(kb.Triple) bool) error {
	resources := map[kb.ID]bool{}
	for _, id := range order {
		resources[id] = true
	}
	var memErr error
	add := func(id kb.ID) {
		if !resources[id] && memErr == nil {
			if memErr = ex.mem.charge(idSetBytes(8, 1)+8, "DESCRIBE"); memErr != nil {
				return
			}
			resources[id] = true
			order = append(order, id)
		}
	}
	seen := map[kb.Triple]struct{}{}
	for i := 0; i < len(order); i++ {
		quads, err := ex.matchDefault(kb.Pattern{S: order[i]})
		if err != nil {
			return err
		}
		for _, qd := range quads {
			tq, err := kb.ResolveQuad(ex.ctx, ex.ds, qd)
			if err != nil {
				return err
			}
			tr := kb.Triple{S: tq.S, P: tq.P, O: tq.O}
			if _, dup := seen[tr]; !dup {
				if err := ex.mem.charge(tripleBytes(tr), "DESCRIBE"); err != nil {
					return err
				}
				seen[tr] = struct{}{}
				if !emit(tr) {
					return errStop
				}
			}
			if tq.O.IsBlank() {
				add(qd.O)
			}
		}
		if memErr != nil {
			return memErr
		}
	}
	return nil
}

// matchDefault returns the quads of the default graph matching p (G is
// ignored), deduplicated on the triple.
func (ex *executor) matchDefault(p kb.Pattern) ([]kb.Quad, error) {
	var out []kb.Quad
	seen := map[[3]kb.ID]bool{}
	graphs := ex.defaults
	if ex.unionAll {
		graphs = []kb.ID{kb.Any}
	}
	for _, g := range graphs {
		p.G = g
		quads, err := kb.Collect(ex.ds.Match(ex.ctx, p))
		if err != nil {
			return nil, err
		}
		for _, q := range quads {
			if ex.unionAll && ex.hidden[q.G] {
				continue
			}
			k := [3]kb.ID{q.S, q.P, q.O}
			if !seen[k] {
				seen[k] = true
				out = append(out, q)
			}
		}
	}
	return out, nil
}
