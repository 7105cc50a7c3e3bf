package pg

import (
	"context"
	"fmt"

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
