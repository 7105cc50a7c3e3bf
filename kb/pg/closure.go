package pg

import (
	"context"
	"fmt"
	"strconv"

	"github.com/perfkb/perfkb/kb"
)

// ClosureSQL returns the recursive SQL statement MatchClosure runs for q
// and its arguments. UNION (not UNION ALL) drops a node the walk has
// reached before, so a cycle ends the recursion.
func (s *Store) ClosureSQL(q kb.Closure) (string, []any) {
	from, to := "s", "o"
	if q.Inverse {
		from, to = "o", "s"
	}
	args := []any{idArg(q.Start), idArg(q.Pred)}
	graph := func(string) string { return "" }
	if !(len(q.Graphs) == 1 && q.Graphs[0] == kb.Any) {
		gs := make([]int64, 0, len(q.Graphs))
		for _, g := range q.Graphs {
			if g != kb.Any && g <= 1<<62 {
				gs = append(gs, int64(g))
			}
		}
		args = append(args, gs)
		graph = func(alias string) string { return " AND " + alias + "g = ANY($3::int8[])" }
	} else if len(q.Except) > 0 {
		gs := make([]int64, 0, len(q.Except))
		for _, g := range q.Except {
			gs = append(gs, int64(g))
		}
		args = append(args, gs)
		graph = func(alias string) string { return " AND " + alias + "g <> ALL($3::int8[])" }
	}
	quads := s.q.t("quads")
	sql := "WITH RECURSIVE r(n) AS (SELECT " + to + " FROM " + quads +
		" WHERE " + from + " = $1 AND p = $2" + graph("") +
		" UNION SELECT e." + to + " FROM " + quads + " e JOIN r ON e." + from + " = r.n WHERE e.p = $2" + graph("e.") +
		") SELECT n FROM r"
	return sql, args
}

// MatchClosure implements kb.ClosureMatcher with one recursive SQL
// statement. The nodes are read completely before visit is called, so
// visit may call the store.
func (s *Store) MatchClosure(ctx context.Context, q kb.Closure, visit func(kb.ID) bool) error {
	if err := s.check(); err != nil {
		return err
	}
	if len(q.Graphs) == 0 {
		return nil
	}
	sql, args := s.ClosureSQL(q)
	rows, err := s.pool.Query(ctx, sql, args...)
	if err != nil {
		return fmt.Errorf("pg: path closure: %w", err)
	}
	var nodes []int64
	for rows.Next() {
		var n int64
		if err := rows.Scan(&n); err != nil {
			rows.Close()
			return fmt.Errorf("pg: path closure: %w", err)
		}
		nodes = append(nodes, n)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return fmt.Errorf("pg: path closure: %w", err)
	}
	for _, n := range nodes {
		if !visit(kb.ID(n)) {
			return nil
		}
	}
	return nil
}

// RoundTripLookups implements kb.RoundTripLookups: every lookup is a
// request to the server.
func (s *Store) RoundTripLookups() bool { return true }

// ClosureCountSQL returns the statement CountClosure runs for q and its
// arguments: q.Left's solutions (l), the distinct start nodes among them
// (st), every (start, reached node) pair by a recursive walk from all
// starts at once (r: UNION, not UNION ALL, drops a pair found before, so
// a node is counted once per start and a cycle ends the walk; p* adds
// each start as reached from itself), and the sum over l's solutions of
// their start's count.
func (s *Store) ClosureCountSQL(q kb.ClosureCount) (string, []any, error) {
	return s.closureCountSQL(q, sqlPlan{})
}

// closureCountSQL is ClosureCountSQL with q.Left written by plan.
func (s *Store) closureCountSQL(q kb.ClosureCount, plan sqlPlan) (string, []any, error) {
	if q.StartVar < 0 || q.StartVar >= q.Left.Vars {
		return "", nil, fmt.Errorf("pg: path count start variable %d out of range [0, %d)", q.StartVar, q.Left.Vars)
	}
	var args []any
	left, err := s.bgpSQL(q.Left, q.NotExists, plan, &args)
	if err != nil {
		return "", nil, err
	}
	arg := func(v any) string {
		args = append(args, v)
		return "$" + strconv.Itoa(len(args))
	}
	from, to := "s", "o"
	if q.Inverse {
		from, to = "o", "s"
	}
	pred := arg(idArg(q.Pred))
	graph := func(string) string { return "" }
	if !(len(q.Graphs) == 1 && q.Graphs[0] == kb.Any) {
		gs := make([]int64, 0, len(q.Graphs))
		for _, g := range q.Graphs {
			if g != kb.Any && g <= 1<<62 {
				gs = append(gs, int64(g))
			}
		}
		a := arg(gs)
		graph = func(alias string) string { return " AND " + alias + ".g = ANY(" + a + "::int8[])" }
	} else if len(q.Except) > 0 {
		gs := make([]int64, 0, len(q.Except))
		for _, g := range q.Except {
			gs = append(gs, int64(g))
		}
		a := arg(gs)
		graph = func(alias string) string { return " AND " + alias + ".g <> ALL(" + a + "::int8[])" }
	}
	if gs, ok := plan.predGraphs[idArg(q.Pred)]; ok {
		// The path's quads are in these graphs (counts, in the
		// statement's snapshot): its steps read only their partitions.
		a := arg(gs)
		g0 := graph
		graph = func(alias string) string { return g0(alias) + " AND " + alias + ".g = ANY(" + a + "::int8[])" }
	}
	quads := s.q.t("quads")
	anchor := "SELECT st.x, e." + to + " FROM st JOIN " + quads + " e ON e." + from + " = st.x WHERE e.p = " + pred + graph("e")
	if q.WithZero {
		anchor = "SELECT x, x FROM st UNION " + anchor
	}
	sql := "WITH RECURSIVE l AS MATERIALIZED (SELECT b.v" + strconv.Itoa(q.StartVar) + " AS x FROM (" + left + ") b), " +
		"st AS (SELECT DISTINCT x FROM l), " +
		"r(x, n) AS (" + anchor +
		" UNION SELECT r.x, e." + to + " FROM r JOIN " + quads + " e ON e." + from + " = r.n WHERE e.p = " + pred + graph("e") + "), " +
		"c AS (SELECT x, count(*) AS k FROM r GROUP BY x) " +
		"SELECT coalesce(sum(c.k), 0)::int8 FROM l JOIN c USING (x)"
	return sql, args, nil
}

// CountClosure implements kb.ClosureCounter with one statement
// (ClosureCountSQL, q.Left's patterns joined in the order joinOrder
// gives), in a read-only transaction.
func (s *Store) CountClosure(ctx context.Context, q kb.ClosureCount) (int64, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	if len(q.Graphs) == 0 || len(q.Left.Graphs) == 0 || len(q.Left.Patterns) == 0 {
		return 0, nil
	}
	tx, plan, err := s.orderedTx(ctx, q.Left, []int64{idArg(q.Pred)}, false)
	if err != nil {
		return 0, fmt.Errorf("pg: path count: %w", err)
	}
	defer tx.Rollback(context.WithoutCancel(ctx))
	sql, args, err := s.closureCountSQL(q, plan)
	if err != nil {
		return 0, err
	}
	var n int64
	if err := tx.QueryRow(ctx, sql, args...).Scan(&n); err != nil {
		return 0, fmt.Errorf("pg: path count: %w", err)
	}
	return n, nil
}
