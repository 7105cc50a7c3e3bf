package pg

import (
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// AggregateSQL returns the statement AggregateBGP runs for q and its
// arguments: the BGP's solutions (b, as MatchBGP's statement gives them)
// grouped by the key variables' IDs. Per group it selects the keys, the
// number of solutions and, per variable a SUM, AVG, MIN or MAX reads, the
// IDs of its values in one array (a value once per solution). The values
// themselves are not joined in: a join with terms per solution (a probe
// of its index and a heap fetch each) and the sorts a MIN or MAX needs
// cost as much as the BGP's own joins, and AggregateBGP reads the numbers
// of the IDs from a cache instead (nums).
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
	var sel, keys []string
	for _, k := range q.Keys {
		if k < 0 || k >= q.Vars {
			return "", nil, fmt.Errorf("pg: GROUP BY variable %d out of range [0, %d)", k, q.Vars)
		}
		c := "b.v" + strconv.Itoa(k)
		sel = append(sel, c)
		keys = append(keys, c)
	}
	sel = append(sel, "count(*)")
	vars, err := aggVars(q)
	if err != nil {
		return "", nil, err
	}
	for _, v := range vars {
		sel = append(sel, "array_agg(b.v"+strconv.Itoa(v)+")")
	}
	sql := "WITH b AS (" + bgp + ") SELECT " + strings.Join(sel, ", ") + " FROM b"
	if len(keys) > 0 {
		sql += " GROUP BY " + strings.Join(keys, ", ")
	}
	return sql, args, nil
}

// aggVars returns the variables q's SUM, AVG, MIN and MAX read, each
// once, in the order of their first aggregate: the value arrays of
// AggregateSQL's statement, after the keys and the count.
func aggVars(q kb.BGPAggregate) ([]int, error) {
	var vars []int
	for _, a := range q.Aggs {
		switch a.Func {
		case "COUNT":
			continue
		case "SUM", "AVG", "MIN", "MAX":
		default:
			return nil, fmt.Errorf("pg: aggregate %s not supported", a.Func)
		}
		if a.Var < 0 || a.Var >= q.Vars {
			return nil, fmt.Errorf("pg: aggregate variable %d out of range [0, %d)", a.Var, q.Vars)
		}
		if !slices.Contains(vars, a.Var) {
			vars = append(vars, a.Var)
		}
	}
	return vars, nil
}

// AggregateBGP implements kb.BGPAggregator with one statement
// (AggregateSQL, its patterns joined in the order joinOrder gives), in a
// read-only transaction that reads the statistics the order comes from.
// It aggregates only finite xsd:double values, whose terms.num is their
// exact value, read through nums; a group holding another value, or a MIN
// or MAX whose extreme value distinct terms share, is reported inexact.
// The groups are read completely before fn is called, so fn may call the
// store.
func (s *Store) AggregateBGP(ctx context.Context, q kb.BGPAggregate, fn func(keys []kb.ID, vals []kb.BGPAggValue) bool) error {
	if err := s.check(); err != nil {
		return err
	}
	if len(q.Patterns) == 0 || len(q.Graphs) == 0 {
		return nil
	}
	vars, err := aggVars(q)
	if err != nil {
		return err
	}
	tx, plan, err := s.orderedTx(ctx, q.BGP, nil, true)
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
		keys  []kb.ID
		count int64
		vals  [][]int64 // per aggVars variable
	}
	var groups []group
	keyv := make([]int64, len(q.Keys))
	var count int64
	arrs := make([][]int64, len(vars))
	var dest []any
	for i := range keyv {
		dest = append(dest, &keyv[i])
	}
	dest = append(dest, &count)
	for i := range arrs {
		dest = append(dest, &arrs[i])
	}
	var ids []kb.ID
	for rows.Next() {
		for i := range arrs {
			arrs[i] = nil
		}
		if err := rows.Scan(dest...); err != nil {
			rows.Close()
			return fmt.Errorf("pg: aggregate: %w", err)
		}
		if count == 0 {
			continue // no solutions: an aggregate without keys over nothing
		}
		g := group{keys: make([]kb.ID, len(keyv)), count: count, vals: make([][]int64, len(arrs))}
		for i, k := range keyv {
			g.keys[i] = kb.ID(k)
		}
		for i, a := range arrs {
			g.vals[i] = a
			for _, id := range a {
				ids = append(ids, kb.ID(id))
			}
		}
		groups = append(groups, g)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pg: aggregate: %w", err)
	}
	num, err := s.nums(ctx, tx, ids)
	if err != nil {
		return fmt.Errorf("pg: aggregate: %w", err)
	}
	for _, g := range groups {
		vals := make([]kb.BGPAggValue, len(q.Aggs))
		for i, a := range q.Aggs {
			v := kb.BGPAggValue{Exact: true, Count: g.count}
			if a.Func != "COUNT" {
				v = foldAgg(a.Func, g.count, g.vals[slices.Index(vars, a.Var)], num)
			}
			vals[i] = v
		}
		if !fn(g.keys, vals) {
			return nil
		}
	}
	return nil
}

// foldAgg is one group's value of a SUM, AVG, MIN or MAX over the value
// IDs ids (count solutions), with num the numbers of the finite
// xsd:double values among them: exact only when every value is one, and,
// for MIN and MAX, when one term holds the extreme value.
func foldAgg(fn string, count int64, ids []int64, num map[kb.ID]float64) kb.BGPAggValue {
	v := kb.BGPAggValue{Count: count}
	if int64(len(ids)) != count {
		return v
	}
	var sum exactSum
	var best float64
	var lo, hi int64
	for i, id := range ids {
		x, ok := num[kb.ID(id)]
		if !ok {
			return v
		}
		switch fn {
		case "SUM", "AVG":
			sum.add(x)
		default:
			better := x > best
			if fn == "MIN" {
				better = x < best
			}
			switch {
			case i == 0 || better:
				best, lo, hi = x, id, id
			case x == best:
				lo, hi = min(lo, id), max(hi, id)
			}
		}
	}
	v.Sum = sum.value()
	switch fn {
	case "SUM", "AVG":
		v.Exact = !sum.overflow
	default:
		v.Exact = len(ids) > 0 && lo == hi
		v.Term = kb.ID(lo)
	}
	return v
}

// exactSum adds doubles without rounding (Shewchuk's partials, as
// Python's math.fsum): value is the exact sum rounded once, whatever the
// order the solutions came in, so a SUM or AVG does not change in its
// last digits with the plan PostgreSQL picks or its parallel workers.
// The values are finite; an intermediate sum past the double range sets
// overflow, and the caller leaves the aggregate to the query engine.
type exactSum struct {
	partials []float64
	overflow bool
}

func (e *exactSum) add(x float64) {
	i := 0
	for _, y := range e.partials {
		if math.Abs(x) < math.Abs(y) {
			x, y = y, x
		}
		hi := x + y
		if math.IsInf(hi, 0) {
			e.overflow = true
			return
		}
		lo := y - (hi - x)
		if lo != 0 {
			e.partials[i] = lo
			i++
		}
		x = hi
	}
	e.partials = append(e.partials[:i], x)
}

func (e *exactSum) value() float64 {
	n := len(e.partials)
	if n == 0 {
		return 0
	}
	hi := e.partials[n-1]
	lo := 0.0
	n--
	for n > 0 {
		x := hi
		y := e.partials[n-1]
		n--
		hi = x + y
		lo = y - (hi - x)
		if lo != 0 {
			break
		}
	}
	// Round half to even across the partials below, as math.fsum does.
	if n > 0 && ((lo < 0 && e.partials[n-1] < 0) || (lo > 0 && e.partials[n-1] > 0)) {
		y := lo * 2
		x := hi + y
		if y == x-hi {
			hi = x
		}
	}
	return hi
}

// maxNums is the most numbers the store keeps (nums); past it the cache
// starts again empty.
const maxNums = 1 << 22

// nums returns the numbers of the finite xsd:double literals among ids,
// reading the ones this process has not seen from terms (within q) in
// one statement. A term's ID never changes what it names, so the cache
// never goes stale; it remembers the IDs of other terms too (as NaN),
// which the result leaves out.
func (s *Store) nums(ctx context.Context, q querier, ids []kb.ID) (map[kb.ID]float64, error) {
	out := make(map[kb.ID]float64, min(len(ids), 1<<16))
	var ask []int64
	asked := map[kb.ID]bool{}
	s.numMu.Lock()
	for _, id := range ids {
		if x, ok := s.numCache[id]; ok {
			if !math.IsNaN(x) {
				out[id] = x
			}
		} else if !asked[id] {
			asked[id] = true
			ask = append(ask, idArg(id))
		}
	}
	s.numMu.Unlock()
	if len(ask) == 0 {
		return out, nil
	}
	rows, err := q.Query(ctx, "SELECT id, num FROM "+s.q.t("terms")+" WHERE id = ANY($1::int8[]) AND kind = $2 AND datatype = $3"+
		" AND num IS NOT NULL AND num <> 'NaN'::float8 AND num <> 'Infinity'::float8 AND num <> '-Infinity'::float8",
		ask, int16(kb.KindLiteral), ontology.XSDDouble)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var id int64
		var x float64
		if err := rows.Scan(&id, &x); err != nil {
			rows.Close()
			return nil, err
		}
		out[kb.ID(id)] = x
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	s.numMu.Lock()
	if s.numCache == nil || len(s.numCache)+len(ask) > maxNums {
		s.numCache = make(map[kb.ID]float64, len(ask))
	}
	for _, id := range ask {
		x, ok := out[kb.ID(id)]
		if !ok {
			x = math.NaN()
		}
		s.numCache[kb.ID(id)] = x
	}
	s.numMu.Unlock()
	return out, nil
}

// ExplainAggregate implements kb.PushdownExplainer: the statement of q,
// with its arguments.
func (s *Store) ExplainAggregate(q kb.BGPAggregate) string {
	plan := s.explainPlan(q.BGP, nil, true)
	sql, args, err := s.aggregateSQL(q, plan)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s%s -- args %v", setLocal(plan), sql, args)
}

// setLocal is the SET LOCAL statements that a statement with plan runs
// after, for --explain.
//
// With an order of its own, a statement also runs without Memoize: the
// planner puts a cache in front of an index probe when it expects the
// probe's key to repeat, and it judges that from the distinct values of
// s or o over every predicate at once, the estimate the order exists to
// avoid. In an ordered chain each step's key is mostly new (GROUP BY
// crtype at 1M: 29,438 probes of hasMetric by metric, 0 cache hits), so
// the cache only adds its hashing: 186–215 ms with it, 125–161 without.
// A plan whose joins favour hashing (hashFavoured) also runs without
// merge and nested-loop joins: GROUP BY crtype at 1M in 142–166 ms
// against 181–223 (six rounds alternating, psql).
func setLocal(plan sqlPlan) string {
	if plan.order == nil {
		return ""
	}
	sets := []string{"join_collapse_limit = 1", "enable_memoize = off"}
	if plan.hashJoins {
		sets = append(sets, "enable_mergejoin = off", "enable_nestloop = off")
	}
	out := ""
	for _, set := range sets {
		out += "SET LOCAL " + set + "; "
	}
	return out
}

// ExplainClosureCount implements kb.PushdownExplainer: the statement of
// q, with its arguments.
func (s *Store) ExplainClosureCount(q kb.ClosureCount) string {
	plan := s.explainPlan(q.Left, []int64{idArg(q.Pred)}, false)
	sql, args, err := s.closureCountSQL(q, plan)
	if err != nil {
		return err.Error()
	}
	return fmt.Sprintf("%s%s -- args %v", setLocal(plan), sql, args)
}
