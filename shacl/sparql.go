package shacl

import (
	"fmt"
	"regexp"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/algebra"
)

var timeNow = time.Now

// The variables SHACL-SPARQL pre-binds in an sh:select query (SHACL
// 5.2.1): the focus node, the shape, and the shapes graph.
const (
	varThis         = algebra.Var("this")
	varCurrentShape = algebra.Var("currentShape")
	varShapesGraph  = algebra.Var("shapesGraph")
)

// sparqlConstraint is an sh:sparql constraint (SHACL-SPARQL §5): a SELECT
// query whose every solution, with $this bound to a focus node, is a
// validation result.
type sparqlConstraint struct {
	node        kb.Term
	query       *query.Prepared
	messages    []kb.Term
	shapesGraph kb.Term // zero when unknown: $shapesGraph stays unbound
	// A SPARQL-based constraint component's validator (components.go)
	// also pre-binds its parameters; an ASK validator runs once per
	// value node, with $value bound, and a false answer is a result.
	component bool
	ask       bool
	params    []algebra.Var
	args      []kb.Term // the shape's value of each parameter, zero when none
}

// sparql parses the sh:sparql constraint at node of the shape s
// (shapeID). A deactivated constraint gives nil.
func (p *parser) sparql(s *shape, shapeID, node kb.ID) (*component, error) {
	v := p.v
	if d, ok := v.object(node, v.iri(sh("deactivated"))); ok && isTrue(v.term(d)) {
		return nil, nil
	}
	if _, ok := v.object(node, v.iri(sh("ask"))); ok {
		return nil, p.errorf(shapeID, "sh:sparql with sh:ask: SPARQL-based constraints take sh:select")
	}
	sel, ok := v.object(node, v.iri(sh("select")))
	if !ok || !v.term(sel).IsLiteral() {
		return nil, p.errorf(shapeID, "sh:sparql %s has no sh:select string", v.term(node))
	}
	prep, err := p.prepareSPARQL(node, v.term(sel).Value, s)
	if err != nil {
		return nil, p.errorf(shapeID, "sh:select of %s: %v", v.term(node), err)
	}
	if prep.Query.Form != algebra.FormSelect {
		return nil, p.errorf(shapeID, "sh:select of %s is not a SELECT query", v.term(node))
	}
	if err := checkPreBindable(prep.Query.Pattern, nil); err != nil {
		return nil, p.errorf(shapeID, "sh:select of %s: %v", v.term(node), err)
	}
	sc := &sparqlConstraint{node: v.term(node), query: prep, shapesGraph: p.out.graph}
	for _, m := range v.objects(node, v.iri(sh("message"))) {
		sc.messages = append(sc.messages, v.term(m))
	}
	return &component{kind: cSPARQL, iri: sh("SPARQLConstraintComponent"), term: sc.node, sparql: sc}, nil
}

// pathVar is $PATH as a whole variable name.
var pathVar = regexp.MustCompile(`\$PATH\b`)

// checkPreBindable refuses the queries whose pre-binding SHACL leaves
// undefined (SHACL 5.3.1.1): MINUS, SERVICE, VALUES, assigning a
// pre-bound variable with AS, and subqueries that do not return $this.
func checkPreBindable(op algebra.Op, more []algebra.Var) error {
	// The SELECT of the query itself: its projection is the result.
	top := op
	for {
		switch o := top.(type) {
		case *algebra.Slice:
			top = o.Input
			continue
		case *algebra.Distinct:
			top = o.Input
			continue
		case *algebra.Reduced:
			top = o.Input
			continue
		case *algebra.OrderBy:
			top = o.Input
			continue
		}
		break
	}
	var err error
	algebra.Walk(op, func(o algebra.Op) bool {
		switch o := o.(type) {
		case *algebra.Minus:
			err = fmt.Errorf("MINUS is not allowed in SHACL-SPARQL queries")
		case *algebra.Service:
			err = fmt.Errorf("SERVICE is not allowed in SHACL-SPARQL queries")
		case *algebra.Table:
			if !o.IsUnit() {
				err = fmt.Errorf("VALUES is not allowed in SHACL-SPARQL queries")
			}
		case *algebra.Extend:
			if preBound(o.Var) || containsVar(more, o.Var) {
				err = fmt.Errorf("the pre-bound variable $%s may not be assigned", o.Var)
			}
		case *algebra.Project:
			if o != top && !containsVar(o.Vars, varThis) {
				err = fmt.Errorf("a subquery must return $this")
			}
		}
		return err == nil
	})
	return err
}

func preBound(v algebra.Var) bool {
	return v == varThis || v == varCurrentShape || v == varShapesGraph
}

func containsVar(vs []algebra.Var, v algebra.Var) bool {
	for _, x := range vs {
		if x == v {
			return true
		}
	}
	return false
}

// preBind joins the one-row table of pre-bound values to every leaf of
// the pattern (basic graph patterns, paths, tables), so that each group,
// its filters and its subqueries see the values: for the queries
// checkPreBindable accepts, the same solutions as substituting the
// values for the variables (SHACL 5.3.1.1), bound($this) included.
func preBind(op algebra.Op, tab *algebra.Table) algebra.Op {
	switch o := op.(type) {
	case *algebra.BGP, *algebra.Path, *algebra.Table:
		return &algebra.Join{Left: tab, Right: o}
	case *algebra.Join:
		return &algebra.Join{Left: preBind(o.Left, tab), Right: preBind(o.Right, tab)}
	case *algebra.LeftJoin:
		c := *o
		c.Left, c.Right = preBind(o.Left, tab), preBind(o.Right, tab)
		return &c
	case *algebra.Union:
		return &algebra.Union{Left: preBind(o.Left, tab), Right: preBind(o.Right, tab)}
	case *algebra.Filter:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	case *algebra.Graph:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	case *algebra.Extend:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	case *algebra.Group:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	case *algebra.Project:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	case *algebra.Distinct:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	case *algebra.Reduced:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	case *algebra.OrderBy:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	case *algebra.Slice:
		c := *o
		c.Input = preBind(o.Input, tab)
		return &c
	}
	// MINUS and SERVICE were refused when the shapes were parsed.
	return op
}

// checkSPARQL runs the constraint's query for one focus node: each
// solution is a result, with ?value (default: the focus node of a node
// shape) and ?path (default: the shape's path) when the query binds them.
func (x *validator) checkSPARQL(s *shape, c *component, focus kb.ID, values []kb.ID, out *sink) {
	sc := c.sparql
	focusTerm := x.d.term(focus)
	tab := &algebra.Table{Vars: []algebra.Var{varThis, varCurrentShape}, Rows: [][]kb.Term{{focusTerm, s.term}}}
	if !sc.shapesGraph.IsZero() {
		tab.Vars = append(tab.Vars, varShapesGraph)
		tab.Rows[0] = append(tab.Rows[0], sc.shapesGraph)
	}
	for i, p := range sc.params {
		if !sc.args[i].IsZero() {
			tab.Vars = append(tab.Vars, p)
			tab.Rows[0] = append(tab.Rows[0], sc.args[i])
		}
	}
	if sc.ask {
		x.checkASK(s, c, focusTerm, values, tab, out)
		return
	}
	q := *sc.query.Query
	q.Pattern = preBind(q.Pattern, tab)
	res, err := query.Exec(x.d.ctx, x.d.ds, &query.Prepared{Text: sc.query.Text, Language: sc.query.Language, Query: &q}, x.queryOptions())
	if err != nil {
		x.d.fail(fmt.Errorf("sh:sparql %s on %s: %w", sc.node, focusTerm, err))
		return
	}
	defer res.Close()
	rows, err := res.Rows()
	if err != nil {
		x.d.fail(fmt.Errorf("sh:sparql %s on %s: %w", sc.node, focusTerm, err))
		return
	}
	col := map[string]int{}
	for i, v := range res.Vars {
		col[v] = i
	}
	get := func(row []kb.Term, name string) kb.Term {
		if i, ok := col[name]; ok && i < len(row) {
			return row[i]
		}
		return kb.Term{}
	}
	for _, row := range rows {
		if f := get(row, "failure"); f.IsLiteral() && isTrue(f) {
			x.d.fail(fmt.Errorf("sh:sparql %s reported a failure on %s", sc.node, focusTerm))
			return
		}
		out.failed = true
		if out.probe() {
			return
		}
		r := Result{Focus: focusTerm, Path: s.path, SourceShape: s.term, Component: c.iri,
			SourceConstraint: sc.node, Severity: s.severity.Value}
		if sc.component {
			r.SourceConstraint = kb.Term{}
		}
		if t := get(row, "this"); !t.IsZero() {
			r.Focus = t
		}
		if p := get(row, "path"); p.IsIRI() {
			r.Path = &Path{Kind: PathPredicate, Pred: p}
		}
		r.Value = get(row, "value")
		if r.Value.IsZero() && s.path == nil {
			r.Value = r.Focus
		}
		msgs := sc.messages
		if len(msgs) == 0 {
			msgs = s.messages
		}
		for _, m := range msgs {
			r.Messages = append(r.Messages, fillMessage(m, func(name string) kb.Term {
				if t := get(row, name); !t.IsZero() {
					return t
				}
				return sc.arg(name)
			}))
		}
		if len(r.Messages) == 0 {
			r.Messages = []kb.Term{kb.String(fmt.Sprintf("focus node %s fails the SPARQL constraint %s", r.Focus, sc.node))}
		}
		*out.results = append(*out.results, r)
	}
}

// msgVar is a {?name} or {$name} placeholder of an sh:message.
var msgVar = regexp.MustCompile(`\{[?$]([A-Za-z_][A-Za-z0-9_]*)\}`)

// fillMessage puts the solution's values into a message template; a
// placeholder of an unbound variable is left as written.
func fillMessage(m kb.Term, get func(string) kb.Term) kb.Term {
	text := msgVar.ReplaceAllStringFunc(m.Value, func(ph string) string {
		t := get(msgVar.FindStringSubmatch(ph)[1])
		switch {
		case t.IsZero():
			return ph
		case t.IsLiteral():
			return t.Value
		}
		return t.String()
	})
	m.Value = text
	return m
}

// queryOptions makes the data graphs being validated the default graph
// of SHACL-SPARQL queries (every graph named, for GRAPH $shapesGraph).
func (x *validator) queryOptions() query.Options {
	var opts query.Options
	for _, g := range x.d.graphs {
		opts.Dataset.Default = append(opts.Dataset.Default, x.d.term(g))
	}
	if x.d.graphs != nil && len(opts.Dataset.Default) == 0 {
		// The data graphs named are all absent: an empty default graph.
		opts.Dataset.DefaultEmpty = true
	}
	return opts
}
