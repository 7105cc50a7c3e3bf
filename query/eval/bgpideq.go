package eval

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// ID-decided equality inside a BGP. A FILTER (?a = ?b) or (?a != ?b)
// placed after the pattern that binds ?a as its subject or predicate
// compares a stored quad's subject or predicate with ?b. A predicate is
// an IRI; a subject is an IRI, a blank node or (RDF 1.2) a triple term.
// An IRI or a blank node is equal (§17.4.1.7 RDFterm-equal, which gives
// false, not an error, when either side is not a literal) to exactly
// the same term, and the store gives each term one ID, so:
//
//   - the same ID: the same term, and ?a is not a literal (NaN and
//     ill-typed literals, which are not equal to themselves under =,
//     never stand there): = is true, != false;
//   - different IDs and ?a an IRI or blank node: = is false, != true.
//
// Only a triple term at ?a (its components compare by value) or an
// unbound ?b needs the expression. So `{ ?s rdf:type ?o } UNION { ?s
// :hasMetric ?o } FILTER (?s = ?o)`, whose filter goes into each branch,
// tests each quad with one comparison instead of decoding two terms.

// nonLiteralSlots returns the slots that the first level patterns of n
// bind at their subject (subjects: true) or predicate (false) position.
func nonLiteralSlots(n *bgpNode, level int) map[int]bool {
	out := map[int]bool{}
	for _, p := range n.pats[:level] {
		if s := p.pos[1].slot; s >= 0 {
			out[s] = false
		}
	}
	for _, p := range n.pats[:level] {
		if s := p.pos[0].slot; s >= 0 {
			if _, pred := out[s]; !pred {
				out[s] = true
			}
		}
	}
	return out
}

// idEqualFilters replaces, in ces (the compiled filters run after level
// patterns of n), each ?a = ?b or ?a != ?b whose ?a or ?b the patterns
// bind at a subject or predicate position by a test on IDs that falls
// back to the compiled expression only where the IDs cannot decide.
func (ex *executor) idEqualFilters(n *bgpNode, level int, exprs []algebra.Expr, ces []cexpr) {
	var known map[int]bool
	for i, e := range exprs {
		b, ok := e.(*algebra.BinaryExpr)
		if !ok || (b.Op != algebra.OpEqual && b.Op != algebra.OpNotEqual) {
			continue
		}
		l, lok := b.Left.(*algebra.VarExpr)
		r, rok := b.Right.(*algebra.VarExpr)
		if !lok || !rok {
			continue
		}
		if known == nil {
			known = nonLiteralSlots(n, level)
		}
		a, c := ex.vars.slot(l.Var), ex.vars.slot(r.Var)
		subj, found := known[a]
		if !found {
			a, c = c, a
			if subj, found = known[a]; !found {
				continue
			}
		}
		ces[i] = ex.idEqual(ces[i], a, c, subj, b.Op == algebra.OpEqual)
	}
}

// idEqual is the test of idEqualFilters: slot a holds a stored subject
// (maybeTriple: it may be a triple term) or predicate, slot c the other
// operand; eq for =, false for !=.
func (ex *executor) idEqual(orig cexpr, a, c int, maybeTriple, eq bool) cexpr {
	if maybeTriple {
		if kh, ok := ex.ds.(kindHolder); ok {
			if holds, known := kh.HoldsKind(kb.KindTriple); known && !holds {
				maybeTriple = false
			}
		}
	}
	return func(ex *executor, r row) (kb.Term, error) {
		x, y := r[a], r[c]
		if x != 0 && y != 0 {
			if x == y {
				return boolTerm(eq), nil
			}
			if !maybeTriple {
				return boolTerm(!eq), nil
			}
		}
		return orig(ex, r)
	}
}
