package pg

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/perfkb/perfkb/kb"
)

var errNoRows = pgx.ErrNoRows

// querier is what a pool, a connection and a transaction have in common.
type querier interface {
	Query(ctx context.Context, sql string, args ...any) (pgx.Rows, error)
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
	Exec(ctx context.Context, sql string, args ...any) (pgconn.CommandTag, error)
}

// where returns the WHERE clause of a pattern and its arguments.
func where(p kb.Pattern) (string, []any) {
	var conds []string
	var args []any
	for _, c := range []struct {
		col string
		id  kb.ID
	}{{"s", p.S}, {"p", p.P}, {"o", p.O}, {"g", p.G}} {
		if c.id != kb.Any {
			args = append(args, int64(c.id))
			conds = append(conds, c.col+" = $"+strconv.Itoa(len(args)))
		}
	}
	if len(conds) == 0 {
		return "", nil
	}
	return " WHERE " + strings.Join(conds, " AND "), args
}

// outOfRange reports a pattern ID no term can have (IDs are positive
// bigints), which matches nothing.
func outOfRange(p kb.Pattern) bool {
	return p.S > 1<<62 || p.P > 1<<62 || p.O > 1<<62 || p.G > 1<<62
}

// Match implements kb.Dataset.
func (s *Store) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	if err := s.check(); err != nil {
		return kb.NewErrorIterator(err)
	}
	quads, err := s.match(ctx, p)
	if err != nil {
		return kb.NewErrorIterator(err)
	}
	return kb.NewSliceIterator(quads)
}

func (s *Store) match(ctx context.Context, p kb.Pattern) ([]kb.Quad, error) {
	if outOfRange(p) {
		return nil, nil
	}
	w, args := where(p)
	rows, err := s.pool.Query(ctx, "SELECT s, p, o, g FROM "+s.q.t("quads")+w, args...)
	if err != nil {
		return nil, fmt.Errorf("pg: match: %w", err)
	}
	defer rows.Close()
	var out []kb.Quad
	var q [4]int64
	for rows.Next() {
		if err := rows.Scan(&q[0], &q[1], &q[2], &q[3]); err != nil {
			return nil, fmt.Errorf("pg: match: %w", err)
		}
		out = append(out, kb.Quad{S: kb.ID(q[0]), P: kb.ID(q[1]), O: kb.ID(q[2]), G: kb.ID(q[3])})
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("pg: match: %w", err)
	}
	return out, nil
}

// ScanQuads implements kb.QuadScanner over one materialised SELECT.
func (s *Store) ScanQuads(ctx context.Context, p kb.Pattern, fn func(kb.Quad) bool) error {
	if err := s.check(); err != nil {
		return err
	}
	quads, err := s.match(ctx, p)
	if err != nil {
		return err
	}
	for _, q := range quads {
		if !fn(q) {
			break
		}
	}
	return nil
}

// Count implements kb.Dataset. Patterns that bind only the predicate
// and/or the graph are answered from the counts table. An estimate
// (exact false) of a pattern with a bound predicate and subject or object
// is the exact count this process last made of it, while the predicate's
// quads (in the pattern's graph) have changed by at most an eighth since
// (estimates): the query planner asks for one per pattern of every
// query, and counting the 29,438 quads of one rdf:type at 1M triples
// reads as many index entries, as long as a small query's whole run.
func (s *Store) Count(ctx context.Context, p kb.Pattern, exact bool) (int64, error) {
	if err := s.check(); err != nil {
		return 0, err
	}
	if outOfRange(p) {
		return 0, nil
	}
	if p.S == kb.Any && p.O == kb.Any {
		return s.countPred(ctx, p.P, p.G)
	}
	cacheable := !exact && p.P != kb.Any
	var pred int64
	if cacheable {
		n, err := s.countPred(ctx, p.P, p.G)
		if err != nil || n == 0 {
			return 0, err
		}
		s.statMu.Lock()
		e, ok := s.estimates[p]
		s.statMu.Unlock()
		if ok && 8*abs64(e.pred-n) <= n {
			return e.n, nil
		}
		pred = n
	}
	w, a := where(p)
	var c int64
	if err := s.pool.QueryRow(ctx, "SELECT count(*) FROM "+s.q.t("quads")+w, a...).Scan(&c); err != nil {
		return 0, fmt.Errorf("pg: count: %w", err)
	}
	if cacheable && c >= minEstimate {
		s.statMu.Lock()
		if s.estimates == nil || len(s.estimates) >= maxEstimates {
			s.estimates = map[kb.Pattern]estimate{}
		}
		s.estimates[p] = estimate{n: c, pred: pred}
		s.statMu.Unlock()
	}
	return c, nil
}

// countPred is the number of quads of predicate p in graph g (either
// kb.Any) from the counts table.
func (s *Store) countPred(ctx context.Context, p, g kb.ID) (int64, error) {
	w, a := where(kb.Pattern{P: p, G: g})
	var n int64
	if err := s.pool.QueryRow(ctx, "SELECT coalesce(sum(n), 0)::int8 FROM "+s.q.t("counts")+w, a...).Scan(&n); err != nil {
		return 0, fmt.Errorf("pg: count: %w", err)
	}
	return n, nil
}

// estimate is a count Count remembers: n quads matched the pattern when
// its predicate had pred quads in the pattern's graph.
type estimate struct{ n, pred int64 }

// minEstimate is the least count Count remembers: smaller ones take a
// few index pages to count again, and a count that is never remembered
// is never an estimate of zero quads for a pattern that matches some.
const minEstimate = 1024

// maxEstimates is the most counts a store remembers; past it the cache
// starts again empty.
const maxEstimates = 1 << 16

// Stats implements kb.Dataset from the counts table.
func (s *Store) Stats(ctx context.Context) (kb.Stats, error) {
	st := kb.Stats{ByPredicate: map[kb.ID]int64{}, ByGraph: map[kb.ID]int64{}, ByPredicateGraph: map[[2]kb.ID]int64{}}
	if err := s.check(); err != nil {
		return st, err
	}
	err := pgx.BeginTxFunc(ctx, s.pool, pgx.TxOptions{IsoLevel: pgx.RepeatableRead, AccessMode: pgx.ReadOnly}, func(tx pgx.Tx) error {
		rows, err := tx.Query(ctx, "SELECT p, g, n FROM "+s.q.t("counts")+" WHERE n > 0")
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
			var p, g, n int64
			if err := rows.Scan(&p, &g, &n); err != nil {
				return err
			}
			st.Quads += n
			st.ByPredicate[kb.ID(p)] += n
			st.ByGraph[kb.ID(g)] += n
			st.ByPredicateGraph[[2]kb.ID{kb.ID(p), kb.ID(g)}] = n
		}
		if err := rows.Err(); err != nil {
			return err
		}
		return tx.QueryRow(ctx, "SELECT count(*) FROM "+s.q.t("terms")).Scan(&st.Terms)
	})
	if err != nil {
		return st, fmt.Errorf("pg: stats: %w", err)
	}
	return st, nil
}

// Graphs implements kb.Dataset.
func (s *Store) Graphs(ctx context.Context) ([]kb.ID, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	rows, err := s.pool.Query(ctx, "SELECT DISTINCT g FROM "+s.q.t("counts")+" WHERE n > 0")
	if err != nil {
		return nil, fmt.Errorf("pg: graphs: %w", err)
	}
	defer rows.Close()
	var out []kb.ID
	for rows.Next() {
		var g int64
		if err := rows.Scan(&g); err != nil {
			return nil, fmt.Errorf("pg: graphs: %w", err)
		}
		out = append(out, kb.ID(g))
	}
	return out, rows.Err()
}

// columns splits quads into the four ID columns unnest takes, checking
// that no ID is zero and collecting the distinct IDs into ids.
func columns(quads []kb.Quad, ids map[kb.ID]struct{}) (cols [4][]int64, err error) {
	for i := range cols {
		cols[i] = make([]int64, len(quads))
	}
	for i, q := range quads {
		for j, id := range [4]kb.ID{q.S, q.P, q.O, q.G} {
			if id == 0 {
				return cols, fmt.Errorf("%w: %+v", errZeroID, q)
			}
			if id > 1<<62 {
				return cols, fmt.Errorf("pg: %w: %d in %+v", kb.ErrUnknownID, id, q)
			}
			cols[j][i] = int64(id)
			ids[id] = struct{}{}
		}
	}
	return cols, nil
}

// Apply implements kb.Dataset: one transaction, removals then additions,
// with the counts updated in the same statements.
func (s *Store) Apply(ctx context.Context, d kb.Delta) error {
	if err := s.check(); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(d.Add) == 0 && len(d.Remove) == 0 {
		return nil
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockAndNotify, s.lockKey, changesChannel, s.notice()); err != nil {
			return err
		}
		return s.applyTx(ctx, tx, d)
	})
	if err != nil {
		return fmt.Errorf("pg: apply: %w", err)
	}
	s.committed()
	return nil
}

// applyTx writes d in tx, which holds the write lock: removals then
// additions, with the counts updated in the same statements.
func (s *Store) applyTx(ctx context.Context, tx pgx.Tx, d kb.Delta) error {
	ids := map[kb.ID]struct{}{}
	rm, err := columns(d.Remove, ids)
	if err != nil {
		return err
	}
	add, err := columns(d.Add, ids)
	if err != nil {
		return err
	}
	unknown, err := s.unknownIDs(ctx, tx, ids)
	if err != nil {
		return err
	}
	if len(unknown) > 0 {
		return fmt.Errorf("pg: apply: %w: %v", kb.ErrUnknownID, unknown)
	}
	if rm, err = s.dropWholePartitions(ctx, tx, rm, add); err != nil {
		return err
	}
	if len(rm[0]) > 0 {
		if _, err := tx.Exec(ctx, `WITH d AS (
			DELETE FROM `+s.q.t("quads")+` q USING unnest($1::int8[], $2::int8[], $3::int8[], $4::int8[]) AS r(s, p, o, g)
			WHERE q.s = r.s AND q.p = r.p AND q.o = r.o AND q.g = r.g RETURNING q.p, q.g)
		`+s.bumpCounts("d", "-"), rm[0], rm[1], rm[2], rm[3]); err != nil {
			return err
		}
	}
	if len(d.Add) > 0 {
		if _, err := tx.Exec(ctx, `WITH a AS (
			INSERT INTO `+s.q.t("quads")+` SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[], $4::int8[])
			ON CONFLICT DO NOTHING RETURNING p, g)
		`+s.bumpCounts("a", ""), add[0], add[1], add[2], add[3]); err != nil {
			return err
		}
	}
	if len(d.Remove) > 0 {
		if _, err := tx.Exec(ctx, "DELETE FROM "+s.q.t("counts")+" WHERE n <= 0"); err != nil {
			return err
		}
	}
	return nil
}

// bumpCounts is the statement, after a WITH cte AS (… RETURNING p, g),
// adding (sign "") or subtracting (sign "-") the rows of cte to counts.
func (s *Store) bumpCounts(cte, sign string) string {
	c := s.q.t("counts")
	return "INSERT INTO " + c + " AS c (p, g, n) SELECT p, g, " + sign + "count(*) FROM " + cte + " GROUP BY p, g ORDER BY p, g " +
		"ON CONFLICT (p, g) DO UPDATE SET n = c.n + excluded.n"
}
