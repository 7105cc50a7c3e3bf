package backend

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/textpos"
)

// Reasoner runs rules over a store and reports their findings.
type Reasoner struct {
	DS kb.Dataset
	// Options tune every run (limits, derivation records).
	Options reasoner.Options

	// Admission, when set, runs the parsing of uploaded rule files in a
	// heavy query's slot (Admission.Bulk): a rule file of 40,000
	// @include lines takes tens of milliseconds of a core to check, and
	// hostile clients sending such files must not take the cores from
	// light queries.
	Admission *Admission

	// runs serialises rule runs: two materialisations of the same store at
	// once would only race to write the same triples.
	runs sync.Mutex
}

// loadAdmitted is load in a slot of the admission (Admission.Bulk);
// waited is the error of waiting for the slot (the request's time ran
// out), err load's.
func (r *Reasoner) loadAdmitted(ctx context.Context, req server.RuleRunRequest) (prog *reasoner.Program, waited, err error) {
	release, err := r.Admission.Bulk(ctx)
	if err != nil {
		return nil, translateRuleError(ctx, err), nil
	}
	defer release()
	prog, err = load(ctx, req)
	return prog, nil, err
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
			return nil, &invalidInputError{err: fmt.Errorf("unknown rule set %q (shipped: %s)", set, strings.Join(rules.Names(), ", "))}
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

// checkRuleText refuses a rule file that parsing alone would take past
// the run's memory budget (--rules-memory): parsing costs up to ParseCost
// bytes a byte of text and is not charged to the run.
func (r *Reasoner) checkRuleText(text string) error {
	return r.CheckTextSize("rule file", int64(len(text)))
}

// CheckTextSize implements server.TextSizeChecker: a rule file of size
// bytes would parse past --rules-memory.
func (r *Reasoner) CheckTextSize(what string, size int64) error {
	budget := r.Options.MemoryBudget
	if budget == 0 {
		budget = reasoner.DefaultMemoryBudget
	}
	if budget > 0 && size > budget/ParseCost {
		return fmt.Errorf("%w: the %s is %d bytes, more than the %d bytes that parse within --rules-memory %d", server.ErrTooLarge, what, size, budget/ParseCost, budget)
	}
	return nil
}

// Run implements server.RuleService.
func (r *Reasoner) Run(ctx context.Context, req server.RuleRunRequest) (server.RuleRunReport, error) {
	if err := r.checkRuleText(req.RuleText); err != nil {
		return server.RuleRunReport{}, err
	}
	prog, waited, err := r.loadAdmitted(ctx, req)
	if waited != nil {
		return server.RuleRunReport{}, waited
	}
	if err != nil {
		return server.RuleRunReport{}, translateRuleError(ctx, err)
	}
	r.runs.Lock()
	defer r.runs.Unlock()
	start := time.Now()
	undo := &undoLog{Dataset: r.DS}
	sum, err := reasoner.Run(ctx, undo, prog, r.Options)
	if err != nil {
		// A failed run leaves the store as it found it: the rounds it
		// completed (and what it wrote of the failed one) are taken back.
		if uerr := undo.rollback(ctx); uerr != nil {
			err = errors.Join(err, uerr)
		}
		sum.Derived, sum.Removed = 0, 0
		report := server.RuleRunReport{Report: reasoner.NewReport(sum, nil)}
		report.SetDuration(time.Since(start))
		return report, translateRuleError(ctx, err)
	}
	findings, err := reasoner.Findings(ctx, r.DS, reasoner.FindingFilter{})
	if err != nil {
		return server.RuleRunReport{}, err
	}
	return server.RuleRunReport{Report: reasoner.NewReport(sum, findings), Advice: uploadedAdvice(prog)}, nil
}

// Check implements server.RuleService.
func (r *Reasoner) Check(ctx context.Context, name, text string) (server.RuleCheckReport, error) {
	if err := r.checkRuleText(text); err != nil {
		return server.RuleCheckReport{}, err
	}
	prog, waited, err := r.loadAdmitted(ctx, server.RuleRunRequest{RuleName: name, RuleText: text})
	if waited != nil {
		return server.RuleCheckReport{}, waited
	}
	if err == nil {
		return server.RuleCheckReport{Valid: true, Rules: prog.Len()}, nil
	}
	report := server.RuleCheckReport{Valid: false}
	for _, e := range textpos.All(err) {
		report.Diagnostics = append(report.Diagnostics, server.Diagnostic{File: e.Pos.Source, Line: e.Pos.Line, Column: e.Pos.Column, Message: e.Msg})
	}
	if len(report.Diagnostics) == 0 {
		report.Diagnostics = append(report.Diagnostics, server.Diagnostic{File: name, Message: err.Error()})
	}
	return report, nil
}

// translateRuleError maps reasoner errors to the server's.
func translateRuleError(ctx context.Context, err error) error {
	switch {
	case errors.Is(err, reasoner.ErrMaxDerived), errors.Is(err, reasoner.ErrMaxIterations),
		errors.Is(err, reasoner.ErrTermTooLarge), errors.Is(err, reasoner.ErrMemoryBudget):
		return server.Execution(err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return fmt.Errorf("%w: rule run stopped: %w", server.ErrTimeout, err)
	}
	// Rule-file errors (*textpos.Error) and other invalid input pass
	// through: the server's envelope reads their position and marker.
	return err
}

// Findings implements server.RuleService.
func (r *Reasoner) Findings(ctx context.Context, filter server.FindingFilter) ([]server.Finding, error) {
	return reasoner.Findings(ctx, r.DS, reasoner.FindingFilter{Type: filter.Problem, Experiment: filter.Experiment, Limit: filter.Limit})
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
	return server.Explanation{Subject: term, Derivations: derivations}, nil
}

// undoLog is the store as a rule run sees it: it records what each Apply
// changed, so that a run that fails can be taken back. The reasoner writes
// only through Apply (derived triples, derivation records, removals by
// remove/drop and Reset). The log holds a quad (32 bytes) per change, far
// less than the run's own working memory per derived triple.
type undoLog struct {
	kb.Dataset
	added   []kb.Quad // quads the store did not hold before
	removed []kb.Quad // quads the store held before
}

// Apply records the quads the delta really changes, then applies it. A
// store that reports its changes (kb.ChangeReporter) tells the log what
// it added and removed as it applies the delta; any other is asked about
// each quad first.
func (u *undoLog) Apply(ctx context.Context, d kb.Delta) error {
	if cr, ok := u.Dataset.(kb.ChangeReporter); ok {
		changes, err := cr.ApplyChanges(ctx, d)
		if err != nil {
			return err
		}
		u.added = append(u.added, changes.Add...)
		u.removed = append(u.removed, changes.Remove...)
		return nil
	}
	mark := len(u.added)
	for _, q := range d.Add {
		n, err := u.Dataset.Count(ctx, kb.Pattern(q), true)
		if err != nil {
			return err
		}
		if n == 0 {
			u.added = append(u.added, q)
		}
	}
	markR := len(u.removed)
	for _, q := range d.Remove {
		n, err := u.Dataset.Count(ctx, kb.Pattern(q), true)
		if err != nil {
			return err
		}
		if n > 0 {
			u.removed = append(u.removed, q)
		}
	}
	if err := u.Dataset.Apply(ctx, d); err != nil {
		// A failed Apply changed nothing (the store's writes are atomic).
		u.added, u.removed = u.added[:mark], u.removed[:markR]
		return err
	}
	return nil
}

// rollback takes back every change the log recorded, newest first. It runs
// even when the request's context has ended (a timed-out run is undone
// too), bounded by a minute of its own.
func (u *undoLog) rollback(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), time.Minute)
	defer cancel()
	const batch = 50000
	for len(u.added) > 0 {
		n := min(batch, len(u.added))
		if err := u.Dataset.Apply(ctx, kb.Delta{Remove: u.added[len(u.added)-n:]}); err != nil {
			return fmt.Errorf("taking back the failed rule run's triples: %w", err)
		}
		u.added = u.added[:len(u.added)-n]
	}
	for len(u.removed) > 0 {
		n := min(batch, len(u.removed))
		if err := u.Dataset.Apply(ctx, kb.Delta{Add: u.removed[len(u.removed)-n:]}); err != nil {
			return fmt.Errorf("restoring what the failed rule run removed: %w", err)
		}
		u.removed = u.removed[:len(u.removed)-n]
	}
	return nil
}
