package eval

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/syntax"
)

// remoteStores is a ServiceHandler whose endpoints are in-process stores:
// each request is evaluated as Join(pattern, VALUES bindings) over the
// endpoint's store, as a SPARQL endpoint receiving the forwarded query
// would. It records every request.
type remoteStores struct {
	stores map[string]kb.Dataset
	delay  map[string]time.Duration

	mu   sync.Mutex
	reqs []ServiceRequest
	// inFlight and maxInFlight count concurrent calls.
	inFlight, maxInFlight int
}

func (r *remoteStores) Handle(ctx context.Context, req ServiceRequest) (*Solutions, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, req)
	r.inFlight++
	r.maxInFlight = max(r.maxInFlight, r.inFlight)
	r.mu.Unlock()
	defer func() {
		r.mu.Lock()
		r.inFlight--
		r.mu.Unlock()
	}()
	if d := r.delay[req.Endpoint.Value]; d > 0 {
		select {
		case <-time.After(d):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
	ds, ok := r.stores[req.Endpoint.Value]
	if !ok {
		return nil, fmt.Errorf("connection refused: %s", req.Endpoint.Value)
	}
	pattern := req.Pattern
	if req.Bindings != nil {
		pattern = &algebra.Join{Left: pattern, Right: &algebra.Table{Vars: req.Bindings.Vars, Rows: req.Bindings.Rows}}
	}
	q := &algebra.Query{Form: algebra.FormSelect, Pattern: pattern, Vars: req.Vars}
	res, err := Query(ctx, ds, q, Options{})
	if err != nil {
		return nil, err
	}
	out := &Solutions{Vars: req.Vars}
	for {
		row, ok := res.Next()
		if !ok {
			break
		}
		out.Rows = append(out.Rows, row)
	}
	return out, res.Err()
}

func (r *remoteStores) count(endpoint string) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	n := 0
	for _, q := range r.reqs {
		if q.Endpoint.Value == endpoint {
			n++
		}
	}
	return n
}

func rowStrings(rows [][]kb.Term) []string {
	var out []string
	for _, r := range rows {
		var parts []string
		for _, t := range r {
			parts = append(parts, t.String())
		}
		out = append(out, strings.Join(parts, " "))
	}
	sort.Strings(out)
	return out
}

func TestServiceBindJoinBatches(t *testing.T) {
	p, q := kb.IRI("http://p"), kb.IRI("http://q")
	var local, remote []kb.TermQuad
	const n = 1201
	for i := range n {
		s := kb.IRI(fmt.Sprintf("http://s%d", i))
		local = append(local, kb.TermQuad{S: s, P: p, O: kb.Literal(fmt.Sprint(int64(i)), ontology.XSDInteger)})
		if i%3 == 0 {
			remote = append(remote, kb.TermQuad{S: s, P: q, O: kb.Literal(fmt.Sprint(int64(2*i)), ontology.XSDInteger)})
		}
	}
	svc := &remoteStores{stores: map[string]kb.Dataset{"http://r/sparql": memoryWith(t, remote...)}}
	rows, err := run(t, memoryWith(t, local...), `SELECT ?s ?a ?b { ?s <http://p> ?a SERVICE <http://r/sparql> { ?s <http://q> ?b } }`, Options{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != (n+2)/3 {
		t.Errorf("%d rows, want %d", len(rows), (n+2)/3)
	}
	for _, r := range rows {
		if a, b := r[1].Value, r[2].Value; fmt.Sprint(2*atoi(t, a)) != b {
			t.Errorf("row %v: joined the wrong remote row", r)
		}
	}
	// ⌈1201/500⌉ = 3 requests, each with its batch in Bindings.
	if got := svc.count("http://r/sparql"); got != 3 {
		t.Errorf("%d requests, want 3", got)
	}
	for _, req := range svc.reqs {
		if req.Bindings == nil || len(req.Bindings.Vars) != 1 || req.Bindings.Vars[0] != "s" || len(req.Bindings.Rows) > DefaultServiceBatch {
			t.Errorf("request bindings %+v: want ?s, at most %d rows", req.Bindings, DefaultServiceBatch)
		}
	}
	// A smaller batch makes more requests.
	svc.reqs = nil
	if _, err := run(t, memoryWith(t, local...), `SELECT * { ?s <http://p> ?a SERVICE <http://r/sparql> { ?s <http://q> ?b } }`, Options{Service: svc, ServiceBatch: 100}); err != nil {
		t.Fatal(err)
	}
	if got := svc.count("http://r/sparql"); got != 13 {
		t.Errorf("batch 100: %d requests, want 13", got)
	}

	// The batches are sent concurrently, at most ServiceConcurrency at
	// once, and the answer is the same.
	svc.reqs, svc.maxInFlight = nil, 0
	svc.delay = map[string]time.Duration{"http://r/sparql": 30 * time.Millisecond}
	rows, err = run(t, memoryWith(t, local...), `SELECT ?s ?a ?b { ?s <http://p> ?a SERVICE <http://r/sparql> { ?s <http://q> ?b } }`,
		Options{Service: svc, ServiceBatch: 100, ServiceConcurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != (n+2)/3 || svc.count("http://r/sparql") != 13 {
		t.Errorf("concurrent batches: %d rows in %d requests, want %d in 13", len(rows), svc.count("http://r/sparql"), (n+2)/3)
	}
	if svc.maxInFlight < 2 || svc.maxInFlight > 4 {
		t.Errorf("concurrent batches: at most %d calls in flight, want 2..4", svc.maxInFlight)
	}
}

// TestServiceBindJoinStops checks that a bind join whose consumer stops
// (LIMIT) cancels the batches still in flight: they are reported as not
// needed, not as failures.
func TestServiceBindJoinStops(t *testing.T) {
	p, q := kb.IRI("http://p"), kb.IRI("http://q")
	var local, remote []kb.TermQuad
	for i := range 1000 {
		s := kb.IRI(fmt.Sprintf("http://s%d", i))
		local = append(local, kb.TermQuad{S: s, P: p, O: kb.Literal(fmt.Sprint(int64(i)), ontology.XSDInteger)})
		remote = append(remote, kb.TermQuad{S: s, P: q, O: kb.Literal("x", "")})
	}
	svc := &remoteStores{stores: map[string]kb.Dataset{"http://r/sparql": memoryWith(t, remote...)},
		delay: map[string]time.Duration{"http://r/sparql": 20 * time.Millisecond}}
	ds := memoryWith(t, local...)
	pq, err := syntax.ParseQuery(`SELECT * { ?s <http://p> ?a SERVICE <http://r/sparql> { ?s <http://q> ?b } } LIMIT 5`, syntax.Options{})
	if err != nil {
		t.Fatal(err)
	}
	res, err := Query(context.Background(), ds, pq, Options{Service: svc, ServiceBatch: 10, ServiceConcurrency: 4})
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, ok := res.Next(); ok; _, ok = res.Next() {
		n++
	}
	if err := res.Err(); err != nil || n != 5 {
		t.Fatalf("%d rows, error %v; want 5", n, err)
	}
	res.Close()
	for _, c := range res.Services() {
		if c.Outcome != CallOK && c.Outcome != CallNotNeeded {
			t.Errorf("call %+v: want answered or not needed", c)
		}
	}
	if got := svc.count("http://r/sparql"); got >= 100 {
		t.Errorf("%d requests for LIMIT 5, want the window's few, not all 100", got)
	}
}

func atoi(t *testing.T, s string) int {
	var i int
	if _, err := fmt.Sscan(s, &i); err != nil {
		t.Fatal(err)
	}
	return i
}

func TestServiceEndpointVariable(t *testing.T) {
	p := kb.IRI("http://p")
	a := memoryWith(t, kb.TermQuad{S: kb.IRI("http://x1"), P: p, O: kb.String("at a")})
	b := memoryWith(t, kb.TermQuad{S: kb.IRI("http://x2"), P: p, O: kb.String("at b")})
	svc := &remoteStores{stores: map[string]kb.Dataset{"http://a/sparql": a, "http://b/sparql": b}}
	registry := memoryWith(t,
		kb.TermQuad{S: kb.IRI("http://x1"), P: kb.IRI("http://heldBy"), O: kb.IRI("http://a/sparql")},
		kb.TermQuad{S: kb.IRI("http://x2"), P: kb.IRI("http://heldBy"), O: kb.IRI("http://b/sparql")})
	tests := []struct{ name, query string }{
		{"graph", `SELECT ?x ?v { ?x <http://heldBy> ?ep SERVICE ?ep { ?x <http://p> ?v } }`},
		{"values", `SELECT ?x ?v { VALUES (?x ?ep) { (<http://x1> <http://a/sparql>) (<http://x2> <http://b/sparql>) } SERVICE ?ep { ?x <http://p> ?v } }`},
		{"bind", `SELECT ?x ?v { ?x <http://heldBy> ?e BIND(?e AS ?ep) SERVICE ?ep { ?x <http://p> ?v } }`},
	}
	want := []string{`<http://x1> "at a"`, `<http://x2> "at b"`}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows, err := run(t, registry, tc.query, Options{Service: svc})
			if err != nil {
				t.Fatal(err)
			}
			if got := rowStrings(rows); strings.Join(got, "\n") != strings.Join(want, "\n") {
				t.Errorf("rows %q, want %q", got, want)
			}
		})
	}
}

func TestServiceConcurrentAndReport(t *testing.T) {
	p := kb.IRI("http://p")
	stores := map[string]kb.Dataset{}
	delay := map[string]time.Duration{}
	var branches []string
	for i := range 4 {
		ep := fmt.Sprintf("http://site%d/sparql", i)
		stores[ep] = memoryWith(t, kb.TermQuad{S: kb.IRI(fmt.Sprintf("http://x%d", i)), P: p, O: kb.Literal(fmt.Sprint(int64(i)), ontology.XSDInteger)})
		delay[ep] = 300 * time.Millisecond
		branches = append(branches, fmt.Sprintf("{ SERVICE <%s> { ?x <http://p> ?v } }", ep))
	}
	branches = append(branches, "{ SERVICE SILENT <http://down/sparql> { ?x <http://p> ?v } }")
	svc := &remoteStores{stores: stores, delay: delay}
	q := "SELECT * { " + strings.Join(branches, " UNION ") + " }"
	start := time.Now()
	rows, err := run(t, kbtest.NewMemory(), q, Options{Service: svc})
	elapsed := time.Since(start)
	if err != nil {
		t.Fatal(err)
	}
	// Four sites' rows plus the one empty solution of the SILENT failure.
	if len(rows) != 5 {
		t.Errorf("%d rows, want 5: %v", len(rows), rows)
	}
	// Started together: about one delay, far less than four.
	if elapsed > 900*time.Millisecond {
		t.Errorf("UNION of four 300 ms SERVICE calls took %v: calls were not concurrent", elapsed)
	}

	// The report: one entry per call, the failed one marked silent.
	qq := mustParse(t, q)
	res, err := Query(context.Background(), kbtest.NewMemory(), qq, Options{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	for {
		if _, ok := res.Next(); !ok {
			break
		}
	}
	calls := res.Services()
	if len(calls) != 5 {
		t.Fatalf("report has %d calls, want 5: %+v", len(calls), calls)
	}
	var failed int
	for _, c := range calls {
		switch c.Outcome {
		case CallOK:
			if c.Rows != 1 {
				t.Errorf("%s: rows %d, want 1", c.Endpoint, c.Rows)
			}
		case CallFailed:
			failed++
			if c.Endpoint != "http://down/sparql" || !c.Silent || !strings.Contains(c.Error, "connection refused") {
				t.Errorf("failed call %+v: want the silent down endpoint", c)
			}
		}
	}
	if failed != 1 {
		t.Errorf("%d failed calls, want 1", failed)
	}
}

func TestServicePartialBranch(t *testing.T) {
	p := kb.IRI("http://p")
	a := memoryWith(t, kb.TermQuad{S: kb.IRI("http://x1"), P: p, O: kb.Literal(fmt.Sprint(1), ontology.XSDInteger)})
	svc := &remoteStores{stores: map[string]kb.Dataset{"http://a/sparql": a}}
	q := mustParse(t, `SELECT * { { SERVICE <http://a/sparql> { ?x <http://p> ?v } } UNION { SERVICE <http://down/sparql> { ?x <http://p> ?v } } }`)
	algebra.Walk(q.Pattern, func(op algebra.Op) bool {
		if s, ok := op.(*algebra.Service); ok {
			s.Partial = true
		}
		return true
	})
	res, err := Query(context.Background(), kbtest.NewMemory(), q, Options{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	var rows [][]kb.Term
	for {
		r, ok := res.Next()
		if !ok {
			break
		}
		rows = append(rows, r)
	}
	if res.Err() != nil || len(rows) != 1 {
		t.Errorf("rows %v, err %v; want the one row of the answering site", rows, res.Err())
	}
	var partial bool
	for _, c := range res.Services() {
		partial = partial || (c.Partial && c.Endpoint == "http://down/sparql")
	}
	if !partial {
		t.Errorf("report %+v lacks the partial failure", res.Services())
	}
}

func mustParse(t *testing.T, text string) *algebra.Query {
	t.Helper()
	q, err := syntax.ParseQuery(text, syntax.Options{})
	if err != nil {
		t.Fatalf("%s: %v", text, err)
	}
	return q
}

func TestServiceConstruct(t *testing.T) {
	p := kb.IRI("http://p")
	a := memoryWith(t, kb.TermQuad{S: kb.IRI("http://x1"), P: p, O: kb.String("v")})
	svc := &remoteStores{stores: map[string]kb.Dataset{"http://a/sparql": a}}
	q := mustParse(t, `CONSTRUCT { ?s ?p ?o } WHERE { SERVICE <http://a/sparql> { ?s ?p ?o } }`)
	res, err := Query(context.Background(), kbtest.NewMemory(), q, Options{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	triples, err := res.AllTriples()
	if err != nil {
		t.Fatal(err)
	}
	if len(triples) != 1 || triples[0].S != kb.IRI("http://x1") {
		t.Errorf("triples %v, want the remote one", triples)
	}
}

func TestServiceOptionalBindJoin(t *testing.T) {
	p := kb.IRI("http://p")
	a := memoryWith(t, kb.TermQuad{S: kb.IRI("http://x1"), P: p, O: kb.String("at a")})
	b := memoryWith(t, kb.TermQuad{S: kb.IRI("http://other"), P: p, O: kb.String("at b")})
	svc := &remoteStores{stores: map[string]kb.Dataset{"http://a/sparql": a, "http://b/sparql": b}}
	rows, err := run(t, kbtest.NewMemory(), `SELECT ?x ?v {
  VALUES (?x ?ep) { (<http://x1> <http://a/sparql>) (<http://x2> <http://b/sparql>) (<http://x3> <http://a/sparql>) }
  OPTIONAL { SERVICE ?ep { ?x <http://p> ?v } } }`, Options{Service: svc})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{`<http://x1> "at a"`, `<http://x2> `, `<http://x3> `}
	got := rowStrings(rows)
	for i := range got {
		got[i] = strings.ReplaceAll(got[i], "<invalid term>", "") // unbound
	}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("rows %q, want %q", got, want)
	}
	if n := svc.count("http://a/sparql") + svc.count("http://b/sparql"); n != 2 {
		t.Errorf("%d requests, want one per endpoint", n)
	}
}

// Describe implements ServiceDescriber: DESCRIBE of the resources over
// the endpoint's store.
func (r *remoteStores) Describe(ctx context.Context, endpoint kb.Term, resources []kb.Term) (*Graph, error) {
	r.mu.Lock()
	r.reqs = append(r.reqs, ServiceRequest{Endpoint: endpoint})
	r.mu.Unlock()
	ds, ok := r.stores[endpoint.Value]
	if !ok {
		return nil, fmt.Errorf("connection refused: %s", endpoint.Value)
	}
	q := &algebra.Query{Form: algebra.FormDescribe, Pattern: &algebra.BGP{}}
	for _, t := range resources {
		q.Describe = append(q.Describe, algebra.TermNode(t))
	}
	res, err := Query(ctx, ds, q, Options{})
	if err != nil {
		return nil, err
	}
	triples, err := res.AllTriples()
	if err != nil {
		return nil, err
	}
	return &Graph{Triples: triples}, nil
}

func TestServiceDescribe(t *testing.T) {
	s1, s2, p, q, r := kb.IRI("http://s1"), kb.IRI("http://s2"), kb.IRI("http://p"), kb.IRI("http://q"), kb.IRI("http://r")
	b := kb.Blank("b1")
	siteA := memoryWith(t,
		kb.TermQuad{S: s1, P: p, O: kb.String("a")},
		kb.TermQuad{S: s1, P: q, O: b},
		kb.TermQuad{S: b, P: r, O: kb.String("x")})
	siteB := memoryWith(t,
		kb.TermQuad{S: s1, P: p, O: kb.String("a")}, // at both sites: once in the answer
		kb.TermQuad{S: s1, P: p, O: kb.String("b")},
		kb.TermQuad{S: s2, P: p, O: kb.String("c")},
		kb.TermQuad{S: s2, P: q, O: b}, // another site's _:b1: another node
		kb.TermQuad{S: b, P: r, O: kb.String("y")})
	svc := &remoteStores{stores: map[string]kb.Dataset{"http://a/sparql": siteA, "http://b/sparql": siteB}}
	// describe runs the DESCRIBE and reads its triples (errors arrive
	// with the stream).
	describe := func(endpoints []string, partial bool, batch int) (*Result, []kb.Triple, error) {
		pq, err := syntax.ParseQuery(`DESCRIBE ?s <http://s2> WHERE { VALUES ?s { <http://s1> "lit" } }`, syntax.Options{})
		if err != nil {
			t.Fatal(err)
		}
		for _, ep := range endpoints {
			pq.DescribeAt = append(pq.DescribeAt, &algebra.Service{Endpoint: algebra.TermNode(kb.IRI(ep)), Partial: partial})
		}
		res, err := Query(context.Background(), memoryWith(t), pq, Options{Service: svc, ServiceBatch: batch})
		if err != nil {
			return nil, nil, err
		}
		triples, err := res.AllTriples()
		return res, triples, err
	}
	res, triples, err := describe([]string{"http://a/sparql", "http://b/sparql", "http://down/sparql"}, true, 0)
	if err != nil {
		t.Fatal(err)
	}
	var ground []string
	blanks := map[string][]string{}
	for _, tr := range triples {
		switch {
		case tr.S.IsBlank():
			blanks[tr.S.Value] = append(blanks[tr.S.Value], "r "+tr.O.Value)
		case tr.O.IsBlank():
			blanks[tr.O.Value] = append(blanks[tr.O.Value], "from "+tr.S.Value)
		default:
			ground = append(ground, tr.S.Value+" "+tr.O.Value)
		}
	}
	sort.Strings(ground)
	if want := []string{"http://s1 a", "http://s1 b", "http://s2 c"}; strings.Join(ground, "|") != strings.Join(want, "|") {
		t.Errorf("ground triples %v, want %v", ground, want)
	}
	// Each site's _:b1 is its own node, with its own description.
	var nodes []string
	for _, ts := range blanks {
		sort.Strings(ts)
		nodes = append(nodes, strings.Join(ts, ", "))
	}
	sort.Strings(nodes)
	if want := []string{"from http://s1, r x", "from http://s2, r y"}; strings.Join(nodes, "|") != strings.Join(want, "|") {
		t.Errorf("blank nodes %v, want %v", nodes, want)
	}
	// The failed site is reported, not fatal (Partial).
	outcomes := map[string]string{}
	for _, c := range res.Services() {
		outcomes[c.Endpoint] = c.Outcome
		if c.Endpoint == "http://a/sparql" && (c.Rows != 3 || c.Bindings != 2) {
			t.Errorf("report for site a: %+v, want 3 triples for 2 resources", c)
		}
	}
	if outcomes["http://a/sparql"] != CallOK || outcomes["http://b/sparql"] != CallOK || outcomes["http://down/sparql"] != CallFailed {
		t.Errorf("report %v", outcomes)
	}
	// Without Partial a failed site fails the query.
	if _, _, err := describe([]string{"http://a/sparql", "http://down/sparql"}, false, 0); err == nil || !strings.Contains(err.Error(), "down") {
		t.Errorf("non-partial failure: %v, want an error naming the endpoint", err)
	}
	// One resource per request: two requests per site.
	svc.reqs = nil
	if _, _, err := describe([]string{"http://a/sparql", "http://b/sparql"}, false, 1); err != nil {
		t.Fatal(err)
	}
	if a, b := svc.count("http://a/sparql"), svc.count("http://b/sparql"); a != 2 || b != 2 {
		t.Errorf("batch 1: %d and %d requests, want 2 each", a, b)
	}
}

// BenchmarkServiceBindJoin measures a bind join of 1201 left rows in
// batches of 100 (13 requests) to an endpoint answering after 10 ms,
// with the batches sent one at a time and up to 8 at once.
func BenchmarkServiceBindJoin(b *testing.B) {
	p, q := kb.IRI("http://p"), kb.IRI("http://q")
	local, remote := kbtest.NewMemory(), kbtest.NewMemory()
	var lq, rq []kb.TermQuad
	for i := range 1201 {
		s := kb.IRI(fmt.Sprintf("http://s%d", i))
		lq = append(lq, kb.TermQuad{S: s, P: p, O: kb.Literal(fmt.Sprint(int64(i)), ontology.XSDInteger)})
		rq = append(rq, kb.TermQuad{S: s, P: q, O: kb.String("r")})
	}
	for _, d := range []struct {
		ds    *kbtest.Memory
		quads []kb.TermQuad
	}{{local, lq}, {remote, rq}} {
		ids, err := kb.InternQuads(context.Background(), d.ds, d.quads)
		if err != nil {
			b.Fatal(err)
		}
		if err := d.ds.Apply(context.Background(), kb.Delta{Add: ids}); err != nil {
			b.Fatal(err)
		}
	}
	pq, err := syntax.ParseQuery(`SELECT * { ?s <http://p> ?a SERVICE <http://r/sparql> { ?s <http://q> ?b } }`, syntax.Options{})
	if err != nil {
		b.Fatal(err)
	}
	for _, conc := range []int{1, 8} {
		b.Run(fmt.Sprintf("concurrency=%d", conc), func(b *testing.B) {
			svc := &remoteStores{stores: map[string]kb.Dataset{"http://r/sparql": remote},
				delay: map[string]time.Duration{"http://r/sparql": 10 * time.Millisecond}}
			for b.Loop() {
				res, err := Query(context.Background(), local, pq, Options{Service: svc, ServiceBatch: 100, ServiceConcurrency: conc})
				if err != nil {
					b.Fatal(err)
				}
				n := 0
				for _, ok := res.Next(); ok; _, ok = res.Next() {
					n++
				}
				if err := res.Err(); err != nil || n != 1201 {
					b.Fatalf("%d rows, %v", n, err)
				}
				res.Close()
			}
		})
	}
}

// TestServiceJoinLeftSideCharged: the left side of a SERVICE bind join,
// materialised before the calls, is charged to the query's memory budget.
// The W3C test service04a (`?s ?p1 ?o1 OPTIONAL { SERVICE … }`), sent by
// the soak's hostile clients to a store a sensor flood had grown to some
// 3 million triples, held every quad there and the server died of
// "fatal error: out of memory" under `ulimit -v 5G`; with the charge it
// fails with the budget's error, and without a budget it answers.
func TestServiceJoinLeftSideCharged(t *testing.T) {
	p := kb.IRI("http://p")
	var local []kb.TermQuad
	for i := range 20000 { // some 1.5 MB of rows held
		local = append(local, kb.TermQuad{S: kb.IRI(fmt.Sprintf("http://s%d", i)), P: p, O: kb.Literal(fmt.Sprint(int64(i)), ontology.XSDInteger)})
	}
	svc := &remoteStores{stores: map[string]kb.Dataset{"http://r/sparql": memoryWith(t)}}
	ds := memoryWith(t, local...)
	for _, text := range []string{
		`SELECT * { ?s ?p1 ?o1 OPTIONAL { SERVICE <http://r/sparql> { ?s <http://q> ?o2 } } }`,
		`SELECT * { ?s ?p1 ?o1 SERVICE <http://r/sparql> { ?s <http://q> ?o2 } }`,
	} {
		if _, err := run(t, ds, text, Options{Service: svc}); err != nil {
			t.Fatalf("%s without a budget: %v", text, err)
		}
		_, err := run(t, ds, text, Options{Service: svc, QueryMemory: 256 << 10})
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != LimitQueryMemory || !strings.Contains(le.Op, "SERVICE") {
			t.Errorf("%s: error %v, want a query-memory *LimitError naming the SERVICE join", text, err)
		}
	}
}

// vettingStores is remoteStores whose Vet refuses the endpoints in refuse,
// counting the calls that reach Handle.
type vettingStores struct {
	remoteStores
	refuse map[string]bool
	calls  atomic.Int64 // Handle runs on the join's goroutines
}

func (v *vettingStores) Vet(endpoint kb.Term) error {
	if v.refuse[endpoint.Value] {
		return fmt.Errorf("endpoint %s is not allowed", endpoint.Value)
	}
	return nil
}

func (v *vettingStores) Handle(ctx context.Context, req ServiceRequest) (*Solutions, error) {
	v.calls.Add(1)
	if err := v.Vet(req.Endpoint); err != nil {
		return nil, err
	}
	return v.remoteStores.Handle(ctx, req)
}

// TestServiceJoinRefusedEndpointFailsFirst: a SERVICE join to an endpoint
// the handler refuses fails with that refusal before its left side is
// gathered — with a query-memory budget the left side would exceed, the
// error is the refusal, not the budget — while SILENT keeps every left row
// and an allowed endpoint still answers.
func TestServiceJoinRefusedEndpointFailsFirst(t *testing.T) {
	p := kb.IRI("http://p")
	var local []kb.TermQuad
	for i := range 20000 {
		local = append(local, kb.TermQuad{S: kb.IRI(fmt.Sprintf("http://s%d", i)), P: p, O: kb.Literal(fmt.Sprint(int64(i)), ontology.XSDInteger)})
	}
	ds := memoryWith(t, local...)
	svc := &vettingStores{
		remoteStores: remoteStores{stores: map[string]kb.Dataset{"http://r/sparql": memoryWith(t), "http://no/sparql": memoryWith(t)}},
		refuse:       map[string]bool{"http://no/sparql": true},
	}
	for _, text := range []string{
		`SELECT * { ?s ?p1 ?o1 OPTIONAL { SERVICE <http://no/sparql> { ?s <http://q> ?o2 } } }`,
		`SELECT * { ?s ?p1 ?o1 SERVICE <http://no/sparql> { ?s <http://q> ?o2 } }`,
	} {
		svc.calls.Store(0)
		_, err := run(t, ds, text, Options{Service: svc, QueryMemory: 256 << 10})
		if err == nil || !strings.Contains(err.Error(), "not allowed") {
			t.Errorf("%s: error %v, want the endpoint's refusal", text, err)
		}
		if n := svc.calls.Load(); n != 0 {
			t.Errorf("%s: %d calls reached the handler, want 0", text, n)
		}
	}
	// SILENT keeps every left row, each passed on as it comes: with a
	// budget the whole left side exceeds (as above) the query answers,
	// and no call is made.
	for _, text := range []string{
		`SELECT * { ?s ?p1 ?o1 SERVICE SILENT <http://no/sparql> { ?s <http://q> ?o2 } }`,
		`SELECT * { ?s ?p1 ?o1 OPTIONAL { SERVICE SILENT <http://no/sparql> { ?s <http://q> ?o2 } } }`,
	} {
		svc.calls.Store(0)
		rows, err := run(t, ds, text, Options{Service: svc, QueryMemory: 256 << 10})
		if err != nil || len(rows) != len(local) {
			t.Errorf("%s: %d rows, error %v; want %d rows", text, len(rows), err, len(local))
		}
		if n := svc.calls.Load(); n != 0 {
			t.Errorf("%s: %d calls reached the handler, want 0", text, n)
		}
	}
	if _, err := run(t, ds, `SELECT * { ?s ?p1 ?o1 OPTIONAL { SERVICE <http://r/sparql> { ?s <http://q> ?o2 } } }`, Options{Service: svc}); err != nil {
		t.Errorf("allowed endpoint: %v", err)
	}
}
