package reasoner

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/reasoner/rulelang"
	"github.com/perfkb/perfkb/textpos"
)

// SPARQL rules (aggregate rules): a rule file may hold
//
//	[name: CONSTRUCT { template } WHERE { pattern } GROUP BY … HAVING …]
//
// beside Jena rules, for what a Jena rule cannot say: a value over a group
// of triples (MAX, AVG, SUM, COUNT …). Such a rule is evaluated with the
// SPARQL engine over the store, each time the Jena rules have reached
// their fixpoint; its output is a derived triple like any other (the
// inferred graph, or the rules-internal graph for pkr: predicates, with a
// derivation record naming the rule and no premises), and Jena rules read
// it. The engine keeps it in step: each evaluation compares what the
// query yields with what the rule's predicates hold of derived triples,
// withdraws the difference (retraction, with everything derived from it)
// and adds the new triples (semi-naive rounds follow), and repeats until
// neither the Jena rules nor any SPARQL rule changes anything — the joint
// fixpoint. An aggregate over a predicate other rules derive thus sees
// their whole output (stratified evaluation), and a group whose inputs
// change gets its value recomputed and the old one withdrawn.
//
// Restrictions, checked when the program is compiled: the template's
// predicates are constants that no Jena rule head and no other SPARQL rule
// names (the rule owns the derived triples of those predicates), and a
// SPARQL rule must not read, through other rules' constant predicates,
// what it derives itself (no recursion through an aggregate). A rule whose
// output does feed back through variable-predicate rules is stopped after
// maxAggregatePasses passes with ErrMaxIterations.

// aggRule is a compiled SPARQL rule.
type aggRule struct {
	label    string
	src      *rulelang.SPARQLRule
	prepared *query.Prepared
	// heads are the template's predicates, reads the constant predicates
	// of its pattern.
	heads, reads []string
}

// maxAggregatePasses bounds the passes over the SPARQL rules in one
// fixpoint.
const maxAggregatePasses = 100

// compileSPARQLRules prepares the SPARQL rules of rs and checks them
// against the Jena rules.
func compileSPARQLRules(rs *rulelang.RuleSet, jena []*compiledRule, errs *textpos.ErrorList) []*aggRule {
	var out []*aggRule
	jenaHeads := map[string]string{}
	for _, cr := range jena {
		for _, c := range cr.head {
			if c.triple != nil && c.triple[1].kind == slotConst {
				jenaHeads[c.triple[1].term.Value] = cr.label
			}
		}
	}
	owner := map[string]string{}
	for _, r := range rs.SPARQLRules {
		p, err := query.Prepare(r.Query, query.Options{Source: r.Pos.Source})
		if err != nil {
			pos := r.Pos
			var te *textpos.Error
			if errors.As(err, &te) && te.Pos.Line > 0 {
				pos = r.FilePos(te.Pos.Line, te.Pos.Column)
				err = errors.New(te.Msg)
			}
			errs.Add(pos, "SPARQL rule %s: %v", r.Label(), err)
			continue
		}
		if p.Form() != algebra.FormConstruct {
			errs.Add(r.Pos, "SPARQL rule %s: a rule is a CONSTRUCT query", r.Label())
			continue
		}
		a := &aggRule{label: r.Label(), src: r, prepared: p}
		ok := true
		for _, tp := range p.Query.Template {
			if tp.S.Term.Kind == kb.KindBlank || tp.O.Term.Kind == kb.KindBlank {
				// A template's blank node is a fresh node per evaluation,
				// so the rule's output would never settle.
				errs.Add(r.Pos, "SPARQL rule %s: the template has a blank node, which is new at each evaluation; make a node with IRI(…) in the WHERE clause instead", r.Label())
				ok = false
				break
			}
			if tp.P.IsVar() || tp.P.Term.Kind != kb.KindIRI {
				errs.Add(r.Pos, "SPARQL rule %s: the template's predicates must be IRIs (the rule owns the derived triples of each)", r.Label())
				ok = false
				break
			}
			pred := tp.P.Term.Value
			if by, clash := jenaHeads[pred]; clash {
				errs.Add(r.Pos, "SPARQL rule %s derives <%s>, which rule %s derives too; give the SPARQL rule a predicate of its own", r.Label(), pred, by)
				ok = false
			}
			if by, clash := owner[pred]; clash && by != a.label {
				errs.Add(r.Pos, "SPARQL rule %s derives <%s>, which SPARQL rule %s derives too", r.Label(), pred, by)
				ok = false
			}
			owner[pred] = a.label
			if !slices.Contains(a.heads, pred) {
				a.heads = append(a.heads, pred)
			}
		}
		algebra.Walk(p.Query.Pattern, func(op algebra.Op) bool {
			if bgp, isBGP := op.(*algebra.BGP); isBGP {
				for _, tp := range bgp.Triples {
					if !tp.P.IsVar() && !slices.Contains(a.reads, tp.P.Term.Value) {
						a.reads = append(a.reads, tp.P.Term.Value)
					}
				}
			}
			return true
		})
		if ok {
			out = append(out, a)
		}
	}
	// No recursion through an aggregate: what a SPARQL rule derives must
	// not reach what it reads, through rules' constant predicates.
	for _, a := range out {
		reach := map[string]bool{}
		todo := slices.Clone(a.heads)
		for len(todo) > 0 {
			p := todo[len(todo)-1]
			todo = todo[:len(todo)-1]
			if reach[p] {
				continue
			}
			reach[p] = true
			for _, cr := range jena {
				if !readsPredicate(cr, p) {
					continue
				}
				for _, c := range cr.head {
					if c.triple != nil && c.triple[1].kind == slotConst {
						todo = append(todo, c.triple[1].term.Value)
					}
				}
			}
			for _, b := range out {
				if slices.Contains(b.reads, p) {
					todo = append(todo, b.heads...)
				}
			}
		}
		for _, p := range a.reads {
			if reach[p] {
				errs.Add(a.src.Pos, "SPARQL rule %s reads <%s>, which follows from what it derives itself: an aggregate cannot be recursive", a.label, p)
				break
			}
		}
	}
	return out
}

// readsPredicate reports whether a body pattern of cr has constant
// predicate p.
func readsPredicate(cr *compiledRule, p string) bool {
	for _, c := range cr.body {
		if c.triple != nil && c.triple[1].kind == slotConst && c.triple[1].term.Value == p {
			return true
		}
	}
	return false
}

// aggregates runs the SPARQL rules after the Jena rules reached their
// fixpoint, and the Jena rules again after each change, until nothing
// changes.
func (e *Engine) aggregates(ctx context.Context) error {
	if len(e.prog.aggs) == 0 {
		return nil
	}
	for pass := 0; ; pass++ {
		if pass >= maxAggregatePasses {
			return fmt.Errorf("%w: SPARQL rules still changing after %d passes", ErrMaxIterations, pass)
		}
		changed := false
		for i, a := range e.prog.aggs {
			n, err := e.aggregate(ctx, i, a)
			if err != nil {
				return err
			}
			changed = changed || n > 0
		}
		if !changed {
			return nil
		}
	}
}

// aggregate evaluates SPARQL rule a and brings its derived triples in line
// with the result; it returns how many triples it withdrew and added.
func (e *Engine) aggregate(ctx context.Context, i int, a *aggRule) (int, error) {
	// The query reads the store, which must hold what the working memory
	// holds.
	if err := e.writeHeld(ctx); err != nil {
		return 0, fmt.Errorf("reasoner: writing before SPARQL rule %s: %w", a.label, err)
	}
	res, err := query.Exec(ctx, e.ds, a.prepared, query.Options{})
	if err != nil {
		return 0, fmt.Errorf("reasoner: SPARQL rule %s: %w", a.label, err)
	}
	triples, err := res.AllTriples()
	res.Close()
	if err != nil {
		return 0, fmt.Errorf("reasoner: SPARQL rule %s: %w", a.label, err)
	}
	terms := make([]kb.Term, 0, 3*len(triples))
	for _, t := range triples {
		terms = append(terms, t.S, t.P, t.O)
	}
	ids, err := e.internAll(ctx, terms)
	if err != nil {
		return 0, err
	}
	want := make(map[[3]kb.ID]bool, len(triples))
	for k := range triples {
		want[[3]kb.ID{ids[3*k], ids[3*k+1], ids[3*k+2]}] = true
	}
	// What the rule derived before: the derived-only triples of its
	// predicates.
	var gone [][3]kb.ID
	for _, pred := range a.heads {
		pid, ok := e.ids[kb.IRI(pred)]
		if !ok {
			continue
		}
		e.need(pid, kb.Any, kb.Any)
		t := e.ts.tables[pid]
		if t == nil {
			continue
		}
		for r := range t.s {
			if t.gen[r] == deletedGen || t.asrt[r] > 0 {
				continue
			}
			tr := [3]kb.ID{t.s[r], pid, t.o[r]}
			if !want[tr] {
				gone = append(gone, tr)
			}
		}
	}
	var fresh [][3]kb.ID
	for tr := range want {
		e.need(tr[1], tr[0], tr[2])
		if !e.ts.contains(tr[0], tr[1], tr[2]) {
			fresh = append(fresh, tr)
		}
	}
	slices.SortFunc(fresh, func(x, y [3]kb.ID) int { return slices.Compare(x[:], y[:]) })
	if len(gone) > 0 {
		rt := e.newRetraction()
		for _, tr := range gone {
			rt.mark(tr)
		}
		e.cur++
		if err := e.maintain(ctx, rt); err != nil {
			return 0, err
		}
		// maintain puts the withdrawals in e.held; when nothing holds
		// writes, the rounds below write directly, so the withdrawals go
		// first.
		if !e.holding {
			if err := e.writeHeld(ctx); err != nil {
				return 0, err
			}
		}
	}
	if len(fresh) > 0 {
		if err := e.addAggregated(ctx, i, a, fresh); err != nil {
			return 0, err
		}
	}
	return len(gone) + len(fresh), nil
}

// addAggregated puts a SPARQL rule's new triples into the working memory
// and the store (with derivation records of no premises) and runs the
// rounds that follow from them.
func (e *Engine) addAggregated(ctx context.Context, i int, a *aggRule, fresh [][3]kb.ID) error {
	next := e.cur + 1
	var d kb.Delta
	var buf []byte
	for k, tr := range fresh {
		e.ts.table(tr[1], true).insert(tr[0], tr[2], next)
		d.Add = append(d.Add, kb.Quad{S: tr[0], P: tr[1], O: tr[2], G: e.graphOf(tr[1])})
		if !e.opts.NoDerivations {
			if k > 0 {
				buf = append(buf, '\n')
			}
			buf = appendEntry(buf, e.aggLabels[i], tr, nil)
		}
	}
	e.summary.Derived += int64(len(fresh))
	e.summary.Firings[a.label] += int64(len(fresh))
	if !e.opts.NoDerivations {
		// One batch per call, sorted by subject as batches are.
		ids, err := e.ds.Intern(ctx, []kb.Term{kb.Literal(string(buf), DerivationBatchDatatypeIRI)})
		if err != nil {
			return fmt.Errorf("reasoner: interning derivation records: %w", err)
		}
		first, last := fresh[0][0], fresh[len(fresh)-1][0]
		d.Add = append(d.Add, kb.Quad{S: first, P: e.derivFirstP, O: ids[0], G: e.derivG},
			kb.Quad{S: e.derivG, P: e.labelP, O: e.aggLabels[i], G: e.derivG})
		if last != first {
			d.Add = append(d.Add, kb.Quad{S: last, P: e.derivLastP, O: ids[0], G: e.derivG})
		}
	}
	if err := e.apply(ctx, d); err != nil {
		return fmt.Errorf("reasoner: writing what SPARQL rule %s derived: %w", a.label, err)
	}
	e.cur = next
	return e.rounds(ctx, false)
}

// bindAggregates interns the SPARQL rules' labels for derivation records.
func (e *Engine) bindAggregates(ctx context.Context) error {
	e.aggLabels = make([]kb.ID, len(e.prog.aggs))
	if e.opts.NoDerivations {
		return nil
	}
	for i, a := range e.prog.aggs {
		id, err := e.intern(ctx, kb.Literal(strings.ReplaceAll(a.label, "\n", " "), RuleLabelDatatypeIRI))
		if err != nil {
			return err
		}
		e.aggLabels[i] = id
	}
	return nil
}
