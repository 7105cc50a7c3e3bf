package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/reasoner/rulelang"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/server"
)

// PERFONTO IRIs the findings listing reads.
const (
	inExperiment   = ontology.InExperiment
	ofCodeRegion   = ontology.OfCodeRegion
	shippedRuleSet = "shipped rule sets"
)

// Reasoner runs rules over a store and reports their findings.
type Reasoner struct {
	DS kb.Dataset
	// Options tune every run (limits, derivation records).
	Options reasoner.Options

	// runs serialises rule runs: two materialisations of the same store at
	// once would only race to write the same triples.
	runs sync.Mutex
}

var _ server.RuleService = (*Reasoner)(nil)

// load reads the requested shipped sets and the uploaded file through the
// one rule-loading path (reasoner.LoadSources) with the upload resolver: an
// uploaded file may include the shipped sets but nothing from this
// server's disk.
func load(ctx context.Context, req server.RuleRunRequest) (*reasoner.Program, error) {
	sets := req.Sets
	if len(sets) == 0 && strings.TrimSpace(req.RuleText) == "" {
		sets = rules.Default
	}
	var sources []reasoner.Source
	for _, set := range sets {
		if _, _, ok := rules.Lookup(set); !ok {
			return nil, &positionedError{err: fmt.Errorf("unknown rule set %q (shipped: %s)", set, strings.Join(rules.Names(), ", "))}
		}
		sources = append(sources, reasoner.Source{Name: set})
	}
	if strings.TrimSpace(req.RuleText) != "" {
		name := req.RuleName
		if name == "" {
			name = "uploaded.rules"
		}
		sources = append(sources, reasoner.Source{Name: name, Text: []byte(req.RuleText)})
	}
	return reasoner.LoadSources(ctx, sources, reasoner.ParseOptions{Resolve: reasoner.UploadResolver()})
}

// uploadedAdvice is the advice of the files that are not shipped sets: the
// shipped advice is in the server's book already, and adding it again
// would undo a site's rewording (serve --advice).
func uploadedAdvice(prog *reasoner.Program) []rules.Advice {
	var out []rules.Advice
	for _, a := range prog.Advice() {
		if !rules.IsShippedFile(a.File) {
			out = append(out, a)
		}
	}
	return out
}

// Run implements server.RuleService.
func (r *Reasoner) Run(ctx context.Context, req server.RuleRunRequest) (server.RuleRunReport, error) {
	prog, err := load(ctx, req)
	if err != nil {
		return server.RuleRunReport{}, translateRuleError(ctx, err)
	}
	r.runs.Lock()
	defer r.runs.Unlock()
	start := time.Now()
	sum, err := reasoner.Run(ctx, r.DS, prog, r.Options)
	report := server.RuleRunReport{Rules: sum.Rules, Derived: sum.Derived, Iterations: sum.Rounds, Duration: time.Since(start), Advice: uploadedAdvice(prog)}
	if err != nil {
		return report, translateRuleError(ctx, err)
	}
	findings, err := reasoner.Findings(ctx, r.DS, reasoner.FindingFilter{})
	if err != nil {
		return report, err
	}
	report.Findings = int64(len(findings))
	return report, nil
}

// Check implements server.RuleService.
func (r *Reasoner) Check(ctx context.Context, name, text string) (server.RuleCheckReport, error) {
	prog, err := load(ctx, server.RuleRunRequest{RuleName: name, RuleText: text})
	if err == nil {
		return server.RuleCheckReport{Valid: true, Rules: prog.Len()}, nil
	}
	report := server.RuleCheckReport{Valid: false}
	var list rulelang.ErrorList
	var one *rulelang.Error
	switch {
	case errors.As(err, &list):
		for _, e := range list {
			report.Diagnostics = append(report.Diagnostics, server.Diagnostic{File: e.Pos.File, Line: e.Pos.Line, Column: e.Pos.Col, Message: e.Msg})
		}
	case errors.As(err, &one):
		report.Diagnostics = append(report.Diagnostics, server.Diagnostic{File: one.Pos.File, Line: one.Pos.Line, Column: one.Pos.Col, Message: one.Msg})
	default:
		report.Diagnostics = append(report.Diagnostics, server.Diagnostic{File: name, Message: err.Error()})
	}
	return report, nil
}

// translateRuleError maps reasoner errors to the server's.
func translateRuleError(ctx context.Context, err error) error {
	var list rulelang.ErrorList
	var one *rulelang.Error
	switch {
	case errors.As(err, &list) && len(list) > 0:
		return &positionedError{err: err, line: list[0].Pos.Line, col: list[0].Pos.Col}
	case errors.As(err, &one):
		return &positionedError{err: err, line: one.Pos.Line, col: one.Pos.Col}
	case errors.Is(err, reasoner.ErrMaxDerived), errors.Is(err, reasoner.ErrMaxIterations),
		errors.Is(err, reasoner.ErrTermTooLarge), errors.Is(err, reasoner.ErrMemoryBudget):
		return server.Execution(err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: rule run stopped: %w", server.ErrTimeout, err)
	}
	var invalid interface{ InvalidInput() bool }
	if errors.As(err, &invalid) && invalid.InvalidInput() {
		return &positionedError{err: err}
	}
	return err
}

// Findings implements server.RuleService.
func (r *Reasoner) Findings(ctx context.Context, filter server.FindingFilter) ([]server.Finding, error) {
	limit := filter.Limit
	if filter.Experiment != "" {
		limit = 0 // filtered below
	}
	list, err := reasoner.Findings(ctx, r.DS, reasoner.FindingFilter{Type: filter.Problem, Limit: limit})
	if err != nil {
		return nil, err
	}
	expID, _, err := r.DS.Lookup(ctx, kb.IRI(inExperiment))
	if err != nil {
		return nil, err
	}
	regionID, _, err := r.DS.Lookup(ctx, kb.IRI(ofCodeRegion))
	if err != nil {
		return nil, err
	}
	out := make([]server.Finding, 0, len(list))
	for _, f := range list {
		sf := server.Finding{
			Subject:       f.Subject.Value,
			Problem:       f.Type,
			Severity:      f.Severity,
			SeverityClass: f.SeverityClass,
			Metric:        f.MetricName,
			Value:         f.MetricValue.Value,
			Description:   f.Description,
		}
		if sf.Problem == "" {
			sf.Problem = f.Problem.Value
		}
		if sf.Experiment, err = r.object(ctx, f.Subject, expID); err != nil {
			return nil, err
		}
		if sf.Region, err = r.object(ctx, f.Subject, regionID); err != nil {
			return nil, err
		}
		if filter.Experiment != "" && sf.Experiment != filter.Experiment && localName(sf.Experiment) != filter.Experiment {
			continue
		}
		out = append(out, sf)
		if filter.Limit > 0 && len(out) == filter.Limit {
			break
		}
	}
	return out, nil
}

// object returns the value of the first (subject, predicate, ?o) quad.
func (r *Reasoner) object(ctx context.Context, subject kb.Term, predicate kb.ID) (string, error) {
	if predicate == kb.Any || subject.IsZero() {
		return "", nil
	}
	s, ok, err := r.DS.Lookup(ctx, subject)
	if err != nil || !ok {
		return "", err
	}
	it := r.DS.Match(ctx, kb.Pattern{S: s, P: predicate})
	defer it.Close()
	if !it.Next() {
		return "", it.Err()
	}
	t, err := r.DS.Resolve(ctx, it.Quad().O)
	return t.Value, err
}

func localName(iri string) string {
	if i := strings.LastIndexAny(iri, "#/"); i >= 0 {
		return iri[i+1:]
	}
	return iri
}

// Explain implements server.RuleService.
func (r *Reasoner) Explain(ctx context.Context, iri string) (server.Explanation, error) {
	term := kb.IRI(iri)
	if strings.HasPrefix(iri, "_:") {
		term = kb.Blank(strings.TrimPrefix(iri, "_:"))
	}
	derivations, err := reasoner.Explain(ctx, r.DS, term)
	if err != nil {
		return server.Explanation{}, err
	}
	if len(derivations) == 0 {
		return server.Explanation{}, fmt.Errorf("no derived triple has subject <%s>: %w", iri, server.ErrNotFound)
	}
	exp := server.Explanation{IRI: iri}
	for _, d := range derivations {
		exp.Derivations = append(exp.Derivations, convertDerivation(d))
	}
	return exp, nil
}

func convertDerivation(d *reasoner.Derivation) server.Derivation {
	out := server.Derivation{
		Triple:   d.Triple.S.String() + " " + d.Triple.P.String() + " " + d.Triple.O.String() + " .",
		Rule:     d.Rule,
		Asserted: d.Asserted,
		Note:     d.Note,
	}
	for _, p := range d.Premises {
		out.Premises = append(out.Premises, convertDerivation(p))
	}
	return out
}
