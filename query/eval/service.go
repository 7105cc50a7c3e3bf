package eval

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// DefaultServiceBatch is the number of left rows sent per bind-join request
// when Options.ServiceBatch is 0.
const DefaultServiceBatch = 500

// DefaultServiceConcurrency bounds the SERVICE calls in flight at once when
// Options.ServiceConcurrency is 0.
const DefaultServiceConcurrency = 8

// ServiceRequest is one call to a SERVICE endpoint.
type ServiceRequest struct {
	// Endpoint is the endpoint IRI (constant or the value of the endpoint
	// variable).
	Endpoint kb.Term
	// Pattern is the translated group pattern.
	Pattern algebra.Op
	// Text is the group pattern as written, braces included, with prefixed
	// names unexpanded: forward it with Prefixes and Base.
	Text string
	// Prefixes and Base are the enclosing query's prologue.
	Prefixes []algebra.Prefix
	Base     string
	// Vars are the pattern's in-scope variables (§18.2.1).
	Vars []algebra.Var
	// Bindings, when not nil, are the left side's values of the variables
	// shared with the pattern (bind join): the remote answer must be joined
	// with them (send them as a VALUES block). The zero Term is UNDEF.
	Bindings *Solutions
	// Silent says SERVICE SILENT was used; the evaluator handles it, the
	// handler need not.
	Silent bool
	// Suffix holds solution modifiers to append after the pattern
	// (algebra.Service.Suffix).
	Suffix string
	// Charge, when set, charges n bytes of the answer being decoded to the
	// query's memory budget (Options.QueryMemory and MemoryPool); the
	// handler calls it as it decodes each row and ends the call with the
	// error (a *LimitError) it returns. The bytes stay charged while the
	// query runs, since the evaluator keeps the answer.
	Charge func(n int64) error
	// CountOnly says the caller needs only how many solutions the
	// pattern has (COUNT(*) over the SERVICE block alone): the handler
	// may answer with no Vars and no Rows and the number in Count, still
	// reading and checking the whole answer.
	CountOnly bool
}

// ServiceHandler evaluates SERVICE patterns (federation). Handle may be
// called from several goroutines at once.
type ServiceHandler interface {
	Handle(ctx context.Context, req ServiceRequest) (*Solutions, error)
}

// EndpointVetter is implemented by service handlers that can tell, without
// a request, that a call to an endpoint would be refused. A SERVICE join
// with such an endpoint fails at once instead of first gathering its left
// side, which for a pattern like ?s ?p ?o is the whole store.
type EndpointVetter interface {
	Vet(endpoint kb.Term) error
}

// Solutions is a materialised solution sequence from a service: one term
// per variable of Vars per row, the zero Term for unbound. Bytes and Status
// describe the transfer for the call report (0 when unknown).
type Solutions struct {
	Vars   []algebra.Var
	Rows   [][]kb.Term
	Bytes  int64
	Status int
	// Count, when Rows is nil, is the number of solutions of an answer
	// to a CountOnly request.
	Count int
}

// Len is the number of solutions.
func (s *Solutions) Len() int {
	if s.Rows == nil {
		return s.Count
	}
	return len(s.Rows)
}

// DefaultServiceHandler supports no endpoint.
type DefaultServiceHandler struct{}

// Handle implements ServiceHandler: it always fails with ErrUnsupportedService.
func (DefaultServiceHandler) Handle(_ context.Context, req ServiceRequest) (*Solutions, error) {
	return nil, fmt.Errorf("%w: %s", ErrUnsupportedService, req.Endpoint)
}

// The outcomes of a service call in a ServiceCall report.
const (
	CallOK       = "answered"
	CallFailed   = "failed"
	CallTimedOut = "timed out"
	// CallNotNeeded: the evaluation ended (ASK found a solution, LIMIT
	// reached, the result closed) while the call was in flight.
	CallNotNeeded = "not needed"
)

// ServiceCall reports one remote call of an evaluation.
type ServiceCall struct {
	Endpoint string `json:"endpoint"`
	// Outcome is CallOK, CallFailed or CallTimedOut.
	Outcome string `json:"outcome"`
	// HTTPStatus is the remote status code when known.
	HTTPStatus int   `json:"status,omitempty"`
	Rows       int   `json:"rows"`
	Bytes      int64 `json:"bytes"`
	Millis     int64 `json:"ms"`
	// Bindings is the number of rows sent in a bind join's VALUES block.
	Bindings int    `json:"bindings,omitempty"`
	Error    string `json:"error,omitempty"`
	// Silent and Partial say the failure was tolerated: SERVICE SILENT
	// (one empty solution) or a fan-out branch (no solutions).
	Silent  bool `json:"silent,omitempty"`
	Partial bool `json:"partial,omitempty"`
}

// serviceState is the SERVICE part of one evaluation: the call report,
// the prefetched constant-endpoint calls and the concurrency bound.
type serviceState struct {
	prefixes []algebra.Prefix
	base     string
	sem      chan struct{}
	batch    int
	ctx      context.Context
	cancel   context.CancelFunc

	mu    sync.Mutex
	calls []ServiceCall

	prefetch []*serviceNode // constant endpoint, evaluated alone
}

func (ex *executor) initServices(q *algebra.Query) {
	n := ex.opts.ServiceConcurrency
	if n <= 0 {
		n = DefaultServiceConcurrency
	}
	b := ex.opts.ServiceBatch
	if b <= 0 {
		b = DefaultServiceBatch
	}
	ctx, cancel := context.WithCancel(ex.ctx)
	ex.svc = &serviceState{prefixes: q.Prefixes, base: q.BaseIRI, sem: make(chan struct{}, n), batch: b, ctx: ctx, cancel: cancel}
	if ex.svc.base == "" {
		ex.svc.base = ex.opts.Base
	}
}

// stopServices cancels the calls still in flight.
func (ex *executor) stopServices() {
	if ex.svc != nil {
		ex.svc.cancel()
	}
}

// startServices starts every prefetchable call concurrently (bounded), so
// that a UNION of N SERVICE blocks costs the slowest site, not the sum.
func (ex *executor) startServices() {
	if ex.svc == nil {
		return
	}
	for _, n := range ex.svc.prefetch {
		n.fut = &serviceFuture{done: make(chan struct{})}
		go func(n *serviceNode, f *serviceFuture) {
			defer close(f.done)
			f.sols, f.err = ex.callServiceReq(ex.svc.ctx, n.op, n.op.Endpoint.Term, nil, n.countOnly)
		}(n, n.fut)
	}
}

// Services returns the report of the remote calls. It first waits for the
// calls started ahead of evaluation (bounded by their deadlines; after
// Close they end at once), so the report covers every such call.
func (r *Result) Services() []ServiceCall {
	if r.ex == nil || r.ex.svc == nil {
		return nil
	}
	for _, n := range r.ex.svc.prefetch {
		if n.fut != nil {
			<-n.fut.done
		}
	}
	r.ex.svc.mu.Lock()
	defer r.ex.svc.mu.Unlock()
	return append([]ServiceCall(nil), r.ex.svc.calls...)
}

// callService performs one call and records it in the report.
func (ex *executor) callService(op *algebra.Service, endpoint kb.Term, bindings *Solutions) (*Solutions, error) {
	return ex.callServiceCtx(ex.svc.ctx, op, endpoint, bindings)
}

// callServiceCtx is callService under ctx, a context derived from the
// evaluation's service context (a bind join cancels its own calls when its
// consumer stops early).
func (ex *executor) callServiceCtx(ctx context.Context, op *algebra.Service, endpoint kb.Term, bindings *Solutions) (*Solutions, error) {
	return ex.callServiceReq(ctx, op, endpoint, bindings, false)
}

// callServiceReq is callServiceCtx that may ask for the number of
// solutions only (ServiceRequest.CountOnly).
func (ex *executor) callServiceReq(ctx context.Context, op *algebra.Service, endpoint kb.Term, bindings *Solutions, countOnly bool) (*Solutions, error) {
	s := ex.svc
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctxErr(ctx)
	}
	defer func() { <-s.sem }()
	req := ServiceRequest{Endpoint: endpoint, Pattern: op.Input, Text: op.Text, Prefixes: s.prefixes,
		Base: s.base, Vars: algebra.InScope(op.Input), Bindings: bindings, Silent: op.Silent, Suffix: op.Suffix,
		Charge: func(n int64) error { return ex.mem.charge(n, "SERVICE") }, CountOnly: countOnly}
	start := time.Now()
	sols, err := ex.service.Handle(ctx, req)
	call := ServiceCall{Endpoint: endpoint.Value}
	if bindings != nil {
		call.Bindings = len(bindings.Rows)
	}
	if sols != nil {
		call.Rows, call.Bytes, call.HTTPStatus = sols.Len(), sols.Bytes, sols.Status
	}
	ex.record(ctx, op, call, start, err)
	return sols, err
}

// record completes a call's report entry (outcome, time, error) and adds
// it to the report.
func (ex *executor) record(ctx context.Context, op *algebra.Service, call ServiceCall, start time.Time, err error) {
	call.Outcome, call.Millis = CallOK, time.Since(start).Milliseconds()
	call.Silent, call.Partial = op.Silent && err != nil, op.Partial && err != nil
	if err != nil {
		call.Outcome, call.Error = CallFailed, err.Error()
		switch {
		case ctx.Err() != nil && ex.ctx.Err() == nil:
			call.Outcome, call.Error = CallNotNeeded, ""
			call.Silent, call.Partial = false, false
		case isTimeout(err):
			call.Outcome = CallTimedOut
		}
		var st interface{ HTTPStatus() int }
		if errors.As(err, &st) {
			call.HTTPStatus = st.HTTPStatus()
		}
	}
	s := ex.svc
	s.mu.Lock()
	s.calls = append(s.calls, call)
	s.mu.Unlock()
}

func isTimeout(err error) bool {
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, ErrQueryTimeout) {
		return true
	}
	var ne net.Error
	return errors.As(err, &ne) && ne.Timeout()
}

// serviceFuture is a prefetched call.
type serviceFuture struct {
	done chan struct{}
	sols *Solutions
	err  error
}

// ---- SERVICE evaluated alone ----

// serviceNode evaluates SERVICE on its own: a constant endpoint (possibly
// prefetched) or an endpoint variable bound by the seed.
type serviceNode struct {
	nodeInfo
	op           *algebra.Service
	endpointSlot int
	fut          *serviceFuture
	// countOnly asks the handler for the number of solutions only
	// (serviceCountNode).
	countOnly bool
}

func (ex *executor) compileService(o *algebra.Service) node {
	n := &serviceNode{op: o, endpointSlot: -1}
	ex.serviceSlots(o)
	if o.Endpoint.IsVar() {
		n.endpointSlot = ex.vars.slot(o.Endpoint.Var)
	} else if ex.svc != nil {
		ex.svc.prefetch = append(ex.svc.prefetch, n)
	}
	return n
}

// serviceSlots gives the pattern's variables row slots, so the remote
// answer's bindings are kept (a CONSTRUCT template or an outer pattern may
// use variables that only the SERVICE pattern binds).
func (ex *executor) serviceSlots(o *algebra.Service) {
	for _, v := range algebra.InScope(o.Input) {
		ex.vars.slot(v)
	}
}

func (n *serviceNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	sols, endpoint, err := n.solutions(ex, seed)
	if err != nil {
		if errors.Is(err, errUnboundEndpoint) {
			if n.op.Silent {
				return emitErr(emit(seed.clone(len(seed))))
			}
			return fmt.Errorf("eval: SERVICE endpoint variable %s is unbound", n.op.Endpoint.Var)
		}
		if endpoint.IsZero() {
			return err
		}
		return ex.serviceFailure(n.op, endpoint, err, emit, []row{seed})
	}
	return ex.joinSolutions(sols, []row{seed}, nil, emit)
}

// errUnboundEndpoint is solutions' error for an endpoint variable the seed
// leaves unbound.
var errUnboundEndpoint = errors.New("SERVICE endpoint variable unbound")

// solutions returns the call's answer for seed and the endpoint called;
// endpoint is zero when the evaluation itself failed before any call (a
// cancelled context, a dictionary error), whose error is then final.
func (n *serviceNode) solutions(ex *executor, seed row) (sols *Solutions, endpoint kb.Term, err error) {
	endpoint = n.op.Endpoint.Term
	if n.fut != nil {
		select {
		case <-n.fut.done:
			return n.fut.sols, endpoint, n.fut.err
		case <-ex.ctx.Done():
			return nil, kb.Term{}, ctxErr(ex.ctx)
		}
	}
	if n.endpointSlot >= 0 {
		t, err := ex.dict.term(seed[n.endpointSlot])
		if err != nil {
			return nil, kb.Term{}, err
		}
		if t.IsZero() {
			return nil, kb.Term{}, errUnboundEndpoint
		}
		endpoint = t
	}
	sols, err = ex.callServiceReq(ex.svc.ctx, n.op, endpoint, nil, n.countOnly)
	return sols, endpoint, err
}
func (n *serviceNode) children() []node { return nil }
func (n *serviceNode) describe() string { return "Service " + n.op.Endpoint.String() }

func emitErr(ok bool) error {
	if !ok {
		return errStop
	}
	return nil
}

// serviceFailure applies SILENT (each left row joined with the one empty
// solution) and Partial (no solutions) to a failed call.
func (ex *executor) serviceFailure(op *algebra.Service, endpoint kb.Term, err error, emit func(row) bool, left []row) error {
	if errors.Is(err, ErrLimit) {
		// The query's own memory limit stopped the answer: not the site's
		// failure, so SILENT does not hide it.
		return err
	}
	switch {
	case op.Partial:
		return nil
	case op.Silent:
		for _, l := range left {
			if !emit(l.clone(len(l))) {
				return errStop
			}
		}
		return nil
	}
	if errors.Is(err, ErrQueryTimeout) || errors.Is(err, ErrQueryCanceled) {
		return err
	}
	return fmt.Errorf("SERVICE %s: %w", endpoint, err)
}

// joinSolutions joins remote solutions with left rows: each compatible
// pair is merged. index, when given, maps the left rows by the key of the
// shared slots (see bindKey), for left rows binding all of them.
func (ex *executor) joinSolutions(sols *Solutions, left []row, bj *bindIndex, emit func(row) bool) error {
	return ex.joinSolutionsMatched(sols, left, bj, emit, nil)
}

// joinSolutionsMatched is joinSolutions that also reports each left row
// that joined (for OPTIONAL).
func (ex *executor) joinSolutionsMatched(sols *Solutions, left []row, bj *bindIndex, emit func(row) bool, matched func(row)) error {
	width := ex.vars.n()
	slots := make([]int, len(sols.Vars))
	for i, v := range sols.Vars {
		slots[i] = -1
		if s, ok := ex.vars.slots[v]; ok && s < width {
			slots[i] = s
		}
	}
	for _, sr := range sols.Rows {
		if err := ex.check(); err != nil {
			return err
		}
		r := make(row, width)
		for i, t := range sr {
			if i >= len(slots) || t.IsZero() || slots[i] < 0 {
				continue
			}
			id, err := ex.dict.id(t)
			if err != nil {
				return err
			}
			r[slots[i]] = id
		}
		cands := left
		if bj != nil {
			cands = bj.candidates(r)
		}
		for _, l := range cands {
			if !compatibleRows(l, r) {
				continue
			}
			if matched != nil {
				matched(l)
			}
			if !emit(merge(l, r)) {
				return errStop
			}
		}
	}
	return nil
}

// ---- bind join ----

// serviceJoinNode evaluates Join(left, SERVICE) by sending the left rows'
// values of the shared variables to the endpoint in VALUES batches and
// joining the answers locally. Left rows are grouped by endpoint when the
// endpoint is a variable.
type serviceJoinNode struct {
	nodeInfo
	left         node
	op           *algebra.Service
	endpointSlot int
	shared       []algebra.Var
	sharedSlots  []int
	optional     bool // LeftJoin: left rows without a match pass unchanged
	// cache keeps the answers of calls without bindings by endpoint: a
	// seeded bind join runs once per outer row and would otherwise send
	// the same request again.
	cache map[kb.ID]*bindJob
}

// compileServiceJoin builds a bind join for Join(left, SERVICE) when the
// left side binds the endpoint variable or variables of the pattern.
func (ex *executor) compileServiceJoin(o *algebra.Join, sc scope) (node, bool, error) {
	return ex.compileServiceBind(o.Left, o.Right, sc, false)
}

// compileServiceLeftJoin builds a bind join for OPTIONAL { SERVICE … }
// (a LeftJoin without filter expressions) on the same conditions.
func (ex *executor) compileServiceLeftJoin(o *algebra.LeftJoin, sc scope) (node, bool, error) {
	if len(o.Exprs) > 0 {
		return nil, false, nil
	}
	return ex.compileServiceBind(o.Left, o.Right, sc, true)
}

func (ex *executor) compileServiceBind(leftOp, right algebra.Op, sc scope, optional bool) (node, bool, error) {
	svc, ok := right.(*algebra.Service)
	if !ok {
		return nil, false, nil
	}
	left := ex.maybe(leftOp)
	if ex.serviceSeeded(svc, sc.seed) {
		// The endpoint comes from outside this join: the left rows carry
		// the seed's values, so send those that the pattern shares too.
		left = left.union(sc.seed)
	}
	ex.serviceSlots(svc)
	n := &serviceJoinNode{op: svc, endpointSlot: -1, optional: optional}
	for _, v := range algebra.InScope(svc.Input) {
		if s := ex.vars.slot(v); left[s] {
			n.shared = append(n.shared, v)
			n.sharedSlots = append(n.sharedSlots, s)
		}
	}
	if svc.Endpoint.IsVar() {
		n.endpointSlot = ex.vars.slot(svc.Endpoint.Var)
		if !left[n.endpointSlot] {
			return nil, false, nil
		}
	} else if len(n.shared) == 0 {
		return nil, false, nil
	}
	l, err := ex.compile(leftOp, sc)
	if err != nil {
		return nil, true, err
	}
	n.left = l
	return n, true, nil
}

// serviceSeeded reports a SERVICE whose endpoint variable the seed binds
// (the SERVICE sits in a group or UNION branch after the patterns binding
// it). Evaluated alone it could not be called; SPARQL 1.1 Federated Query
// means the variable to come from the preceding patterns, so it is fed the
// seed's values. A constant-endpoint SERVICE stays evaluated alone (one
// call, joined by value).
func (ex *executor) serviceSeeded(o *algebra.Service, seed varSet) bool {
	return o.Endpoint.IsVar() && seed[ex.vars.slot(o.Endpoint.Var)]
}

// compileSeededService is the bind join of a seeded SERVICE: its left side
// is the seed row.
func (ex *executor) compileSeededService(o *algebra.Service, sc scope) node {
	ex.serviceSlots(o)
	n := &serviceJoinNode{op: o, left: &seedNode{}, endpointSlot: ex.vars.slot(o.Endpoint.Var)}
	for _, v := range algebra.InScope(o.Input) {
		if s := ex.vars.slot(v); sc.seed[s] {
			n.shared = append(n.shared, v)
			n.sharedSlots = append(n.sharedSlots, s)
		}
	}
	return n
}

func (n *serviceJoinNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	if v, ok := ex.service.(EndpointVetter); ok && n.endpointSlot < 0 {
		if err := v.Vet(n.op.Endpoint.Term); err != nil {
			ex.record(ex.ctx, n.op, ServiceCall{Endpoint: n.op.Endpoint.Term.Value}, time.Now(), err)
			if !n.op.Silent {
				return ex.serviceFailure(n.op, n.op.Endpoint.Term, err, emit, nil)
			}
			// SILENT: the call fails for every left row, so each passes
			// as it comes, none gathered (gathered, a left side of the
			// whole store was held at once, and one such query took a
			// loaded server past its address space).
			var failErr error
			lerr := n.left.run(ex, seed, func(r row) bool {
				if failErr = ex.serviceFailure(n.op, n.op.Endpoint.Term, err, emit, []row{r}); failErr != nil {
					return false
				}
				return ex.check() == nil
			})
			if failErr != nil {
				return failErr
			}
			return lerr
		}
	}
	// Materialise the left side, grouped by endpoint in first-seen order,
	// each row charged to the query's memory budget.
	groups := map[kb.ID][]row{}
	var order []kb.ID
	acct := ex.account("SERVICE join's left side")
	defer acct.done()
	var memErr error
	err := n.left.run(ex, seed, func(r row) bool {
		ep := kb.ID(0)
		if n.endpointSlot >= 0 {
			ep = r[n.endpointSlot]
		}
		if _, ok := groups[ep]; !ok {
			order = append(order, ep)
		}
		if memErr = acct.charge(rowBytes(len(r))); memErr != nil {
			return false
		}
		groups[ep] = append(groups[ep], r)
		return ex.check() == nil
	})
	if memErr != nil {
		err = memErr // the left side stopped for it
	}
	if err != nil {
		return err
	}
	if err := ctxErr(ex.ctx); err != nil {
		return err
	}
	// One job per endpoint group without shared variables, one per batch
	// otherwise.
	var jobs []*bindJob
	for _, ep := range order {
		rows := groups[ep]
		job := &bindJob{endpoint: n.op.Endpoint.Term, ep: ep}
		if n.endpointSlot >= 0 {
			if ep == 0 {
				job.err = fmt.Errorf("eval: SERVICE endpoint variable %s is unbound", n.op.Endpoint.Var)
			} else {
				t, err := ex.dict.term(ep)
				if err != nil {
					return err
				}
				job.endpoint = t
			}
		}
		if len(n.shared) == 0 || job.err != nil {
			job.rows = rows
			jobs = append(jobs, job)
			continue
		}
		for start := 0; start < len(rows); start += ex.svc.batch {
			b := *job
			b.rows = rows[start:min(start+ex.svc.batch, len(rows))]
			bindings, idx, err := n.bindings(ex, b.rows)
			if err != nil {
				return err
			}
			b.bindings, b.idx = bindings, idx
			jobs = append(jobs, &b)
		}
	}
	return n.runJobs(ex, jobs, emit)
}

// bindJob is one remote call of a bind join: the left rows it covers and,
// once done, the answer.
type bindJob struct {
	endpoint kb.Term
	ep       kb.ID // the endpoint variable's value (0 for a constant)
	rows     []row
	bindings *Solutions
	idx      *bindIndex
	done     chan struct{}
	sols     *Solutions
	err      error
}

// runJobs sends the calls concurrently, at most the service concurrency
// bound ahead of the one being joined, and joins the answers in job order
// (emit is called from this goroutine only). Calls still in flight when
// the consumer stops are canceled.
func (n *serviceJoinNode) runJobs(ex *executor, jobs []*bindJob, emit func(row) bool) error {
	ctx, cancel := context.WithCancel(ex.svc.ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	window := cap(ex.svc.sem)
	start := func(j *bindJob) {
		j.done = make(chan struct{})
		if j.err != nil { // unbound endpoint: nothing to send
			close(j.done)
			return
		}
		if c, ok := n.cache[j.ep]; ok && j.bindings == nil {
			j.sols, j.err = c.sols, c.err
			close(j.done)
			return
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(j.done)
			j.sols, j.err = ex.callServiceCtx(ctx, n.op, j.endpoint, j.bindings)
		}()
	}
	next := 0
	for i, j := range jobs {
		for ; next < len(jobs) && next < i+window; next++ {
			start(jobs[next])
		}
		select {
		case <-j.done:
		case <-ex.ctx.Done():
			return ctxErr(ex.ctx)
		}
		if j.bindings == nil && (j.ep != 0 || n.endpointSlot < 0) && (j.err == nil || ex.ctx.Err() == nil) {
			if n.cache == nil {
				n.cache = map[kb.ID]*bindJob{}
			}
			n.cache[j.ep] = &bindJob{sols: j.sols, err: j.err}
		}
		if j.err != nil {
			if e := n.failure(ex, j.endpoint, j.err, emit, j.rows); e != nil {
				return e
			}
			continue
		}
		if err := n.join(ex, j.sols, j.rows, j.idx, emit); err != nil {
			return err
		}
		j.sols = nil // the answer is joined: let it go (a cached copy stays)
	}
	return nil
}

// join joins a batch with the answer; with optional, the left rows that
// joined nothing pass unchanged.
func (n *serviceJoinNode) join(ex *executor, sols *Solutions, batch []row, idx *bindIndex, emit func(row) bool) error {
	if !n.optional {
		return ex.joinSolutions(sols, batch, idx, emit)
	}
	matched := map[*kb.ID]bool{}
	err := ex.joinSolutionsMatched(sols, batch, idx, emit, func(l row) { matched[&l[0]] = true })
	if err != nil {
		return err
	}
	for _, l := range batch {
		if !matched[&l[0]] && !emit(l.clone(len(l))) {
			return errStop
		}
	}
	return nil
}

// failure handles a failed call (SILENT keeps the left rows; otherwise,
// OPTIONAL or not, the query fails as SPARQL 1.1 Federated Query says).
func (n *serviceJoinNode) failure(ex *executor, endpoint kb.Term, err error, emit func(row) bool, batch []row) error {
	return ex.serviceFailure(n.op, endpoint, err, emit, batch)
}

// bindings builds the VALUES block of a batch (distinct tuples of the
// shared variables) and an index of the batch by those values.
func (n *serviceJoinNode) bindings(ex *executor, batch []row) (*Solutions, *bindIndex, error) {
	sols := &Solutions{Vars: n.shared}
	idx := &bindIndex{slots: n.sharedSlots, full: map[string][]row{}}
	seen := map[string]bool{}
	for _, r := range batch {
		k, complete := bindKey(r, n.sharedSlots)
		if complete {
			idx.full[k] = append(idx.full[k], r)
		} else {
			idx.partial = append(idx.partial, r)
		}
		if seen[k] {
			continue
		}
		seen[k] = true
		tuple := make([]kb.Term, len(n.sharedSlots))
		for i, s := range n.sharedSlots {
			if r[s] == 0 {
				continue
			}
			t, err := ex.dict.term(r[s])
			if err != nil {
				return nil, nil, err
			}
			tuple[i] = t
		}
		sols.Rows = append(sols.Rows, tuple)
	}
	return sols, idx, nil
}

// bindIndex finds the left rows of a batch that may join a remote row.
type bindIndex struct {
	slots   []int
	full    map[string][]row // left rows binding every shared slot
	partial []row            // left rows with an unbound shared slot
}

func (b *bindIndex) candidates(r row) []row {
	k, complete := bindKey(r, b.slots)
	if !complete {
		out := append([]row(nil), b.partial...)
		for _, rows := range b.full {
			out = append(out, rows...)
		}
		return out
	}
	if len(b.partial) == 0 {
		return b.full[k]
	}
	return append(append([]row(nil), b.full[k]...), b.partial...)
}

func bindKey(r row, slots []int) (string, bool) {
	var sb strings.Builder
	complete := true
	for _, s := range slots {
		if r[s] == 0 {
			complete = false
		}
		fmt.Fprintf(&sb, "%d,", r[s])
	}
	return sb.String(), complete
}

func (n *serviceJoinNode) children() []node { return []node{n.left} }
func (n *serviceJoinNode) describe() string {
	return fmt.Sprintf("ServiceBindJoin %s on %v", n.op.Endpoint.String(), n.shared)
}

// ---- DESCRIBE at remote endpoints ----

// ServiceDescriber is implemented by a ServiceHandler that can ask an
// endpoint to DESCRIBE resources (a DESCRIBE fanned out to sites:
// algebra.Query.DescribeAt). It may be called from several goroutines.
type ServiceDescriber interface {
	Describe(ctx context.Context, endpoint kb.Term, resources []kb.Term) (*Graph, error)
}

// Graph is an endpoint's DESCRIBE answer; its blank nodes are local to
// the answer. Bytes and Status describe the transfer (0 when unknown).
type Graph struct {
	Triples []kb.Triple
	Bytes   int64
	Status  int
}

// describeRemote evaluates DESCRIBE with q.DescribeAt: the resources (the
// IRIs among the described terms; blank nodes from remote answers name
// nothing at another site) are sent to every endpoint, at most the bind
// join batch size per request, the calls run concurrently (bounded), and
// the descriptions are merged: ground triples once, each answer's blank
// nodes renamed apart. A failed Partial endpoint leaves a report entry.
func (ex *executor) describeRemote(plan node, q *algebra.Query) ([]kb.Triple, error) {
	d, ok := ex.service.(ServiceDescriber)
	if !ok {
		return nil, fmt.Errorf("%w: the SERVICE handler cannot DESCRIBE at an endpoint", ErrUnsupportedService)
	}
	var resources []kb.Term
	known := map[kb.Term]bool{}
	add := func(t kb.Term) {
		if t.IsIRI() && !known[t] {
			known[t] = true
			resources = append(resources, t)
		}
	}
	var varSlots []int
	for _, n := range q.Describe {
		if n.IsVar() {
			varSlots = append(varSlots, ex.vars.slot(n.Var))
		} else {
			add(n.Term)
		}
	}
	if q.Star {
		for _, v := range q.Vars {
			varSlots = append(varSlots, ex.vars.slot(v))
		}
	}
	if len(varSlots) > 0 {
		var terr error
		err := plan.run(ex, ex.newRow(), func(r row) bool {
			for _, s := range varSlots {
				if r[s] == 0 {
					continue
				}
				t, err := ex.dict.term(r[s])
				if err != nil {
					terr = err
					return false
				}
				add(t)
			}
			return ex.check() == nil
		})
		if terr != nil {
			return nil, terr
		}
		if err != nil && !errors.Is(err, errStop) {
			return nil, err
		}
	}
	if err := ctxErr(ex.ctx); err != nil {
		return nil, err
	}

	var out []kb.Triple
	seen := map[kb.Triple]bool{}
	keep := func(tr kb.Triple) {
		if !seen[tr] {
			seen[tr] = true
			out = append(out, tr)
		}
	}
	if q.DescribeLocal {
		var ids []kb.ID
		for _, t := range resources {
			id, ok, err := ex.dict.lookup(t)
			if err != nil {
				return nil, err
			}
			if ok {
				ids = append(ids, id)
			}
		}
		local, err := ex.describeIDs(ids)
		if err != nil {
			return nil, err
		}
		for _, tr := range local {
			keep(tr)
		}
	}
	if len(resources) == 0 {
		return out, nil
	}

	type describeJob struct {
		op        *algebra.Service
		resources []kb.Term
		done      chan struct{}
		g         *Graph
		err       error
	}
	ctx, cancel := context.WithCancel(ex.svc.ctx)
	defer cancel()
	var wg sync.WaitGroup
	defer wg.Wait()
	var jobs []*describeJob
	for _, op := range q.DescribeAt {
		for start := 0; start < len(resources); start += ex.svc.batch {
			j := &describeJob{op: op, resources: resources[start:min(start+ex.svc.batch, len(resources))], done: make(chan struct{})}
			jobs = append(jobs, j)
			wg.Add(1)
			go func() {
				defer wg.Done()
				defer close(j.done)
				j.g, j.err = ex.callDescribe(ctx, d, j.op, j.resources)
			}()
		}
	}
	for _, j := range jobs {
		select {
		case <-j.done:
		case <-ex.ctx.Done():
			return nil, ctxErr(ex.ctx)
		}
		if j.err != nil {
			if j.op.Partial {
				continue
			}
			if errors.Is(j.err, ErrQueryTimeout) || errors.Is(j.err, ErrQueryCanceled) {
				return nil, j.err
			}
			return nil, fmt.Errorf("DESCRIBE at %s: %w", j.op.Endpoint.Term, j.err)
		}
		blanks := map[string]kb.Term{}
		rename := func(t kb.Term) kb.Term {
			if !t.IsBlank() {
				return t
			}
			b, ok := blanks[t.Value]
			if !ok {
				b = ex.env.FreshBlank()
				blanks[t.Value] = b
			}
			return b
		}
		for _, tr := range j.g.Triples {
			keep(kb.Triple{S: rename(tr.S), P: tr.P, O: rename(tr.O)})
		}
		if ex.opts.MaxRows > 0 && int64(len(out)) > ex.opts.MaxRows {
			break // limitTriples reports it
		}
	}
	return out, nil
}

// callDescribe asks one endpoint to describe resources and records the
// call (Rows counts triples, Bindings resources).
func (ex *executor) callDescribe(ctx context.Context, d ServiceDescriber, op *algebra.Service, resources []kb.Term) (*Graph, error) {
	s := ex.svc
	select {
	case s.sem <- struct{}{}:
	case <-ctx.Done():
		return nil, ctxErr(ctx)
	}
	defer func() { <-s.sem }()
	start := time.Now()
	g, err := d.Describe(ctx, op.Endpoint.Term, resources)
	call := ServiceCall{Endpoint: op.Endpoint.Term.Value, Bindings: len(resources)}
	if g != nil {
		call.Rows, call.Bytes, call.HTTPStatus = len(g.Triples), g.Bytes, g.Status
	}
	ex.record(ctx, op, call, start, err)
	return g, err
}
