package pg

import (
	"context"
	"fmt"

	"github.com/cayleygraph/cayley/graph"
	"github.com/jackc/pgx/v5"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/cayleyqs"
)

// CayleyBackend is the name the PostgreSQL store is registered under with
// Cayley: cayley.NewGraph(CayleyBackend, "postgres://…", nil) opens the
// store a DSN names (its schema from the DSN's perfkb_schema parameter or
// the option "schema"), so Cayley's path API, query languages and tools
// work on it. It is not Cayley's own SQL backend ("sql"), whose tables are
// of another layout.
const CayleyBackend = "perfkb-postgres"

func init() {
	graph.RegisterQuadStore(CayleyBackend, graph.QuadStoreRegistration{
		NewFunc: func(dsn string, opts graph.Options) (graph.QuadStore, error) {
			s, err := openForCayley(dsn, opts)
			if err != nil {
				return nil, err
			}
			return cayleyqs.New(s, cayleyqs.Options{Name: CayleyBackend, Owned: true}), nil
		},
		InitFunc: func(dsn string, opts graph.Options) error {
			s, err := openForCayley(dsn, opts)
			if err != nil {
				return err
			}
			return s.Close()
		},
		IsPersistent: true,
	})
}

func openForCayley(dsn string, opts graph.Options) (*Store, error) {
	schema, err := opts.StringKey("schema", "")
	if err != nil {
		return nil, err
	}
	return Open(context.Background(), dsn, Options{Schema: schema})
}

// Cayley returns a graph.QuadStore over s. Closing it does not close s.
func (s *Store) Cayley() *cayleyqs.QuadStore {
	return cayleyqs.New(s, cayleyqs.Options{Name: CayleyBackend})
}

var (
	_ cayleyqs.CheckedApplier = (*Store)(nil)
	_ cayleyqs.QuadChecker    = (*Store)(nil)
	_ cayleyqs.NodeLister     = (*Store)(nil)
)

// HasQuad implements cayleyqs.QuadChecker with one index probe.
func (s *Store) HasQuad(ctx context.Context, q kb.Quad) (bool, error) {
	if err := s.check(); err != nil {
		return false, err
	}
	if outOfRange(kb.Pattern(q)) {
		return false, nil
	}
	return s.hasQuad(ctx, s.pool, q)
}

func (s *Store) hasQuad(ctx context.Context, db querier, q kb.Quad) (bool, error) {
	var has bool
	err := db.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+s.q.t("quads")+" WHERE s = $1 AND p = $2 AND o = $3 AND g = $4)",
		int64(q.S), int64(q.P), int64(q.O), int64(q.G)).Scan(&has)
	if err != nil {
		return false, fmt.Errorf("pg: %w", err)
	}
	return has, nil
}

// ApplyChecked implements cayleyqs.CheckedApplier: plan reads inside the
// transaction that holds the write lock and writes its delta, so that no
// other process's write comes between the checks and the write.
func (s *Store) ApplyChecked(ctx context.Context, plan func(has func(kb.Quad) (bool, error)) (kb.Delta, error)) error {
	if err := s.check(); err != nil {
		return err
	}
	var planErr error
	wrote := false
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, lockAndNotify, s.lockKey, changesChannel, s.notice()); err != nil {
			return err
		}
		var d kb.Delta
		d, planErr = plan(func(q kb.Quad) (bool, error) {
			if outOfRange(kb.Pattern(q)) {
				return false, nil
			}
			return s.hasQuad(ctx, tx, q)
		})
		if planErr != nil {
			return planErr
		}
		if len(d.Add)+len(d.Remove) == 0 {
			return nil
		}
		wrote = true
		return s.applyTx(ctx, tx, d)
	})
	if planErr != nil {
		return planErr // as plan made it: Cayley tells its errors by type
	}
	if err != nil {
		return fmt.Errorf("pg: apply: %w", err)
	}
	if wrote {
		s.committed()
	}
	return nil
}

// Nodes implements cayleyqs.NodeLister with one statement over the quads'
// subjects and objects (each the first column of an index) and the counts
// table's predicates and graphs.
func (s *Store) Nodes(ctx context.Context) cayleyqs.NodeIterator {
	if err := s.check(); err != nil {
		return &cayleyqs.SliceNodes{Error: err}
	}
	q, c := s.q.t("quads"), s.q.t("counts")
	rows, err := s.pool.Query(ctx, "SELECT s FROM "+q+" UNION SELECT o FROM "+q+
		" UNION SELECT p FROM "+c+" WHERE n > 0 UNION SELECT g FROM "+c+" WHERE n > 0 ORDER BY 1")
	if err != nil {
		return &cayleyqs.SliceNodes{Error: fmt.Errorf("pg: nodes: %w", err)}
	}
	ids, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (kb.ID, error) {
		var id int64
		err := r.Scan(&id)
		return kb.ID(id), err
	})
	if err != nil {
		err = fmt.Errorf("pg: nodes: %w", err)
	}
	return &cayleyqs.SliceNodes{IDs: ids, Error: err}
}

// HasNode implements cayleyqs.NodeLister.
func (s *Store) HasNode(ctx context.Context, id kb.ID) (bool, error) {
	if err := s.check(); err != nil {
		return false, err
	}
	if outOfRange(kb.Pattern{S: id}) {
		return false, nil
	}
	q, c := s.q.t("quads"), s.q.t("counts")
	var used bool
	err := s.pool.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM "+q+" WHERE s = $1) OR EXISTS (SELECT 1 FROM "+q+
		" WHERE o = $1) OR EXISTS (SELECT 1 FROM "+c+" WHERE (p = $1 OR g = $1) AND n > 0)", int64(id)).Scan(&used)
	if err != nil {
		return false, fmt.Errorf("pg: %w", err)
	}
	return used, nil
}
