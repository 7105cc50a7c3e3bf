package shacl

import (
	"context"
	"fmt"
	"io"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// maxDepth bounds how deeply shapes and paths may nest (and how deeply
// validation may recurse through sh:node and friends), so that a
// recursive shapes graph ends with an error instead of a stack overflow.
const maxDepth = 64

// Shapes is a parsed shapes graph: every shape reachable from a target,
// with its constraints.
type Shapes struct {
	// targeted are the shapes with at least one target, in the order the
	// shapes graph gave them.
	targeted []*shape
	byTerm   map[kb.Term]*shape
	// graph is the shapes graph when the shapes come from one graph
	// (SHACL-SPARQL's $shapesGraph), zero otherwise.
	graph kb.Term
}

// Len returns the number of shapes parsed (targeted and referenced).
func (s *Shapes) Len() int { return len(s.byTerm) }

// shape is one node or property shape.
type shape struct {
	term        kb.Term
	deactivated bool
	severity    kb.Term
	messages    []kb.Term
	path        *Path // nil for a node shape

	targetNodes, targetClasses, targetSubjectsOf, targetObjectsOf []kb.Term

	comps []*component
}

// component is one constraint of a shape: a constraint component with
// its parameter values.
type component struct {
	kind   compKind
	iri    string  // the constraint component's IRI
	term   kb.Term // the single parameter (sh:class, sh:datatype, …)
	terms  []kb.Term
	n      int
	flag   bool
	shapes []*shape
	// sh:pattern
	pattern, flags string
	// qualified value shapes
	siblings []*shape
	// sh:closed: predicates allowed on the focus node
	allowed map[kb.Term]bool
	// sh:sparql
	sparql *sparqlConstraint
}

type compKind uint8

const (
	cClass compKind = iota + 1
	cDatatype
	cNodeKind
	cMinCount
	cMaxCount
	cMinExclusive
	cMinInclusive
	cMaxExclusive
	cMaxInclusive
	cMinLength
	cMaxLength
	cPattern
	cLanguageIn
	cUniqueLang
	cEquals
	cDisjoint
	cLessThan
	cLessThanOrEquals
	cNot
	cAnd
	cOr
	cXone
	cNode
	cProperty
	cQualifiedMin
	cQualifiedMax
	cClosed
	cHasValue
	cIn
	cSPARQL
)

// simpleParams maps a parameter that makes a constraint on its own to
// its component kind and component name.
var simpleParams = []struct {
	param, comp string
	kind        compKind
}{
	{"class", "ClassConstraintComponent", cClass},
	{"datatype", "DatatypeConstraintComponent", cDatatype},
	{"nodeKind", "NodeKindConstraintComponent", cNodeKind},
	{"minCount", "MinCountConstraintComponent", cMinCount},
	{"maxCount", "MaxCountConstraintComponent", cMaxCount},
	{"minExclusive", "MinExclusiveConstraintComponent", cMinExclusive},
	{"minInclusive", "MinInclusiveConstraintComponent", cMinInclusive},
	{"maxExclusive", "MaxExclusiveConstraintComponent", cMaxExclusive},
	{"maxInclusive", "MaxInclusiveConstraintComponent", cMaxInclusive},
	{"minLength", "MinLengthConstraintComponent", cMinLength},
	{"maxLength", "MaxLengthConstraintComponent", cMaxLength},
	{"languageIn", "LanguageInConstraintComponent", cLanguageIn},
	{"uniqueLang", "UniqueLangConstraintComponent", cUniqueLang},
	{"equals", "EqualsConstraintComponent", cEquals},
	{"disjoint", "DisjointConstraintComponent", cDisjoint},
	{"lessThan", "LessThanConstraintComponent", cLessThan},
	{"lessThanOrEquals", "LessThanOrEqualsConstraintComponent", cLessThanOrEquals},
	{"not", "NotConstraintComponent", cNot},
	{"and", "AndConstraintComponent", cAnd},
	{"or", "OrConstraintComponent", cOr},
	{"xone", "XoneConstraintComponent", cXone},
	{"node", "NodeConstraintComponent", cNode},
	{"property", "PropertyConstraintComponent", cProperty},
	{"hasValue", "HasValueConstraintComponent", cHasValue},
	{"in", "InConstraintComponent", cIn},
}

// LoadShapes reads a shapes graph from r (any RDF syntax rdfio.Load reads;
// format empty means from the name) into memory and parses it.
func LoadShapes(ctx context.Context, r io.Reader, name string, format string) (*Shapes, error) {
	ds := native.OpenMemory()
	defer ds.Close()
	if _, err := rdfio.Load(ctx, ds, r, rdfio.LoadOptions{Format: format, SourceName: name, BaseIRI: "urn:x-perfkb:shapes:" + name}); err != nil {
		return nil, fmt.Errorf("shapes: %w", err)
	}
	return Parse(ctx, ds, nil)
}

// Parse reads the shapes of the given graphs of ds (nil: every graph).
// Shapes are found from their targets and what those reference; a shape
// without a target is parsed only when another shape uses it.
func Parse(ctx context.Context, ds kb.Dataset, graphs []kb.Term) (*Shapes, error) {
	v, err := newView(ctx, ds, graphs)
	if err != nil {
		return nil, err
	}
	p := &parser{v: v, out: &Shapes{byTerm: map[kb.Term]*shape{}}}
	if len(graphs) == 1 {
		p.out.graph = graphs[0]
	}
	var roots idSet
	for _, pred := range []string{shTargetNode, shTargetClass, shTargetSubjectsOf, shTargetObjectsOf} {
		for _, s := range v.collect(kb.Pattern{P: v.iri(pred)}, func(q kb.Quad) kb.ID { return q.S }) {
			roots.add(s)
		}
	}
	// implicit class targets: shapes that are also classes
	classes := instancesIn(v, v.iri(rdfsClass))
	for _, typ := range []string{shNodeShape, shPropertyShape} {
		for _, s := range v.subjects(v.iri(rdfType), v.iri(typ)) {
			if classes[s] {
				roots.add(s)
			}
		}
	}
	for _, id := range roots.list {
		s, err := p.shape(id, 0)
		if err != nil {
			return nil, err
		}
		if classes[id] && v.term(id).IsIRI() {
			s.targetClasses = append(s.targetClasses, v.term(id))
		}
		if len(s.targetNodes)+len(s.targetClasses)+len(s.targetSubjectsOf)+len(s.targetObjectsOf) > 0 {
			p.out.targeted = append(p.out.targeted, s)
		}
	}
	if v.err != nil {
		return nil, v.err
	}
	return p.out, nil
}

// instancesIn returns the SHACL instances of class in v: nodes with an
// rdf:type that is class or one of its subclasses.
func instancesIn(v *view, class kb.ID) map[kb.ID]bool {
	out := map[kb.ID]bool{}
	for _, c := range subclasses(v, class) {
		for _, s := range v.subjects(v.iri(rdfType), c) {
			out[s] = true
		}
	}
	return out
}

// subclasses returns class and its transitive subclasses.
func subclasses(v *view, class kb.ID) []kb.ID {
	var out idSet
	out.add(class)
	sub := v.iri(rdfsSubClass)
	for i := 0; i < len(out.list); i++ {
		for _, c := range v.subjects(sub, out.list[i]) {
			out.add(c)
		}
	}
	return out.list
}

type parser struct {
	v   *view
	out *Shapes
	// components are the SPARQL-based constraint components of the
	// shapes graph, found on first use (components.go).
	components     []*customComponent
	componentsRead bool
}

func (p *parser) errorf(id kb.ID, format string, args ...any) error {
	return fmt.Errorf("shape %s: %s", p.v.term(id), fmt.Sprintf(format, args...))
}

// shape parses the shape at id (once; later calls return the same shape,
// so recursive references end).
func (p *parser) shape(id kb.ID, depth int) (*shape, error) {
	v := p.v
	t := v.term(id)
	if s, ok := p.out.byTerm[t]; ok {
		return s, nil
	}
	if depth > maxDepth {
		return nil, p.errorf(id, "shapes nested more than %d deep", maxDepth)
	}
	if t.IsLiteral() {
		return nil, fmt.Errorf("literal %s used as a shape", t)
	}
	s := &shape{term: t, severity: kb.IRI(shViolation)}
	p.out.byTerm[t] = s
	props := map[string][]kb.ID{}
	v.each(kb.Pattern{S: id}, func(q kb.Quad) bool {
		pt := v.term(q.P)
		for _, o := range props[pt.Value] {
			if o == q.O {
				return true
			}
		}
		props[pt.Value] = append(props[pt.Value], q.O)
		return true
	})
	terms := func(pred string) []kb.Term {
		var out []kb.Term
		for _, o := range props[pred] {
			out = append(out, v.term(o))
		}
		return out
	}
	if ps := props[shPath]; len(ps) > 0 {
		path, err := parsePath(v, ps[0], 0)
		if err != nil {
			return nil, p.errorf(id, "%v", err)
		}
		s.path = path
	}
	for _, d := range terms(shDeactivated) {
		if isTrue(d) {
			s.deactivated = true
		}
	}
	if sev := terms(shSeverity); len(sev) > 0 {
		s.severity = sev[0]
	}
	s.messages = terms(shMessage)
	s.targetNodes = terms(shTargetNode)
	s.targetClasses = terms(shTargetClass)
	s.targetSubjectsOf = terms(shTargetSubjectsOf)
	s.targetObjectsOf = terms(shTargetObjectsOf)

	shapeList := func(ids []kb.ID) ([]*shape, error) {
		var out []*shape
		for _, o := range ids {
			ref, err := p.shape(o, depth+1)
			if err != nil {
				return nil, err
			}
			out = append(out, ref)
		}
		return out, nil
	}
	for _, sp := range simpleParams {
		for _, o := range props[sh(sp.param)] {
			c := &component{kind: sp.kind, iri: sh(sp.comp), term: v.term(o)}
			switch sp.kind {
			case cMinCount, cMaxCount, cMinLength, cMaxLength:
				n, err := strconv.Atoi(c.term.Value)
				if err != nil || !c.term.IsLiteral() || n < 0 {
					return nil, p.errorf(id, "sh:%s needs a non-negative integer, not %s", sp.param, c.term)
				}
				c.n = n
			case cUniqueLang:
				c.flag = isTrue(c.term)
				if !c.flag {
					continue
				}
			case cNot, cNode, cProperty:
				ref, err := shapeList([]kb.ID{o})
				if err != nil {
					return nil, err
				}
				c.shapes = ref
			case cAnd, cOr, cXone:
				ref, err := shapeList(v.list(o))
				if err != nil {
					return nil, err
				}
				c.shapes = ref
			case cLanguageIn, cIn:
				for _, m := range v.list(o) {
					c.terms = append(c.terms, v.term(m))
				}
			}
			if sp.kind == cMinCount && c.n == 0 {
				continue // always satisfied
			}
			if (sp.kind == cMinCount || sp.kind == cMaxCount || sp.kind == cUniqueLang) && s.path == nil {
				return nil, p.errorf(id, "sh:%s is allowed only on property shapes", sp.param)
			}
			s.comps = append(s.comps, c)
		}
	}
	for _, pat := range terms(sh("pattern")) {
		c := &component{kind: cPattern, iri: sh("PatternConstraintComponent"), term: pat, pattern: pat.Value}
		if f := terms(sh("flags")); len(f) > 0 {
			c.flags = f[0].Value
		}
		s.comps = append(s.comps, c)
	}
	if qs := props[sh("qualifiedValueShape")]; len(qs) > 0 {
		q, err := shapeList(qs[:1])
		if err != nil {
			return nil, err
		}
		disjoint := false
		for _, d := range terms(sh("qualifiedValueShapesDisjoint")) {
			disjoint = isTrue(d)
		}
		var siblings []*shape
		if disjoint {
			if siblings, err = p.siblings(id, qs[0], depth); err != nil {
				return nil, err
			}
		}
		for _, b := range []struct {
			param, comp string
			kind        compKind
		}{{"qualifiedMinCount", "QualifiedMinCountConstraintComponent", cQualifiedMin}, {"qualifiedMaxCount", "QualifiedMaxCountConstraintComponent", cQualifiedMax}} {
			for _, nt := range terms(sh(b.param)) {
				n, err := strconv.Atoi(nt.Value)
				if err != nil || n < 0 {
					return nil, p.errorf(id, "sh:%s needs a non-negative integer, not %s", b.param, nt)
				}
				s.comps = append(s.comps, &component{kind: b.kind, iri: sh(b.comp), term: nt, n: n, shapes: q, siblings: siblings, flag: disjoint})
			}
		}
	}
	for _, cl := range terms(sh("closed")) {
		if !isTrue(cl) {
			continue
		}
		c := &component{kind: cClosed, iri: sh("ClosedConstraintComponent"), term: cl, allowed: map[kb.Term]bool{}}
		for _, ps := range props[sh("property")] {
			if pid, ok := v.object(ps, v.iri(shPath)); ok && v.term(pid).IsIRI() {
				c.allowed[v.term(pid)] = true
			}
		}
		for _, ig := range props[sh("ignoredProperties")] {
			for _, m := range v.list(ig) {
				c.allowed[v.term(m)] = true
			}
		}
		s.comps = append(s.comps, c)
	}
	for _, sq := range props[sh("sparql")] {
		c, err := p.sparql(s, id, sq)
		if err != nil {
			return nil, err
		}
		if c != nil {
			s.comps = append(s.comps, c)
		}
	}
	cs, err := p.componentConstraints(s, id, props)
	if err != nil {
		return nil, err
	}
	s.comps = append(s.comps, cs...)
	return s, nil
}

// siblings returns the qualified value shapes of the property shapes
// that share a parent shape with ps, except qvs itself (SHACL 4.7.3).
func (p *parser) siblings(ps, qvs kb.ID, depth int) ([]*shape, error) {
	v := p.v
	prop := v.iri(sh("property"))
	qv := v.iri(sh("qualifiedValueShape"))
	var ids idSet
	for _, parent := range v.subjects(prop, ps) {
		for _, other := range v.objects(parent, prop) {
			for _, q := range v.objects(other, qv) {
				if q != qvs {
					ids.add(q)
				}
			}
		}
	}
	var out []*shape
	for _, id := range ids.list {
		s, err := p.shape(id, depth+1)
		if err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, nil
}

// isTrue reports whether t is the literal true: SHACL's boolean
// parameters are activated by true alone ("1"^^xsd:boolean is not it,
// W3C test core/property/uniqueLang-002).
func isTrue(t kb.Term) bool {
	return t == kb.Literal("true", xsdBoolean)
}
