package opt

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/query/algebra"
)

// String prints the plan as an indented tree, one operator a line: each
// BGP with its triple patterns in execution order (store count and
// estimated rows per input row), its variables bound on entry and the
// FILTER conjuncts placed after each pattern; operators evaluated on their
// own under a join are marked "[isolated]"; EXISTS patterns are printed
// under the operator whose expression holds them.
func (p *Plan) String() string {
	var b strings.Builder
	if p.NoOptimize {
		b.WriteString("(not optimized: as written)\n")
	}
	p.write(&b, p.Root, 0)
	return b.String()
}

func (p *Plan) write(b *strings.Builder, op algebra.Op, depth int) {
	indent := strings.Repeat("  ", depth)
	line := func(s string) { b.WriteString(indent + s + "\n") }
	head := describe(op)
	isolated := ""
	if p.isolated[op] {
		isolated = "  [isolated]"
	}
	var kids []algebra.Op
	var exprs []algebra.Expr
	switch o := op.(type) {
	case *algebra.BGP:
		bp := p.bgps[o]
		if bp == nil {
			line(head + isolated)
			for i, t := range o.Triples {
				line(fmt.Sprintf("  %d. %s", i+1, t))
			}
			return
		}
		head += " rows≈" + num(bp.Rows)
		if len(bp.Bound) > 0 {
			head += " bound:" + varList(bp.Bound)
		}
		line(head + isolated)
		if len(bp.Filters[0]) > 0 {
			line("  0. filter: " + exprList(bp.Filters[0]))
			p.exists(b, bp.Filters[0], depth+2)
		}
		for i, t := range o.Triples {
			ranged := ""
			if bp.Ranged != nil && bp.Ranged[i] {
				ranged = " (objects by value)"
			}
			line(fmt.Sprintf("  %d. %s  count=%s est=%s/row%s", i+1, t, num(bp.Counts[i]), num(bp.Est[i]), ranged))
			if f := bp.Filters[i+1]; len(f) > 0 {
				line("     filter: " + exprList(f))
				p.exists(b, f, depth+2)
			}
		}
		return
	case *algebra.Join:
		kids = []algebra.Op{o.Left, o.Right}
	case *algebra.LeftJoin:
		kids, exprs = []algebra.Op{o.Left, o.Right}, o.Exprs
	case *algebra.Filter:
		kids, exprs = []algebra.Op{o.Input}, o.Exprs
	case *algebra.Union:
		kids = []algebra.Op{o.Left, o.Right}
	case *algebra.Minus:
		kids = []algebra.Op{o.Left, o.Right}
	case *algebra.Graph:
		kids = []algebra.Op{o.Input}
	case *algebra.Extend:
		kids, exprs = []algebra.Op{o.Input}, []algebra.Expr{o.Expr}
	case *algebra.Group:
		kids = []algebra.Op{o.Input}
		for _, k := range o.Keys {
			exprs = append(exprs, k.Expr)
		}
		for _, a := range o.Aggregates {
			if a.Aggregate != nil && a.Aggregate.Expr != nil {
				exprs = append(exprs, a.Aggregate.Expr)
			}
		}
	case *algebra.Project:
		kids = []algebra.Op{o.Input}
	case *algebra.Distinct:
		kids = []algebra.Op{o.Input}
	case *algebra.Reduced:
		kids = []algebra.Op{o.Input}
	case *algebra.OrderBy:
		kids = []algebra.Op{o.Input}
		for _, c := range o.Conditions {
			exprs = append(exprs, c.Expr)
		}
	case *algebra.Slice:
		kids = []algebra.Op{o.Input}
	}
	line(head + isolated)
	p.exists(b, exprs, depth+1)
	for _, k := range kids {
		p.write(b, k, depth+1)
	}
}

// exists prints the plans of the EXISTS patterns inside es.
func (p *Plan) exists(b *strings.Builder, es []algebra.Expr, depth int) {
	var walk func(e algebra.Expr)
	walk = func(e algebra.Expr) {
		switch x := e.(type) {
		case *algebra.FuncExpr:
			for _, a := range x.Args {
				walk(a)
			}
		case *algebra.BuiltinExpr:
			for _, a := range x.Args {
				walk(a)
			}
		case *algebra.BinaryExpr:
			walk(x.Left)
			walk(x.Right)
		case *algebra.UnaryExpr:
			walk(x.Arg)
		case *algebra.InExpr:
			walk(x.Arg)
			for _, a := range x.List {
				walk(a)
			}
		case *algebra.ExistsExpr:
			name := "Exists"
			if x.Not {
				name = "NotExists"
			}
			b.WriteString(strings.Repeat("  ", depth) + name + " (bindings substituted)\n")
			p.write(b, p.Pattern(x.Pattern), depth+1)
		}
	}
	for _, e := range es {
		walk(e)
	}
}

// describe is an operator's line without its annotations.
func describe(op algebra.Op) string {
	switch o := op.(type) {
	case *algebra.BGP:
		return "BGP"
	case *algebra.Path:
		return "Path " + o.String()
	case *algebra.Join:
		return "Join"
	case *algebra.LeftJoin:
		if len(o.Exprs) > 0 {
			return "LeftJoin filter: " + exprList(o.Exprs)
		}
		return "LeftJoin"
	case *algebra.Filter:
		return "Filter " + exprList(o.Exprs)
	case *algebra.Union:
		return "Union"
	case *algebra.Minus:
		return "Minus"
	case *algebra.Graph:
		return "Graph " + o.Name.String()
	case *algebra.Extend:
		return fmt.Sprintf("Extend %s := %s", o.Var, o.Expr)
	case *algebra.Table:
		return fmt.Sprintf("Values%s (%d rows)", varList(o.Vars), len(o.Rows))
	case *algebra.Group:
		var keys []algebra.Var
		for _, k := range o.Keys {
			keys = append(keys, k.Var)
		}
		s := "Group" + varList(keys)
		for _, a := range o.Aggregates {
			s += fmt.Sprintf(" %s:=%s", a.Var, a.Aggregate.Func)
		}
		return s
	case *algebra.Project:
		return "Project" + varList(o.Vars)
	case *algebra.Distinct:
		return "Distinct"
	case *algebra.Reduced:
		return "Reduced"
	case *algebra.OrderBy:
		s := "OrderBy"
		for _, c := range o.Conditions {
			if c.Desc {
				s += " desc" + c.Expr.String()
			} else {
				s += " " + c.Expr.String()
			}
		}
		return s
	case *algebra.Slice:
		return fmt.Sprintf("Slice offset=%d limit=%d", o.Offset, o.Limit)
	case *algebra.Service:
		return "Service " + o.Endpoint.String()
	}
	return fmt.Sprintf("%T", op)
}

func varList(vs []algebra.Var) string {
	var b strings.Builder
	for _, v := range vs {
		b.WriteString(" " + v.String())
	}
	return b.String()
}

func exprList(es []algebra.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, " ")
}

// num prints an estimate: integers as such, fractions to 3 significant
// digits.
func num(f float64) string {
	if f == float64(int64(f)) && f < 1e15 {
		return strconv.FormatInt(int64(f), 10)
	}
	return strconv.FormatFloat(f, 'g', 3, 64)
}
