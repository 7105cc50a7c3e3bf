package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/server/graphstore"
	"github.com/perfkb/perfkb/textpos"
)

func TestMain(m *testing.M) {
	gin.SetMode(gin.TestMode)
	os.Exit(m.Run())
}

const testToken = "s3cret"

// fakeQuery answers by keyword in the query text:
//
//	SELECT … returns two rows over ?s ?n (an IRI and typed literal, a blank
//	node and an unbound ?n); ASK returns true; CONSTRUCT returns two
//	triples; BAD is a syntax error at 2:7; SLOW blocks until the context
//	ends; ROWS=n returns n rows; FAILAFTER=n fails after n rows; TOOMANY is
//	an execution error.
type fakeQuery struct {
	mu       sync.Mutex
	last     QueryRequest
	updates  []UpdateRequest
	started  chan struct{} // receives when a SLOW query starts, if set
	released chan struct{} // SLOW queries wait for this instead of ctx, if set
}

func (f *fakeQuery) Query(ctx context.Context, req QueryRequest) (*QueryResult, error) {
	f.mu.Lock()
	f.last = req
	f.mu.Unlock()
	text := req.Query
	switch {
	case strings.Contains(text, "BAD"):
		return nil, textpos.Errorf(textpos.Position{Line: 2, Column: 7}, "expected '{', found 'WHERE'")
	case strings.Contains(text, "TOOMANY"):
		return nil, Execution(errors.New("result has more than 10 rows"))
	case strings.Contains(text, "SLOW"):
		if f.started != nil {
			f.started <- struct{}{}
		}
		if f.released != nil {
			select {
			case <-f.released:
			case <-ctx.Done():
				return nil, ctx.Err()
			}
			return &QueryResult{Kind: ResultBoolean, Boolean: true}, nil
		}
		<-ctx.Done()
		return nil, fmt.Errorf("query stopped: %w", ctx.Err())
	case strings.Contains(text, "ASK"):
		return &QueryResult{Kind: ResultBoolean, Boolean: true}, nil
	case strings.Contains(text, "CONSTRUCT"):
		return &QueryResult{Kind: ResultGraph, Triples: &sliceTriples{triples: []kb.Triple{
			{S: kb.IRI(PerfontoNS + "rs1"), P: kb.IRI(rdfType), O: kb.IRI(PerfontoNS + "RegionSummary")},
			{S: kb.IRI(PerfontoNS + "rs1"), P: kb.IRI(PerfontoNS + "hasMetricName"), O: kb.String("wtime")},
		}}}, nil
	}
	var n, failAfter int
	if _, err := fmt.Sscanf(after(text, "ROWS="), "%d", &n); err == nil {
		return &QueryResult{Kind: ResultBindings, Vars: []string{"i"}, Solutions: &countingSolutions{n: n, failAfter: -1}}, nil
	}
	if _, err := fmt.Sscanf(after(text, "FAILAFTER="), "%d", &failAfter); err == nil {
		return &QueryResult{Kind: ResultBindings, Vars: []string{"i"}, Solutions: &countingSolutions{n: failAfter + 10, failAfter: failAfter}}, nil
	}
	return &QueryResult{Kind: ResultBindings, Vars: []string{"s", "n"}, Solutions: &sliceSolutions{rows: [][]kb.Term{
		{kb.IRI(PerfontoNS + "rs1"), kb.Literal("3.5E8", "http://www.w3.org/2001/XMLSchema#double")},
		{kb.Blank("b0"), {}},
		{kb.LangLiteral("a \"quoted\", value", "EN"), kb.String("line\nbreak\ttab")},
	}}}, nil
}

func after(s, marker string) string {
	_, rest, ok := strings.Cut(s, marker)
	if !ok {
		return ""
	}
	return rest
}

func (f *fakeQuery) Update(ctx context.Context, req UpdateRequest) (UpdateSummary, error) {
	if strings.Contains(req.Update, "BAD") {
		return UpdateSummary{}, textpos.Errorf(textpos.Position{Line: 1, Column: 8}, "expected DATA")
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	f.updates = append(f.updates, req)
	return UpdateSummary{Operations: 1, Removed: 4}, nil
}

func (f *fakeQuery) lastRequest() QueryRequest {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.last
}

type sliceSolutions struct {
	rows [][]kb.Term
	i    int
}

func (s *sliceSolutions) Next() bool          { s.i++; return s.i <= len(s.rows) }
func (s *sliceSolutions) Solution() []kb.Term { return s.rows[s.i-1] }
func (s *sliceSolutions) Err() error          { return nil }
func (s *sliceSolutions) Close() error        { return nil }

// countingSolutions yields ?i = 0..n-1 and fails after failAfter rows when
// failAfter >= 0.
type countingSolutions struct {
	n, failAfter, i int
	row             [1]kb.Term
	err             error
}

func (s *countingSolutions) Next() bool {
	if s.failAfter >= 0 && s.i == s.failAfter {
		s.err = errors.New("store went away")
		return false
	}
	if s.i >= s.n {
		return false
	}
	s.row[0] = kb.Literal(fmt.Sprint(s.i), "http://www.w3.org/2001/XMLSchema#integer")
	s.i++
	return true
}
func (s *countingSolutions) Solution() []kb.Term { return s.row[:] }
func (s *countingSolutions) Err() error          { return s.err }
func (s *countingSolutions) Close() error        { return nil }

type sliceTriples struct {
	triples []kb.Triple
	i       int
}

func (s *sliceTriples) Next() bool        { s.i++; return s.i <= len(s.triples) }
func (s *sliceTriples) Triple() kb.Triple { return s.triples[s.i-1] }
func (s *sliceTriples) Err() error        { return nil }
func (s *sliceTriples) Close() error      { return nil }

// fakeRules is a RuleService with canned findings.
type fakeRules struct {
	mu   sync.Mutex
	runs []RuleRunRequest
}

var fakeFindings = []Finding{
	{Subject: kb.IRI(PerfontoNS + "rs1"), Type: PerfontoNS + "BigMessage", Severity: 0.8, HasSeverity: true, MetricName: "AvgMessageLength", MetricValue: kb.String("131072"), Experiment: kb.IRI(PerfontoNS + "exp1")},
	{Subject: kb.IRI(PerfontoNS + "rs2"), Type: PerfontoNS + "LoadImbalance", Severity: 0.4, HasSeverity: true, MetricName: "wtime", MetricValue: kb.String("3.1E8"), Experiment: kb.IRI(PerfontoNS + "exp2")},
}

func (f *fakeRules) Run(ctx context.Context, req RuleRunRequest) (RuleRunReport, error) {
	if strings.Contains(req.RuleText, "BAD") {
		return RuleRunReport{}, textpos.Errorf(textpos.Position{Line: 3, Column: 5}, "expected ']'")
	}
	if strings.Contains(req.RuleText, "SLEEP") {
		select {
		case <-time.After(100 * time.Millisecond):
		case <-ctx.Done():
		}
		// Checked after the wait, not in the select: a loaded machine can
		// wake this goroutine when both are ready, and select picks either.
		if err := ctx.Err(); err != nil {
			return RuleRunReport{}, fmt.Errorf("rule run stopped: %w", err)
		}
	}
	// The real service reads #@advice in its load path; the fake does the
	// same for the upload.
	advice, err := rules.ParseAdvice(req.RuleName, []byte(req.RuleText))
	if err != nil {
		return RuleRunReport{}, err
	}
	f.mu.Lock()
	f.runs = append(f.runs, req)
	f.mu.Unlock()
	report := reasoner.NewReport(reasoner.Summary{Rules: 3, Derived: 10, Rounds: 2}, fakeFindings)
	return RuleRunReport{Report: report, Advice: advice}, nil
}

func (f *fakeRules) Check(ctx context.Context, name, text string) (RuleCheckReport, error) {
	if strings.Contains(text, "BAD") {
		return RuleCheckReport{Valid: false, Diagnostics: []Diagnostic{{File: name, Line: 3, Column: 5, Message: "expected ']'"}}}, nil
	}
	var perr *textpos.Error
	if _, err := rules.ParseAdvice(name, []byte(text)); errors.As(err, &perr) {
		return RuleCheckReport{Valid: false, Diagnostics: []Diagnostic{{File: name, Line: perr.Pos.Line, Column: perr.Pos.Column, Message: perr.Msg}}}, nil
	}
	return RuleCheckReport{Valid: true, Rules: strings.Count(text, "->")}, nil
}

func (f *fakeRules) Findings(ctx context.Context, filter FindingFilter) ([]Finding, error) {
	var out []Finding
	for _, fd := range fakeFindings {
		if filter.Problem != "" && !strings.HasSuffix(fd.Type, filter.Problem) {
			continue
		}
		if filter.Experiment != "" && !strings.HasSuffix(fd.Experiment.Value, filter.Experiment) {
			continue
		}
		out = append(out, fd)
	}
	if filter.Limit > 0 && len(out) > filter.Limit {
		out = out[:filter.Limit]
	}
	return out, nil
}

func (f *fakeRules) Explain(ctx context.Context, iri string) (Explanation, error) {
	if iri != PerfontoNS+"rs1" {
		return Explanation{}, fmt.Errorf("nothing derived about <%s>: %w", iri, ErrNotFound)
	}
	return Explanation{Subject: kb.IRI(iri), Derivations: []*Derivation{{
		Triple: kb.Triple{S: kb.IRI(iri), P: kb.IRI(PerfontoNS + "hasProblem"), O: kb.IRI(PerfontoNS + "BigMessage")}, Rule: "rule_detect_bigmessages",
		Premises: []*Derivation{{Triple: kb.Triple{S: kb.IRI(iri), P: kb.IRI(PerfontoNS + "ofCodeRegion"), O: kb.IRI("http://example.org/cr1")}, Asserted: true}},
	}}}, nil
}

// newTestServer returns a server with fake query and rule services and a
// real in-memory store behind the Graph Store Protocol.
func newTestServer(t *testing.T, mutate func(*Options)) (*Server, *fakeQuery, *native.MemStore) {
	t.Helper()
	mem := native.OpenMemory()
	store := graphstore.New(mem)
	fq := &fakeQuery{}
	opts := Options{Query: fq, Graphs: store, Rules: &fakeRules{}, Sites: store, Store: store, Token: testToken, PublicBase: "http://example.com"}
	if mutate != nil {
		mutate(&opts)
	}
	return New(opts), fq, mem
}

// do sends a request through the handler and returns the recorder.
func do(h http.Handler, method, target, contentType, body string, headers ...string) *httptest.ResponseRecorder {
	var req *http.Request
	if body == "" {
		req = httptest.NewRequest(method, target, nil)
	} else {
		req = httptest.NewRequest(method, target, strings.NewReader(body))
	}
	if contentType != "" {
		req.Header.Set("Content-Type", contentType)
	}
	for i := 0; i+1 < len(headers); i += 2 {
		req.Header.Set(headers[i], headers[i+1])
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

var bearer = []string{"Authorization", "Bearer " + testToken}
