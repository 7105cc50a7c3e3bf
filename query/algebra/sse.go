package algebra

import (
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// This file prints the algebra in SSE (S-expressions for SPARQL), close to
// what Jena's "qparse --print=op" shows. Operators are printed one per line,
// indented by two spaces per level; expressions and paths on one line.

const (
	xsdInteger = ontology.XSDInteger
	xsdDecimal = ontology.XSDDecimal
	xsdDouble  = ontology.XSDDouble
	xsdBoolean = ontology.XSDBoolean
)

type ssePrinter struct {
	b      strings.Builder
	indent int
}

func (p *ssePrinter) nl() {
	p.b.WriteByte('\n')
	for range p.indent {
		p.b.WriteString("  ")
	}
}

func (p *ssePrinter) open(name string) {
	p.b.WriteByte('(')
	p.b.WriteString(name)
	p.indent++
}

func (p *ssePrinter) close() {
	p.b.WriteByte(')')
	p.indent--
}

func (p *ssePrinter) sub(o Op) {
	p.nl()
	p.op(o)
}

func (p *ssePrinter) op(o Op) {
	b := &p.b
	switch o := o.(type) {
	case nil:
		b.WriteString("(null)")
	case *BGP:
		if len(o.Triples) == 0 {
			b.WriteString("(bgp)")
			return
		}
		p.open("bgp")
		for _, t := range o.Triples {
			p.nl()
			writeTriple(b, t)
		}
		p.close()
	case *Path:
		b.WriteString("(path ")
		writeNode(b, o.Subject)
		b.WriteByte(' ')
		writePath(b, o.Path)
		b.WriteByte(' ')
		writeNode(b, o.Object)
		b.WriteByte(')')
	case *Join:
		p.open("join")
		p.sub(o.Left)
		p.sub(o.Right)
		p.close()
	case *LeftJoin:
		p.open("leftjoin")
		p.sub(o.Left)
		p.sub(o.Right)
		if len(o.Exprs) > 0 {
			p.nl()
			writeExprList(b, o.Exprs)
		}
		p.close()
	case *Filter:
		p.open("filter ")
		writeExprList(b, o.Exprs)
		p.sub(o.Input)
		p.close()
	case *Union:
		p.open("union")
		p.sub(o.Left)
		p.sub(o.Right)
		p.close()
	case *Minus:
		p.open("minus")
		p.sub(o.Left)
		p.sub(o.Right)
		p.close()
	case *Graph:
		p.open("graph ")
		writeNode(b, o.Name)
		p.sub(o.Input)
		p.close()
	case *Extend:
		p.open("extend ((")
		b.WriteString(o.Var.String())
		b.WriteByte(' ')
		writeExpr(b, o.Expr)
		b.WriteString("))")
		p.sub(o.Input)
		p.close()
	case *Table:
		switch {
		case o.IsUnit():
			b.WriteString("(table unit)")
			return
		case len(o.Rows) == 0 && len(o.Vars) == 0:
			b.WriteString("(table empty)")
			return
		}
		p.open("table (vars")
		for _, v := range o.Vars {
			b.WriteByte(' ')
			b.WriteString(v.String())
		}
		b.WriteByte(')')
		for _, row := range o.Rows {
			p.nl()
			b.WriteString("(row")
			for i, t := range row {
				if t.IsZero() || i >= len(o.Vars) {
					continue
				}
				b.WriteString(" [")
				b.WriteString(o.Vars[i].String())
				b.WriteByte(' ')
				writeTerm(b, t)
				b.WriteByte(']')
			}
			b.WriteByte(')')
		}
		p.close()
	case *Group:
		p.open("group (")
		for i, k := range o.Keys {
			if i > 0 {
				b.WriteByte(' ')
			}
			if ve, ok := k.Expr.(*VarExpr); ok && ve.Var == k.Var {
				b.WriteString(k.Var.String())
				continue
			}
			b.WriteByte('(')
			b.WriteString(k.Var.String())
			b.WriteByte(' ')
			writeExpr(b, k.Expr)
			b.WriteByte(')')
		}
		b.WriteString(") (")
		for i, a := range o.Aggregates {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteByte('(')
			b.WriteString(a.Var.String())
			b.WriteByte(' ')
			writeAggregate(b, a.Aggregate)
			b.WriteByte(')')
		}
		b.WriteByte(')')
		p.sub(o.Input)
		p.close()
	case *Project:
		p.open("project (")
		writeVars(b, o.Vars)
		b.WriteByte(')')
		p.sub(o.Input)
		p.close()
	case *Distinct:
		p.open("distinct")
		p.sub(o.Input)
		p.close()
	case *Reduced:
		p.open("reduced")
		p.sub(o.Input)
		p.close()
	case *OrderBy:
		p.open("order (")
		for i, c := range o.Conditions {
			if i > 0 {
				b.WriteByte(' ')
			}
			if c.Desc {
				b.WriteString("(desc ")
				writeExpr(b, c.Expr)
				b.WriteByte(')')
			} else {
				writeExpr(b, c.Expr)
			}
		}
		b.WriteByte(')')
		p.sub(o.Input)
		p.close()
	case *Slice:
		p.open("slice ")
		if o.Offset > 0 {
			b.WriteString(strconv.FormatInt(o.Offset, 10))
		} else {
			b.WriteByte('_')
		}
		b.WriteByte(' ')
		if o.Limit >= 0 {
			b.WriteString(strconv.FormatInt(o.Limit, 10))
		} else {
			b.WriteByte('_')
		}
		p.sub(o.Input)
		p.close()
	case *Service:
		p.open("service ")
		if o.Silent {
			b.WriteString("silent ")
		}
		writeNode(b, o.Endpoint)
		p.sub(o.Input)
		p.close()
	default:
		b.WriteString("(unknown-op)")
	}
}

func writeVars(b *strings.Builder, vs []Var) {
	for i, v := range vs {
		if i > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(v.String())
	}
}

func writeExprList(b *strings.Builder, es []Expr) {
	if len(es) == 1 {
		writeExpr(b, es[0])
		return
	}
	b.WriteString("(exprlist")
	for _, e := range es {
		b.WriteByte(' ')
		writeExpr(b, e)
	}
	b.WriteByte(')')
}

func writeTerm(b *strings.Builder, t kb.Term) {
	if t.Kind == kb.KindLiteral {
		switch t.Datatype {
		case xsdInteger, xsdDecimal, xsdDouble, xsdBoolean:
			if plainNumberLike(t) {
				b.WriteString(t.Value)
				return
			}
		}
	}
	t.AppendNTriples(b)
}

// plainNumberLike reports whether a numeric or boolean literal can be printed
// bare without changing how it reads back (SPARQL short forms).
func plainNumberLike(t kb.Term) bool {
	v := t.Value
	if v == "" {
		return false
	}
	switch t.Datatype {
	case xsdBoolean:
		return v == "true" || v == "false"
	case xsdInteger:
		for i, c := range v {
			if (c == '+' || c == '-') && i == 0 {
				continue
			}
			if c < '0' || c > '9' {
				return false
			}
		}
		return strings.IndexFunc(v, func(r rune) bool { return r >= '0' && r <= '9' }) >= 0
	case xsdDecimal:
		return strings.Contains(v, ".") && !strings.ContainsAny(v, "eE") &&
			strings.Trim(v, "+-0123456789.") == "" && !strings.HasSuffix(v, ".")
	case xsdDouble:
		return strings.ContainsAny(v, "eE") && strings.Trim(v, "+-0123456789.eE") == ""
	}
	return false
}

func writeNode(b *strings.Builder, n Node) {
	switch {
	case n.Var != "":
		b.WriteByte('?')
		b.WriteString(string(n.Var))
	case n.Term.IsZero():
		b.WriteByte('_')
	default:
		writeTerm(b, n.Term)
	}
}

func writeTriple(b *strings.Builder, t TriplePattern) {
	b.WriteString("(triple ")
	writeNode(b, t.S)
	b.WriteByte(' ')
	writeNode(b, t.P)
	b.WriteByte(' ')
	writeNode(b, t.O)
	b.WriteByte(')')
}

func writeQuad(b *strings.Builder, q QuadPattern) {
	b.WriteString("(quad ")
	writeNode(b, q.G)
	b.WriteByte(' ')
	writeNode(b, q.S)
	b.WriteByte(' ')
	writeNode(b, q.P)
	b.WriteByte(' ')
	writeNode(b, q.O)
	b.WriteByte(')')
}

func writePath(b *strings.Builder, p PathExpr) {
	switch p := p.(type) {
	case *PathLink:
		writeTerm(b, p.IRI)
	case *PathInverse:
		b.WriteString("(reverse ")
		writePath(b, p.Path)
		b.WriteByte(')')
	case *PathSeq:
		b.WriteString("(seq ")
		writePath(b, p.Left)
		b.WriteByte(' ')
		writePath(b, p.Right)
		b.WriteByte(')')
	case *PathAlt:
		b.WriteString("(alt ")
		writePath(b, p.Left)
		b.WriteByte(' ')
		writePath(b, p.Right)
		b.WriteByte(')')
	case *PathZeroOrMore:
		b.WriteString("(path* ")
		writePath(b, p.Path)
		b.WriteByte(')')
	case *PathOneOrMore:
		b.WriteString("(path+ ")
		writePath(b, p.Path)
		b.WriteByte(')')
	case *PathZeroOrOne:
		b.WriteString("(path? ")
		writePath(b, p.Path)
		b.WriteByte(')')
	case *PathNegated:
		b.WriteString("(notoneof")
		for _, t := range p.Forward {
			b.WriteByte(' ')
			writeTerm(b, t)
		}
		for _, t := range p.Inverse {
			b.WriteString(" (reverse ")
			writeTerm(b, t)
			b.WriteByte(')')
		}
		b.WriteByte(')')
	default:
		b.WriteString("(unknown-path)")
	}
}

func writeAggregate(b *strings.Builder, a *Aggregate) {
	b.WriteByte('(')
	b.WriteString(strings.ToLower(string(a.Func)))
	if a.Distinct {
		b.WriteString(" distinct")
	}
	if a.Func == AggGroupConcat && a.Separator != " " {
		b.WriteString(" (separator ")
		kb.String(a.Separator).AppendNTriples(b)
		b.WriteByte(')')
	}
	if a.Star {
		b.WriteString(" *")
	} else if a.Expr != nil {
		b.WriteByte(' ')
		writeExpr(b, a.Expr)
	}
	b.WriteByte(')')
}

func writeExpr(b *strings.Builder, e Expr) {
	switch e := e.(type) {
	case *ConstExpr:
		writeTerm(b, e.Term)
	case *VarExpr:
		b.WriteString(e.Var.String())
	case *FuncExpr:
		b.WriteString("(<")
		b.WriteString(e.IRI)
		b.WriteByte('>')
		for _, a := range e.Args {
			b.WriteByte(' ')
			writeExpr(b, a)
		}
		b.WriteByte(')')
	case *BuiltinExpr:
		b.WriteByte('(')
		b.WriteString(strings.ToLower(string(e.Name)))
		for _, a := range e.Args {
			b.WriteByte(' ')
			writeExpr(b, a)
		}
		b.WriteByte(')')
	case *BinaryExpr:
		b.WriteByte('(')
		b.WriteString(string(e.Op))
		b.WriteByte(' ')
		writeExpr(b, e.Left)
		b.WriteByte(' ')
		writeExpr(b, e.Right)
		b.WriteByte(')')
	case *UnaryExpr:
		b.WriteByte('(')
		b.WriteString(string(e.Op))
		b.WriteByte(' ')
		writeExpr(b, e.Arg)
		b.WriteByte(')')
	case *InExpr:
		if e.Not {
			b.WriteString("(notin ")
		} else {
			b.WriteString("(in ")
		}
		writeExpr(b, e.Arg)
		for _, a := range e.List {
			b.WriteByte(' ')
			writeExpr(b, a)
		}
		b.WriteByte(')')
	case *ExistsExpr:
		if e.Not {
			b.WriteString("(notexists ")
		} else {
			b.WriteString("(exists ")
		}
		// Patterns inside expressions are printed on one line.
		b.WriteString(oneLine(e.Pattern.String()))
		b.WriteByte(')')
	case *AggregateExpr:
		writeAggregate(b, e.Aggregate)
	case nil:
		b.WriteString("(null)")
	default:
		b.WriteString("(unknown-expr)")
	}
}

func oneLine(s string) string {
	lines := strings.Split(s, "\n")
	for i := range lines {
		lines[i] = strings.TrimSpace(lines[i])
	}
	return strings.Join(lines, " ")
}

func opString(o Op) string {
	var p ssePrinter
	p.op(o)
	return p.b.String()
}

func exprString(e Expr) string {
	var b strings.Builder
	writeExpr(&b, e)
	return b.String()
}

func pathString(pe PathExpr) string {
	var b strings.Builder
	writePath(&b, pe)
	return b.String()
}

func sseQuery(q *Query) string {
	var b strings.Builder
	switch q.Form {
	case FormConstruct:
		b.WriteString("(construct\n")
		for _, t := range q.Template {
			b.WriteString("  ")
			writeTriple(&b, t)
			b.WriteByte('\n')
		}
		b.WriteString(")\n")
	case FormDescribe:
		b.WriteString("(describe")
		if q.Star {
			b.WriteString(" *")
		}
		for _, n := range q.Describe {
			b.WriteByte(' ')
			writeNode(&b, n)
		}
		b.WriteString(")\n")
	case FormAsk:
		b.WriteString("(ask)\n")
	}
	if q.Dataset != nil {
		for _, g := range q.Dataset.Default {
			b.WriteString("(from <" + g + ">)\n")
		}
		for _, g := range q.Dataset.Named {
			b.WriteString("(from-named <" + g + ">)\n")
		}
	}
	if q.Pattern != nil {
		b.WriteString(opString(q.Pattern))
	}
	return b.String()
}

func sseUpdate(u *Update) string {
	parts := make([]string, len(u.Operations))
	for i, o := range u.Operations {
		parts[i] = o.String()
	}
	return strings.Join(parts, "\n")
}

func writeQuads(p *ssePrinter, name string, qs []QuadPattern) {
	p.open(name)
	for _, q := range qs {
		p.nl()
		writeQuad(&p.b, q)
	}
	p.close()
}

func writeTarget(b *strings.Builder, t GraphTarget) {
	switch t.Kind {
	case TargetGraph:
		b.WriteString("<" + t.IRI + ">")
	case TargetDefault:
		b.WriteString("default")
	case TargetNamed:
		b.WriteString("named")
	case TargetAll:
		b.WriteString("all")
	}
}

func silent(s bool) string {
	if s {
		return " silent"
	}
	return ""
}

func updateString(o UpdateOp) string {
	var p ssePrinter
	b := &p.b
	switch o := o.(type) {
	case *InsertData:
		writeQuads(&p, "insertdata", o.Quads)
	case *DeleteData:
		writeQuads(&p, "deletedata", o.Quads)
	case *DeleteWhere:
		writeQuads(&p, "deletewhere", o.Quads)
	case *DeleteInsert:
		p.open("modify")
		if o.With != "" {
			p.nl()
			b.WriteString("(with <" + o.With + ">)")
		}
		for _, g := range o.Using {
			p.nl()
			b.WriteString("(using <" + g + ">)")
		}
		for _, g := range o.UsingNamed {
			p.nl()
			b.WriteString("(using-named <" + g + ">)")
		}
		if o.Delete != nil {
			p.nl()
			writeQuads(&p, "delete", o.Delete)
		}
		if o.Insert != nil {
			p.nl()
			writeQuads(&p, "insert", o.Insert)
		}
		p.sub(o.Where)
		p.close()
	case *Load:
		b.WriteString("(load" + silent(o.Silent) + " <" + o.Source + ">")
		if o.Into != "" {
			b.WriteString(" <" + o.Into + ">")
		}
		b.WriteByte(')')
	case *Clear:
		b.WriteString("(clear" + silent(o.Silent) + " ")
		writeTarget(b, o.Target)
		b.WriteByte(')')
	case *Drop:
		b.WriteString("(drop" + silent(o.Silent) + " ")
		writeTarget(b, o.Target)
		b.WriteByte(')')
	case *Create:
		b.WriteString("(create" + silent(o.Silent) + " <" + o.Graph + ">)")
	case *Add:
		transfer(b, "add", o.Silent, o.From, o.To)
	case *Move:
		transfer(b, "move", o.Silent, o.From, o.To)
	case *Copy:
		transfer(b, "copy", o.Silent, o.From, o.To)
	}
	return b.String()
}

func transfer(b *strings.Builder, name string, s bool, from, to GraphTarget) {
	b.WriteString("(" + name + silent(s) + " ")
	writeTarget(b, from)
	b.WriteByte(' ')
	writeTarget(b, to)
	b.WriteByte(')')
}

// String methods: every node prints itself in SSE.

// String prints the operator in SSE.
func (o *BGP) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Path) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Join) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *LeftJoin) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Filter) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Union) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Minus) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Graph) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Extend) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Table) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Group) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Project) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Distinct) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Reduced) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *OrderBy) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Slice) String() string { return opString(o) }

// String prints the operator in SSE.
func (o *Service) String() string { return opString(o) }

// String prints the expression in SSE.
func (e *ConstExpr) String() string { return exprString(e) }

// String prints the expression in SSE.
func (e *VarExpr) String() string { return exprString(e) }

// String prints the expression in SSE.
func (e *FuncExpr) String() string { return exprString(e) }

// String prints the expression in SSE.
func (e *BuiltinExpr) String() string { return exprString(e) }

// String prints the expression in SSE.
func (e *BinaryExpr) String() string { return exprString(e) }

// String prints the expression in SSE.
func (e *UnaryExpr) String() string { return exprString(e) }

// String prints the expression in SSE.
func (e *InExpr) String() string { return exprString(e) }

// String prints the expression in SSE.
func (e *ExistsExpr) String() string { return exprString(e) }

// String prints the expression in SSE.
func (e *AggregateExpr) String() string { return exprString(e) }

// String prints the aggregate in SSE, e.g. (count distinct ?x).
func (a *Aggregate) String() string {
	var b strings.Builder
	writeAggregate(&b, a)
	return b.String()
}

// String prints the path in SSE.
func (p *PathLink) String() string { return pathString(p) }

// String prints the path in SSE.
func (p *PathInverse) String() string { return pathString(p) }

// String prints the path in SSE.
func (p *PathSeq) String() string { return pathString(p) }

// String prints the path in SSE.
func (p *PathAlt) String() string { return pathString(p) }

// String prints the path in SSE.
func (p *PathZeroOrMore) String() string { return pathString(p) }

// String prints the path in SSE.
func (p *PathOneOrMore) String() string { return pathString(p) }

// String prints the path in SSE.
func (p *PathZeroOrOne) String() string { return pathString(p) }

// String prints the path in SSE.
func (p *PathNegated) String() string { return pathString(p) }

// String prints the operation in SSE.
func (o *InsertData) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *DeleteData) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *DeleteInsert) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *DeleteWhere) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *Load) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *Clear) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *Drop) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *Create) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *Add) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *Move) String() string { return updateString(o) }

// String prints the operation in SSE.
func (o *Copy) String() string { return updateString(o) }
