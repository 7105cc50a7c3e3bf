package federation

import (
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/eval"
)

// LocalSite names the local store in a --sites list.
const LocalSite = "local"

// FanOutOptions configure FanOut.
type FanOutOptions struct {
	// Local adds a branch evaluated over the local store.
	Local bool
	// SiteColumn, when set, adds a variable of that name bound to the name
	// of the site each solution came from.
	SiteColumn string
}

// FanOut rewrites q in place so that its WHERE pattern P runs at every
// site: P becomes { SERVICE <ep1> { P } } UNION … UNION { SERVICE <epN>
// { P } }, each branch marked Partial so a failing site only leaves a
// report entry, while projection, DISTINCT, GROUP BY and aggregates, ORDER
// BY, LIMIT/OFFSET, ASK and CONSTRUCT stay with the local engine. The
// answer is the query over the union of the sites' data whenever each
// solution comes from one site's data (each experiment lives at one site,
// §6.5.5).
func FanOut(q *algebra.Query, sites []Site, opts FanOutOptions) error {
	if q.Form == algebra.FormDescribe {
		return fanOutDescribe(q, sites, opts)
	}
	if q.Where == nil || strings.TrimSpace(q.WhereText) == "" {
		if err := rdqlWhere(q); err != nil {
			return err
		}
	}
	switch {
	case q.Dataset != nil:
		return errors.New("--sites cannot be combined with FROM or FROM NAMED: each site answers over its own dataset")
	case len(sites) == 0 && !opts.Local:
		return errors.New("--sites selects no site")
	}
	var col algebra.Var
	if opts.SiteColumn != "" {
		col = algebra.Var(strings.TrimPrefix(opts.SiteColumn, "?"))
		if q.Form != algebra.FormSelect {
			return errors.New("--site-column needs a SELECT query")
		}
		grouped := false
		algebra.Walk(q.Pattern, func(op algebra.Op) bool {
			if _, ok := op.(*algebra.Group); ok {
				grouped = true
			}
			return !grouped
		})
		if grouped {
			return errors.New("--site-column cannot be used with GROUP BY or aggregates (the site is not a group key)")
		}
		for _, v := range algebra.InScope(q.Where) {
			if v == col {
				return fmt.Errorf("--site-column %s: the query already uses ?%s", col, col)
			}
		}
	}
	tag := func(op algebra.Op, site string) algebra.Op {
		if col == "" {
			return op
		}
		return &algebra.Join{Left: op, Right: &algebra.Table{Vars: []algebra.Var{col}, Rows: [][]kb.Term{{kb.String(site)}}}}
	}
	suffix := pushDown(q)
	// Each branch runs the WHERE pattern, or with GROUP BY the per-site
	// partial aggregates (see planAggregates).
	input, text := q.Where, q.WhereText
	agg, grouped := planAggregates(q)
	switch {
	case grouped:
		input, text = agg.remote, agg.text
	case distinctAbove(q):
		// Duplicates are dropped in the end anyway: let each site drop its
		// own (whole WHERE rows, so no projected row is lost).
		input, text = &algebra.Distinct{Input: q.Where}, "{ SELECT DISTINCT * WHERE "+q.WhereText+" }"
	}
	var union algebra.Op
	add := func(op algebra.Op) {
		if union == nil {
			union = op
		} else {
			union = &algebra.Union{Left: union, Right: op}
		}
	}
	if opts.Local {
		add(tag(input, LocalSite))
	}
	for _, s := range sites {
		if err := CheckEndpoint(s.Endpoint); err != nil {
			return fmt.Errorf("site %s: %w", s.Name, err)
		}
		add(tag(&algebra.Service{Endpoint: algebra.TermNode(kb.IRI(s.Endpoint)), Input: input, Text: text, Partial: true, Suffix: suffix}, s.Name))
	}
	old, repl := q.Where, union
	if grouped {
		old, repl = agg.group, agg.combine(union)
	}
	pattern, ok := replaceOp(q.Pattern, old, repl)
	if !ok {
		return errors.New("fan-out: the WHERE pattern was not found in the query's algebra")
	}
	q.Pattern = pattern
	if col != "" {
		q.Vars = append(q.Vars, col)
		if p, ok := topProject(q.Pattern); ok {
			p.Vars = append(p.Vars, col)
		}
	}
	q.Where = union
	return nil
}

// fanOutDescribe fans a DESCRIBE out: its WHERE pattern (if any) runs at
// every site as for the other forms, and the descriptions of the
// resources found are asked from every site and merged
// (algebra.Query.DescribeAt): DESCRIBE over the union of the sites' data,
// each description being the union of the sites' descriptions.
func fanOutDescribe(q *algebra.Query, sites []Site, opts FanOutOptions) error {
	switch {
	case q.Dataset != nil:
		return errors.New("--sites cannot be combined with FROM or FROM NAMED: each site answers over its own dataset")
	case len(sites) == 0 && !opts.Local:
		return errors.New("--sites selects no site")
	case opts.SiteColumn != "":
		return errors.New("--site-column needs a SELECT query")
	}
	var union algebra.Op
	if opts.Local {
		union = q.Where
	}
	for _, s := range sites {
		if err := CheckEndpoint(s.Endpoint); err != nil {
			return fmt.Errorf("site %s: %w", s.Name, err)
		}
		ep := algebra.TermNode(kb.IRI(s.Endpoint))
		q.DescribeAt = append(q.DescribeAt, &algebra.Service{Endpoint: ep, Partial: true})
		if q.Where == nil {
			continue // DESCRIBE <iri> without WHERE: nothing to match
		}
		svc := &algebra.Service{Endpoint: ep, Input: q.Where, Text: q.WhereText, Partial: true}
		if union == nil {
			union = svc
		} else {
			union = &algebra.Union{Left: union, Right: svc}
		}
	}
	q.DescribeLocal = opts.Local
	if q.Where == nil {
		return nil
	}
	if strings.TrimSpace(q.WhereText) == "" {
		return errors.New("--sites cannot forward this query: no WHERE text")
	}
	pattern, ok := replaceOp(q.Pattern, q.Where, union)
	if !ok {
		return errors.New("fan-out: the WHERE pattern was not found in the query's algebra")
	}
	q.Pattern, q.Where = pattern, union
	return nil
}

// pushDown returns the solution modifiers each site may apply without
// changing the answer, as query text: for a SELECT with LIMIT n (and
// OFFSET o) and no DISTINCT, REDUCED, GROUP BY or aggregates above the
// WHERE pattern, "LIMIT n+o", preceded by the query's ORDER BY when its
// conditions use only variables of the WHERE pattern: the union's first
// (or top) n+o rows are among the sites' first (top) n+o rows.
func pushDown(q *algebra.Query) string {
	if q.Form != algebra.FormSelect {
		return ""
	}
	slice, ok := q.Pattern.(*algebra.Slice)
	if !ok || slice.Limit < 0 {
		return ""
	}
	var order *algebra.OrderBy
	safe := true
	var walk func(op algebra.Op)
	walk = func(op algebra.Op) {
		if op == nil || op == q.Where || !safe {
			return
		}
		switch o := op.(type) {
		case *algebra.Distinct, *algebra.Reduced, *algebra.Group:
			safe = false
			return
		case *algebra.OrderBy:
			order = o
		case *algebra.Slice:
			if o != slice {
				safe = false
				return
			}
		case *algebra.Project, *algebra.Extend:
		default:
			// Anything else above the WHERE pattern (a trailing VALUES
			// join, a filter): do not push.
			safe = false
			return
		}
		for _, c := range algebra.Children(op) {
			walk(c)
		}
	}
	walk(q.Pattern)
	if !safe {
		return ""
	}
	limit := fmt.Sprintf("LIMIT %d", slice.Limit+slice.Offset)
	if order == nil {
		return limit
	}
	if q.OrderText == "" {
		return ""
	}
	inScope := map[algebra.Var]bool{}
	for _, v := range algebra.InScope(q.Where) {
		inScope[v] = true
	}
	for _, c := range order.Conditions {
		for _, v := range algebra.ExprVars(c.Expr) {
			if !inScope[v] {
				return "" // an ORDER BY on a SELECT expression's alias
			}
		}
	}
	return q.OrderText + "\n" + limit
}

// distinctAbove reports a SELECT DISTINCT whose operators between the
// DISTINCT and the WHERE pattern only project, extend, order or slice.
func distinctAbove(q *algebra.Query) bool {
	if q.Form != algebra.FormSelect {
		return false
	}
	distinct := false
	op := q.Pattern
	for op != q.Where {
		switch o := op.(type) {
		case *algebra.Distinct:
			distinct = true
			op = o.Input
		case *algebra.Slice:
			op = o.Input
		case *algebra.OrderBy:
			op = o.Input
		case *algebra.Project:
			op = o.Input
		case *algebra.Extend:
			op = o.Input
		default:
			return false
		}
	}
	return distinct
}

// aggPlan pushes GROUP BY down: each site computes partial aggregates per
// group (COUNT, SUM, MIN, MAX; AVG as SUM and COUNT) and the coordinator
// combines them per group: the counts and sums are summed, MIN of the
// minima, MAX of the maxima, AVG = total sum / total count. A group's rows
// may come from several sites, so this is exact (up to the rounding of
// floating-point sums).
type aggPlan struct {
	group  *algebra.Group // the query's Group over the WHERE pattern
	remote algebra.Op     // Project(partials, Group(partials, WHERE))
	text   string         // the same as a SPARQL subquery in braces
	local  []algebra.AggregateBinding
	avgs   []avgPart
}

type avgPart struct {
	v          algebra.Var // the query's AVG variable
	sum, count algebra.Var // local totals
}

// planAggregates plans the push-down for a query whose Group sits directly
// on the WHERE pattern with plain variable keys and aggregates of plain
// variables (or COUNT(*)), without DISTINCT aggregates.
func planAggregates(q *algebra.Query) (*aggPlan, bool) {
	var g *algebra.Group
	algebra.Walk(q.Pattern, func(op algebra.Op) bool {
		if gr, ok := op.(*algebra.Group); ok && gr.Input == q.Where {
			g = gr
		}
		return g == nil && op != q.Where
	})
	if g == nil || len(g.Keys) == 0 || strings.TrimSpace(q.WhereText) == "" {
		return nil, false
	}
	inScope := map[algebra.Var]bool{}
	for _, v := range algebra.InScope(q.Where) {
		inScope[v] = true
	}
	var b strings.Builder
	b.WriteString("{ SELECT")
	var projected []algebra.Var
	for _, k := range g.Keys {
		ve, ok := k.Expr.(*algebra.VarExpr)
		if !ok || ve.Var != k.Var || !inScope[k.Var] || !k.Var.IsDistinguished() {
			return nil, false
		}
		b.WriteString(" ?" + string(k.Var))
		projected = append(projected, k.Var)
	}
	plan := &aggPlan{group: g}
	var partials []algebra.AggregateBinding
	n := 0
	partial := func(fn algebra.AggregateFunc, a *algebra.Aggregate) algebra.Var {
		v := algebra.Var(fmt.Sprintf("fedpart%d", n))
		n++
		pa := &algebra.Aggregate{Func: fn, Star: a.Star, Expr: a.Expr}
		partials = append(partials, algebra.AggregateBinding{Var: v, Aggregate: pa})
		projected = append(projected, v)
		arg := "*"
		if !a.Star {
			arg = "?" + string(a.Expr.(*algebra.VarExpr).Var)
		}
		fmt.Fprintf(&b, " (%s(%s) AS ?%s)", fn, arg, string(v))
		return v
	}
	sum := func(v algebra.Var) *algebra.Aggregate {
		return &algebra.Aggregate{Func: algebra.AggSum, Expr: &algebra.VarExpr{Var: v}}
	}
	for _, ab := range g.Aggregates {
		a := ab.Aggregate
		if a.Distinct {
			return nil, false
		}
		if !a.Star {
			ve, ok := a.Expr.(*algebra.VarExpr)
			if !ok || !inScope[ve.Var] || !ve.Var.IsDistinguished() {
				return nil, false
			}
		}
		switch a.Func {
		case algebra.AggCount:
			plan.local = append(plan.local, algebra.AggregateBinding{Var: ab.Var, Aggregate: sum(partial(algebra.AggCount, a))})
		case algebra.AggSum:
			plan.local = append(plan.local, algebra.AggregateBinding{Var: ab.Var, Aggregate: sum(partial(algebra.AggSum, a))})
		case algebra.AggMin, algebra.AggMax:
			p := partial(a.Func, a)
			plan.local = append(plan.local, algebra.AggregateBinding{Var: ab.Var, Aggregate: &algebra.Aggregate{Func: a.Func, Expr: &algebra.VarExpr{Var: p}}})
		case algebra.AggAvg:
			s, c := partial(algebra.AggSum, a), partial(algebra.AggCount, a)
			av := avgPart{v: ab.Var, sum: algebra.Var(fmt.Sprintf(".fedsum%d", len(plan.avgs))), count: algebra.Var(fmt.Sprintf(".fedcount%d", len(plan.avgs)))}
			plan.avgs = append(plan.avgs, av)
			plan.local = append(plan.local,
				algebra.AggregateBinding{Var: av.sum, Aggregate: sum(s)},
				algebra.AggregateBinding{Var: av.count, Aggregate: sum(c)})
		default:
			return nil, false // SAMPLE, GROUP_CONCAT: not combinable
		}
	}
	for v := range inScope {
		if strings.HasPrefix(string(v), "fedpart") {
			return nil, false // the query uses our names
		}
	}
	b.WriteString(" WHERE " + q.WhereText + " GROUP BY")
	for _, k := range g.Keys {
		b.WriteString(" ?" + string(k.Var))
	}
	b.WriteString(" }")
	plan.text = b.String()
	plan.remote = &algebra.Project{Vars: projected, Input: &algebra.Group{Keys: g.Keys, Aggregates: partials, Input: q.Where}}
	return plan, true
}

// combine is the local half: the query's grouping over the sites' partial
// aggregates, then AVG = sum / count (0 for an empty multiset, §18.5.1.4).
func (p *aggPlan) combine(input algebra.Op) algebra.Op {
	var op algebra.Op = &algebra.Group{Keys: p.group.Keys, Aggregates: p.local, Input: input}
	zero := &algebra.ConstExpr{Term: kb.Literal("0", ontology.XSDInteger)}
	for _, a := range p.avgs {
		count, total := &algebra.VarExpr{Var: a.count}, &algebra.VarExpr{Var: a.sum}
		op = &algebra.Extend{Input: op, Var: a.v, Expr: &algebra.BuiltinExpr{Name: algebra.BuiltinIf, Args: []algebra.Expr{
			&algebra.BinaryExpr{Op: algebra.OpEqual, Left: count, Right: zero},
			zero,
			&algebra.BinaryExpr{Op: algebra.OpDiv, Left: total, Right: count},
		}}}
	}
	return op
}

// rdqlWhere gives a query without WHERE text (RDQL) one: its pattern is a
// projection of Filter(BGP) or a BGP; the BGP is written as SPARQL text and
// forwarded, and the filter stays local (it tests each solution alone, so
// the answer is the same).
func rdqlWhere(q *algebra.Query) error {
	p, ok := topProject(q.Pattern)
	if !ok {
		return errors.New("--sites cannot forward this query: no WHERE text")
	}
	bgp, ok := p.Input.(*algebra.BGP)
	if f, isFilter := p.Input.(*algebra.Filter); isFilter {
		bgp, ok = f.Input.(*algebra.BGP)
	}
	if !ok {
		return errors.New("--sites cannot forward this query: no WHERE text")
	}
	var b strings.Builder
	b.WriteString("{")
	for _, tp := range bgp.Triples {
		for _, n := range []algebra.Node{tp.S, tp.P, tp.O} {
			if n.IsVar() && !n.Var.IsDistinguished() {
				return errors.New("--sites cannot forward this query: it has blank nodes")
			}
			b.WriteString(" " + n.String())
		}
		b.WriteString(" .")
	}
	b.WriteString(" }")
	q.Where, q.WhereText = bgp, b.String()
	return nil
}

// topProject finds the projection of a SELECT (under DISTINCT, REDUCED and
// slices).
func topProject(op algebra.Op) (*algebra.Project, bool) {
	for {
		switch o := op.(type) {
		case *algebra.Project:
			return o, true
		case *algebra.Slice:
			op = o.Input
		case *algebra.Distinct:
			op = o.Input
		case *algebra.Reduced:
			op = o.Input
		case *algebra.OrderBy:
			op = o.Input
		default:
			return nil, false
		}
	}
}

// replaceOp replaces the operator old (by identity) within op.
func replaceOp(op, old, repl algebra.Op) (algebra.Op, bool) {
	if op == old {
		return repl, true
	}
	var found bool
	r := func(child *algebra.Op) {
		if !found {
			*child, found = replaceOp(*child, old, repl)
		}
	}
	switch o := op.(type) {
	case *algebra.Join:
		r(&o.Left)
		r(&o.Right)
	case *algebra.LeftJoin:
		r(&o.Left)
		r(&o.Right)
	case *algebra.Union:
		r(&o.Left)
		r(&o.Right)
	case *algebra.Minus:
		r(&o.Left)
		r(&o.Right)
	case *algebra.Filter:
		r(&o.Input)
	case *algebra.Graph:
		r(&o.Input)
	case *algebra.Extend:
		r(&o.Input)
	case *algebra.Group:
		r(&o.Input)
	case *algebra.Project:
		r(&o.Input)
	case *algebra.Distinct:
		r(&o.Input)
	case *algebra.Reduced:
		r(&o.Input)
	case *algebra.OrderBy:
		r(&o.Input)
	case *algebra.Slice:
		r(&o.Input)
	}
	return op, found
}

// SelectSites resolves a --sites list ("all", or names separated by
// commas, "local" meaning the local store) against the registered sites.
func SelectSites(spec string, registered []Site) (sites []Site, local bool, err error) {
	byName := map[string]Site{}
	for _, s := range registered {
		byName[s.Name] = s
	}
	seen := map[string]bool{}
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		switch {
		case name == "":
			continue
		case seen[name]:
			continue
		case name == LocalSite:
			local = true
		case name == "all":
			for _, s := range registered {
				if !seen[s.Name] {
					seen[s.Name] = true
					sites = append(sites, s)
				}
			}
		default:
			s, ok := byName[name]
			if !ok {
				return nil, false, fmt.Errorf("%w %q (registered: %s)", ErrUnknownSite, name, siteNames(registered))
			}
			sites = append(sites, s)
		}
		seen[name] = true
	}
	if len(sites) == 0 && !local {
		if strings.Contains(spec, "all") {
			return nil, false, errors.New("--sites all: no site is registered (perfkb sites add NAME URL)")
		}
		return nil, false, errors.New("--sites selects no site")
	}
	return sites, local, nil
}

// SiteReport is one site's part of a federated answer.
type SiteReport struct {
	Site     string `json:"site"`
	Endpoint string `json:"endpoint,omitempty"`
	// Outcome is "answered", "failed" or "timed out".
	Outcome string `json:"outcome"`
	Rows    int    `json:"rows"`
	Bytes   int64  `json:"bytes"`
	Millis  int64  `json:"ms"`
	Error   string `json:"error,omitempty"`
}

// Report is the per-site account of a federated query.
type Report struct {
	// Complete is false when a site failed: the answer is partial.
	Complete bool         `json:"complete"`
	Sites    []SiteReport `json:"sites"`
}

// Failed lists the sites that did not answer, with their reasons.
func (r Report) Failed() []SiteReport {
	var out []SiteReport
	for _, s := range r.Sites {
		if s.Outcome != eval.CallOK {
			out = append(out, s)
		}
	}
	return out
}

// FailedHeader is the Perfkb-Sites-Failed header value: "NAME (reason), …".
func (r Report) FailedHeader() string {
	var parts []string
	for _, s := range r.Failed() {
		reason := strings.NewReplacer("\r", " ", "\n", " ", ",", ";").Replace(s.Error)
		if len(reason) > 200 {
			reason = reason[:200] + "…"
		}
		parts = append(parts, fmt.Sprintf("%s (%s: %s)", s.Site, s.Outcome, reason))
	}
	return strings.Join(parts, ", ")
}

// MakeReport builds the per-site report of a fan-out from the evaluation's
// call report: the fan-out branches' calls (Partial), one per site.
func MakeReport(calls []eval.ServiceCall, sites []Site) Report {
	byEndpoint := map[string][]eval.ServiceCall{}
	for _, c := range calls {
		byEndpoint[c.Endpoint] = append(byEndpoint[c.Endpoint], c)
	}
	rep := Report{Complete: true}
	for _, s := range sites {
		sr := SiteReport{Site: s.Name, Endpoint: s.Endpoint, Outcome: eval.CallFailed, Error: "not called"}
		if cs := byEndpoint[s.Endpoint]; len(cs) > 0 {
			sr.Outcome, sr.Error = eval.CallOK, ""
			for _, c := range cs {
				sr.Rows += c.Rows
				sr.Bytes += c.Bytes
				sr.Millis = max(sr.Millis, c.Millis)
				if c.Outcome != eval.CallOK && c.Outcome != eval.CallNotNeeded {
					sr.Outcome, sr.Error = c.Outcome, c.Error
				}
			}
		}
		if sr.Outcome != eval.CallOK {
			rep.Complete = false
		}
		rep.Sites = append(rep.Sites, sr)
	}
	sort.SliceStable(rep.Sites, func(i, j int) bool { return rep.Sites[i].Site < rep.Sites[j].Site })
	return rep
}
