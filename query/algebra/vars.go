package algebra

// InScope returns the variables in scope in op as defined by SPARQL 1.1
// §18.2.1, in order of first appearance, without duplicates. It includes the
// non-distinguished variables the parser invented (blank nodes, aggregates);
// filter with Var.IsDistinguished for SELECT *.
func InScope(op Op) []Var {
	var vs varSet
	vs.addOp(op)
	return vs.list
}

type varSet struct {
	seen map[Var]bool
	list []Var
}

func (s *varSet) add(v Var) {
	if v == "" {
		return
	}
	if s.seen == nil {
		s.seen = map[Var]bool{}
	}
	if !s.seen[v] {
		s.seen[v] = true
		s.list = append(s.list, v)
	}
}

func (s *varSet) addNode(n Node) { s.add(n.Var) }

func (s *varSet) addOp(op Op) {
	switch o := op.(type) {
	case *BGP:
		for _, t := range o.Triples {
			s.addNode(t.S)
			s.addNode(t.P)
			s.addNode(t.O)
		}
	case *Path:
		s.addNode(o.Subject)
		s.addNode(o.Object)
	case *Join:
		s.addOp(o.Left)
		s.addOp(o.Right)
	case *LeftJoin:
		s.addOp(o.Left)
		s.addOp(o.Right)
	case *Union:
		s.addOp(o.Left)
		s.addOp(o.Right)
	case *Minus:
		s.addOp(o.Left)
	case *Filter:
		s.addOp(o.Input)
	case *Graph:
		s.addNode(o.Name)
		s.addOp(o.Input)
	case *Extend:
		s.addOp(o.Input)
		s.add(o.Var)
	case *Table:
		for _, v := range o.Vars {
			s.add(v)
		}
	case *Group:
		for _, k := range o.Keys {
			s.add(k.Var)
		}
		for _, a := range o.Aggregates {
			s.add(a.Var)
		}
	case *Project:
		for _, v := range o.Vars {
			s.add(v)
		}
	case *Distinct:
		s.addOp(o.Input)
	case *Reduced:
		s.addOp(o.Input)
	case *OrderBy:
		s.addOp(o.Input)
	case *Slice:
		s.addOp(o.Input)
	case *Service:
		s.addNode(o.Endpoint)
		s.addOp(o.Input)
	}
}

// ExprVars returns the variables an expression mentions, in order of first
// appearance, without duplicates, including the variables of the patterns of
// EXISTS / NOT EXISTS.
func ExprVars(e Expr) []Var {
	var vs varSet
	vs.addExpr(e)
	return vs.list
}

func (s *varSet) addExpr(e Expr) {
	switch e := e.(type) {
	case *VarExpr:
		s.add(e.Var)
	case *FuncExpr:
		for _, a := range e.Args {
			s.addExpr(a)
		}
	case *BuiltinExpr:
		for _, a := range e.Args {
			s.addExpr(a)
		}
	case *BinaryExpr:
		s.addExpr(e.Left)
		s.addExpr(e.Right)
	case *UnaryExpr:
		s.addExpr(e.Arg)
	case *InExpr:
		s.addExpr(e.Arg)
		for _, a := range e.List {
			s.addExpr(a)
		}
	case *ExistsExpr:
		s.addOp(e.Pattern)
	case *AggregateExpr:
		if e.Aggregate.Expr != nil {
			s.addExpr(e.Aggregate.Expr)
		}
	}
}

// Children returns the operators directly below op, in order (left before
// right). Patterns nested inside EXISTS expressions are not children.
func Children(op Op) []Op {
	switch o := op.(type) {
	case *Join:
		return []Op{o.Left, o.Right}
	case *LeftJoin:
		return []Op{o.Left, o.Right}
	case *Union:
		return []Op{o.Left, o.Right}
	case *Minus:
		return []Op{o.Left, o.Right}
	case *Filter:
		return []Op{o.Input}
	case *Graph:
		return []Op{o.Input}
	case *Extend:
		return []Op{o.Input}
	case *Group:
		return []Op{o.Input}
	case *Project:
		return []Op{o.Input}
	case *Distinct:
		return []Op{o.Input}
	case *Reduced:
		return []Op{o.Input}
	case *OrderBy:
		return []Op{o.Input}
	case *Slice:
		return []Op{o.Input}
	case *Service:
		return []Op{o.Input}
	}
	return nil
}

// Walk calls fn for op and, while fn returns true, for each of its
// descendants in depth-first pre-order (not descending into EXISTS).
func Walk(op Op, fn func(Op) bool) {
	if op == nil || !fn(op) {
		return
	}
	for _, c := range Children(op) {
		Walk(c, fn)
	}
}
