package shacl

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/algebra"
)

// customComponent is a SPARQL-based constraint component (SHACL 6): a
// node of type sh:ConstraintComponent (or a subclass) with parameters and
// validators.
type customComponent struct {
	term   kb.Term
	params []componentParam
	// validators for node shapes, property shapes, and either; 0 when
	// absent.
	nodeValidator, propertyValidator, validator kb.ID
	messages                                    []kb.Term
}

// componentParam is one sh:parameter: its path (a predicate IRI) and
// whether a shape may leave it out.
type componentParam struct {
	path     string
	name     algebra.Var // the path's local name, the query variable
	optional bool
}

// readComponents finds the constraint components of the shapes graph.
func (p *parser) readComponents() ([]*customComponent, error) {
	v := p.v
	// sh:ConstraintComponent and its subclasses.
	classes := []kb.ID{v.iri(sh("ConstraintComponent"))}
	seen := map[kb.ID]bool{classes[0]: true}
	for i := 0; i < len(classes); i++ {
		for _, sub := range v.subjects(v.iri(rdfsSubClass), classes[i]) {
			if !seen[sub] {
				seen[sub] = true
				classes = append(classes, sub)
			}
		}
	}
	var out []*customComponent
	done := map[kb.ID]bool{}
	for _, cl := range classes {
		for _, id := range v.subjects(v.iri(rdfType), cl) {
			if done[id] {
				continue
			}
			done[id] = true
			cc := &customComponent{term: v.term(id)}
			for _, pid := range v.objects(id, v.iri(sh("parameter"))) {
				path, ok := v.object(pid, v.iri(shPath))
				if !ok || !v.term(path).IsIRI() {
					return nil, fmt.Errorf("constraint component %s: a parameter without an IRI sh:path", cc.term)
				}
				iri := v.term(path).Value
				param := componentParam{path: iri, name: algebra.Var(localName(iri))}
				if o, ok := v.object(pid, v.iri(sh("optional"))); ok && isTrue(v.term(o)) {
					param.optional = true
				}
				cc.params = append(cc.params, param)
			}
			cc.nodeValidator, _ = v.object(id, v.iri(sh("nodeValidator")))
			cc.propertyValidator, _ = v.object(id, v.iri(sh("propertyValidator")))
			cc.validator, _ = v.object(id, v.iri(sh("validator")))
			for _, m := range v.objects(id, v.iri(shMessage)) {
				cc.messages = append(cc.messages, v.term(m))
			}
			out = append(out, cc)
		}
	}
	return out, nil
}

// componentConstraints returns the constraints of shape s (id, with the
// values props) from the SPARQL-based constraint components whose
// mandatory parameters the shape gives values for.
func (p *parser) componentConstraints(s *shape, id kb.ID, props map[string][]kb.ID) ([]*component, error) {
	if !p.componentsRead {
		cs, err := p.readComponents()
		if err != nil {
			return nil, err
		}
		p.components, p.componentsRead = cs, true
	}
	v := p.v
	var out []*component
	for _, cc := range p.components {
		applies, any := true, false
		for _, prm := range cc.params {
			if len(props[prm.path]) == 0 {
				if !prm.optional {
					applies = false
				}
				continue
			}
			any = true
		}
		if !applies || !any {
			continue
		}
		val := cc.nodeValidator
		if s.path != nil {
			val = cc.propertyValidator
		}
		if val == 0 {
			val = cc.validator
		}
		if val == 0 {
			continue // no validator for this kind of shape: the component is ignored
		}
		sc := &sparqlConstraint{node: v.term(val), shapesGraph: p.out.graph, component: true}
		for _, prm := range cc.params {
			sc.params = append(sc.params, prm.name)
			var arg kb.Term
			if vals := props[prm.path]; len(vals) > 0 {
				arg = v.term(vals[0])
			}
			sc.args = append(sc.args, arg)
		}
		text, form := "", ""
		if a, ok := v.object(val, v.iri(sh("ask"))); ok {
			text, form, sc.ask = v.term(a).Value, "ASK", true
		} else if sel, ok := v.object(val, v.iri(sh("select"))); ok {
			text, form = v.term(sel).Value, "SELECT"
		} else {
			return nil, p.errorf(id, "validator %s of %s has neither sh:ask nor sh:select", v.term(val), cc.term)
		}
		prep, err := p.prepareSPARQL(val, text, s)
		if err != nil {
			return nil, p.errorf(id, "%s validator of %s: %v", form, cc.term, err)
		}
		if sc.ask != (prep.Query.Form == algebra.FormAsk) || !sc.ask && prep.Query.Form != algebra.FormSelect {
			return nil, p.errorf(id, "validator %s of %s is not an %s query", v.term(val), cc.term, form)
		}
		more := append([]algebra.Var{"value"}, sc.params...)
		if err := checkPreBindable(prep.Query.Pattern, more); err != nil {
			return nil, p.errorf(id, "validator of %s: %v", cc.term, err)
		}
		sc.query = prep
		for _, m := range v.objects(val, v.iri(shMessage)) {
			sc.messages = append(sc.messages, v.term(m))
		}
		if len(sc.messages) == 0 {
			sc.messages = cc.messages
		}
		out = append(out, &component{kind: cSPARQL, iri: cc.term.Value, term: sc.node, sparql: sc})
	}
	return out, nil
}

// prepareSPARQL parses the query text of an sh:sparql constraint or a
// validator (node) with the prefixes it declares (sh:prefixes and,
// through owl:imports, the ontologies they import; SHACL 5.2.1) and $PATH
// replaced by the property shape's path (SHACL 5.3.2).
func (p *parser) prepareSPARQL(node kb.ID, text string, s *shape) (*query.Prepared, error) {
	v := p.v
	var prologue strings.Builder
	nodes := v.objects(node, v.iri(sh("prefixes")))
	seen := map[kb.ID]bool{}
	for i := 0; i < len(nodes); i++ {
		if seen[nodes[i]] {
			continue
		}
		seen[nodes[i]] = true
		nodes = append(nodes, v.objects(nodes[i], v.iri(ontology.OWLNamespace+"imports"))...)
		for _, d := range v.objects(nodes[i], v.iri(sh("declare"))) {
			pf, ok1 := v.object(d, v.iri(sh("prefix")))
			ns, ok2 := v.object(d, v.iri(sh("namespace")))
			if !ok1 || !ok2 {
				return nil, fmt.Errorf("sh:declare %s needs sh:prefix and sh:namespace", v.term(d))
			}
			fmt.Fprintf(&prologue, "PREFIX %s: <%s>\n", v.term(pf).Value, v.term(ns).Value)
		}
	}
	if s.path != nil {
		text = pathVar.ReplaceAllLiteralString(text, s.path.String())
	}
	return query.Prepare(prologue.String()+text, query.Options{Source: "sh:select"})
}

// arg returns the shape's value of the parameter name, zero when none.
func (sc *sparqlConstraint) arg(name string) kb.Term {
	for i, p := range sc.params {
		if string(p) == name {
			return sc.args[i]
		}
	}
	return kb.Term{}
}

// checkASK runs an ASK validator once per value node with $value bound
// (SHACL 6.3.1): a false answer makes the value a result.
func (x *validator) checkASK(s *shape, c *component, focus kb.Term, values []kb.ID, tab *algebra.Table, out *sink) {
	sc := c.sparql
	opts := x.queryOptions()
	for _, vid := range values {
		value := x.d.term(vid)
		row := &algebra.Table{Vars: append(append([]algebra.Var{}, tab.Vars...), "value"),
			Rows: [][]kb.Term{append(append([]kb.Term{}, tab.Rows[0]...), value)}}
		q := *sc.query.Query
		q.Pattern = preBind(q.Pattern, row)
		ok, err := ask(x.d.ctx, x.d.ds, &query.Prepared{Text: sc.query.Text, Language: sc.query.Language, Query: &q}, opts)
		if err != nil {
			x.d.fail(fmt.Errorf("validator %s on %s: %w", sc.node, focus, err))
			return
		}
		if ok {
			continue
		}
		out.failed = true
		if out.probe() {
			return
		}
		r := Result{Focus: focus, Path: s.path, Value: value, SourceShape: s.term, Component: c.iri, Severity: s.severity.Value}
		for _, m := range sc.messages {
			r.Messages = append(r.Messages, fillMessage(m, func(name string) kb.Term {
				if name == "value" {
					return value
				}
				if name == "this" {
					return focus
				}
				return sc.arg(name)
			}))
		}
		if len(r.Messages) == 0 {
			r.Messages = []kb.Term{kb.String(fmt.Sprintf("value %s fails %s", value, c.iri))}
		}
		*out.results = append(*out.results, r)
	}
}

func ask(ctx context.Context, ds kb.Dataset, p *query.Prepared, opts query.Options) (bool, error) {
	res, err := query.Exec(ctx, ds, p, opts)
	if err != nil {
		return false, err
	}
	defer res.Close()
	return res.Boolean, nil
}
