package backend

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// QueryEngine answers SPARQL queries and updates over a store.
type QueryEngine struct {
	DS kb.Dataset
	// MaxRows caps result rows (0: no cap); a larger result is an
	// execution error.
	MaxRows int64
	// Service evaluates SERVICE clauses (nil: unsupported).
	Service query.ServiceHandler
	// LoadDir is the one directory SPARQL LOAD may read files from; when
	// empty, LOAD of files is refused (a client must not read the
	// server's disk).
	LoadDir string
	// QueryMemory bounds what one query's buffering operators hold, in
	// bytes (0: no bound); past it the query fails with 422.
	QueryMemory int64
	// MemoryPool bounds what all the queries hold together (nil: no
	// bound); past it a query fails with 503 and Retry-After.
	MemoryPool *query.MemoryPool
	// Admission, when set, decides when queries run by their cost: heavy
	// ones take turns on the cores, light ones never wait (see Admission).
	Admission *Admission
	// Reads, when set, sends queries to a read replica that keeps up
	// (ReadRouter); updates always go to DS.
	Reads *ReadRouter
	// Background, when set, runs the builds of derived values that
	// queries start for later ones (query.Options.Background).
	Background func(fn func())

	started  atomic.Int64 // queries begun (ReleaseWhenIdle)
	inflight atomic.Int64 // queries not yet ended
}

var _ server.QueryService = (*QueryEngine)(nil)

// ParseCost is how many bytes of memory parsing takes per byte of query
// or update text, at most (measured: about 50 for a FILTER IN list of
// millions of strings). Text whose parse would pass QueryMemory is refused
// before parsing, since the parse is not charged to the query's account.
const ParseCost = 64

// checkTextSize refuses text that parsing alone would take past the
// query's memory bound.
func (e *QueryEngine) checkTextSize(what, text string) error {
	return e.CheckTextSize(what, int64(len(text)))
}

// CheckTextSize implements server.TextSizeChecker: a query or update of
// size bytes would parse past --query-memory.
func (e *QueryEngine) CheckTextSize(what string, size int64) error {
	if e.QueryMemory > 0 && size > e.QueryMemory/ParseCost {
		return fmt.Errorf("%w: the %s is %d bytes, more than the %d bytes that parse within --query-memory %d", server.ErrTooLarge, what, size, e.QueryMemory/ParseCost, e.QueryMemory)
	}
	return nil
}

// Query implements server.QueryService.
func (e *QueryEngine) Query(ctx context.Context, req server.QueryRequest) (*server.QueryResult, error) {
	if err := e.checkTextSize("query", req.Query); err != nil {
		return nil, err
	}
	// Rows are encoded one at a time (server.SolutionIterator), so one slice
	// serves them all.
	opts := query.Options{Base: req.BaseIRI, MaxRows: e.MaxRows, Service: e.Service, QueryMemory: e.QueryMemory, MemoryPool: e.MemoryPool, ReuseRows: true, Background: e.Background}
	prepared, err := e.prepare(ctx, req.Query, opts)
	if err != nil {
		return nil, translateError(ctx, err)
	}
	finish := e.track()
	long := e.Admission.begin(ctx, req.Query)
	opts.Yield = long.yieldFunc()
	opts.Workers = long.workersFunc()
	handedOver := false // a SELECT's rows end the query, not this function
	defer func() {
		if !handedOver {
			long.end()
			finish()
		}
	}()
	if err := long.admit(ctx); err != nil {
		return nil, translateError(ctx, err)
	}
	// The protocol's default-graph-uri and named-graph-uri replace the
	// query's FROM and FROM NAMED; the sites parameter fans the query out
	// to registered sites only, so the SSRF guard holds.
	opts.Protocol = &query.ProtocolDataset{Default: req.DefaultGraphs, Named: req.NamedGraphs}
	opts.Sites = req.Sites
	ds, service, err := e.scoped(ctx, req.Scope, req.Sites, true)
	if err != nil {
		return nil, err
	}
	opts.Service = long.service(service)
	res, err := query.Exec(ctx, ds, prepared, opts)
	if err != nil {
		return nil, translateError(ctx, err)
	}
	report := federationReport(res)
	long.leaveEngine()
	switch res.Form {
	case query.FormSelect:
		handedOver = true
		return &server.QueryResult{Kind: server.ResultBindings, Vars: res.Vars, Solutions: &solutions{ctx: ctx, res: res, long: long, finish: finish}, Federation: report}, nil
	case query.FormAsk:
		defer res.Close()
		if err := res.Err(); err != nil {
			return nil, translateError(ctx, err)
		}
		return &server.QueryResult{Kind: server.ResultBoolean, Boolean: res.Boolean, Federation: report}, nil
	default:
		handedOver = true
		return &server.QueryResult{Kind: server.ResultGraph, Triples: &triples{ctx: ctx, res: res, long: long, finish: finish}, Federation: report}, nil
	}
}

// Update implements server.QueryService.
func (e *QueryEngine) Update(ctx context.Context, req server.UpdateRequest) (server.UpdateSummary, error) {
	if err := e.checkTextSize("update", req.Update); err != nil {
		return server.UpdateSummary{}, err
	}
	opts := query.Options{Base: req.BaseIRI, Load: query.LoadPolicy{Refuse: e.LoadDir == "", Dir: e.LoadDir}, QueryMemory: e.QueryMemory, MemoryPool: e.MemoryPool,
		Protocol: &query.ProtocolDataset{Default: req.UsingGraphs, Named: req.UsingNamedGraphs}, CheckUpdate: req.Check}
	ds, _, err := e.scoped(ctx, req.Scope, "", false)
	if err != nil {
		return server.UpdateSummary{}, err
	}
	u, err := query.PrepareUpdateContext(ctx, req.Update, opts)
	if err != nil {
		return server.UpdateSummary{}, translateError(ctx, err)
	}
	if err := checkUpdateGraphs(req.Scope, query.UpdateGraphs(u)); err != nil {
		return server.UpdateSummary{}, err
	}
	sum, err := query.ExecUpdate(ctx, ds, u, opts)
	if err != nil {
		return server.UpdateSummary{}, translateError(ctx, err)
	}
	return server.UpdateSummary{Operations: sum.Operations, Added: sum.Added, Removed: sum.Removed}, nil
}

// invalidInputError marks an error as the client's input being wrong
// (400) when the error itself does not say so.
type invalidInputError struct{ err error }

func (p *invalidInputError) Error() string      { return p.err.Error() }
func (p *invalidInputError) Unwrap() error      { return p.err }
func (p *invalidInputError) InvalidInput() bool { return true }

// translateError maps query package errors to the server's.
func translateError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	// Syntax errors (*textpos.Error) pass through: the server's envelope
	// reads their position itself.
	switch {
	case errors.Is(err, query.ErrQueryTimeout):
		return fmt.Errorf("%w: %w", server.ErrTimeout, err)
	case errors.Is(err, query.ErrQueryCanceled):
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w: %w", server.ErrTimeout, err)
		}
		return fmt.Errorf("%w: %w", context.Canceled, err)
	case errors.Is(err, query.ErrTooManyRows), errors.Is(err, query.ErrUnsupportedService):
		return server.Execution(err)
	}
	return err
}

// solutions adapts a SELECT result.
type solutions struct {
	ctx    context.Context
	res    *query.Result
	row    []kb.Term
	long   *admitted // ended with the rows
	finish func()    // ends the query for ReleaseWhenIdle
}

func (s *solutions) Next() bool {
	s.long.enterEngine()
	row, ok := s.res.Next()
	s.long.leaveEngine()
	s.row = row
	return ok
}
func (s *solutions) Solution() []kb.Term { return s.row }
func (s *solutions) Err() error          { return translateError(s.ctx, s.res.Err()) }
func (s *solutions) Close() error {
	s.res.Close()
	s.long.end()
	s.finish()
	return nil
}

// triples adapts a CONSTRUCT or DESCRIBE result, streamed as the engine
// finds the triples.
type triples struct {
	ctx    context.Context
	res    *query.Result
	t      kb.Triple
	long   *admitted // ended with the triples
	finish func()    // ends the query for ReleaseWhenIdle
}

func (t *triples) Next() bool {
	t.long.enterEngine()
	tr, ok := t.res.NextTriple()
	t.long.leaveEngine()
	t.t = tr
	return ok
}
func (t *triples) Triple() kb.Triple { return t.t }
func (t *triples) Err() error        { return translateError(t.ctx, t.res.Err()) }
func (t *triples) Close() error {
	t.res.Close()
	t.long.end()
	t.finish()
	return nil
}
