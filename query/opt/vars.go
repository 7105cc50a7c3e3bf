package opt

import "github.com/perfkb/perfkb/query/algebra"

// VarSet is a set of variables.
type VarSet map[algebra.Var]bool

func (s VarSet) union(o VarSet) VarSet {
	out := make(VarSet, len(s)+len(o))
	for k := range s {
		out[k] = true
	}
	for k := range o {
		out[k] = true
	}
	return out
}

func (s VarSet) intersect(o VarSet) VarSet {
	out := VarSet{}
	for k := range s {
		if o[k] {
			out[k] = true
		}
	}
	return out
}

// subsetOf reports whether s ⊆ o.
func (s VarSet) subsetOf(o VarSet) bool {
	for k := range s {
		if !o[k] {
			return false
		}
	}
	return true
}

func (s VarSet) addNode(n algebra.Node) {
	if n.IsVar() {
		s[n.Var] = true
	}
}

// Maybe returns the variables op may bind.
func Maybe(op algebra.Op) VarSet {
	s := VarSet{}
	switch o := op.(type) {
	case *algebra.BGP:
		for _, t := range o.Triples {
			s.addNode(t.S)
			s.addNode(t.P)
			s.addNode(t.O)
		}
	case *algebra.Path:
		s.addNode(o.Subject)
		s.addNode(o.Object)
	case *algebra.Join:
		return Maybe(o.Left).union(Maybe(o.Right))
	case *algebra.LeftJoin:
		return Maybe(o.Left).union(Maybe(o.Right))
	case *algebra.Union:
		return Maybe(o.Left).union(Maybe(o.Right))
	case *algebra.Filter:
		return Maybe(o.Input)
	case *algebra.Minus:
		return Maybe(o.Left)
	case *algebra.Graph:
		s = Maybe(o.Input)
		s.addNode(o.Name)
	case *algebra.Extend:
		s = Maybe(o.Input)
		s[o.Var] = true
	case *algebra.Table:
		for _, v := range o.Vars {
			s[v] = true
		}
	case *algebra.Group:
		for _, k := range o.Keys {
			s[k.Var] = true
		}
		for _, a := range o.Aggregates {
			s[a.Var] = true
		}
	case *algebra.Project:
		for _, v := range o.Vars {
			s[v] = true
		}
		return s.intersect(Maybe(o.Input))
	case *algebra.Distinct:
		return Maybe(o.Input)
	case *algebra.Reduced:
		return Maybe(o.Input)
	case *algebra.OrderBy:
		return Maybe(o.Input)
	case *algebra.Slice:
		return Maybe(o.Input)
	case *algebra.Service:
		s = Maybe(o.Input)
		s.addNode(o.Endpoint)
	}
	return s
}

// Certain returns the variables op binds in every solution.
func Certain(op algebra.Op) VarSet {
	switch o := op.(type) {
	case *algebra.BGP, *algebra.Path:
		return Maybe(op)
	case *algebra.Join:
		return Certain(o.Left).union(Certain(o.Right))
	case *algebra.LeftJoin:
		return Certain(o.Left)
	case *algebra.Union:
		return Certain(o.Left).intersect(Certain(o.Right))
	case *algebra.Filter:
		return Certain(o.Input)
	case *algebra.Minus:
		return Certain(o.Left)
	case *algebra.Graph:
		s := Certain(o.Input)
		s.addNode(o.Name)
		return s
	case *algebra.Extend:
		return Certain(o.Input)
	case *algebra.Table:
		s := VarSet{}
		for i, v := range o.Vars {
			all := true
			for _, r := range o.Rows {
				if r[i].IsZero() {
					all = false
				}
			}
			if all {
				s[v] = true
			}
		}
		return s
	case *algebra.Group:
		s := VarSet{}
		for _, k := range o.Keys {
			if ve, ok := k.Expr.(*algebra.VarExpr); ok && Certain(o.Input)[ve.Var] {
				s[k.Var] = true
			}
		}
		return s
	case *algebra.Project:
		return Maybe(o).intersect(Certain(o.Input))
	case *algebra.Distinct:
		return Certain(o.Input)
	case *algebra.Reduced:
		return Certain(o.Input)
	case *algebra.OrderBy:
		return Certain(o.Input)
	case *algebra.Slice:
		return Certain(o.Input)
	}
	return VarSet{}
}

// ExprVars adds to s every variable e mentions, including inside EXISTS
// patterns.
func ExprVars(e algebra.Expr, s VarSet) {
	switch x := e.(type) {
	case *algebra.VarExpr:
		s[x.Var] = true
	case *algebra.FuncExpr:
		for _, a := range x.Args {
			ExprVars(a, s)
		}
	case *algebra.BuiltinExpr:
		for _, a := range x.Args {
			ExprVars(a, s)
		}
	case *algebra.BinaryExpr:
		ExprVars(x.Left, s)
		ExprVars(x.Right, s)
	case *algebra.UnaryExpr:
		ExprVars(x.Arg, s)
	case *algebra.InExpr:
		ExprVars(x.Arg, s)
		for _, a := range x.List {
			ExprVars(a, s)
		}
	case *algebra.ExistsExpr:
		for k := range Mentioned(x.Pattern) {
			s[k] = true
		}
	}
}

func exprsVars(es []algebra.Expr) VarSet {
	s := VarSet{}
	for _, e := range es {
		ExprVars(e, s)
	}
	return s
}

// Mentioned returns all variables appearing anywhere in op.
func Mentioned(op algebra.Op) VarSet {
	s := Maybe(op)
	var walk func(algebra.Op)
	walk = func(op algebra.Op) {
		switch o := op.(type) {
		case *algebra.Join:
			walk(o.Left)
			walk(o.Right)
		case *algebra.LeftJoin:
			walk(o.Left)
			walk(o.Right)
			for _, e := range o.Exprs {
				ExprVars(e, s)
			}
		case *algebra.Union:
			walk(o.Left)
			walk(o.Right)
		case *algebra.Minus:
			walk(o.Left)
			for k := range Maybe(o.Right) {
				s[k] = true
			}
			walk(o.Right)
		case *algebra.Filter:
			walk(o.Input)
			for _, e := range o.Exprs {
				ExprVars(e, s)
			}
		case *algebra.Graph:
			walk(o.Input)
		case *algebra.Extend:
			walk(o.Input)
			ExprVars(o.Expr, s)
		case *algebra.Group:
			walk(o.Input)
			for k := range Maybe(o.Input) {
				s[k] = true
			}
		case *algebra.Project:
			walk(o.Input)
			for k := range Maybe(o.Input) {
				s[k] = true
			}
		case *algebra.Distinct:
			walk(o.Input)
		case *algebra.Reduced:
			walk(o.Input)
		case *algebra.OrderBy:
			walk(o.Input)
		case *algebra.Slice:
			walk(o.Input)
		case *algebra.Service:
			walk(o.Input)
		}
	}
	walk(op)
	return s
}

// isBarrier reports operators that are evaluated on their own (subqueries,
// aggregates, modifiers, SERVICE) and joined by value, never fed bindings.
func isBarrier(op algebra.Op) bool {
	switch op.(type) {
	case *algebra.Project, *algebra.Group, *algebra.Slice, *algebra.Distinct,
		*algebra.Reduced, *algebra.OrderBy, *algebra.Service:
		return true
	}
	return false
}

// seedSafe reports whether evaluating op with bindings of seed substituted
// in gives the same solutions as evaluating it alone and joining (the
// bottom-up semantics of §18): no filter, BIND or OPTIONAL inside op can
// observe a seeded variable that op itself would not bind.
func seedSafe(op algebra.Op, seed VarSet) bool {
	switch o := op.(type) {
	case *algebra.BGP, *algebra.Path, *algebra.Table:
		return true
	case *algebra.Join:
		return seedSafe(o.Left, seed) && seedSafe(o.Right, seed)
	case *algebra.Union:
		return seedSafe(o.Left, seed) && seedSafe(o.Right, seed)
	case *algebra.Graph:
		return seedSafe(o.Input, seed)
	case *algebra.Filter:
		return seedSafe(o.Input, seed) && exprsVars(o.Exprs).intersect(seed).subsetOf(Certain(o.Input))
	case *algebra.Extend:
		vs := VarSet{}
		ExprVars(o.Expr, vs)
		return !seed[o.Var] && seedSafe(o.Input, seed) && vs.intersect(seed).subsetOf(Certain(o.Input))
	case *algebra.LeftJoin:
		vs := Mentioned(o.Right)
		for _, e := range o.Exprs {
			ExprVars(e, vs)
		}
		return seedSafe(o.Left, seed) && vs.intersect(seed).subsetOf(Certain(o.Left))
	case *algebra.Minus:
		return seedSafe(o.Left, seed) && Mentioned(o.Right).intersect(seed).subsetOf(Certain(o.Left))
	case *algebra.Service:
		return ServiceSeeded(o, seed)
	}
	return false
}

// ServiceSeeded reports a SERVICE whose endpoint variable the seed binds
// (the SERVICE sits in a group or UNION branch after the patterns binding
// it). Evaluated alone it could not be called; SPARQL 1.1 Federated Query
// means the variable to come from the preceding patterns, so the evaluator
// feeds it the seed's values and the optimizer never isolates it.
func ServiceSeeded(o *algebra.Service, seed VarSet) bool {
	return o.Endpoint.IsVar() && seed[o.Endpoint.Var]
}
