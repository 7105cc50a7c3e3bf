package pg

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/perfkb/perfkb/kb"
)

var errBulkDone = errors.New("pg: bulk load already committed or aborted")

// rebuildRatio and rebuildMin: a load that stages more than rebuildMin
// quads and more than rebuildRatio times the quads the store holds drops
// the quads indexes and builds them again after inserting, which sorts
// once instead of inserting into three B-trees row by row.
const (
	rebuildRatio = 0.5
	rebuildMin   = 10000
)

// bulk is a BulkWriter: a transaction on one connection, with the staged
// quads and the load's new terms in temporary tables of that transaction.
//
// A staged quad holds, in each position, a term ID (positive) or the
// negated load-local number of a term this process did not find in its
// cache (AddTerms); Commit interns those in one statement and maps them.
type bulk struct {
	s      *Store
	conn   *pgxpool.Conn
	tx     pgx.Tx
	staged int64
	ids    map[kb.ID]struct{} // IDs this process has not seen, checked at Commit
	done   bool
	err    error
	row    [4]any
	vals   [4]int64

	local  map[kb.Term]int64 // load-local numbers of terms not in the cache
	terms  []kb.Term         // by local number - 1
	copied int               // terms already copied to perfkb_staging_terms
	quads  [][4]int64
	newIDs []kb.ID // the IDs of terms, known once Commit has interned them
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
	for _, stmt := range []string{
		"CREATE TEMP TABLE perfkb_staging (s int8, p int8, o int8, g int8) ON COMMIT DROP",
		"CREATE TEMP TABLE perfkb_staging_terms (local int8, h bytea, kind int2, value text, datatype text, lang text, num float8) ON COMMIT DROP",
	} {
		if _, err := tx.Exec(ctx, stmt); err != nil {
			_ = tx.Rollback(ctx)
			conn.Release()
			return nil, fmt.Errorf("pg: bulk load: staging table: %w", err)
		}
	}
	b := &bulk{s: s, conn: conn, tx: tx, ids: map[kb.ID]struct{}{}, local: map[kb.Term]int64{}}
	for i := range b.row {
		b.row[i] = &b.vals[i]
	}
	return b, nil
}

func (b *bulk) usable() error {
	if b.done {
		return errBulkDone
	}
	if b.err != nil {
		return b.err
	}
	return b.s.check()
}

// Add implements kb.BulkWriter: it copies the quads into the staging table
// with COPY in binary format.
func (b *bulk) Add(ctx context.Context, quads []kb.Quad) error {
	if err := b.usable(); err != nil {
		return err
	}
	b.quads = b.quads[:0]
	b.s.mu.RLock()
	for _, q := range quads {
		for _, id := range [4]kb.ID{q.S, q.P, q.O, q.G} {
			if id == 0 || id > 1<<62 {
				b.s.mu.RUnlock()
				b.err = fmt.Errorf("pg: bulk add: %w: %d in %+v", kb.ErrUnknownID, id, q)
				return b.err
			}
			if _, ok := b.s.byID[id]; !ok {
				b.ids[id] = struct{}{}
			}
		}
		b.quads = append(b.quads, [4]int64{int64(q.S), int64(q.P), int64(q.O), int64(q.G)})
	}
	b.s.mu.RUnlock()
	return b.copyQuads(ctx)
}

// AddTerms implements kb.TermAdder.
func (b *bulk) AddTerms(ctx context.Context, quads []kb.TermQuad) error {
	if err := b.usable(); err != nil {
		return err
	}
	b.quads = b.quads[:0]
	b.s.mu.RLock()
	code := func(t kb.Term) int64 {
		if id, ok := b.s.byKey[t]; ok {
			return int64(id)
		}
		if n, ok := b.local[t]; ok {
			return -n
		}
		t = kb.Term{Kind: t.Kind, Value: strings.Clone(t.Value), Datatype: strings.Clone(t.Datatype), Lang: strings.Clone(t.Lang)}
		b.terms = append(b.terms, t)
		n := int64(len(b.terms))
		b.local[t] = n
		return -n
	}
	for _, q := range quads {
		if q.G.IsZero() {
			q.G = kb.DefaultGraph
		}
		if q.S.IsZero() || q.P.IsZero() || q.O.IsZero() {
			b.s.mu.RUnlock()
			b.err = fmt.Errorf("pg: bulk add: %w in %v", errZeroTerm, q)
			return b.err
		}
		b.quads = append(b.quads, [4]int64{code(q.S), code(q.P), code(q.O), code(q.G)})
	}
	b.s.mu.RUnlock()
	if err := b.copyTerms(ctx); err != nil {
		return err
	}
	return b.copyQuads(ctx)
}

func (b *bulk) copyQuads(ctx context.Context) error {
	if len(b.quads) == 0 {
		return nil
	}
	i := -1
	n, err := b.tx.CopyFrom(ctx, pgx.Identifier{"perfkb_staging"}, []string{"s", "p", "o", "g"}, pgx.CopyFromFunc(func() ([]any, error) {
		i++
		if i == len(b.quads) {
			return nil, nil
		}
		b.vals = b.quads[i]
		return b.row[:], nil
	}))
	if err != nil {
		b.err = fmt.Errorf("pg: bulk add (COPY): %w", err)
		return b.err
	}
	b.staged += n
	return nil
}

// copyTerms copies the load-local terms not yet copied.
func (b *bulk) copyTerms(ctx context.Context) error {
	if b.copied == len(b.terms) {
		return nil
	}
	i := b.copied - 1
	row := make([]any, 7)
	_, err := b.tx.CopyFrom(ctx, pgx.Identifier{"perfkb_staging_terms"}, []string{"local", "h", "kind", "value", "datatype", "lang", "num"}, pgx.CopyFromFunc(func() ([]any, error) {
		i++
		if i == len(b.terms) {
			return nil, nil
		}
		t := b.terms[i]
		var num any
		if v := numericValue(t); v.Valid {
			num = v.Float64
		}
		row[0], row[1], row[2], row[3], row[4], row[5], row[6] = int64(i+1), termHash(t), int16(t.Kind), t.Value, t.Datatype, t.Lang, num
		return row, nil
	}))
	if err != nil {
		b.err = fmt.Errorf("pg: bulk add (COPY terms): %w", err)
		return b.err
	}
	b.copied = len(b.terms)
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
	// Only a committed transaction's IDs may be cached: a rolled-back
	// insert gives its IDs to no term.
	b.s.mu.Lock()
	for i, id := range b.newIDs {
		b.s.remember(id, b.terms[i])
	}
	b.s.mu.Unlock()
	return nil
}

func (b *bulk) commit(ctx context.Context) error {
	s, tx := b.s, b.tx
	exec := func(sql string, args ...any) error {
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return fmt.Errorf("%s: %w", strings.Fields(sql)[0], err)
		}
		return nil
	}
	if err := exec("SELECT pg_advisory_xact_lock($1)", s.lockKey); err != nil {
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
	if b.staged == 0 {
		return tx.Commit(ctx)
	}
	// Temporary tables are never analyzed automatically; without
	// statistics the planner would probe them row by row.
	if err := exec("ANALYZE perfkb_staging"); err != nil {
		return err
	}
	source := "perfkb_staging"
	if len(b.terms) > 0 {
		// Intern the load's new terms in one statement, then map the
		// load-local numbers to IDs.
		if err := exec("ANALYZE perfkb_staging_terms"); err != nil {
			return err
		}
		if err := exec(`INSERT INTO ` + s.q.t("terms") + ` (id, h, kind, value, datatype, lang, num)
			SELECT nextval('` + s.q.t("term_ids") + `'), h, kind, value, datatype, lang, num FROM perfkb_staging_terms st
			WHERE NOT EXISTS (SELECT 1 FROM ` + s.q.t("terms") + ` t WHERE t.h = st.h)
			ON CONFLICT (h) DO NOTHING`); err != nil {
			return err
		}
		if err := exec(`CREATE TEMP TABLE perfkb_map ON COMMIT DROP AS
			SELECT -st.local AS k, t.id FROM perfkb_staging_terms st JOIN ` + s.q.t("terms") + ` t ON t.h = st.h`); err != nil {
			return err
		}
		if err := exec("ANALYZE perfkb_map"); err != nil {
			return err
		}
		ids, err := b.readMap(ctx)
		if err != nil {
			return err
		}
		b.newIDs = ids
		source = `(SELECT coalesce(ms.id, q.s) AS s, coalesce(mp.id, q.p) AS p, coalesce(mo.id, q.o) AS o, coalesce(mg.id, q.g) AS g
			FROM perfkb_staging q
			LEFT JOIN perfkb_map ms ON q.s < 0 AND ms.k = q.s
			LEFT JOIN perfkb_map mp ON q.p < 0 AND mp.k = q.p
			LEFT JOIN perfkb_map mo ON q.o < 0 AND mo.k = q.o
			LEFT JOIN perfkb_map mg ON q.g < 0 AND mg.k = q.g) q`
	}
	var have int64
	if err := tx.QueryRow(ctx, "SELECT coalesce(sum(n), 0)::int8 FROM "+s.q.t("counts")).Scan(&have); err != nil {
		return err
	}
	rebuild := b.staged > rebuildMin && float64(b.staged) > rebuildRatio*float64(have)
	if !rebuild {
		if err := exec(`WITH a AS (
			INSERT INTO ` + s.q.t("quads") + ` SELECT s, p, o, g FROM ` + source + `
			ON CONFLICT DO NOTHING RETURNING p, g)
			` + s.bumpCounts("a", "")); err != nil {
			return err
		}
		return b.finish(ctx)
	}
	for _, ix := range quadIndexes {
		if err := exec("DROP INDEX " + s.q.t(ix.name)); err != nil {
			return err
		}
	}
	fresh := "SELECT DISTINCT s, p, o, g FROM " + source
	if have > 0 {
		fresh = "SELECT * FROM (" + fresh + ") n WHERE NOT EXISTS (SELECT 1 FROM " + s.q.t("quads") + " x WHERE x.s = n.s AND x.p = n.p AND x.o = n.o AND x.g = n.g)"
	}
	if err := exec(`WITH a AS (
		INSERT INTO ` + s.q.t("quads") + ` ` + fresh + ` RETURNING p, g)
		` + s.bumpCounts("a", "")); err != nil {
		return err
	}
	if err := exec("SET LOCAL maintenance_work_mem = '256MB'"); err != nil {
		return err
	}
	for _, ix := range quadIndexes {
		if err := exec("CREATE " + ix.kind + " " + ix.name + " ON " + s.q.t("quads") + " (" + ix.cols + ")"); err != nil {
			return err
		}
	}
	return b.finish(ctx)
}

// readMap returns the IDs of the load-local terms, by local number - 1,
// and checks that every one has an ID.
func (b *bulk) readMap(ctx context.Context) ([]kb.ID, error) {
	rows, err := b.tx.Query(ctx, "SELECT k, id FROM perfkb_map")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := make([]kb.ID, len(b.terms))
	n := 0
	for rows.Next() {
		var k, id int64
		if err := rows.Scan(&k, &id); err != nil {
			return nil, err
		}
		if k < 0 && -k <= int64(len(ids)) {
			ids[-k-1] = kb.ID(id)
			n++
		}
	}
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if n != len(ids) {
		return nil, fmt.Errorf("%d of the load's %d new terms got no ID", len(ids)-n, len(ids))
	}
	return ids, nil
}

func (b *bulk) finish(ctx context.Context) error {
	if err := b.tx.Commit(ctx); err != nil {
		return err
	}
	if b.staged > rebuildMin {
		// The planner's statistics of quads are stale after a large load
		// until autovacuum runs; refresh them now.
		_, _ = b.conn.Exec(ctx, "ANALYZE "+b.s.q.t("quads")+", "+b.s.q.t("terms"))
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
