package pg

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"
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

	local  map[kb.Term]int64 // load-local numbers of terms not in the cache
	terms  []kb.Term         // by local number - 1
	copied int               // terms already copied to perfkb_staging_terms
	quads  [][4]int64
	newIDs []kb.ID // the IDs of terms, known once Commit has interned them

	last [4]lastTerm        // per position, the previous quad's term
	keep map[int64]struct{} // local numbers of the load's predicates and graphs

	termsAnalyzed bool // the load's transaction analyzed terms

	partitioned bool            // quads is partitioned by graph
	parts       []*newPartition // the new graphs' partitions, dropped when the load fails
}

// lastTerm is a position's previous term and its code in a bulk load.
type lastTerm struct {
	t    kb.Term
	code int64
	set  bool
}

// rememberMax is the most new terms a load adds to the process's cache
// whole; a larger load adds only its predicates and graphs.
const rememberMax = 1 << 16

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
	b.staged += int64(len(quads))
	return ctx.Err()
}

// AddTerms implements kb.TermAdder.
func (b *bulk) AddTerms(ctx context.Context, quads []kb.TermQuad) error {
	if err := b.usable(); err != nil {
		return err
	}
	b.s.mu.RLock()
	lookup := func(t kb.Term) (int64, kb.Term) {
		if id, ok := b.s.byKey[t]; ok {
			return int64(id), b.s.byID[id]
		}
		if n, ok := b.local[t]; ok {
			return -n, b.terms[n-1]
		}
		t = kb.Term{Kind: t.Kind, Value: strings.Clone(t.Value), Datatype: strings.Clone(t.Datatype), Lang: strings.Clone(t.Lang)}
		b.terms = append(b.terms, t)
		n := int64(len(b.terms))
		b.local[t] = n
		return -n, t
	}
	// Most quads repeat the previous quad's predicate and graph, and
	// often its subject: comparing with it spares two map lookups of the
	// term. The remembered term is the cache's or the load's copy, never
	// the caller's, whose strings may be reused.
	code := func(pos int, t kb.Term) int64 {
		if l := &b.last[pos]; l.set && l.t == t {
			return l.code
		}
		c, kept := lookup(t)
		b.last[pos] = lastTerm{t: kept, code: c, set: true}
		if c < 0 && (pos == 1 || pos == 3) {
			if b.keep == nil {
				b.keep = map[int64]struct{}{}
			}
			b.keep[-c] = struct{}{}
		}
		return c
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
		b.quads = append(b.quads, [4]int64{code(0, q.S), code(1, q.P), code(2, q.O), code(3, q.G)})
	}
	b.s.mu.RUnlock()
	b.staged += int64(len(quads))
	return ctx.Err()
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
		b.dropPartitions(b.parts)
		return fmt.Errorf("pg: bulk commit: %w", err)
	}
	// Only a committed transaction's IDs may be cached: a rolled-back
	// insert gives its IDs to no term.
	// A large load's terms are not all kept in the process's cache:
	// filling its two maps was a sixth of the CPU a million-triple load
	// spent in perfkb, for terms a later query mostly does not name. The
	// predicates and graphs are kept; other terms are read back when
	// asked for.
	all := len(b.newIDs) <= rememberMax
	b.s.mu.Lock()
	for i, id := range b.newIDs {
		if _, keep := b.keep[int64(i+1)]; all || keep {
			b.s.remember(id, b.terms[i])
		}
	}
	b.s.mu.Unlock()
	return nil
}

func (b *bulk) commit(ctx context.Context) error {
	s, tx := b.s, b.tx
	exec := func(sql string, args ...any) error {
		if _, err := tx.Exec(ctx, sql, args...); err != nil {
			return fmt.Errorf("%s: %w", strings.Join(strings.Fields(sql)[:2], " "), err)
		}
		return nil
	}
	if err := exec(lockAndNotify, s.lockKey, changesChannel, s.notice()); err != nil {
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
		if err := tx.Commit(ctx); err != nil {
			return err
		}
		s.committed()
		return nil
	}
	var have int64
	if err := tx.QueryRow(ctx, "SELECT coalesce(sum(n), 0)::int8 FROM "+s.q.t("counts")).Scan(&have); err != nil {
		return err
	}
	var copyTerms func() error
	if len(b.terms) > 0 {
		var err error
		if copyTerms, err = b.internTerms(ctx, exec); err != nil {
			return err
		}
		for i := range b.quads {
			for j, v := range b.quads[i] {
				if v < 0 {
					b.quads[i][j] = int64(b.newIDs[-v-1])
				}
			}
		}
	}
	fresh, err := b.choosePartitions(ctx)
	if err != nil {
		return err
	}
	// The new graphs' quads are sorted here and their partitions built on
	// connections of their own while this transaction copies the load's
	// new terms.
	built := make(chan error, 1)
	go func() {
		b.parts = b.splitPartitions(fresh)
		built <- b.buildPartitions(ctx, b.parts)
	}()
	if copyTerms != nil {
		err = copyTerms()
	}
	if perr := <-built; err == nil {
		err = perr
	}
	if err != nil {
		return err
	}
	if len(b.quads) > 0 {
		if err := b.writeRest(ctx, exec, have); err != nil {
			return err
		}
	}
	if err := b.attachPartitions(ctx, exec, b.parts); err != nil {
		return err
	}
	return b.finish(ctx)
}

// writeRest writes the quads not bound for a partition of their own.
func (b *bulk) writeRest(ctx context.Context, exec func(string, ...any) error, have int64) error {
	s, tx := b.s, b.tx
	n := int64(len(b.quads))
	rebuild := n > rebuildMin && float64(n) > rebuildRatio*float64(have)
	if rebuild && have <= n {
		return b.loadRebuild(ctx, exec, have)
	}
	// Stage the quads and insert the ones the store lacks.
	if _, err := copyIn(ctx, tx.Conn().PgConn(), "perfkb_staging", "s, p, o, g", "", quadRowsFrom(b.quads)); err != nil {
		return fmt.Errorf("COPY quads: %w", err)
	}
	// Temporary tables are never analyzed automatically; without
	// statistics the planner would probe them row by row.
	if err := exec("ANALYZE perfkb_staging"); err != nil {
		return err
	}
	if !rebuild {
		return exec(`WITH a AS (
			INSERT INTO ` + s.q.t("quads") + ` SELECT s, p, o, g FROM perfkb_staging
			ON CONFLICT DO NOTHING RETURNING p, g)
			` + s.bumpCounts("a", ""))
	}
	for _, ix := range quadIndexes {
		if err := exec("DROP INDEX " + s.q.t(ix.name)); err != nil {
			return err
		}
	}
	if err := exec(`WITH a AS (
		INSERT INTO ` + s.q.t("quads") + ` SELECT * FROM (SELECT DISTINCT s, p, o, g FROM perfkb_staging) n
		WHERE NOT EXISTS (SELECT 1 FROM ` + s.q.t("quads") + ` x WHERE x.s = n.s AND x.p = n.p AND x.o = n.o AND x.g = n.g)
		RETURNING p, g)
		` + s.bumpCounts("a", "")); err != nil {
		return err
	}
	return b.createIndexes(exec, quadIndexes)
}

// loadRebuild writes the quads of a large load into a store that holds
// at most as many (have, from counts): the load's quads are sorted and
// deduplicated here, the ones the store holds (read here, in this
// transaction, after the write lock) left out, and the rest copied straight
// into quads without its indexes, which are built afterwards; counts are
// summed here too. Joining a large staging table with quads in SQL
// instead costs several times the copy.
func (b *bulk) loadRebuild(ctx context.Context, exec func(string, ...any) error, have int64) error {
	s := b.s
	qs := b.quads
	slices.SortFunc(qs, compareQuads)
	qs = slices.Compact(qs)
	if have > 0 {
		held, err := b.heldQuads(ctx, have)
		if err != nil {
			return err
		}
		slices.SortFunc(held, compareQuads)
		out, k := qs[:0], 0
		for _, q := range qs {
			for k < len(held) && compareQuads(held[k], q) < 0 {
				k++
			}
			if k < len(held) && held[k] == q {
				continue
			}
			out = append(out, q)
		}
		qs = out
	}
	b.quads = qs
	counts := map[[2]int64]int64{}
	for _, q := range qs {
		counts[[2]int64{q[1], q[3]}]++
	}
	for _, ix := range quadIndexes {
		if err := exec("DROP INDEX " + s.q.t(ix.name)); err != nil {
			return err
		}
	}
	freeze := ""
	if have == 0 && !b.partitioned {
		// quads is empty (counts is exact); truncating it in this
		// transaction lets COPY write the rows frozen, so the first reads
		// and autovacuum need not rewrite every page to set hint bits, and
		// index-only scans work at once (see COPY … FREEZE). With
		// wal_level = minimal it also lets COPY and the index builds skip
		// the WAL.
		if err := exec("TRUNCATE " + s.q.t("quads")); err != nil {
			return err
		}
		freeze = ", FREEZE"
	}
	if _, err := copyIn(ctx, b.tx.Conn().PgConn(), s.q.t("quads"), "s, p, o, g", freeze, quadRowsFrom(qs)); err != nil {
		return fmt.Errorf("COPY quads: %w", err)
	}
	var ps, gs, ns []int64
	for k, n := range counts {
		ps, gs, ns = append(ps, k[0]), append(gs, k[1]), append(ns, n)
	}
	if err := exec("INSERT INTO "+s.q.t("counts")+" AS c SELECT * FROM unnest($1::int8[], $2::int8[], $3::int8[]) "+
		"ON CONFLICT (p, g) DO UPDATE SET n = c.n + excluded.n", ps, gs, ns); err != nil {
		return err
	}
	return b.createIndexes(exec, quadIndexes)
}

// heldQuads reads every quad of the store (have of them) in the load's
// transaction.
func (b *bulk) heldQuads(ctx context.Context, have int64) ([][4]int64, error) {
	rows, err := b.tx.Query(ctx, "SELECT s, p, o, g FROM "+b.s.q.t("quads"))
	if err != nil {
		return nil, fmt.Errorf("reading the store's quads: %w", err)
	}
	defer rows.Close()
	held := make([][4]int64, 0, have)
	var q [4]int64
	for rows.Next() {
		if err := rows.Scan(&q[0], &q[1], &q[2], &q[3]); err != nil {
			return nil, fmt.Errorf("reading the store's quads: %w", err)
		}
		held = append(held, q)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("reading the store's quads: %w", err)
	}
	return held, nil
}

func compareQuads(x, y [4]int64) int {
	for i := range x {
		if c := cmp.Compare(x[i], y[i]); c != 0 {
			return c
		}
	}
	return 0
}

func (b *bulk) createIndexes(exec func(string, ...any) error, indexes []index) error {
	// The load's index builds already run side by side (the new
	// partitions' on connections of their own): parallel workers would
	// only split each build's memory, spill its sort to temporary files
	// and add a merge.
	if err := exec("SET LOCAL maintenance_work_mem = '512MB'"); err != nil {
		return err
	}
	if err := exec("SET LOCAL max_parallel_maintenance_workers = 0"); err != nil {
		return err
	}
	for _, ix := range indexes {
		if err := exec("CREATE " + ix.kind + " " + ix.name + " ON " + b.s.q.t(ix.table) + " (" + ix.cols + ")"); err != nil {
			return err
		}
	}
	return nil
}

// internTerms gives every load-local term its ID in b.newIDs: the ID the
// dictionary has for it, or a new one. copyTerms, nil when there are no
// new terms, copies the new ones straight into terms in the load's
// transaction. It locks terms against other sessions' inserts until the
// load commits, so that no term can be added twice.
func (b *bulk) internTerms(ctx context.Context, exec func(string, ...any) error) (copyTerms func() error, err error) {
	s, tx := b.s, b.tx
	if err := exec("LOCK TABLE " + s.q.t("terms") + " IN SHARE ROW EXCLUSIVE MODE"); err != nil {
		return nil, err
	}
	b.newIDs = make([]kb.ID, len(b.terms))
	hashes := make([][]byte, len(b.terms))
	for i, t := range b.terms {
		hashes[i] = termHash(t)
	}
	// A dictionary much smaller than the load's terms (a new store holds
	// the ontology's few thousand) is read whole and matched here: one
	// round trip instead of copying every hash to a staging table,
	// analyzing it and joining, which cost a million-triple load 0.75 s.
	// No session can add a term meanwhile (the lock above), so fewer rows
	// than the limit are all of them.
	held, small, err := b.smallDictionary(ctx, hashes)
	if err != nil {
		return nil, err
	}
	if !small {
		if err := tx.QueryRow(ctx, "SELECT count(*) FROM (SELECT 1 FROM "+s.q.t("terms")+" LIMIT $1) x", 2*len(b.terms)).Scan(&held); err != nil {
			return nil, err
		}
	}
	if held > 0 && !small {
		// Find the terms the dictionary holds: a hash join of the load's
		// hashes with terms.
		i := 0
		if _, err := copyIn(ctx, tx.Conn().PgConn(), "perfkb_staging_terms", "local, h", "", func(buf []byte) ([]byte, bool) {
			if i == len(hashes) {
				return buf, false
			}
			buf = appendBytes(appendInt8(appendRowStart(buf, 2), int64(i)), hashes[i])
			i++
			return buf, true
		}); err != nil {
			return nil, fmt.Errorf("COPY term hashes: %w", err)
		}
		if err := exec("ANALYZE perfkb_staging_terms"); err != nil {
			return nil, err
		}
		rows, err := tx.Query(ctx, "SELECT st.local, t.id FROM perfkb_staging_terms st JOIN "+s.q.t("terms")+" t ON t.h = st.h")
		if err != nil {
			return nil, err
		}
		for rows.Next() {
			var local, id int64
			if err := rows.Scan(&local, &id); err != nil {
				rows.Close()
				return nil, err
			}
			b.newIDs[local] = kb.ID(id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return nil, err
		}
	}
	var fresh []int
	for i, id := range b.newIDs {
		if id == 0 {
			fresh = append(fresh, i)
		}
	}
	if len(fresh) == 0 {
		return nil, nil
	}
	// Reserve len(fresh) IDs at once by moving the sequence past them.
	// last_value is the highest ID any session has taken (its cached
	// values included), and no session can take one meanwhile: every
	// nextval of term_ids runs inside an INSERT into terms, which waits for
	// the lock taken above.
	var last int64
	if err := tx.QueryRow(ctx, "SELECT setval('"+s.q.t("term_ids")+"', (SELECT last_value FROM "+s.q.t("term_ids")+") + $1)", len(fresh)).Scan(&last); err != nil {
		return nil, fmt.Errorf("reserving %d term IDs: %w", len(fresh), err)
	}
	for k, i := range fresh {
		b.newIDs[i] = kb.ID(last - int64(len(fresh)) + 1 + int64(k))
	}
	copyTerms = func() error {
		rebuildTerms := float64(len(fresh)) > rebuildRatio*float64(held) && len(fresh) > rebuildMin
		freeze := ""
		if rebuildTerms {
			for _, ix := range termIndexes {
				if err := exec("DROP INDEX " + s.q.t(ix.name)); err != nil {
					return err
				}
			}
			if held == 0 {
				// As for quads in loadEmpty: an empty table truncated here
				// takes its rows frozen.
				if err := exec("TRUNCATE " + s.q.t("terms")); err != nil {
					return err
				}
				freeze = ", FREEZE"
			}
		}
		k := 0
		if _, err := copyIn(ctx, tx.Conn().PgConn(), s.q.t("terms"), "id, h, kind, value, datatype, lang, num", freeze, func(buf []byte) ([]byte, bool) {
			if k == len(fresh) {
				return buf, false
			}
			i := fresh[k]
			k++
			t := &b.terms[i]
			num := numericValue(*t)
			buf = appendRowStart(buf, 7)
			buf = appendInt8(buf, int64(b.newIDs[i]))
			buf = appendBytes(buf, hashes[i])
			buf = appendInt2(buf, int16(t.Kind))
			buf = appendBytes(buf, t.Value)
			buf = appendBytes(buf, t.Datatype)
			buf = appendBytes(buf, t.Lang)
			return appendFloat8(buf, num.Float64, num.Valid), true
		}); err != nil {
			return fmt.Errorf("COPY terms: %w", err)
		}
		if rebuildTerms {
			if err := b.createIndexes(exec, termIndexes); err != nil {
				return err
			}
		}
		if b.staged > rebuildMin {
			// Analyzed here, beside the new partitions' index builds,
			// rather than after the commit; ANALYZE samples this
			// transaction's own rows.
			b.termsAnalyzed = true
			return exec("ANALYZE " + s.q.t("terms"))
		}
		return nil
	}
	return copyTerms, nil
}

// smallDictionary reads the whole dictionary when it holds fewer than a
// quarter as many terms as the load brings, and sets b.newIDs[i] to the ID
// of every hashes[i] it holds. small is false, and nothing set, when the
// dictionary is larger; held is then meaningless.
func (b *bulk) smallDictionary(ctx context.Context, hashes [][]byte) (held int64, small bool, err error) {
	limit := int64(len(hashes))/4 + 1
	rows, err := b.tx.Query(ctx, "SELECT id, h FROM "+b.s.q.t("terms")+" LIMIT $1", limit)
	if err != nil {
		return 0, false, fmt.Errorf("reading the dictionary: %w", err)
	}
	ids := make(map[[16]byte]int64, limit)
	var id int64
	var h []byte
	for rows.Next() {
		if err := rows.Scan(&id, &h); err != nil {
			rows.Close()
			return 0, false, fmt.Errorf("reading the dictionary: %w", err)
		}
		if len(h) != 16 {
			rows.Close()
			return 0, false, nil
		}
		ids[[16]byte(h)] = id
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return 0, false, fmt.Errorf("reading the dictionary: %w", err)
	}
	if int64(len(ids)) >= limit {
		return 0, false, nil
	}
	for i, h := range hashes {
		if id, ok := ids[[16]byte(h)]; ok {
			b.newIDs[i] = kb.ID(id)
		}
	}
	return int64(len(ids)), true, nil
}

func (b *bulk) finish(ctx context.Context) error {
	if err := b.tx.Commit(ctx); err != nil {
		return err
	}
	b.s.committed()
	if b.staged > rebuildMin {
		// The planner's statistics of quads are stale after a large load
		// until autovacuum runs; refresh them now.
		tables := b.s.q.t("quads")
		if !b.termsAnalyzed {
			tables += ", " + b.s.q.t("terms")
		}
		_, _ = b.conn.Exec(ctx, "ANALYZE "+tables)
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
