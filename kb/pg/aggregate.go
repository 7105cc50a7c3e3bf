package pg

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// AggregateSQL returns the statement AggregateBGP runs for q and its
// arguments: the BGP's solutions (b, as MatchBGP's statement gives them)
// grouped by the key variables' IDs. Per group it selects the keys, the
// number of solutions and, per aggregate over a variable, the number of
// values that are finite xsd:double literals (the only values it
// aggregates: their num is their exact value), their sum, and for MIN
// and MAX the smallest and the largest ID among the values with the
// least (greatest) num; the two IDs differ when distinct terms share that
// value, which SPARQL's ordering would tell apart by more than the value.
func (s *Store) AggregateSQL(q kb.BGPAggregate) (string, []any, error) {
	return s.aggregateSQL(q, sqlPlan{})
}

// aggregateSQL is AggregateSQL with the BGP written by plan.
func (s *Store) aggregateSQL(q kb.BGPAggregate, plan sqlPlan) (string, []any, error) {
	var args []any
	bgp, err := s.bgpSQL(q.BGP, q.NotExists, plan, &args)
	if err != nil {
		return "", nil, err
	}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	var sel, keys, joins []string
	for _, k := range q.Keys {
		if k < 0 || k >= q.Vars {
			return "", nil, fmt.Errorf("pg: GROUP BY variable %d out of range [0, %d)", k, q.Vars)
		}
		c := "b.v" + strconv.Itoa(k)
		sel = append(sel, c)
		keys = append(keys, c)
	}
	sel = append(sel, "count(*)")
	joined := map[int]string{}
	var dbl string
	for _, a := range q.Aggs {
		if a.Func == "COUNT" {
			continue
		}
		if a.Var < 0 || a.Var >= q.Vars {
			return "", nil, fmt.Errorf("pg: aggregate variable %d out of range [0, %d)", a.Var, q.Vars)
		}
		n, ok := joined[a.Var]
		if !ok {
			n = "n" + strconv.Itoa(a.Var)
			joined[a.Var] = n
			joins = append(joins, " JOIN "+s.q.t("terms")+" "+n+" ON "+n+".id = b.v"+strconv.Itoa(a.Var))
		}
		if dbl == "" {
			dbl = arg(ontology.XSDDouble)
		}
		ok2 := n + ".kind = " + strconv.Itoa(int(kb.KindLiteral)) + " AND " + n + ".datatype = " + dbl + " AND " + n + ".num IS NOT NULL AND " +
			n + ".num <> 'NaN'::float8 AND " + n + ".num <> 'Infinity'::float8 AND " + n + ".num <> '-Infinity'::float8"
		sel = append(sel, "count(*) FILTER (WHERE "+ok2+")")
		switch a.Func {
		case "SUM", "AVG":
			sel = append(sel, "coalesce(sum("+n+".num), 0)", "0::int8", "0::int8")
		case "MIN", "MAX":
			dir := "ASC"
			if a.Func == "MAX" {
				dir = "DESC"
			}
			sel = append(sel, "0::float8",
				"(array_agg("+n+".id ORDER BY "+n+".num "+dir+", "+n+".id ASC))[1]",
				"(array_agg("+n+".id ORDER BY "+n+".num "+dir+", "+n+".id DESC))[1]")
		default:
			return "", nil, fmt.Errorf("pg: aggregate %s not supported", a.Func)
		}
	}
	sql := "WITH b AS (" + bgp + ") SELECT " + strings.Join(sel, ", ") + " FROM b" + strings.Join(joins, "")
	if len(keys) > 0 {
		sql += " GROUP BY " + strings.Join(keys, ", ")
	}
	return sql, args, nil
}

// AggregateBGP implements kb.BGPAggregator with one statement
// (AggregateSQL, its patterns joined in the order joinOrder gives), in a
// read-only transaction that reads the statistics the order comes from.
// The groups are read completely before fn is called, so fn may call the
// store.
func (s *Store) AggregateBGP(ctx context.Context, q kb.BGPAggregate, fn func(keys []kb.ID, vals []kb.BGPAggValue) bool) error {
	if err := s.check(); err != nil {
		return err
	}
	if len(q.Patterns) == 0 || len(q.Graphs) == 0 {
		return nil
	}
	tx, plan, err := s.orderedTx(ctx, q.BGP, nil, aggSettings...)
	if err != nil {
		return fmt.Errorf("pg: aggregate: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	sql, args, err := s.aggregateSQL(q, plan)
	if err != nil {
		return err
	}
	rows, err := tx.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("pg: aggregate: %w", err)
	}
	type group struct {
		keys []kb.ID
		vals []kb.BGPAggValue
	}
	var groups []group
	keyv := make([]int64, len(q.Keys))
	var count int64
	type aggCols struct {
		n      int64
		sum    float64
		lo, hi *int64
	}
	cols := make([]aggCols, len(q.Aggs))
	var dest []any
	for i := range keyv {
		dest = append(dest, &keyv[i])
	}
	dest = append(dest, &count)
	for i, a := range q.Aggs {
		if a.Func != "COUNT" {
			dest = append(dest, &cols[i].n, &cols[i].sum, &cols[i].lo, &cols[i].hi)
		}
	}
	for rows.Next() {
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return fmt.Errorf("pg: aggregate: %w", err)
		}
		if count == 0 {
			continue // no solutions: an aggregate without keys over nothing
		}
		g := group{keys: make([]kb.ID, len(keyv)), vals: make([]kb.BGPAggValue, len(q.Aggs))}
		for i, k := range keyv {
			g.keys[i] = kb.ID(k)
		}
		for i, a := range q.Aggs {
			v := kb.BGPAggValue{Exact: true, Count: count}
			if a.Func != "COUNT" {
				c := cols[i]
				v.Exact = c.n == count
				switch a.Func {
				case "SUM", "AVG":
					v.Sum = c.sum
				default:
					v.Exact = v.Exact && c.lo != nil && c.hi != nil && *c.lo == *c.hi
					if v.Exact {
						v.Term = kb.ID(*c.lo)
					}
				}
			}
			g.vals[i] = v
		}
		groups = append(groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pg: aggregate: %w", err)
	}
	for _, g := range groups {
		if !fn(g.keys, g.vals) {
			return nil
		}
	}
	return nil
}

// ExplainAggregate implements kb.PushdownExplainer: the statement of q,
// with its arguments.
func (s *Store) ExplainAggregate(q kb.BGPAggregate) string {
	plan := s.explainPlan(q.BGP, nil)
	sql, args, err := s.aggregateSQL(q, plan)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s%s -- args %v", setLocal(plan, aggSettings...), sql, args)
}

// aggSettings are the aggregate statement's settings with a join order:
// its solutions are joined with terms for the aggregated values, and a
// merge join there reads the whole terms index (417,720 entries at 1M
// triples) for 29,438 values, where PostgreSQL's estimate of the
// solutions, one per step of the join, makes it look cheaper than a probe
// per solution.
var aggSettings = []string{"enable_mergejoin = off"}

// setLocal is the SET LOCAL statements that a statement with plan runs
// after, for --explain.
func setLocal(plan sqlPlan, extra ...string) string {
	if plan.order == nil {
		return ""
	}
	out := ""
	for _, set := range append([]string{"join_collapse_limit = 1"}, extra...) {
		out += "SET LOCAL " + set + "; "
	}
	return out
}

// ExplainClosureCount implements kb.PushdownExplainer: the statement of
// q, with its arguments.
func (s *Store) ExplainClosureCount(q kb.ClosureCount) string {
	plan := s.explainPlan(q.Left, []int64{idArg(q.Pred)})
	sql, args, err := s.closureCountSQL(q, plan)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s%s -- args %v", setLocal(plan), sql, args)
}
