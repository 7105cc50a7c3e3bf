package pg

import (
	"context"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	"github.com/perfkb/perfkb/kb"
)

// PostgreSQL estimates a join of quads with itself from column statistics
// over every predicate at once, so it cannot tell a join on a functional
// predicate's subject (one row per row) from one on an object shared by
// thousands of subjects; its estimate for each step of a long BGP ends at
// about one row, and the order it picks can read ten times the rows a
// good one does. The statements that answer a whole query (aggregates,
// path counts) therefore join in an order worked out here from
// per-predicate statistics, and run with join_collapse_limit = 1 so that
// PostgreSQL keeps it; it still picks each join's method.

// predStat is what the join order knows of a predicate: its quads and
// their distinct subjects and objects, over all graphs, and the graphs
// that hold them (nil when more than maxPruned do).
type predStat struct {
	n, subjects, objects int64
	graphs               []int64
}

// maxPruned is the most graphs of a predicate that a statement names in
// its patterns' conditions, so that PostgreSQL reads only their
// partitions.
const maxPruned = 16

// sqlPlan is how bgpSQL writes a BGP's statement beyond the patterns
// themselves: the order of its joins (nil: PostgreSQL's own), the graphs
// each predicate's quads are in (a pattern reads only those partitions),
// and whether a DISTINCT over the union default graph can be left out
// because no predicate of the BGP has quads in more than one graph, so no
// triple it matches is held twice. Both come from counts in the snapshot
// of the transaction the statement runs in.
type sqlPlan struct {
	order        []int
	predGraphs   map[int64][]int64
	distinctFree bool
	hashJoins    bool // every join by hash (hashFavoured)
}

// maxOrdered is the most patterns a BGP may have for its join order to be
// searched (every subset of them is a state of the search).
const maxOrdered = 12

// predStats returns the statistics of the predicates, within tx. The
// quads per predicate come from counts, exact in tx's snapshot; the
// distinct subjects and objects cost a pass over the predicate's quads,
// so the store keeps them and counts them again only when the predicate's
// quads have changed by more than an eighth since.
//
// graphsOnly are more predicates whose quads and graphs (not their
// distinct subjects and objects) the caller needs.
func (s *Store) predStats(ctx context.Context, tx pgx.Tx, preds, graphsOnly []int64) (map[int64]predStat, error) {
	out := make(map[int64]predStat, len(preds))
	all := append(append([]int64(nil), preds...), graphsOnly...)
	rows, err := tx.Query(ctx, "SELECT p, sum(n)::int8, (array_agg(g ORDER BY g))[1:$2] FROM "+s.q.t("counts")+
		" WHERE p = ANY($1::int8[]) AND n > 0 GROUP BY p", all, maxPruned+1)
	if err != nil {
		return nil, err
	}
	for rows.Next() {
		var p, n int64
		var gs []int64
		if err := rows.Scan(&p, &n, &gs); err != nil {
			rows.Close()
			return nil, err
		}
		if len(gs) > maxPruned {
			gs = nil
		}
		out[p] = predStat{n: n, graphs: gs}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	for _, p := range graphsOnly {
		if out[p].n <= 0 {
			out[p] = predStat{graphs: []int64{}}
		}
	}
	for _, p := range preds {
		st := out[p]
		if st.n <= 0 {
			out[p] = predStat{graphs: []int64{}}
			continue
		}
		s.statMu.Lock()
		c, ok := s.distinct[p]
		s.statMu.Unlock()
		if ok && 8*abs64(c.n-st.n) <= st.n {
			out[p] = predStat{n: st.n, subjects: max(1, min(c.subjects, st.n)), objects: max(1, min(c.objects, st.n)), graphs: st.graphs}
			continue
		}
		if err := tx.QueryRow(ctx, "SELECT count(*), count(DISTINCT s), count(DISTINCT o) FROM "+s.q.t("quads")+" WHERE p = $1", p).Scan(&c.n, &c.subjects, &c.objects); err != nil {
			return nil, err
		}
		s.statMu.Lock()
		if s.distinct == nil {
			s.distinct = map[int64]predStat{}
		}
		s.distinct[p] = c
		s.statMu.Unlock()
		out[p] = predStat{n: st.n, subjects: max(1, min(c.subjects, st.n)), objects: max(1, min(c.objects, st.n)), graphs: st.graphs}
	}
	return out, nil
}

func abs64(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// orderPreds returns the predicates of q's patterns, or ok=false when a
// pattern's predicate is a variable or q has too many patterns to order.
func orderPreds(q kb.BGP) ([]int64, bool) {
	if len(q.Patterns) > maxOrdered {
		return nil, false
	}
	var preds []int64
	for _, pat := range q.Patterns {
		if pat[1].ID == kb.Any {
			return nil, false
		}
		preds = append(preds, idArg(pat[1].ID))
	}
	return preds, true
}

// orderStats is what joinOrder and hashFavoured estimate rows from: the
// predicates' statistics and, for patterns with a constant subject or
// object, the exact number of quads their constants match (consts, by
// pattern index). A constant's share of its predicate is often far from
// the even spread the statistics assume: "wtime" names 29,438 of
// hasMetricName's 206,197 quads at 1M, not a 31st of them.
type orderStats struct {
	preds  map[int64]predStat
	consts map[int]int64
}

// rows is pattern i's rows per row of a prefix binding bound: its
// predicate's quads (or those its constants match), divided by its
// distinct subjects when the subject is bound and by its distinct objects
// likewise, each predicate's values taken as spread evenly and
// independently.
func (os orderStats) rows(q kb.BGP, i int, bound uint64) float64 {
	pat := q.Patterns[i]
	ps := os.preds[idArg(pat[1].ID)]
	if ps.n <= 0 {
		return 0
	}
	varBound := func(pos kb.BGPTerm) bool {
		return pos.ID == kb.Any && pos.Var >= 0 && pos.Var < 64 && bound&(1<<uint(pos.Var)) != 0
	}
	if c, ok := os.consts[i]; ok {
		// The constants' quads, and per bound variable a share of them:
		// at most c distinct values can be among them.
		r := float64(c)
		if varBound(pat[0]) {
			r /= float64(max(1, min(c, ps.subjects)))
		}
		if varBound(pat[2]) {
			r /= float64(max(1, min(c, ps.objects)))
		}
		return r
	}
	r := float64(ps.n)
	if pat[0].ID != kb.Any || varBound(pat[0]) {
		r /= float64(max(ps.subjects, 1))
	}
	if pat[2].ID != kb.Any || varBound(pat[2]) {
		r /= float64(max(ps.objects, 1))
	}
	return r
}

// patternVars returns the variables each of q's patterns names, as bits,
// or ok=false when one names a variable beyond the 64 a mask holds.
func patternVars(q kb.BGP) ([]uint64, bool) {
	vars := make([]uint64, len(q.Patterns))
	for i, pat := range q.Patterns {
		for _, pos := range pat {
			if pos.ID == kb.Any && pos.Var >= 0 && pos.Var < 64 {
				vars[i] |= 1 << uint(pos.Var)
			} else if pos.ID == kb.Any {
				return nil, false
			}
		}
	}
	return vars, true
}

// joinOrder returns the order of q's patterns whose joins produce the
// fewest intermediate rows by st (the sum of the rows after each step,
// the work of a chain of index probes), each step a pattern sharing a
// variable with the ones before it where there is one, rows per step from
// orderStats.rows. It returns nil when q cannot be ordered (orderPreds)
// or has fewer than three patterns.
func joinOrder(q kb.BGP, st orderStats) []int {
	if _, ok := orderPreds(q); !ok || len(q.Patterns) < 3 {
		return nil // two patterns: PostgreSQL tries both orders itself
	}
	n := len(q.Patterns)
	vars, ok := patternVars(q)
	if !ok {
		return nil
	}
	type state struct {
		cost, rows float64
		last       int
		prev       uint32
		ok         bool
	}
	full := uint32(1)<<uint(n) - 1
	best := make([]state, full+1)
	best[0] = state{rows: 1, ok: true}
	for mask := uint32(0); mask < full; mask++ {
		cur := best[mask]
		if !cur.ok {
			continue
		}
		var bound uint64
		for i := range n {
			if mask&(1<<uint(i)) != 0 {
				bound |= vars[i]
			}
		}
		connected := false
		for i := range n {
			if mask&(1<<uint(i)) == 0 && (mask == 0 || vars[i]&bound != 0) {
				connected = true
				break
			}
		}
		for i := range n {
			if mask&(1<<uint(i)) != 0 || (connected && mask != 0 && vars[i]&bound == 0) {
				continue
			}
			r := cur.rows * st.rows(q, i, bound)
			c := cur.cost + r
			next := mask | 1<<uint(i)
			if b := best[next]; !b.ok || c < b.cost {
				best[next] = state{cost: c, rows: r, last: i, prev: mask, ok: true}
			}
		}
	}
	order := make([]int, 0, n)
	for mask := full; mask != 0; mask = best[mask].prev {
		order = append(order, best[mask].last)
	}
	for i, j := 0, len(order)-1; i < j; i, j = i+1, j-1 {
		order[i], order[j] = order[j], order[i]
	}
	if len(order) != n {
		return nil
	}
	return order
}

// probeCost is how many rows of a predicate PostgreSQL reads and hashes
// in the time it takes to probe an index once for a row joined so far,
// nested-loop style: GROUP BY crtype at 1M probed hasMetricValue 29,438
// times in 138 ms (4.7 µs a probe, three B-tree pages each), where a
// parallel scan of its 206,197 quads into a hash join took about 30 ms
// (0.15 µs a row).
const probeCost = 16

// hashFavoured reports whether every join of q in order costs less as a
// hash join over the joined predicate's quads than as an index probe per
// row joined so far, by the estimates joinOrder works with: each step
// after the first meets at least a probeCost-th of its predicate's quads.
// PostgreSQL's own estimate of the rows after a few steps of such a chain
// is a few thousand where there are tens of thousands (see predStat), so
// it probes where it should hash, and it leaves a probe loop over every
// row to the end, serially, after its workers' rows are gathered.
func hashFavoured(q kb.BGP, st orderStats, order []int) bool {
	vars, ok := patternVars(q)
	if !ok || len(order) < 2 {
		return false
	}
	var bound uint64
	rows := 1.0
	for j, i := range order {
		if j > 0 && rows*probeCost < float64(st.preds[idArg(q.Patterns[i][1].ID)].n) {
			return false
		}
		rows *= st.rows(q, i, bound)
		bound |= vars[i]
	}
	return true
}

// constCounts returns the exact quads each pattern of q with a constant
// subject or object matches, by its constants alone (Count's cache keeps
// them while the predicate changes little).
func (s *Store) constCounts(ctx context.Context, q kb.BGP, graphs []kb.ID) (map[int]int64, error) {
	out := map[int]int64{}
	for i, pat := range q.Patterns {
		if pat[0].ID == kb.Any && pat[2].ID == kb.Any {
			continue
		}
		var c int64
		for _, g := range graphs {
			n, err := s.Count(ctx, kb.Pattern{S: pat[0].ID, P: pat[1].ID, O: pat[2].ID, G: g}, false)
			if err != nil {
				return nil, err
			}
			c += n
		}
		out[i] = c
	}
	return out, nil
}

// orderedTx begins a read-only transaction for a statement over q's
// patterns and returns how to write it (sqlPlan), with
// join_collapse_limit set for the transaction when the plan has an
// order. more are predicates outside q whose graphs the statement
// prunes too (a path's). With hash set, a statement whose joins all
// favour hashing (hashFavoured) runs with merge and nested-loop joins
// off.
func (s *Store) orderedTx(ctx context.Context, q kb.BGP, more []int64, hash bool) (pgx.Tx, sqlPlan, error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly})
	if err != nil {
		return nil, sqlPlan{}, err
	}
	var plan sqlPlan
	if preds, ok := orderPreds(q); ok {
		var st map[int64]predStat
		if len(q.Patterns) >= 3 {
			st, err = s.predStats(ctx, tx, preds, more)
		} else {
			// No order to find: only the graphs, without a pass
			// over each predicate's quads for its distinct values.
			st, err = s.predStats(ctx, tx, nil, append(preds, more...))
		}
		if err != nil {
			tx.Rollback(ctx)
			return nil, sqlPlan{}, fmt.Errorf("predicate statistics: %w", err)
		}
		ost := orderStats{preds: st}
		if len(q.Patterns) >= 3 {
			if ost.consts, err = s.constCounts(ctx, q, q.Graphs); err != nil {
				tx.Rollback(ctx)
				return nil, sqlPlan{}, fmt.Errorf("pattern counts: %w", err)
			}
		}
		plan.order = joinOrder(q, ost)
		plan.hashJoins = hash && plan.order != nil && hashFavoured(q, ost, plan.order)
		plan.predGraphs = map[int64][]int64{}
		plan.distinctFree = true
		for _, p := range preds {
			gs := st[p].graphs
			if gs != nil {
				plan.predGraphs[p] = gs
			}
			if gs == nil || len(gs) > 1 {
				plan.distinctFree = false
			}
		}
		for _, p := range more {
			if gs := st[p].graphs; gs != nil {
				plan.predGraphs[p] = gs
			}
		}
	}
	if forcedOrder != nil {
		plan.order = forcedOrder(q)
		plan.hashJoins = false
	}
	if plan.order != nil {
		if _, err := tx.Exec(ctx, strings.TrimSuffix(setLocal(plan), " ")); err != nil {
			tx.Rollback(ctx)
			return nil, sqlPlan{}, err
		}
	}
	return tx, plan, nil
}

// forcedOrder, when set (tests), replaces joinOrder.
var forcedOrder func(q kb.BGP) []int

// explainPlan is the plan ExplainAggregate and ExplainClosureCount show:
// the one the statement would run with now (the zero plan when the
// statistics cannot be read).
func (s *Store) explainPlan(q kb.BGP, more []int64, hash bool) sqlPlan {
	tx, plan, err := s.orderedTx(context.Background(), q, more, hash)
	if err != nil {
		return sqlPlan{}
	}
	tx.Rollback(context.Background())
	return plan
}
