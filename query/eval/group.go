package eval

import (
	"fmt"
	"math/big"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

type groupKey struct {
	slot int
	expr cexpr
}

type groupAgg struct {
	slot int
	agg  *algebra.Aggregate
	expr cexpr // nil for COUNT(*)
}

// groupNode materialises its input, partitions it by the key values and
// computes the aggregates of each group (§18.5 Group, Aggregation).
type groupNode struct {
	nodeInfo
	input node
	keys  []groupKey
	aggs  []groupAgg
}

func (ex *executor) compileGroup(o *algebra.Group, sc scope) (node, error) {
	input, err := ex.compile(o.Input, sc)
	if err != nil {
		return nil, err
	}
	inner := sc.with(sc.seed.union(ex.maybe(o.Input)))
	n := &groupNode{input: input}
	for _, k := range o.Keys {
		e, err := ex.compileExpr(k.Expr, inner)
		if err != nil {
			return nil, err
		}
		n.keys = append(n.keys, groupKey{slot: ex.vars.slot(k.Var), expr: e})
	}
	for _, a := range o.Aggregates {
		g := groupAgg{slot: ex.vars.slot(a.Var), agg: a.Aggregate}
		if a.Aggregate.Expr != nil {
			e, err := ex.compileExpr(a.Aggregate.Expr, inner)
			if err != nil {
				return nil, err
			}
			g.expr = e
		}
		n.aggs = append(n.aggs, g)
	}
	return n, nil
}

func (n *groupNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	type group struct {
		keys []kb.ID
		rows []row
	}
	groups := map[string]*group{}
	var order []*group
	keyIDs := make([]kb.ID, len(n.keys))
	err := runInner(ex, n.input, seed, func(r row) error {
		for i, k := range n.keys {
			t, err := k.expr(ex, r)
			keyIDs[i] = 0
			if err != nil {
				if !IsExpressionError(err) {
					return err
				}
				continue
			}
			id, err := ex.dict.id(t)
			if err != nil {
				return err
			}
			keyIDs[i] = id
		}
		k := rowKey(keyIDs)
		g, ok := groups[k]
		if !ok {
			g = &group{keys: append([]kb.ID(nil), keyIDs...)}
			groups[k] = g
			order = append(order, g)
		}
		g.rows = append(g.rows, r)
		return ex.check()
	})
	if err != nil {
		return err
	}
	if len(n.keys) == 0 && len(order) == 0 {
		order = append(order, &group{})
	}
	for _, g := range order {
		out, _ := hiddenSeed(ex, seed)
		for i, k := range n.keys {
			out[k.slot] = g.keys[i]
		}
		for _, a := range n.aggs {
			t, err := ex.aggregate(a, g.rows)
			if err != nil {
				if !IsExpressionError(err) {
					return err
				}
				continue
			}
			id, err := ex.dict.id(t)
			if err != nil {
				return err
			}
			out[a.slot] = id
		}
		if !emit(out) {
			return errStop
		}
	}
	return nil
}

func (n *groupNode) children() []node { return []node{n.input} }
func (n *groupNode) describe() string {
	return fmt.Sprintf("Group (%d keys, %d aggregates)", len(n.keys), len(n.aggs))
}

// aggregate computes one aggregate over a group's rows.
func (ex *executor) aggregate(a groupAgg, rows []row) (kb.Term, error) {
	agg := a.agg
	if agg.Star {
		if !agg.Distinct {
			return Integer(int64(len(rows))), nil
		}
		seen := map[string]bool{}
		for _, r := range rows {
			seen[rowKey(r)] = true
		}
		return Integer(int64(len(seen))), nil
	}
	var vals []kb.Term
	var firstErr error
	seen := map[kb.Term]bool{}
	for _, r := range rows {
		ex.env.NewRow()
		t, err := a.expr(ex, r)
		if err != nil {
			if !IsExpressionError(err) {
				return kb.Term{}, err
			}
			if firstErr == nil {
				firstErr = err
			}
			continue
		}
		if agg.Distinct {
			if seen[t] {
				continue
			}
			seen[t] = true
		}
		vals = append(vals, t)
	}
	switch agg.Func {
	case algebra.AggCount:
		return Integer(int64(len(vals))), nil
	case algebra.AggSum, algebra.AggAvg:
		if firstErr != nil {
			return kb.Term{}, firstErr
		}
		sum := Numeric{Kind: NumInteger, R: new(big.Rat)}
		for _, v := range vals {
			n, ok := ParseNumeric(v)
			if !ok {
				return kb.Term{}, typeErr("%s of non-numeric %s", agg.Func, v)
			}
			s, err := ArithNumeric('+', sum, n)
			if err != nil {
				return kb.Term{}, err
			}
			sum = s
		}
		if agg.Func == algebra.AggSum {
			return NumericTerm(sum), nil
		}
		if len(vals) == 0 {
			return Integer(0), nil
		}
		avg, err := ArithNumeric('/', sum, Numeric{Kind: NumInteger, R: big.NewRat(int64(len(vals)), 1)})
		if err != nil {
			return kb.Term{}, err
		}
		return NumericTerm(avg), nil
	case algebra.AggMin, algebra.AggMax:
		if len(vals) == 0 {
			if firstErr != nil {
				return kb.Term{}, firstErr
			}
			return kb.Term{}, typeErr("%s of an empty group", agg.Func)
		}
		best := vals[0]
		for _, v := range vals[1:] {
			c := OrderCompare(v, best)
			if (agg.Func == algebra.AggMin && c < 0) || (agg.Func == algebra.AggMax && c > 0) {
				best = v
			}
		}
		return best, nil
	case algebra.AggSample:
		if len(vals) == 0 {
			return kb.Term{}, typeErr("SAMPLE of an empty group")
		}
		return vals[0], nil
	case algebra.AggGroupConcat:
		if firstErr != nil {
			return kb.Term{}, firstErr
		}
		parts := make([]string, len(vals))
		for i, v := range vals {
			if v.Kind != kb.KindLiteral {
				return kb.Term{}, typeErr("GROUP_CONCAT of %s", v)
			}
			parts[i] = v.Value
		}
		return kb.String(strings.Join(parts, agg.Separator)), nil
	}
	return kb.Term{}, typeErr("unknown aggregate %s", agg.Func)
}
