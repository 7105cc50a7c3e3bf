package pg

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/jackc/pgx/v5"
)

// partitionMin is the fewest quads a load must bring to a graph the store
// holds no quads of for the graph to get a partition of its own.
const partitionMin = rebuildMin

// beforeAttach, when set (by tests), runs before a load attaches its new
// partitions; an error it returns fails the load there.
var beforeAttach func() error

// newPartition is one graph's quads on their way into a partition of
// their own: a table created, filled and indexed outside the load's
// transaction, on connections of its own, and attached to quads inside it.
type newPartition struct {
	g     int64
	name  string // the table, unqualified
	quads [][4]int64
}

// choosePartitions returns the graphs that get a partition of their own:
// a graph the store holds no quads of (counts is exact) and has no
// partition for, to which the load brings at least partitionMin quads. It
// returns none when quads is not a partitioned table (a store made by an
// older perfkb, or quads replaced by a view).
func (b *bulk) choosePartitions(ctx context.Context) (map[int64]int, error) {
	s := b.s
	var kind string
	if err := b.tx.QueryRow(ctx, "SELECT relkind::text FROM pg_class WHERE oid = $1::regclass", s.q.t("quads")).Scan(&kind); err != nil {
		return nil, fmt.Errorf("reading the kind of quads: %w", err)
	}
	if kind != "p" {
		return nil, nil
	}
	b.partitioned = true
	perGraph := map[int64]int{}
	for _, q := range b.quads {
		perGraph[q[3]]++
	}
	var candidates []int64
	for g, n := range perGraph {
		if n >= partitionMin {
			candidates = append(candidates, g)
		}
	}
	if len(candidates) == 0 {
		return nil, nil
	}
	// A graph with quads, or with a partition (attached: an unattached
	// table of that name is what a failed load left, dropped when the
	// partition is built), keeps the ordinary path.
	rows, err := b.tx.Query(ctx, `SELECT g FROM unnest($1::int8[]) g
		WHERE NOT EXISTS (SELECT 1 FROM `+s.q.t("counts")+` c WHERE c.g = g.g AND c.n > 0)
		AND NOT EXISTS (SELECT 1 FROM pg_inherits i JOIN pg_class c ON c.oid = i.inhrelid
			WHERE i.inhparent = $2::regclass AND c.relname = 'quads_g' || g.g)`, candidates, s.q.t("quads"))
	if err != nil {
		return nil, fmt.Errorf("choosing the load's partitions: %w", err)
	}
	graphs, err := pgx.CollectRows(rows, pgx.RowTo[int64])
	if err != nil {
		return nil, fmt.Errorf("choosing the load's partitions: %w", err)
	}
	if len(graphs) == 0 {
		return nil, nil
	}
	fresh := make(map[int64]int, len(graphs))
	for _, g := range graphs {
		fresh[g] = perGraph[g]
	}
	return fresh, nil
}

// splitPartitions takes out of b.quads the quads of the graphs fresh
// names (with their quad counts), one newPartition per graph in order of
// graph ID, each partition's quads sorted and without duplicates. It uses
// no connection, so it can run beside the load's transaction.
func (b *bulk) splitPartitions(fresh map[int64]int) []*newPartition {
	if len(fresh) == 0 {
		return nil
	}
	graphs := make([]int64, 0, len(fresh))
	for g := range fresh {
		graphs = append(graphs, g)
	}
	slices.Sort(graphs)
	parts := make([]*newPartition, len(graphs))
	index := map[int64]*newPartition{}
	for i, g := range graphs {
		parts[i] = &newPartition{g: g, name: "quads_g" + strconv.FormatInt(g, 10), quads: make([][4]int64, 0, fresh[g])}
		index[g] = parts[i]
	}
	rest := b.quads[:0]
	for _, q := range b.quads {
		if p := index[q[3]]; p != nil {
			p.quads = append(p.quads, q)
		} else {
			rest = append(rest, q)
		}
	}
	b.quads = rest
	for _, p := range parts {
		slices.SortFunc(p.quads, compareQuads)
		p.quads = slices.Compact(p.quads)
	}
	return parts
}

// buildPartitions creates, fills and indexes each partition's table: a
// connection creates the table and copies the rows in (frozen: the table
// is new in that transaction) and commits, then its indexes are built at
// once, one connection each. The tables are not part of quads until
// attachPartitions runs in the load's transaction, so nothing reads them
// before the load commits. It runs beside the load's own transaction.
func (b *bulk) buildPartitions(ctx context.Context, parts []*newPartition) error {
	s := b.s
	connect := func() (*pgx.Conn, error) {
		c, err := pgx.ConnectConfig(ctx, s.pool.Config().ConnConfig.Copy())
		if err != nil {
			return nil, fmt.Errorf("connecting for a partition: %w", err)
		}
		return c, nil
	}
	for _, p := range parts {
		table := s.q.t(p.name)
		c, err := connect()
		if err != nil {
			return err
		}
		err = pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
			for _, stmt := range []string{
				"DROP TABLE IF EXISTS " + table,
				"CREATE TABLE " + table + " (s bigint NOT NULL, p bigint NOT NULL, o bigint NOT NULL, g bigint NOT NULL CHECK (g = " + strconv.FormatInt(p.g, 10) + "))",
			} {
				if _, err := tx.Exec(ctx, stmt); err != nil {
					return err
				}
			}
			_, err := copyIn(ctx, tx.Conn().PgConn(), table, "s, p, o, g", ", FREEZE", quadRowsFrom(p.quads))
			return err
		})
		_ = c.Close(context.Background())
		if err != nil {
			return fmt.Errorf("partition %s: %w", p.name, err)
		}
		var wg sync.WaitGroup
		errs := make([]error, len(quadIndexes))
		for i, ix := range quadIndexes {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c, err := connect()
				if err != nil {
					errs[i] = err
					return
				}
				defer c.Close(context.Background())
				// Three builds at once already fill the cores; parallel
				// workers would split each build's memory and spill.
				if _, err := c.Exec(ctx, "SET maintenance_work_mem = '256MB'; SET max_parallel_maintenance_workers = 0"); err != nil {
					errs[i] = err
					return
				}
				if _, err := c.Exec(ctx, "CREATE "+ix.kind+" "+p.name+"_"+strings.TrimPrefix(ix.name, "quads_")+" ON "+table+" ("+ix.cols+")"); err != nil {
					errs[i] = fmt.Errorf("partition %s: index (%s): %w", p.name, ix.cols, err)
				}
			}()
		}
		wg.Wait()
		for _, err := range errs {
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// attachPartitions makes the partitions part of quads and counts their
// quads, in the load's transaction. Each table's CHECK on g spares
// PostgreSQL a scan of it; the default partition is scanned for quads of
// the graph, of which counts said there are none.
func (b *bulk) attachPartitions(ctx context.Context, exec func(string, ...any) error, parts []*newPartition) error {
	if beforeAttach != nil {
		if err := beforeAttach(); err != nil {
			return err
		}
	}
	s := b.s
	for _, p := range parts {
		if err := exec("ALTER TABLE " + s.q.t("quads") + " ATTACH PARTITION " + s.q.t(p.name) + " FOR VALUES IN (" + strconv.FormatInt(p.g, 10) + ")"); err != nil {
			return err
		}
		counts := map[int64]int64{}
		for _, q := range p.quads {
			counts[q[1]]++
		}
		var ps, ns []int64
		for k, n := range counts {
			ps, ns = append(ps, k), append(ns, n)
		}
		if err := exec("INSERT INTO "+s.q.t("counts")+" AS c SELECT p, $2, n FROM unnest($1::int8[], $3::int8[]) AS u(p, n) "+
			"ON CONFLICT (p, g) DO UPDATE SET n = c.n + excluded.n", ps, p.g, ns); err != nil {
			return err
		}
	}
	return nil
}

// dropPartitions drops the tables of a load that failed (best effort: a
// table left behind is not part of quads, and the next load of its graph
// drops it).
func (b *bulk) dropPartitions(parts []*newPartition) {
	if len(parts) == 0 {
		return
	}
	ctx := context.Background()
	c, err := pgx.ConnectConfig(ctx, b.s.pool.Config().ConnConfig.Copy())
	if err != nil {
		return
	}
	defer c.Close(ctx)
	for _, p := range parts {
		// A table that is part of quads belongs to a load whose commit
		// went through although its answer was lost; it stays.
		var attached bool
		if err := c.QueryRow(ctx, "SELECT EXISTS (SELECT 1 FROM pg_inherits WHERE inhrelid = to_regclass($1))", b.s.q.t(p.name)).Scan(&attached); err != nil || attached {
			continue
		}
		_, _ = c.Exec(ctx, "DROP TABLE IF EXISTS "+b.s.q.t(p.name))
	}
}
