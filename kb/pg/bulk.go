package pg

import (
	"context"
	"errors"
	"fmt"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/perfkb/perfkb/kb"
)

var errBulkDone = errors.New("pg: bulk load already committed or aborted")

// rebuildRatio: a load that stages more quads than this fraction of the
// store's drops the secondary indexes and builds them again.
const rebuildRatio = 0.5

// bulk is a BulkWriter: a transaction on one connection, with the staged
// quads in a temporary table of that transaction.
type bulk struct {
	s      *Store
	conn   *pgxpool.Conn
	tx     pgx.Tx
	staged int64
	ids    map[kb.ID]struct{} // IDs this process has not seen, checked at Commit
	done   bool
	err    error
	rows   [][]any
	vals   []int64
}

// BeginBulk implements kb.Dataset.
func (s *Store) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	if err := s.check(); err != nil {
		return nil, err
	}
	conn, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("pg: bulk load: %w", err)
	}
	tx, err := conn.Begin(ctx)
	if err != nil {
		conn.Release()
		return nil, fmt.Errorf("pg: bulk load: %w", err)
	}
	if _, err := tx.Exec(ctx, "CREATE TEMP TABLE perfkb_staging (s int8, p int8, o int8, g int8) ON COMMIT DROP"); err != nil {
		_ = tx.Rollback(ctx)
		conn.Release()
		return nil, fmt.Errorf("pg: bulk load: staging table: %w", err)
	}
	return &bulk{s: s, conn: conn, tx: tx, ids: map[kb.ID]struct{}{}}, nil
}

// Add implements kb.BulkWriter: it copies the quads into the staging table
// with COPY in binary format.
func (b *bulk) Add(ctx context.Context, quads []kb.Quad) error {
	if b.done {
		return errBulkDone
	}
	if b.err != nil {
		return b.err
	}
	if err := b.s.check(); err != nil {
		return err
	}
	if len(quads) == 0 {
		return nil
	}
	if cap(b.vals) < 4*len(quads) {
		b.vals = make([]int64, 4*len(quads))
		b.rows = make([][]any, len(quads))
		for i := range b.rows {
			b.rows[i] = make([]any, 4)
		}
	}
	vals, rows := b.vals[:4*len(quads)], b.rows[:len(quads)]
	b.s.mu.RLock()
	for i, q := range quads {
		for j, id := range [4]kb.ID{q.S, q.P, q.O, q.G} {
			if id == 0 || id > 1<<62 {
				b.s.mu.RUnlock()
				b.err = fmt.Errorf("pg: bulk add: %w: %d in %+v", kb.ErrUnknownID, id, q)
				return b.err
			}
			if _, ok := b.s.byID[id]; !ok {
				b.ids[id] = struct{}{}
			}
			vals[4*i+j] = int64(id)
			rows[i][j] = &vals[4*i+j]
		}
	}
	b.s.mu.RUnlock()
	n, err := b.tx.CopyFrom(ctx, pgx.Identifier{"perfkb_staging"}, []string{"s", "p", "o", "g"}, pgx.CopyFromRows(rows))
	if err != nil {
		b.err = fmt.Errorf("pg: bulk add (COPY): %w", err)
		return b.err
	}
	b.staged += n
	return nil
}

// Commit implements kb.BulkWriter.
func (b *bulk) Commit(ctx context.Context) error {
	if b.done {
		return errBulkDone
	}
	if b.err != nil {
		return b.err
	}
	if err := b.s.check(); err != nil {
		_ = b.Abort()
		return err
	}
	b.done = true
	defer b.conn.Release()
	err := b.commit(ctx)
	if err != nil {
		_ = b.tx.Rollback(context.Background())
		return fmt.Errorf("pg: bulk commit: %w", err)
	}
	return nil
}

func (b *bulk) commit(ctx context.Context) error {
	s, tx := b.s, b.tx
	if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.lockKey); err != nil {
		return err
	}
	if len(b.ids) > 0 {
		unknown, err := s.unknownIDs(ctx, tx, b.ids)
		if err != nil {
			return err
		}
		if len(unknown) > 0 {
			return fmt.Errorf("%w: %v", kb.ErrUnknownID, unknown[:min(len(unknown), 10)])
		}
	}
	if b.staged > 0 {
		var have int64
		if err := tx.QueryRow(ctx, "SELECT coalesce(sum(n), 0)::int8 FROM "+s.q.t("counts")).Scan(&have); err != nil {
			return err
		}
		rebuild := float64(b.staged) > rebuildRatio*float64(have) && b.staged > 10000
		if rebuild {
			for _, ix := range secondaryIndexes {
				if _, err := tx.Exec(ctx, "DROP INDEX "+s.q.t(ix.name)); err != nil {
					return err
				}
			}
		}
		if _, err := tx.Exec(ctx, `WITH a AS (
			INSERT INTO `+s.q.t("quads")+` SELECT s, p, o, g FROM perfkb_staging
			ON CONFLICT DO NOTHING RETURNING p, g)
		`+s.bumpCounts("a", "")); err != nil {
			return err
		}
		if rebuild {
			if _, err := tx.Exec(ctx, "SET LOCAL maintenance_work_mem = '256MB'"); err != nil {
				return err
			}
			for _, ix := range secondaryIndexes {
				if _, err := tx.Exec(ctx, "CREATE INDEX "+ix.name+" ON "+s.q.t("quads")+" ("+ix.cols+")"); err != nil {
					return err
				}
			}
		}
	}
	if err := tx.Commit(ctx); err != nil {
		return err
	}
	if b.staged > 10000 {
		// The planner's statistics for quads are stale after a large load;
		// autovacuum would refresh them later.
		_, _ = b.conn.Exec(ctx, "ANALYZE "+s.q.t("quads"))
	}
	return nil
}

// Abort implements kb.BulkWriter.
func (b *bulk) Abort() error {
	if b.done {
		return nil
	}
	b.done = true
	err := b.tx.Rollback(context.Background())
	b.conn.Release()
	return err
}
