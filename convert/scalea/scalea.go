package scalea

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"

	_ "github.com/lib/pq" // the "postgres" database/sql driver

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
)

// DefaultFetchSize is the number of rows one FETCH reads from a cursor.
const DefaultFetchSize = 10000

// Options configure a conversion.
type Options struct {
	// DSN names the repository database (a postgres:// URL or key=value
	// string, as github.com/lib/pq reads it).
	DSN string
	// Base is the base IRI of everything converted.
	Base convert.Base
	// Site is the perfonto:siteName of <base>site; default Base.Name().
	Site string
	// Experiments, when not empty, restricts the conversion to these
	// experiments (their applications, versions, source files and code
	// regions included); the catalog and resources are converted anyway.
	Experiments []int64
	// NoResources skips the resource and benchmark tables.
	NoResources bool
	// Lenient turns dangling references into warnings; the row is dropped.
	Lenient bool
	// ColumnLine reads CodeRegion startPos_x/endPos_x as columns and _y
	// as lines (--positions col-line); by default _x is the line.
	ColumnLine bool
	// FetchSize is the number of rows per FETCH (default DefaultFetchSize).
	FetchSize int
}

// UnknownExperimentError is an --experiment id the repository does not
// hold: a usage error rather than bad data.
type UnknownExperimentError struct{ IDs []int64 }

func (e *UnknownExperimentError) Error() string {
	s := make([]string, len(e.IDs))
	for i, id := range e.IDs {
		s[i] = strconv.FormatInt(id, 10)
	}
	return "no experiment " + strings.Join(s, ", ") + " in the repository (table Experiment)"
}

// Converter converts one SCALEA repository. Build it with New.
type Converter struct {
	opt    Options
	source string // the DSN without its password
}

// New returns a converter for opt.
func New(opt Options) *Converter {
	if opt.FetchSize <= 0 {
		opt.FetchSize = DefaultFetchSize
	}
	if opt.Site == "" {
		opt.Site = opt.Base.Name()
	}
	return &Converter{opt: opt, source: RedactDSN(opt.DSN)}
}

// Source is the repository's DSN without its password.
func (c *Converter) Source() string { return c.source }

var kvPassword = regexp.MustCompile(`(?i)(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)`)

// RedactDSN hides the password of a DSN, for messages.
func RedactDSN(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && (u.Scheme == "postgres" || u.Scheme == "postgresql") {
		s := u.Redacted()
		q := u.Query()
		if q.Has("password") {
			q.Set("password", "xxxxx")
			u.RawQuery = q.Encode()
			s = u.Redacted()
		}
		return s
	}
	return kvPassword.ReplaceAllString(dsn, "${1}xxxxx")
}

// run is the state of one conversion.
type run struct {
	*Converter
	tx      *sql.Tx
	em      *convert.Emitter
	cursors int
	filter  string // SQL list of selected experiment ids, "" for all
	// dropped holds rows --lenient dropped, per table, so rows that
	// depend on them are dropped too.
	dropped map[string]map[int64]bool
	metrics map[string]metricInfo // by metric name
	names   map[string]string     // metric names read, interned
	// streams are the COPY streams of the large tables, by table.
	streams map[string]*copyStream
	nodes   map[string]int64 // computational node name or alias → compNodeID
	// parents holds each row's parent key in CodeRegion and RegionSummary,
	// to refuse cycles once the table is read.
	parents map[string]map[int64]int64
}

// Convert reads the repository in one REPEATABLE READ READ ONLY
// transaction and emits its triples.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	r := &run{Converter: c, em: convert.NewEmitter("scalea", c.source, sink), dropped: map[string]map[int64]bool{}}
	err := r.convert(ctx)
	return r.em.Report(), err
}

func (r *run) convert(ctx context.Context) error {
	if r.opt.Base.IsZero() {
		return errors.New("scalea: no base IRI")
	}
	db, err := sql.Open("postgres", r.opt.DSN)
	if err != nil {
		return fmt.Errorf("scalea: bad DSN %s: %w", r.source, err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	if err := db.PingContext(ctx); err != nil {
		return fmt.Errorf("cannot connect to the SCALEA repository %s: %w", r.source, err)
	}
	// One consistent snapshot for every table.
	tx, err := db.BeginTx(ctx, &sql.TxOptions{Isolation: sql.LevelRepeatableRead, ReadOnly: true})
	if err != nil {
		return fmt.Errorf("scalea: %s: begin transaction: %w", r.source, err)
	}
	defer tx.Rollback()
	r.tx = tx
	// The metric tables are sorted by summary: give the sorts memory
	// (this session only) so they do not spill to disk, plan cursors for
	// the whole result (hash joins) rather than for the first rows, and
	// skip JIT compilation, which costs more than it saves here.
	for _, set := range append(sessionSettings, "SET LOCAL cursor_tuple_fraction = 1.0") {
		if _, err := tx.ExecContext(ctx, set); err != nil {
			return fmt.Errorf("scalea: %s: %s: %w", r.source, set, err)
		}
	}
	if err := r.checkSchema(ctx); err != nil {
		return err
	}
	if err := r.selectExperiments(ctx); err != nil {
		return err
	}
	if err := r.startStreams(ctx); err != nil {
		return err
	}
	defer r.closeStreams()
	steps := []func(context.Context) error{r.catalog, r.nodeNames}
	if !r.opt.NoResources {
		steps = append(steps, r.site, r.clusters, r.computationalNodes, r.networks, r.collectiveBench, r.p2pBench, r.sharedMemoryBench, r.virtualMachines, r.virtualNodes)
	}
	steps = append(steps, r.applications, r.versions, r.sourceFiles, r.codeRegions, r.parentCycle("CodeRegion", "parentCodeRegionID"),
		r.experiments, r.processingUnits, r.regionSummaries, r.parentCycle("RegionSummary", "regionSummaryIDParent/parentRegion"))
	for _, m := range metricTables {
		steps = append(steps, r.metricTable(m.table, m.segment))
	}
	for _, step := range steps {
		if err := step(ctx); err != nil {
			return err
		}
	}
	return tx.Commit()
}

// schema lists the tables and columns the converter reads (Appendix E).
var schema = []struct {
	table   string
	columns []string
}{
	{"PMC", []string{"pmcID", "pmcMetricName", "pmcMetricUnit", "pmcMetricDataType", "pmcMetricDesc"}},
	{"VirtualMachine", []string{"virtualMachineID", "name"}},
	{"VirtualNode", []string{"virtualNodeID", "name", "numCpu", "virtualMachineID"}},
	{"Cluster", []string{"clusterID", "name", "totalFlops"}},
	{"Network", []string{"networkID", "name", "bandwidth", "latency", "clusterID"}},
	{"NetworkMPP2PPerf", []string{"colMPICommID", "mpilibName", "numNode", "mpiBarrier", "mpiBcast", "networkID"}},
	{"NetworkMPColPerf", []string{"perfMPICompNodeID", "mpilibName", "mpiSync", "mpiAsync", "mpiSsend", "networkID"}},
	{"NodeSharedMemoryPerf", []string{"perfOMPCompNodeID", "omplibName", "clusterID"}},
	{"ComputationalNode", []string{"compNodeID", "hostName", "hostAliases", "hostAddresses", "systemModel", "physMem", "virtMem", "numCpu", "cpuType", "cpuSpeed", "osName", "osVersion", "hardDiskSize", "dataCacheSize", "cacheMissPenalty", "clusterID"}},
	{"Application", []string{"applicationID", "name"}},
	{"Version", []string{"versionID", "versionInfo", "applicationID"}},
	{"SourceFile", []string{"sourceFileID", "name", "contents", "location", "versionID"}},
	{"CodeRegion", []string{"codeRegionID", "startPos_x", "startPos_y", "endPos_x", "endPos_y", "CodeRegionType", "CodeRegionUnit", "codeRegion", "sourceFileID", "parentCodeRegionID"}},
	{"Experiment", []string{"experimentID", "info", "startTime", "endTime", "commandLine", "compiler", "compilerOptions", "versionID"}},
	{"ProcessingUnit", []string{"puID", "computationalNode", "processID", "threadID"}},
	{"RegionSummary", []string{"regionSummaryID", "computationalNode", "processID", "threadID", "codeRegion", "puID", "parentRegion", "codeRegionGroup", "numberCalls", "numberSubs", "codeRegionID", "regionSummaryIDParent", "experimentID"}},
	{"TimingMetrics", []string{"name", "value", "regionSummaryID"}},
	{"HardwareMetrics", []string{"name", "value", "regionSummaryID"}},
	{"TemporalOverheadMetrics", []string{"name", "value", "regionSummaryID"}},
}

// resourceTables are skipped by the schema check with NoResources.
var resourceTables = map[string]bool{"VirtualMachine": true, "VirtualNode": true, "Cluster": true, "Network": true, "NetworkMPP2PPerf": true, "NetworkMPColPerf": true, "NodeSharedMemoryPerf": true}

// checkSchema names the first missing table or column before anything is
// read.
func (r *run) checkSchema(ctx context.Context) error {
	rows, err := r.tx.QueryContext(ctx, `SELECT lower(table_name), lower(column_name) FROM information_schema.columns WHERE table_schema = ANY (current_schemas(false))`)
	if err != nil {
		return fmt.Errorf("scalea: %s: reading the schema: %w", r.source, err)
	}
	defer rows.Close()
	have := map[string]map[string]bool{}
	for rows.Next() {
		var t, c string
		if err := rows.Scan(&t, &c); err != nil {
			return err
		}
		if have[t] == nil {
			have[t] = map[string]bool{}
		}
		have[t][c] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	for _, t := range schema {
		if r.opt.NoResources && resourceTables[t.table] {
			continue
		}
		cols := have[strings.ToLower(t.table)]
		if cols == nil {
			return convert.Errorf(r.source, convert.SQLPosition(t.table, "", ""), "missing table %s (the Appendix E schema has it; see convert/scalea/testdata/schema.sql)", t.table)
		}
		for _, c := range t.columns {
			if !cols[strings.ToLower(c)] {
				return convert.Errorf(r.source, convert.SQLPosition(t.table, "", c), "missing column %s.%s (the Appendix E schema has it)", t.table, c)
			}
		}
	}
	return nil
}

// selectExperiments checks --experiment ids and builds the SQL filter.
func (r *run) selectExperiments(ctx context.Context) error {
	if len(r.opt.Experiments) == 0 {
		return nil
	}
	ids := slices.Clone(r.opt.Experiments)
	slices.Sort(ids)
	ids = slices.Compact(ids)
	s := make([]string, len(ids))
	for i, id := range ids {
		s[i] = strconv.FormatInt(id, 10)
	}
	r.filter = strings.Join(s, ",")
	found := map[int64]bool{}
	rows, err := r.tx.QueryContext(ctx, `SELECT experimentID FROM Experiment WHERE experimentID IN (`+r.filter+`)`)
	if err != nil {
		return fmt.Errorf("scalea: %s: %w", r.source, err)
	}
	defer rows.Close()
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return err
		}
		found[id] = true
	}
	if err := rows.Err(); err != nil {
		return err
	}
	var missing []int64
	for _, id := range ids {
		if !found[id] {
			missing = append(missing, id)
		}
	}
	if len(missing) > 0 {
		return &UnknownExperimentError{IDs: missing}
	}
	return nil
}

// where returns cond restricted to the selected experiments: col is the
// column holding an experiment id; "" when all are converted.
func (r *run) where(col string) string {
	if r.filter == "" {
		return ""
	}
	return col + " IN (" + r.filter + ")"
}

// each runs query through a server-side cursor, FETCHing FetchSize rows at
// a time, and calls scan for every row, so memory is bounded by a batch.
func (r *run) each(ctx context.Context, query string, scan func(*sql.Rows) error) error {
	r.cursors++
	name := "scalea_c" + strconv.Itoa(r.cursors)
	if _, err := r.tx.ExecContext(ctx, "DECLARE "+name+" NO SCROLL CURSOR FOR "+query); err != nil {
		return fmt.Errorf("scalea: %s: %w\nquery: %s", r.source, err, query)
	}
	fetch := "FETCH " + strconv.Itoa(r.opt.FetchSize) + " FROM " + name
	for {
		rows, err := r.tx.QueryContext(ctx, fetch)
		if err != nil {
			return fmt.Errorf("scalea: %s: %w", r.source, err)
		}
		n := 0
		for rows.Next() {
			n++
			if err := scan(rows); err != nil {
				rows.Close()
				return err
			}
		}
		if err := rows.Err(); err != nil {
			rows.Close()
			return fmt.Errorf("scalea: %s: %w", r.source, err)
		}
		rows.Close()
		if n < r.opt.FetchSize {
			break
		}
		if err := ctx.Err(); err != nil {
			return err
		}
	}
	_, err := r.tx.ExecContext(ctx, "CLOSE "+name)
	return err
}

// dangling reports a reference to a missing row: an error, or with
// Lenient a warning, the row then being dropped (dropped returns true).
func (r *run) dangling(table string, key int64, column, target string, value int64) (drop bool, err error) {
	pos := convert.SQLPosition(table, strconv.FormatInt(key, 10), column)
	msg := fmt.Sprintf("dangling reference: %s %d is not in table %s", column, value, target)
	if !r.opt.Lenient {
		return true, convert.Errorf(r.source, pos, "%s (--lenient drops such rows with a warning)", msg)
	}
	r.em.Warn(pos, "%s; row dropped", msg)
	r.drop(table, key)
	return true, nil
}

func (r *run) drop(table string, key int64) {
	if r.dropped[table] == nil {
		r.dropped[table] = map[int64]bool{}
	}
	r.dropped[table][key] = true
}

func (r *run) isDropped(table string, key int64) bool { return r.dropped[table][key] }

// key returns the IRI <base>segment/id.
func (r *run) key(segment string, id int64) kb.Term {
	return r.opt.Base.IRI(segment, strconv.FormatInt(id, 10))
}

// setParent notes that row key of table hangs under parent; a row that is
// its own parent is refused at once.
func (r *run) setParent(table string, key int64, column string, parent int64) error {
	if parent == key {
		return convert.Errorf(r.source, convert.SQLPosition(table, id(key), column), "the row is its own parent: a %s tree cannot contain a self-loop", table)
	}
	if r.parents == nil {
		r.parents = map[string]map[int64]int64{}
	}
	m := r.parents[table]
	if m == nil {
		m = map[int64]int64{}
		r.parents[table] = m
	}
	m[key] = parent
	return nil
}

// parentCycle refuses a cycle among the parent links of table read so far:
// call trees and region nesting are trees, and a cycle would make every
// walk up them endless.
func (r *run) parentCycle(table, column string) func(context.Context) error {
	return func(context.Context) error {
		parent := r.parents[table]
		// state: 0 unseen, 1 on the current path, 2 known to reach a root.
		state := make(map[int64]uint8, len(parent))
		keys := make([]int64, 0, len(parent))
		for k := range parent {
			keys = append(keys, k)
		}
		slices.Sort(keys) // the same row reported on every run
		for _, start := range keys {
			var path []int64
			k := start
			for {
				st := state[k]
				if st == 2 {
					break
				}
				if st == 1 {
					// k is on the path: the cycle is from k on.
					i := slices.Index(path, k)
					cyc := path[i:]
					first := slices.Min(cyc)
					return convert.Errorf(r.source, convert.SQLPosition(table, id(first), column), "parent cycle through %d rows (keys %s): a %s tree cannot contain a cycle", len(cyc), joinKeys(cyc), table)
				}
				p, has := parent[k]
				if !has {
					break
				}
				state[k] = 1
				path = append(path, k)
				k = p
			}
			for _, q := range path {
				state[q] = 2
			}
		}
		delete(r.parents, table)
		return nil
	}
}

func joinKeys(keys []int64) string {
	const most = 10
	parts := make([]string, 0, most+1)
	for i, k := range keys {
		if i == most {
			parts = append(parts, "…")
			break
		}
		parts = append(parts, id(k))
	}
	return strings.Join(parts, " → ")
}
