package eval

import (
	"errors"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/function"
)

// cexpr is a compiled expression evaluated against a row.
type cexpr func(ex *executor, r row) (kb.Term, error)

var errUnbound = typeErr("unbound variable")

func exprsText(es []algebra.Expr) string {
	parts := make([]string, len(es))
	for i, e := range es {
		parts[i] = e.String()
	}
	return strings.Join(parts, " ")
}

func (ex *executor) compileExprs(es []algebra.Expr, sc scope) ([]cexpr, error) {
	out := make([]cexpr, len(es))
	for i, e := range es {
		c, err := ex.compileExpr(e, sc)
		if err != nil {
			return nil, err
		}
		out[i] = c
	}
	return out, nil
}

func (ex *executor) compileExpr(e algebra.Expr, sc scope) (cexpr, error) {
	switch x := e.(type) {
	case *algebra.ConstExpr:
		t := x.Term
		return func(*executor, row) (kb.Term, error) { return t, nil }, nil
	case *algebra.VarExpr:
		s := ex.vars.slot(x.Var)
		if let := ex.lets[s]; let != nil {
			return let.letRef, nil // a FILTER over its BIND (extendfilter.go)
		}
		return func(ex *executor, r row) (kb.Term, error) {
			if s >= len(r) || r[s] == 0 {
				return kb.Term{}, errUnbound
			}
			return ex.dict.term(r[s])
		}, nil
	case *algebra.UnaryExpr:
		arg, err := ex.compileExpr(x.Arg, sc)
		if err != nil {
			return nil, err
		}
		switch x.Op {
		case algebra.OpNot:
			return func(ex *executor, r row) (kb.Term, error) {
				t, err := arg(ex, r)
				if err != nil {
					return t, err
				}
				b, err := effectiveBool(t)
				if err != nil {
					return kb.Term{}, err
				}
				return boolTerm(!b), nil
			}, nil
		case algebra.OpMinus:
			return func(ex *executor, r row) (kb.Term, error) {
				t, err := arg(ex, r)
				if err != nil {
					return t, err
				}
				return negate(t)
			}, nil
		default:
			return func(ex *executor, r row) (kb.Term, error) {
				t, err := arg(ex, r)
				if err != nil {
					return t, err
				}
				return unaryPlus(t)
			}, nil
		}
	case *algebra.BinaryExpr:
		return ex.compileBinary(x, sc)
	case *algebra.InExpr:
		return ex.compileIn(x, sc)
	case *algebra.ExistsExpr:
		pattern, err := ex.compile(x.Pattern, scope{seed: sc.seed, graph: sc.graph, substitute: true})
		if err != nil {
			return nil, err
		}
		not := x.Not
		probe := newExistsProbe(pattern)
		var semi *semiJoin
		if alone := ex.plan.Alone(x.Pattern); alone != nil && !sc.substitute {
			h, err := ex.compileHashPlan(alone, sc, sc.seed, nil)
			if err != nil {
				return nil, err
			}
			semi = &semiJoin{hashPlan: h}
		}
		return func(ex *executor, r row) (kb.Term, error) {
			if semi != nil {
				found, decided, err := semi.test(ex, r)
				if err != nil {
					return kb.Term{}, err
				}
				if decided {
					return boolTerm(found != not), nil
				}
			}
			if probe != nil {
				found, err := probe.found(ex, r)
				return boolTerm(found != not), err
			}
			found := false
			err := pattern.run(ex, r, func(row) bool { found = true; return false })
			if err != nil && !errors.Is(err, errStop) {
				return kb.Term{}, err
			}
			return boolTerm(found != not), nil
		}, nil
	case *algebra.BuiltinExpr:
		return ex.compileBuiltin(x, sc)
	case *algebra.FuncExpr:
		return ex.compileFunc(x, sc)
	case *algebra.AggregateExpr:
		return nil, errors.New("eval: aggregate outside a group")
	}
	return nil, errors.New("eval: unsupported expression")
}

func (ex *executor) compileBinary(x *algebra.BinaryExpr, sc scope) (cexpr, error) {
	left, err := ex.compileExpr(x.Left, sc)
	if err != nil {
		return nil, err
	}
	right, err := ex.compileExpr(x.Right, sc)
	if err != nil {
		return nil, err
	}
	ebv := func(e cexpr, ex *executor, r row) (bool, error) {
		t, err := e(ex, r)
		if err != nil {
			return false, err
		}
		return effectiveBool(t)
	}
	switch x.Op {
	case algebra.OpOr, algebra.OpAnd:
		isOr := x.Op == algebra.OpOr
		return func(ex *executor, r row) (kb.Term, error) {
			a, errA := ebv(left, ex, r)
			if errA != nil && !isExpressionError(errA) {
				return kb.Term{}, errA
			}
			if errA == nil && a == isOr {
				return boolTerm(isOr), nil
			}
			b, errB := ebv(right, ex, r)
			if errB != nil && !isExpressionError(errB) {
				return kb.Term{}, errB
			}
			if errB == nil && b == isOr {
				return boolTerm(isOr), nil
			}
			if errA != nil {
				return kb.Term{}, errA
			}
			if errB != nil {
				return kb.Term{}, errB
			}
			return boolTerm(!isOr), nil
		}, nil
	}
	op := x.Op
	return ex.numCompare(x, func(ex *executor, r row) (kb.Term, error) {
		a, err := left(ex, r)
		if err != nil {
			return a, err
		}
		b, err := right(ex, r)
		if err != nil {
			return b, err
		}
		switch op {
		case algebra.OpAdd:
			return arith('+', a, b)
		case algebra.OpSub:
			return arith('-', a, b)
		case algebra.OpMul:
			return arith('*', a, b)
		case algebra.OpDiv:
			return arith('/', a, b)
		case algebra.OpEqual:
			eq, err := equal(a, b)
			return boolTerm(eq), err
		case algebra.OpNotEqual:
			eq, err := equal(a, b)
			return boolTerm(!eq), err
		}
		c, err := Compare(a, b)
		if err != nil {
			return kb.Term{}, err
		}
		switch op {
		case algebra.OpLess:
			return boolTerm(c < 0), nil
		case algebra.OpGreater:
			return boolTerm(c > 0), nil
		case algebra.OpLessEq:
			return boolTerm(c <= 0), nil
		default:
			return boolTerm(c >= 0), nil
		}
	}), nil
}

func (ex *executor) compileBuiltin(x *algebra.BuiltinExpr, sc scope) (cexpr, error) {
	args, err := ex.compileExprs(x.Args, sc)
	if err != nil {
		return nil, err
	}
	switch x.Name {
	case algebra.BuiltinBound:
		return func(ex *executor, r row) (kb.Term, error) {
			_, err := args[0](ex, r)
			if err != nil && !isExpressionError(err) {
				return kb.Term{}, err
			}
			return boolTerm(err == nil), nil
		}, nil
	case algebra.BuiltinIf:
		return func(ex *executor, r row) (kb.Term, error) {
			c, err := args[0](ex, r)
			if err != nil {
				return c, err
			}
			b, err := effectiveBool(c)
			if err != nil {
				return kb.Term{}, err
			}
			if b {
				return args[1](ex, r)
			}
			return args[2](ex, r)
		}, nil
	case algebra.BuiltinCoalesce:
		return func(ex *executor, r row) (kb.Term, error) {
			for _, a := range args {
				t, err := a(ex, r)
				if err == nil {
					return t, nil
				}
				if !isExpressionError(err) {
					return t, err
				}
			}
			return kb.Term{}, typeErr("COALESCE: no argument has a value")
		}, nil
	}
	def, ok := ex.functions().Keyword(string(x.Name))
	if !ok || def.Special {
		return nil, fmt.Errorf("eval: unknown built-in %s", x.Name)
	}
	if err := def.CheckArity(len(args)); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if c, ok, err := ex.compileRegex(x.Name, x.Args, args); ok || err != nil {
		return c, err
	}
	fn, err := implOf(def)
	if err != nil {
		return nil, err
	}
	return ex.fold(def, x.Args, call(fn, args)), nil
}

// fold returns c, or when def is a deterministic built-in or cast whose
// arguments are all constant, a closure returning the value c computes
// once now: a FILTER comparing with xsd:dateTime("…") or STRLEN("…")
// does not recompute it per row. An expression error is kept and
// returned on every row, as the call would.
func (ex *executor) fold(def *function.Def, args []algebra.Expr, c cexpr) cexpr {
	if def.Call != nil || def.Volatile || def.Special {
		return c
	}
	for _, a := range args {
		if !ex.constant(a) {
			return c
		}
	}
	t, err := c(ex, nil)
	if err != nil && !isExpressionError(err) {
		return c
	}
	return func(*executor, row) (kb.Term, error) { return t, err }
}

// constant reports whether e has the same value on every row: a
// constant, or a deterministic built-in or cast of constants.
func (ex *executor) constant(e algebra.Expr) bool {
	var def *function.Def
	var args []algebra.Expr
	var ok bool
	switch x := e.(type) {
	case *algebra.ConstExpr:
		return true
	case *algebra.BuiltinExpr:
		def, ok = ex.functions().Keyword(string(x.Name))
		args = x.Args
	case *algebra.FuncExpr:
		def, ok = ex.functions().IRI(x.IRI)
		args = x.Args
	}
	if !ok || def.Call != nil || def.Volatile || def.Special {
		return false
	}
	for _, a := range args {
		if !ex.constant(a) {
			return false
		}
	}
	return true
}

// functions returns the registry calls resolve against.
func (ex *executor) functions() *function.Registry {
	if ex.opts.Functions != nil {
		return ex.opts.Functions
	}
	return function.Builtin()
}

// compileFunc compiles a call by IRI: a cast or an extension function,
// resolved once here. A function the registry does not declare makes
// every call an expression error, as the grammar allows any IRI (§17.6)
// and the parser rejects only undeclared IRIs of closed namespaces.
func (ex *executor) compileFunc(x *algebra.FuncExpr, sc scope) (cexpr, error) {
	args, err := ex.compileExprs(x.Args, sc)
	if err != nil {
		return nil, err
	}
	def, ok := ex.functions().IRI(x.IRI)
	if !ok {
		iri := x.IRI
		return func(*executor, row) (kb.Term, error) {
			return kb.Term{}, typeErr("unknown function <%s>", iri)
		}, nil
	}
	if err := def.CheckArity(len(args)); err != nil {
		return nil, fmt.Errorf("eval: %w", err)
	}
	if cast, ok := castImpls[def.Name]; ok && def.Call == nil {
		// A cast takes one argument and no per-query state: call it
		// directly, without an argument slice.
		a0 := args[0]
		return ex.fold(def, x.Args, func(ex *executor, r row) (kb.Term, error) {
			t, err := a0(ex, r)
			if err != nil {
				return t, err
			}
			return cast(t)
		}), nil
	}
	fn, err := implOf(def)
	if err != nil {
		return nil, err
	}
	return ex.fold(def, x.Args, call(fn, args)), nil
}

// call returns the compiled call of fn: the arguments are evaluated in
// order into a slice allocated once per call site (rows are evaluated one
// at a time, and implementations do not keep the slice), and the first
// argument error is the call's error (§17.3, functions are strict).
func call(fn impl, args []cexpr) cexpr {
	switch len(args) {
	case 0:
		return func(ex *executor, _ row) (kb.Term, error) { return fn(ex.env, nil) }
	case 1:
		a0 := args[0]
		vals := make([]kb.Term, 1)
		return func(ex *executor, r row) (kb.Term, error) {
			t, err := a0(ex, r)
			if err != nil {
				return t, err
			}
			vals[0] = t
			return fn(ex.env, vals)
		}
	case 2:
		a0, a1 := args[0], args[1]
		vals := make([]kb.Term, 2)
		return func(ex *executor, r row) (kb.Term, error) {
			t, err := a0(ex, r)
			if err != nil {
				return t, err
			}
			vals[0] = t
			if t, err = a1(ex, r); err != nil {
				return t, err
			}
			vals[1] = t
			return fn(ex.env, vals)
		}
	}
	vals := make([]kb.Term, len(args))
	return func(ex *executor, r row) (kb.Term, error) {
		for i, a := range args {
			t, err := a(ex, r)
			if err != nil {
				return t, err
			}
			vals[i] = t
		}
		return fn(ex.env, vals)
	}
}

// inCheckEvery is how many list elements IN compares between context
// checks: a list of millions of values against many rows must still stop
// at the query's deadline.
const inCheckEvery = 4096

// compileIn compiles IN and NOT IN (§17.4.1.9): true when the argument
// equals an element, else an error when a comparison failed, else false.
// Constant IRIs and blank nodes go in a hash set: a term equals one of
// them exactly when it is that term, and never with an error, so a long
// generated list of IRIs costs one lookup per row instead of a comparison
// per element. The other elements are compared in order, with the
// context checked as they go.
func (ex *executor) compileIn(x *algebra.InExpr, sc scope) (cexpr, error) {
	arg, err := ex.compileExpr(x.Arg, sc)
	if err != nil {
		return nil, err
	}
	// Keyed by the IRI or label alone: hashing one string is cheaper than
	// hashing a whole term, and a million-value list is built per query.
	var iris, blanks map[string]struct{}
	var rest []algebra.Expr
	for i, e := range x.List {
		if i%(16*inCheckEvery) == 16*inCheckEvery-1 {
			// Building a set of millions of values takes seconds on a
			// loaded machine: stop at the deadline here too.
			if err := ctxErr(ex.ctx); err != nil {
				return nil, err
			}
		}
		c, ok := e.(*algebra.ConstExpr)
		switch {
		case ok && c.Term.IsIRI():
			if iris == nil {
				iris = make(map[string]struct{}, len(x.List))
			}
			iris[c.Term.Value] = struct{}{}
		case ok && c.Term.IsBlank():
			if blanks == nil {
				blanks = map[string]struct{}{}
			}
			blanks[c.Term.Value] = struct{}{}
		default:
			rest = append(rest, e)
		}
	}
	list, err := ex.compileExprs(rest, sc)
	if err != nil {
		return nil, err
	}
	not := x.Not
	return func(ex *executor, r row) (kb.Term, error) {
		a, err := arg(ex, r)
		if err != nil {
			return a, err
		}
		switch {
		case a.IsIRI():
			if _, ok := iris[a.Value]; ok {
				return boolTerm(!not), nil
			}
		case a.IsBlank():
			if _, ok := blanks[a.Value]; ok {
				return boolTerm(!not), nil
			}
		}
		var firstErr error
		for i, le := range list {
			if i%inCheckEvery == inCheckEvery-1 {
				if err := ctxErr(ex.ctx); err != nil {
					return kb.Term{}, err
				}
			}
			b, err := le(ex, r)
			if err == nil {
				var eq bool
				eq, err = equal(a, b)
				if err == nil && eq {
					return boolTerm(!not), nil
				}
			}
			if err != nil {
				if !isExpressionError(err) {
					return kb.Term{}, err
				}
				if firstErr == nil {
					firstErr = err
				}
			}
		}
		if firstErr != nil {
			return kb.Term{}, firstErr
		}
		return boolTerm(not), nil
	}, nil
}
