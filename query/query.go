// Package query is perfkb's SPARQL engine API, used by the CLI and the HTTP
// server. It ties the stages together:
//
//	text ──syntax──▶ algebra ──eval (planner + evaluator over kb.Dataset)──▶ Result ──results──▶ JSON/XML/CSV/TSV/N-Triples
//
// Prepare parses a query once (SPARQL 1.1, or legacy RDQL detected from
// the text); Exec evaluates it over a store; Update (or PrepareUpdate and
// ExecUpdate) runs a SPARQL 1.1 Update request atomically. Options carry
// everything a caller configures: limits, the protocol request's dataset
// (Protocol), SERVICE handling, and the fan-out to registered sites
// (Sites; the site registry and client are re-exported in sites.go). The
// CLI and the server import this package and query/results only, never
// the stages (imports_test.go checks it). Errors in the query text are *textpos.Error values at
// Options.Source:line:column (InvalidInput() is true); evaluation limits produce
// eval.ErrQueryTimeout, eval.ErrQueryCanceled, eval.ErrTooManyRows or a
// *LimitError (Options.QueryMemory exceeded).
package query

import (
	"context"
	"io"
	"slices"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/function"
	"github.com/perfkb/perfkb/query/results"
	"github.com/perfkb/perfkb/query/syntax"
)

// Re-exported evaluation errors, so callers need only this package.
var (
	ErrQueryTimeout  = eval.ErrQueryTimeout
	ErrQueryCanceled = eval.ErrQueryCanceled
	ErrTooManyRows   = eval.ErrTooManyRows
	// ErrLimit matches every *LimitError (errors.Is).
	ErrLimit = eval.ErrLimit
)

// LimitError reports a query that needed more of a bounded resource (its
// Limit, e.g. "query-memory") than allowed; errors.As finds it.
type LimitError = eval.LimitError

// Options configure parsing and evaluation.
type Options struct {
	// Base is the base IRI for relative IRIs in the query text.
	Base string
	// Source names the query text in syntax errors (a file name).
	Source string
	// Timeout bounds evaluation (0: none).
	Timeout time.Duration
	// MaxRows caps result rows / triples (0: none).
	MaxRows int64
	// Dataset selects default and named graphs (zero value: the default
	// graph is the union of all graphs, every graph is named). FROM and
	// FROM NAMED in the query override it.
	Dataset eval.DatasetSpec
	// Protocol, when it names graphs, is the dataset of a SPARQL protocol
	// request: for a query it replaces the query's FROM and FROM NAMED
	// (SPARQL 1.1 Protocol 2.1.4), for an update it is the USING dataset
	// and an update naming its own is refused (see ExecUpdate). It
	// overrides Dataset.
	Protocol *ProtocolDataset
	// Sites, when set, fans a query out to registered sites ("all", or
	// NAME,…[,local]; see Result.Federation): its WHERE pattern runs at
	// each, the rest locally. The sites are read from the registry in the
	// store the query runs over.
	Sites string
	// SiteColumn, with Sites, names a variable added to a SELECT that
	// binds the name of the site each row came from.
	SiteColumn string
	// Service evaluates SERVICE clauses (nil: unsupported).
	Service eval.ServiceHandler
	// ServiceBatch is the number of rows per bind-join request (0: 500).
	ServiceBatch int
	// ServiceConcurrency bounds SERVICE calls in flight (0: 8).
	ServiceConcurrency int
	// Explain records actual row counts for Result.Explain.
	Explain bool
	// Load says which files SPARQL LOAD may read (zero value: any).
	Load eval.LoadPolicy
	// QueryMemory bounds, in bytes, what one query's buffering operators
	// (GROUP BY, ORDER BY, DISTINCT, join tables, paths, …) hold at once
	// (0: no bound). Past it the query fails with a *LimitError.
	QueryMemory int64
	// MemoryPool, when set, bounds what all the queries sharing it hold
	// together (a server's); past it a query fails with a *LimitError
	// whose Busy is true.
	MemoryPool *eval.MemoryPool
	// Yield is called every YieldEvery evaluation steps; a scheduler may
	// block in it (see eval.Options.Yield).
	Yield func(ctx context.Context) error
	// Workers says how many goroutines one operator may use at once (see
	// eval.Options.Workers; nil: GOMAXPROCS).
	Workers func() int
	// CheckUpdate, when set, sees the quads an update request adds before
	// any is applied, and refuses the request by returning an error (see
	// eval.Options.CheckUpdate).
	CheckUpdate func(ctx context.Context, added []kb.TermQuad) error
	// NoOptimize runs the algebra as written, without the optimizer's
	// reordering and filter placement (see eval.Options.NoOptimize).
	NoOptimize bool
	// OneShot marks a process that answers one query and exits (see
	// eval.Options.OneShot).
	OneShot bool
	// Background runs derived values' builds off the query's path (see
	// eval.Options.Background).
	Background func(fn func())
	// Functions declares the functions queries may call, for parsing and
	// evaluation alike (nil: DefaultFunctions()). Clone DefaultFunctions
	// and Register extension functions on the clone to add some.
	Functions *function.Registry
	// ReuseRows lets Result.Next return one slice for every row,
	// overwritten by the next call (see eval.Options.ReuseRows); Rows
	// copies them.
	ReuseRows bool
}

// Language is the query language of a prepared query.
type Language string

// The supported query languages.
const (
	SPARQL Language = "SPARQL"
	RDQL   Language = "RDQL"
)

// Prepared is a parsed query, safe to execute many times.
type Prepared struct {
	Text     string
	Language Language
	Query    *algebra.Query
}

// Form returns the query form (SELECT, ASK, CONSTRUCT, DESCRIBE).
func (p *Prepared) Form() algebra.QueryForm { return p.Query.Form }

// YieldEvery is how many evaluation steps come between two calls of
// Options.Yield, so that a scheduler can count a query's work.
const YieldEvery = eval.YieldEvery

// Prepare parses and statically checks a query.
func Prepare(text string, opts Options) (*Prepared, error) {
	return PrepareContext(context.Background(), text, opts)
}

// PrepareContext is Prepare that stops when ctx ends, so the text of a huge
// query (a million-value IN list) cannot outlast its request's deadline.
func PrepareContext(ctx context.Context, text string, opts Options) (*Prepared, error) {
	if IsRDQL(text) {
		q, err := parseRDQL(text, opts)
		if err != nil {
			return nil, err
		}
		return &Prepared{Text: text, Language: RDQL, Query: q}, nil
	}
	q, err := syntax.ParseQuery(text, syntax.Options{BaseIRI: opts.Base, Context: ctx, Functions: functions(opts), Source: opts.Source})
	if err != nil {
		return nil, err
	}
	return &Prepared{Text: text, Language: SPARQL, Query: q}, nil
}

// PrepareUpdate parses and statically checks an update request.
func PrepareUpdate(text string, opts Options) (*algebra.Update, error) {
	return PrepareUpdateContext(context.Background(), text, opts)
}

// PrepareUpdateContext is PrepareUpdate that stops when ctx ends.
func PrepareUpdateContext(ctx context.Context, text string, opts Options) (*algebra.Update, error) {
	return syntax.ParseUpdate(text, syntax.Options{BaseIRI: opts.Base, Context: ctx, Functions: functions(opts), Source: opts.Source})
}

func evalOptions(opts Options) eval.Options {
	return eval.Options{Timeout: opts.Timeout, MaxRows: opts.MaxRows, Dataset: opts.Dataset,
		Service: opts.Service, Base: opts.Base, Explain: opts.Explain,
		ServiceBatch: opts.ServiceBatch, ServiceConcurrency: opts.ServiceConcurrency, Load: opts.Load,
		QueryMemory: opts.QueryMemory, MemoryPool: opts.MemoryPool, Yield: opts.Yield, Workers: opts.Workers,
		NoOptimize: opts.NoOptimize, OneShot: opts.OneShot, Background: opts.Background, Functions: functions(opts), ReuseRows: opts.ReuseRows,
		CheckUpdate: opts.CheckUpdate}
}

// Result is the outcome of Exec. For SELECT, read rows with Next until it
// returns false, then check Err (or call Write); for CONSTRUCT and
// DESCRIBE, read triples with NextTriple the same way; always Close.
type Result struct {
	Form    algebra.QueryForm
	Vars    []string
	Boolean bool
	inner   *eval.Result
	// fanned is set when Options.Sites sent the query to sites, local
	// when the local store took part too (see Federation).
	fanned bool
	sites  []Site
	local  bool
}

// Exec evaluates a prepared query over ds. Options.Protocol and
// Options.Sites rewrite the query for this execution only: p is left as it
// was.
func Exec(ctx context.Context, ds kb.Dataset, p *Prepared, opts Options) (*Result, error) {
	q := p.Query
	if opts.Protocol.given() {
		c := *q
		c.Dataset = nil
		q = &c
		opts.Dataset = opts.Protocol.spec()
	}
	var sites []Site
	var local bool
	if opts.Sites != "" {
		var err error
		if q, sites, local, err = fanOut(ctx, ds, p, q, opts); err != nil {
			return nil, err
		}
	}
	r, err := eval.Query(ctx, ds, q, evalOptions(opts))
	if err != nil {
		return nil, err
	}
	res := &Result{Form: r.Form, Boolean: r.Boolean, inner: r,
		fanned: opts.Sites != "", sites: sites, local: local}
	for _, v := range r.Vars {
		res.Vars = append(res.Vars, string(v))
	}
	return res, nil
}

// Run is Prepare followed by Exec.
func Run(ctx context.Context, ds kb.Dataset, text string, opts Options) (*Result, error) {
	p, err := Prepare(text, opts)
	if err != nil {
		return nil, err
	}
	return Exec(ctx, ds, p, opts)
}

// Next returns the next SELECT row: one term per Vars entry, the zero
// kb.Term when unbound.
func (r *Result) Next() ([]kb.Term, bool) { return r.inner.Next() }

// NextTriple returns the next triple of a CONSTRUCT or DESCRIBE result
// (each once), streamed as the engine finds it, or false at the end or on
// an error (see Err).
func (r *Result) NextTriple() (kb.Triple, bool) { return r.inner.NextTriple() }

// AllTriples drains a CONSTRUCT or DESCRIBE result into a slice.
func (r *Result) AllTriples() ([]kb.Triple, error) { return r.inner.AllTriples() }

// Services reports the SERVICE calls made so far (complete once the rows
// have been read): endpoint, outcome, rows, bytes, time, error.
func (r *Result) Services() []eval.ServiceCall { return r.inner.Services() }

// Err reports the error that ended the rows, if any.
func (r *Result) Err() error { return r.inner.Err() }

// Close releases the evaluation.
func (r *Result) Close() { r.inner.Close() }

// Explain returns the plan with estimated and actual row counts (actual
// counts are complete once the rows were read).
func (r *Result) Explain() string { return r.inner.Explain() }

// Rows drains a SELECT result into a slice.
func (r *Result) Rows() ([][]kb.Term, error) {
	var out [][]kb.Term
	for {
		row, ok := r.Next()
		if !ok {
			break
		}
		if r.inner.ReusesRows() {
			row = slices.Clone(row)
		}
		out = append(out, row)
	}
	return out, r.Err()
}

// Write serialises the result: SELECT/ASK as json, xml, csv, tsv or table;
// CONSTRUCT/DESCRIBE as ntriples, turtle, nquads, rdfxml or jsonld (other
// formats give N-Triples), streamed.
func (r *Result) Write(w io.Writer, f results.Format) error {
	defer r.Close()
	switch r.Form {
	case algebra.FormConstruct, algebra.FormDescribe:
		if !results.IsGraphFormat(f) {
			f = results.NTriples
		}
		gw, err := results.NewGraphWriter(w, f)
		if err != nil {
			return err
		}
		for {
			t, ok := r.NextTriple()
			if !ok {
				break
			}
			if err := gw.Triple(t); err != nil {
				return err
			}
		}
		if err := r.Err(); err != nil {
			return err
		}
		return gw.Close()
	}
	sw, err := results.NewSolutionWriter(w, f)
	if err != nil {
		return err
	}
	if r.Form == algebra.FormAsk {
		return sw.WriteBoolean(r.Boolean)
	}
	if err := sw.Begin(r.Vars); err != nil {
		return err
	}
	for {
		row, ok := r.Next()
		if !ok {
			break
		}
		if err := sw.Row(row); err != nil {
			return err
		}
	}
	if err := r.Err(); err != nil {
		return err
	}
	return sw.End()
}

// UpdateSummary reports what an update changed.
type UpdateSummary = eval.UpdateSummary

// Update parses and applies a SPARQL 1.1 Update request atomically (see
// ExecUpdate).
func Update(ctx context.Context, ds kb.Dataset, text string, opts Options) (UpdateSummary, error) {
	u, err := PrepareUpdateContext(ctx, text, opts)
	if err != nil {
		return UpdateSummary{}, err
	}
	return ExecUpdate(ctx, ds, u, opts)
}
