package pg

import (
	"context"
	"errors"
	"fmt"
	"hash/fnv"
	"net/url"
	"regexp"
	"sync"
	"sync/atomic"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/perfkb/perfkb/kb"
)

// DefaultSchema is the PostgreSQL schema that holds the store's tables when
// Options.Schema is empty.
const DefaultSchema = "perfkb"

// schemaVersion is written to meta; Open refuses a database whose tables
// another layout made.
const schemaVersion = "1"

// Options tune Open.
type Options struct {
	// Schema is the PostgreSQL schema of the store's tables (created when
	// missing). Several stores can share a database in different schemas.
	Schema string
	// MaxConns caps the connection pool (0: pgxpool's default, the larger
	// of 4 and the number of CPUs).
	MaxConns int32
}

// Store is a kb.Dataset on PostgreSQL. It is safe for concurrent use, also
// by several processes on one database.
type Store struct {
	pool    *pgxpool.Pool
	ownPool bool
	schema  string
	lockKey int64  // the advisory lock that serializes writes
	token   string // names this Store in its write notices (notify.go)
	q       queries
	closed  atomic.Bool

	mu    sync.RWMutex
	byID  map[kb.ID]kb.Term
	byKey map[kb.Term]kb.ID

	statMu    sync.Mutex
	distinct  map[int64]predStat      // joinorder.go's cache, by predicate
	estimates map[kb.Pattern]estimate // Count's cache

	numMu    sync.Mutex
	numCache map[kb.ID]float64 // aggregate.go's numbers, NaN for other terms

	commitHook // OnCommit (replica.go)
}

var schemaName = regexp.MustCompile(`^[a-z_][a-z0-9_]{0,62}$`)

// Open connects to the database a postgres:// DSN names and creates the
// store's tables when they are missing.
//
// A URL DSN may name the schema with the parameter perfkb_schema (as
// postgres://host/db?perfkb_schema=site2), which opts.Schema overrides.
func Open(ctx context.Context, dsn string, opts Options) (*Store, error) {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		q := u.Query()
		if sc := q.Get("perfkb_schema"); sc != "" {
			if opts.Schema == "" {
				opts.Schema = sc
			}
			q.Del("perfkb_schema")
			u.RawQuery = q.Encode()
			dsn = u.String()
		}
	}
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("pg: %w", err)
	}
	if opts.MaxConns > 0 {
		cfg.MaxConns = opts.MaxConns
	}
	// pgx prepares each statement, and after five executions PostgreSQL
	// may switch to a generic plan, planned without the constants. Over
	// quads partitioned by graph that plan can be a thousand times slower
	// than a custom one (an OPTIONAL's lookup: 120 ms against 0.1 ms, a
	// join filter over every quad of a predicate instead of an index
	// probe per row), so every statement is planned with its constants
	// unless the DSN sets plan_cache_mode.
	if _, ok := cfg.ConnConfig.RuntimeParams["plan_cache_mode"]; !ok {
		cfg.ConnConfig.RuntimeParams["plan_cache_mode"] = "force_custom_plan"
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("pg: connect to %s: %w", redact(cfg), err)
	}
	s, err := OpenPool(ctx, pool, opts)
	if err != nil {
		pool.Close()
		return nil, err
	}
	s.ownPool = true
	return s, nil
}

// OpenPool is Open on a pool the caller owns: Close leaves it open, so
// that many stores (in different schemas) can share one pool.
func OpenPool(ctx context.Context, pool *pgxpool.Pool, opts Options) (*Store, error) {
	schema := opts.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	if !schemaName.MatchString(schema) {
		return nil, fmt.Errorf("pg: schema name %q: want lower-case letters, digits and _", schema)
	}
	h := fnv.New64a()
	h.Write([]byte("perfkb-writes:" + schema))
	s := &Store{
		pool:    pool,
		schema:  schema,
		lockKey: int64(h.Sum64()),
		token:   newToken(),
		q:       newQueries(schema),
		byID:    make(map[kb.ID]kb.Term),
		byKey:   make(map[kb.Term]kb.ID),
	}
	if err := s.createSchema(ctx); err != nil {
		return nil, err
	}
	s.primeHiddenGraphs(ctx)
	return s, nil
}

// primeHiddenGraphs puts the IDs of kb.HiddenGraphs in the term cache,
// interning them when the dictionary lacks them: every query over the
// union default graph looks them up, and a miss, which cannot be cached
// (another process may add the term), would cost a round trip each time.
// A term without quads changes no answer. They are looked up first, so
// that a store holding them is only read. On a hot standby, where nothing
// can be interned, a missing one stays a per-query lookup.
func (s *Store) primeHiddenGraphs(ctx context.Context) {
	var missing []kb.Term
	for _, g := range kb.HiddenGraphs {
		if _, ok, err := s.Lookup(ctx, g); err == nil && !ok {
			missing = append(missing, g)
		}
	}
	if len(missing) > 0 {
		_, _ = s.Intern(ctx, missing)
	}
}

func redact(cfg *pgxpool.Config) string {
	c := cfg.ConnConfig
	return fmt.Sprintf("postgres://%s@%s:%d/%s", c.User, c.Host, c.Port, c.Database)
}

// createSchema creates the tables under an advisory lock, so that servers
// starting together on a new database do not race on the DDL.
func (s *Store) createSchema(ctx context.Context) error {
	// A store that exists is only read (which a hot standby allows);
	// creating one takes the lock.
	if ok, err := s.checkVersion(ctx, s.pool); ok || err != nil {
		return err
	}
	return pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, "SELECT pg_advisory_xact_lock($1)", s.lockKey); err != nil {
			return fmt.Errorf("pg: lock for schema setup: %w", err)
		}
		if ok, err := s.checkVersion(ctx, tx); ok || err != nil {
			return err
		}
		for _, stmt := range s.q.ddl {
			if _, err := tx.Exec(ctx, stmt); err != nil {
				return fmt.Errorf("pg: creating the store's tables (%s): %w", stmt, err)
			}
		}
		return nil
	})
}

// checkVersion reports whether the store's tables exist, and fails when
// another layout made them.
func (s *Store) checkVersion(ctx context.Context, q querier) (bool, error) {
	var exists bool
	if err := q.QueryRow(ctx, "SELECT to_regclass($1) IS NOT NULL", s.schema+".meta").Scan(&exists); err != nil {
		return false, fmt.Errorf("pg: reading the store's schema: %w", err)
	}
	if !exists {
		return false, nil
	}
	var version string
	if err := q.QueryRow(ctx, "SELECT value FROM "+s.schema+".meta WHERE key = 'version'").Scan(&version); err != nil {
		return false, fmt.Errorf("pg: reading the store's layout version: %w", err)
	}
	if version != schemaVersion {
		return false, fmt.Errorf("pg: schema %s has layout version %s; this perfkb reads version %s", s.schema, version, schemaVersion)
	}
	return true, nil
}

// Schema returns the PostgreSQL schema holding the store's tables.
func (s *Store) Schema() string { return s.schema }

// Pool returns the store's connection pool.
func (s *Store) Pool() *pgxpool.Pool { return s.pool }

// Close closes the store (and its pool, when Open made it). It is safe to
// call twice.
func (s *Store) Close() error {
	if s.closed.Swap(true) {
		return nil
	}
	if s.ownPool {
		s.pool.Close()
	}
	return nil
}

func (s *Store) check() error {
	if s.closed.Load() {
		return kb.ErrClosed
	}
	return nil
}

// queries holds the SQL text of one schema.
type queries struct {
	ddl []string
	t   func(table string) string
}

func newQueries(schema string) queries {
	t := func(table string) string { return schema + "." + table }
	q := queries{
		t: t,
		ddl: []string{
			"CREATE SCHEMA IF NOT EXISTS " + schema,
			"CREATE TABLE " + t("terms") + ` (
				id bigint NOT NULL,
				h bytea NOT NULL,
				kind smallint NOT NULL,
				value text NOT NULL,
				datatype text NOT NULL,
				lang text NOT NULL,
				num double precision)`,
			"CREATE SEQUENCE " + t("term_ids") + " CACHE 1000",
			"CREATE TABLE " + t("quads") + " (s bigint NOT NULL, p bigint NOT NULL, o bigint NOT NULL, g bigint NOT NULL) PARTITION BY LIST (g)",
			"CREATE TABLE " + t("quads_default") + " PARTITION OF " + t("quads") + " DEFAULT",
			"CREATE TABLE " + t("counts") + " (p bigint NOT NULL, g bigint NOT NULL, n bigint NOT NULL, PRIMARY KEY (p, g))",
			"CREATE TABLE " + t("meta") + " (key text PRIMARY KEY, value text NOT NULL)",
			"INSERT INTO " + t("meta") + " VALUES ('version', '" + schemaVersion + "')",
		},
	}
	for _, ix := range append(termIndexes, quadIndexes...) {
		q.ddl = append(q.ddl, "CREATE "+ix.kind+" "+ix.name+" ON "+t(ix.table)+" ("+ix.cols+")")
	}
	return q
}

// index is an index of the store's tables.
type index struct{ kind, name, table, cols string }

// quadIndexes are the indexes of quads, which a large bulk load rebuilds.
var quadIndexes = []index{
	{"UNIQUE INDEX", "quads_spog", "quads", "s, p, o, g"},
	{"INDEX", "quads_posg", "quads", "p, o, s, g"},
	{"INDEX", "quads_ospg", "quads", "o, s, p, g"},
}

// termIndexes are the indexes of terms, which a load of many new terms
// rebuilds.
var termIndexes = []index{
	{"UNIQUE INDEX", "terms_id", "terms", "id"},
	{"UNIQUE INDEX", "terms_h", "terms", "h"},
}

var errZeroID = errors.New("pg: quad with a zero ID")
