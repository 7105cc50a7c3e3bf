package pg

import (
	"context"
	"strconv"

	"github.com/jackc/pgx/v5"
)

// afterPartitionDrop, when set (by tests), runs after Apply has detached
// and dropped the partitions of the graphs it removes whole, before the
// rest of its transaction.
var afterPartitionDrop func() error

// dropWholePartitions handles the removals in rm (columns s, p, o, g) of
// graphs with a partition of their own that remove every quad of the
// graph and come with no additions to it (DROP GRAPH, CLEAR GRAPH): in
// tx, it detaches and drops the graph's partition and deletes its counts
// rows, instead of deleting its quads row by row and updating three
// indexes per row. It returns the removals left for the ordinary DELETE.
// The graph is whole when the removals, deduplicated, match as many of
// the partition's quads as counts holds for the graph. Detaching takes
// an exclusive lock on quads until the transaction ends; other sessions
// see the graph whole or gone, and a transaction that fails afterwards
// rolls the detach and the drop back with the rest.
func (s *Store) dropWholePartitions(ctx context.Context, tx pgx.Tx, rm [4][]int64, add [4][]int64) ([4][]int64, error) {
	if len(rm[3]) < partitionMin {
		return rm, nil
	}
	byGraph := map[int64][]int{}
	for i, g := range rm[3] {
		byGraph[g] = append(byGraph[g], i)
	}
	for _, g := range add[3] {
		delete(byGraph, g)
	}
	attached := map[string]bool{}
	rows, err := tx.Query(ctx, "SELECT c.relname::text FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid WHERE i.inhparent = to_regclass($1)", s.q.t("quads"))
	if err != nil {
		return rm, err
	}
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			rows.Close()
			return rm, err
		}
		attached[name] = true
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return rm, err
	}
	dropped := map[int64]bool{}
	for g, idx := range byGraph {
		name := "quads_g" + strconv.FormatInt(g, 10)
		if len(idx) < partitionMin || !attached[name] {
			continue
		}
		var cols [3][]int64
		for _, i := range idx {
			for k := range cols {
				cols[k] = append(cols[k], rm[k][i])
			}
		}
		var held, matched int64
		if err := tx.QueryRow(ctx, "SELECT coalesce(sum(n), 0)::int8 FROM "+s.q.t("counts")+" WHERE g = $1", g).Scan(&held); err != nil {
			return rm, err
		}
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM "+s.q.t(name)+" q JOIN (SELECT DISTINCT s, p, o FROM unnest($1::int8[], $2::int8[], $3::int8[]) AS u(s, p, o)) r "+
			"ON q.s = r.s AND q.p = r.p AND q.o = r.o", cols[0], cols[1], cols[2]).Scan(&matched); err != nil {
			return rm, err
		}
		if matched != held {
			continue
		}
		for _, stmt := range []string{
			"ALTER TABLE " + s.q.t("quads") + " DETACH PARTITION " + s.q.t(name),
			"DROP TABLE " + s.q.t(name),
			"DELETE FROM " + s.q.t("counts") + " WHERE g = " + strconv.FormatInt(g, 10),
		} {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return rm, err
			}
		}
		dropped[g] = true
	}
	if len(dropped) == 0 {
		return rm, nil
	}
	if afterPartitionDrop != nil {
		if err := afterPartitionDrop(); err != nil {
			return rm, err
		}
	}
	var left [4][]int64
	for i, g := range rm[3] {
		if dropped[g] {
			continue
		}
		for k := range left {
			left[k] = append(left[k], rm[k][i])
		}
	}
	return left, nil
}
