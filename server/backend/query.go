package backend

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/federation"
	"github.com/perfkb/perfkb/query/syntax"
	"github.com/perfkb/perfkb/server"
)

// QueryEngine answers SPARQL queries and updates over a store.
type QueryEngine struct {
	DS kb.Dataset
	// MaxRows caps result rows (0: no cap); a larger result is an
	// execution error.
	MaxRows int64
	// Service evaluates SERVICE clauses (nil: unsupported).
	Service eval.ServiceHandler
	// LoadDir is the one directory SPARQL LOAD may read files from; when
	// empty, LOAD of files is refused (a client must not read the
	// server's disk).
	LoadDir string
	// QueryMemory bounds what one query's buffering operators hold, in
	// bytes (0: no bound); past it the query fails with 422.
	QueryMemory int64
	// MemoryPool bounds what all the queries hold together (nil: no
	// bound); past it a query fails with 503 and Retry-After.
	MemoryPool *eval.MemoryPool
	// Long, when set, makes queries that have run long give way to short
	// ones (see LongQueries).
	Long *LongQueries
}

var _ server.QueryService = (*QueryEngine)(nil)

// Query implements server.QueryService.
func (e *QueryEngine) Query(ctx context.Context, req server.QueryRequest) (*server.QueryResult, error) {
	opts := query.Options{Base: req.BaseIRI, MaxRows: e.MaxRows, Service: e.Service, QueryMemory: e.QueryMemory, MemoryPool: e.MemoryPool}
	prepared, err := query.PrepareContext(ctx, req.Query, opts)
	if err != nil {
		return nil, translateError(ctx, err)
	}
	long := e.Long.begin()
	opts.Yield = long.yieldFunc()
	handedOver := false // a SELECT's rows end the query, not this function
	defer func() {
		if !handedOver {
			long.end()
		}
	}()
	if len(req.DefaultGraphs) > 0 || len(req.NamedGraphs) > 0 {
		// The protocol's default-graph-uri and named-graph-uri replace the
		// query's FROM and FROM NAMED (SPARQL 1.1 Protocol 2.1.4).
		q := *prepared.Query
		q.Dataset = nil
		p := *prepared
		p.Query = &q
		prepared = &p
		opts.Dataset = datasetSpec(req.DefaultGraphs, req.NamedGraphs)
	}
	var sites []federation.Site
	if req.Sites != "" {
		if sites, err = e.fanOut(ctx, prepared, req.Sites); err != nil {
			return nil, translateError(ctx, err)
		}
	}
	res, err := query.Exec(ctx, e.DS, prepared, opts)
	if err != nil {
		return nil, translateError(ctx, err)
	}
	var report *server.FederationReport
	if req.Sites != "" {
		report = federationReport(res, sites)
	}
	switch res.Form {
	case algebra.FormSelect:
		handedOver = true
		return &server.QueryResult{Kind: server.ResultBindings, Vars: res.Vars, Solutions: &solutions{ctx: ctx, res: res, long: long}, Federation: report}, nil
	case algebra.FormAsk:
		defer res.Close()
		if err := res.Err(); err != nil {
			return nil, translateError(ctx, err)
		}
		return &server.QueryResult{Kind: server.ResultBoolean, Boolean: res.Boolean, Federation: report}, nil
	default:
		defer res.Close()
		if err := res.Err(); err != nil {
			return nil, translateError(ctx, err)
		}
		return &server.QueryResult{Kind: server.ResultGraph, Triples: &triples{list: res.Triples}, Federation: report}, nil
	}
}

// Update implements server.QueryService.
func (e *QueryEngine) Update(ctx context.Context, req server.UpdateRequest) (server.UpdateSummary, error) {
	opts := query.Options{Base: req.BaseIRI, Load: eval.LoadPolicy{Refuse: e.LoadDir == "", Dir: e.LoadDir}, QueryMemory: e.QueryMemory, MemoryPool: e.MemoryPool}
	if len(req.UsingGraphs) > 0 || len(req.UsingNamedGraphs) > 0 {
		if err := checkNoUpdateDataset(ctx, req.Update, opts); err != nil {
			return server.UpdateSummary{}, translateError(ctx, err)
		}
		opts.Dataset = datasetSpec(req.UsingGraphs, req.UsingNamedGraphs)
	}
	sum, err := query.Update(ctx, e.DS, req.Update, opts)
	if err != nil {
		return server.UpdateSummary{}, translateError(ctx, err)
	}
	return server.UpdateSummary{Operations: sum.Operations, Added: sum.Added, Removed: sum.Removed}, nil
}

// checkNoUpdateDataset refuses an update that names its dataset with
// USING, USING NAMED or WITH when the protocol's using-graph-uri or
// using-named-graph-uri also do: SPARQL 1.1 Protocol 2.2.3 requires the
// service to refuse such a request rather than pick one.
func checkNoUpdateDataset(ctx context.Context, text string, opts query.Options) error {
	u, err := query.PrepareUpdateContext(ctx, text, opts)
	if err != nil {
		return err
	}
	for i, op := range u.Operations {
		if di, ok := op.(*algebra.DeleteInsert); ok && (di.With != "" || len(di.Using) > 0 || len(di.UsingNamed) > 0) {
			return &datasetConflictError{op: i + 1}
		}
	}
	return nil
}

// datasetConflictError is a request whose dataset is given twice; it is
// the client's error (400).
type datasetConflictError struct{ op int }

func (e *datasetConflictError) Error() string {
	return fmt.Sprintf("operation %d names its dataset with USING, USING NAMED or WITH, and the request also sets using-graph-uri or using-named-graph-uri: use one or the other", e.op)
}
func (e *datasetConflictError) InvalidInput() bool { return true }

func datasetSpec(defaults, named []string) eval.DatasetSpec {
	spec := eval.DatasetSpec{DefaultEmpty: len(defaults) == 0, NamedNone: len(named) == 0}
	for _, g := range defaults {
		spec.Default = append(spec.Default, graphTerm(g))
	}
	for _, g := range named {
		spec.Named = append(spec.Named, graphTerm(g))
	}
	return spec
}

func graphTerm(iri string) kb.Term {
	if iri == kb.DefaultGraphIRI {
		return kb.DefaultGraph
	}
	return kb.IRI(iri)
}

// positionedError gives a query syntax error the Position method the
// server reads.
type positionedError struct {
	err       error
	line, col int
}

func (p *positionedError) Error() string             { return p.err.Error() }
func (p *positionedError) Unwrap() error             { return p.err }
func (p *positionedError) Position() (line, col int) { return p.line, p.col }
func (p *positionedError) InvalidInput() bool        { return true }

// translateError maps query package errors to the server's.
func translateError(ctx context.Context, err error) error {
	if err == nil {
		return nil
	}
	var one *syntax.Error
	var list syntax.ErrorList
	switch {
	case errors.As(err, &one):
		return &positionedError{err: err, line: one.Line, col: one.Column}
	case errors.As(err, &list) && len(list) > 0:
		return &positionedError{err: err, line: list[0].Line, col: list[0].Column}
	case errors.Is(err, query.ErrQueryTimeout):
		return fmt.Errorf("%w: %w", server.ErrTimeout, err)
	case errors.Is(err, query.ErrQueryCanceled):
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return fmt.Errorf("%w: %w", server.ErrTimeout, err)
		}
		return fmt.Errorf("%w: %w", context.Canceled, err)
	case errors.Is(err, query.ErrTooManyRows), errors.Is(err, eval.ErrUnsupportedService):
		return server.Execution(err)
	}
	return err
}

// solutions adapts a SELECT result.
type solutions struct {
	ctx  context.Context
	res  *query.Result
	row  []kb.Term
	long *longQuery // ended with the rows
}

func (s *solutions) Next() bool {
	row, ok := s.res.Next()
	s.row = row
	return ok
}
func (s *solutions) Solution() []kb.Term { return s.row }
func (s *solutions) Err() error          { return translateError(s.ctx, s.res.Err()) }
func (s *solutions) Close() error        { s.res.Close(); s.long.end(); return nil }

// triples adapts a CONSTRUCT or DESCRIBE result.
type triples struct {
	list []kb.Triple
	i    int
}

func (t *triples) Next() bool        { t.i++; return t.i <= len(t.list) }
func (t *triples) Triple() kb.Triple { return t.list[t.i-1] }
func (t *triples) Err() error        { return nil }
func (t *triples) Close() error      { return nil }
