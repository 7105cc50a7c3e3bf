package shacl

import (
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
)

// PathKind says which SHACL property path a Path is.
type PathKind uint8

// The SHACL property path kinds (SHACL 2.3.1).
const (
	PathPredicate PathKind = iota + 1
	PathInverse
	PathSequence
	PathAlternative
	PathZeroOrMore
	PathOneOrMore
	PathZeroOrOne
)

// Path is a SHACL property path: a predicate IRI, or an operator over
// sub-paths (one for inverse and the repetitions, several for sequence
// and alternative).
type Path struct {
	Kind PathKind
	// Pred is the predicate of a PathPredicate.
	Pred kb.Term
	// Sub are the operands of every other kind.
	Sub []*Path
}

// String writes the path in SPARQL property path syntax; equal paths give
// equal strings.
func (p *Path) String() string {
	switch p.Kind {
	case PathPredicate:
		return p.Pred.String()
	case PathInverse:
		return "^(" + p.Sub[0].String() + ")"
	case PathSequence, PathAlternative:
		sep := "/"
		if p.Kind == PathAlternative {
			sep = "|"
		}
		parts := make([]string, len(p.Sub))
		for i, s := range p.Sub {
			parts[i] = s.String()
		}
		return "(" + strings.Join(parts, sep) + ")"
	case PathZeroOrMore:
		return "(" + p.Sub[0].String() + ")*"
	case PathOneOrMore:
		return "(" + p.Sub[0].String() + ")+"
	case PathZeroOrOne:
		return "(" + p.Sub[0].String() + ")?"
	}
	return "?"
}

// parsePath reads the path whose node is id in the shapes graph.
func parsePath(v *view, id kb.ID, depth int) (*Path, error) {
	if depth > maxDepth {
		return nil, fmt.Errorf("property path nested more than %d deep", maxDepth)
	}
	t := v.term(id)
	switch {
	case t.IsIRI():
		return &Path{Kind: PathPredicate, Pred: t}, nil
	case t.IsLiteral():
		return nil, fmt.Errorf("literal %s is not a property path", t)
	}
	if _, ok := v.object(id, v.iri(rdfFirst)); ok {
		items := v.list(id)
		if len(items) < 2 {
			return nil, fmt.Errorf("sequence path %s has fewer than two members", t)
		}
		return subPaths(v, PathSequence, items, depth)
	}
	for _, op := range []struct {
		pred string
		kind PathKind
	}{{shInversePath, PathInverse}, {shZeroOrMorePath, PathZeroOrMore}, {shOneOrMorePath, PathOneOrMore}, {shZeroOrOnePath, PathZeroOrOne}} {
		if sub, ok := v.object(id, v.iri(op.pred)); ok {
			return subPaths(v, op.kind, []kb.ID{sub}, depth)
		}
	}
	if head, ok := v.object(id, v.iri(shAlternativePath)); ok {
		items := v.list(head)
		if len(items) < 2 {
			return nil, fmt.Errorf("alternative path %s has fewer than two members", t)
		}
		return subPaths(v, PathAlternative, items, depth)
	}
	return nil, fmt.Errorf("blank node %s is not a property path", t)
}

func subPaths(v *view, kind PathKind, items []kb.ID, depth int) (*Path, error) {
	p := &Path{Kind: kind}
	for _, it := range items {
		s, err := parsePath(v, it, depth+1)
		if err != nil {
			return nil, err
		}
		p.Sub = append(p.Sub, s)
	}
	return p, nil
}

// idSet is an ordered set of IDs.
type idSet struct {
	list []kb.ID
	seen map[kb.ID]bool
}

func (s *idSet) add(id kb.ID) {
	if s.seen == nil {
		s.seen = map[kb.ID]bool{}
	}
	if !s.seen[id] {
		s.seen[id] = true
		s.list = append(s.list, id)
	}
}

// eval returns the nodes the path reaches from start (backwards when
// inverse), each once.
func (x *validator) eval(p *Path, start kb.ID, inverse bool) []kb.ID {
	if p.Kind == PathPredicate {
		pred := x.d.id(p.Pred)
		if inverse {
			return x.d.subjects(pred, start)
		}
		return x.d.objects(start, pred)
	}
	var out idSet
	x.evalInto(p, start, inverse, &out)
	return out.list
}

func (x *validator) evalInto(p *Path, start kb.ID, inverse bool, out *idSet) {
	switch p.Kind {
	case PathPredicate:
		for _, n := range x.eval(p, start, inverse) {
			out.add(n)
		}
	case PathInverse:
		x.evalInto(p.Sub[0], start, !inverse, out)
	case PathSequence:
		cur := []kb.ID{start}
		subs := p.Sub
		for i := range subs {
			s := subs[i]
			if inverse {
				s = subs[len(subs)-1-i]
			}
			var next idSet
			for _, n := range cur {
				x.evalInto(s, n, inverse, &next)
			}
			cur = next.list
		}
		for _, n := range cur {
			out.add(n)
		}
	case PathAlternative:
		for _, s := range p.Sub {
			x.evalInto(s, start, inverse, out)
		}
	case PathZeroOrOne:
		out.add(start)
		x.evalInto(p.Sub[0], start, inverse, out)
	case PathZeroOrMore, PathOneOrMore:
		var reached idSet
		if p.Kind == PathZeroOrMore {
			reached.add(start)
		}
		frontier := []kb.ID{start}
		visited := map[kb.ID]bool{start: true}
		for len(frontier) > 0 {
			var next []kb.ID
			for _, n := range frontier {
				var step idSet
				x.evalInto(p.Sub[0], n, inverse, &step)
				for _, m := range step.list {
					reached.add(m)
					if !visited[m] {
						visited[m] = true
						next = append(next, m)
					}
				}
			}
			frontier = next
		}
		for _, n := range reached.list {
			out.add(n)
		}
	}
}

// quads writes the path as RDF (SHACL's path syntax) with fresh blank
// nodes from blank, and returns its node.
func (p *Path) quads(blank func() kb.Term, emit func(s, p, o kb.Term)) kb.Term {
	if p.Kind == PathPredicate {
		return p.Pred
	}
	if p.Kind == PathSequence || p.Kind == PathAlternative {
		nodes := make([]kb.Term, len(p.Sub))
		for i, s := range p.Sub {
			nodes[i] = s.quads(blank, emit)
		}
		head := kb.IRI(rdfNil)
		for i := len(nodes) - 1; i >= 0; i-- {
			cell := blank()
			emit(cell, kb.IRI(rdfFirst), nodes[i])
			emit(cell, kb.IRI(rdfRest), head)
			head = cell
		}
		if p.Kind == PathSequence {
			return head
		}
		n := blank()
		emit(n, kb.IRI(shAlternativePath), head)
		return n
	}
	pred := map[PathKind]string{PathInverse: shInversePath, PathZeroOrMore: shZeroOrMorePath, PathOneOrMore: shOneOrMorePath, PathZeroOrOne: shZeroOrOnePath}[p.Kind]
	sub := p.Sub[0].quads(blank, emit)
	n := blank()
	emit(n, kb.IRI(pred), sub)
	return n
}
