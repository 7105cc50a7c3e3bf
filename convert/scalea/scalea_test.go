package scalea_test

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/convert/scalea"
	"github.com/perfkb/perfkb/convert/scalea/scaleatest"
	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/reasoner"
)

const baseIRI = "http://perfkb.example/site/innsbruck/"

var base = convert.MustBase(baseIRI)

var (
	srv        *pgtest.Server
	skipReason string
	fixtureDSN string
	fixtureDB  *sql.DB
	fixtureErr error
)

// TestMain shares one PostgreSQL server and one fixture repository (read
// only) between the tests of the package.
func TestMain(m *testing.M) {
	s, stop, reason, err := pgtest.StartMain()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	srv, skipReason = s, reason
	code := m.Run()
	if fixtureDB != nil {
		fixtureDB.Close()
	}
	if dropFixture != nil {
		_ = dropFixture()
	}
	if dropTemplate != nil {
		_ = dropTemplate()
	}
	stop()
	os.Exit(code)
}

var (
	fixtureOnce sync.Once
	dropFixture func() error
)

// server returns the shared server or skips the test.
func server(t *testing.T) *pgtest.Server {
	t.Helper()
	if srv == nil {
		t.Skip(skipReason)
	}
	return srv
}

// template is the small fixture repository, filled once; tests get
// copies of it (copying is much faster than filling).
var (
	templateOnce sync.Once
	templateDSN  string
	templateErr  error
	dropTemplate func() error
)

func fillTemplate(t *testing.T) string {
	t.Helper()
	server(t)
	templateOnce.Do(func() {
		ctx := context.Background()
		dsn, drop, err := srv.CreateDatabase(ctx)
		if err != nil {
			templateErr = err
			return
		}
		dropTemplate = drop
		db, err := sql.Open("postgres", dsn)
		if err != nil {
			templateErr = err
			return
		}
		defer db.Close() // nothing may stay connected to a template
		templateErr = scaleatest.Fill(ctx, db, scaleatest.Small())
		templateDSN = dsn
	})
	if templateErr != nil {
		t.Fatalf("creating the fixture repository: %v", templateErr)
	}
	return templateDSN
}

// repository returns a copy of the fixture repository, changed by the
// statements in mutate (run in one transaction with foreign key checks
// off, so dangling references can be planted).
func repository(t *testing.T, mutate ...string) (string, *sql.DB) {
	t.Helper()
	ctx := context.Background()
	dsn, drop, err := server(t).CreateDatabaseFrom(ctx, fillTemplate(t))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = drop() })
	db, err := sql.Open("postgres", dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if len(mutate) > 0 {
		tx, err := db.BeginTx(ctx, nil)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := tx.ExecContext(ctx, "SET LOCAL session_replication_role = replica"); err != nil {
			t.Fatal(err)
		}
		for _, m := range mutate {
			if _, err := tx.ExecContext(ctx, m); err != nil {
				t.Fatalf("%s: %v", m, err)
			}
		}
		if err := tx.Commit(); err != nil {
			t.Fatal(err)
		}
	}
	return dsn, db
}

// fixture is the unmodified repository, shared by read-only tests.
func fixture(t *testing.T) (string, *sql.DB) {
	t.Helper()
	fixtureOnce.Do(func() {
		ctx := context.Background()
		dsn, drop, err := server(t).CreateDatabaseFrom(ctx, fillTemplate(t))
		if err != nil {
			fixtureErr = err
			return
		}
		dropFixture = drop
		fixtureDSN = dsn
		fixtureDB, fixtureErr = sql.Open("postgres", dsn)
	})
	if fixtureErr != nil {
		t.Fatalf("copying the fixture repository: %v", fixtureErr)
	}
	return fixtureDSN, fixtureDB
}

func convertInto(t *testing.T, opt scalea.Options) (kb.Dataset, convert.Report) {
	t.Helper()
	ds := native.OpenMemory()
	ctx := context.Background()
	sink := convert.NewStoreSink(ctx, ds, rdfio.LoadOptions{Graph: opt.Base.Graph()})
	rep, err := convert.Run(ctx, scalea.New(opt), sink)
	if err != nil {
		t.Fatal(err)
	}
	return ds, rep
}

func sqlInt(t *testing.T, db *sql.DB, q string) int64 {
	t.Helper()
	var n int64
	if err := db.QueryRow(q).Scan(&n); err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	return n
}

const prefixes = "PREFIX perfonto: <" + ontology.Namespace + ">\nPREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>\n"

func rows(t *testing.T, ds kb.Dataset, q string) [][]kb.Term {
	t.Helper()
	res, err := query.Run(context.Background(), ds, q, query.Options{})
	if err != nil {
		t.Fatalf("%s: %v", q, err)
	}
	out, err := res.Rows()
	if err != nil {
		t.Fatal(err)
	}
	return out
}

func count(t *testing.T, ds kb.Dataset, where string) int64 {
	t.Helper()
	if !strings.Contains(where, "?x") {
		t.Fatalf("count counts ?x, which %q does not bind", where)
	}
	r := rows(t, ds, prefixes+"SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE { "+where+" }")
	n, err := strconv.ParseInt(r[0][0].Value, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// keyOf returns the key after prefix in a minted IRI: keyOf(<base>rs/17, "rs") = 17.
func keyOf(t *testing.T, iri kb.Term, segment string) int64 {
	t.Helper()
	rest, ok := strings.CutPrefix(iri.Value, baseIRI+segment+"/")
	if !ok {
		t.Fatalf("%v is not a %s IRI", iri, segment)
	}
	rest, _, _ = strings.Cut(rest, "/")
	n, err := strconv.ParseInt(rest, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestInstancesPerClass(t *testing.T) {
	_, db := fixture(t)
	dsn := fixtureDSN
	ds, rep := convertInto(t, scalea.Options{DSN: dsn, Base: base})
	if err := rep.Check(); err != nil {
		t.Error(err)
	}
	tests := []struct {
		name, where, sql string
	}{
		{"Application", "?x a perfonto:Application", "SELECT count(*) FROM Application"},
		{"Version", "?x a perfonto:Version", "SELECT count(*) FROM Version"},
		{"SourceFile", "?x a perfonto:SourceFile", "SELECT count(*) FROM SourceFile"},
		{"CodeRegion", "?x perfonto:regionIdentifier ?i", "SELECT count(*) FROM CodeRegion"},
		{"C.1 typed CodeRegion", "?x perfonto:hasCrType ?t", "SELECT count(*) FROM CodeRegion WHERE CodeRegionType IS NOT NULL"},
		{"Experiment", "?x a perfonto:Experiment", "SELECT count(*) FROM Experiment"},
		{"RegionSummary", "?x a perfonto:RegionSummary", "SELECT count(*) FROM RegionSummary"},
		{"ThreadUnit", "?x a perfonto:ThreadUnit", "SELECT count(*) FROM (SELECT DISTINCT experimentID, computationalNode, processID, threadID FROM RegionSummary) u"},
		{"ProcessUnit", "?x a perfonto:ProcessUnit", "SELECT count(*) FROM (SELECT DISTINCT experimentID, computationalNode, processID FROM RegionSummary) u"},
		{"NodeUnit", "?x a perfonto:NodeUnit", "SELECT count(*) FROM (SELECT DISTINCT experimentID, computationalNode FROM RegionSummary) u"},
		{"PerformanceMetric", "?x a perfonto:PerformanceMetric",
			`SELECT (SELECT count(*) FROM TimingMetrics) + (SELECT count(*) FROM HardwareMetrics) + (SELECT count(*) FROM TemporalOverheadMetrics)
			 + (SELECT count(*) FROM RegionSummary rs WHERE numberCalls IS NOT NULL AND NOT EXISTS (SELECT 1 FROM TimingMetrics m WHERE m.regionSummaryID = rs.regionSummaryID AND m.name = 'ncalls'))
			 + (SELECT count(*) FROM RegionSummary rs WHERE numberSubs IS NOT NULL)`},
		{"site MetricDefinition", "?x a perfonto:MetricDefinition", "SELECT count(DISTINCT pmcMetricName) FROM PMC WHERE pmcMetricName IN ('site_cache_events', 'site_ratio')"},
		{"Cluster", "?x a perfonto:Cluster", "SELECT count(*) FROM Cluster"},
		{"ComputationalNode", "?x a perfonto:ComputationalNode", "SELECT count(*) FROM ComputationalNode"},
		{"hostAlias", "?n perfonto:hostAlias ?x", "SELECT count(*) FROM ComputationalNode, unnest(hostAliases) a"},
		{"Network", "?x a perfonto:Network", "SELECT count(*) FROM Network"},
		{"collectives (table NetworkMPP2PPerf)", "?x a perfonto:NetworkMPColPerf", "SELECT count(*) FROM NetworkMPP2PPerf"},
		{"point-to-point (table NetworkMPColPerf)", "?x a perfonto:NetworkMPP2PPerf", "SELECT count(*) FROM NetworkMPColPerf"},
		{"NodeSharedMemoryPerf", "?x a perfonto:NodeSharedMemoryPerf", "SELECT count(*) FROM NodeSharedMemoryPerf"},
		{"BenchmarkValue", "?x a perfonto:BenchmarkValue",
			`SELECT (SELECT count(*) FROM NetworkMPP2PPerf, unnest(mpiBcast) v WHERE v IS NOT NULL)
			 + (SELECT count(*) FROM NetworkMPColPerf, unnest(mpiSync || mpiAsync || mpiSsend) v WHERE v IS NOT NULL)`},
		{"VirtualMachine", "?x a perfonto:VirtualMachine", "SELECT count(*) FROM VirtualMachine"},
		{"VirtualNode", "?x a perfonto:VirtualNode", "SELECT count(*) FROM VirtualNode"},
		{"onComputationalNode (every PU level; every fixture node name resolves)", "?x perfonto:onComputationalNode ?n",
			`SELECT (SELECT count(*) FROM (SELECT DISTINCT experimentID, computationalNode FROM RegionSummary) u)
			 + (SELECT count(*) FROM (SELECT DISTINCT experimentID, computationalNode, processID FROM RegionSummary) u)
			 + (SELECT count(*) FROM (SELECT DISTINCT experimentID, computationalNode, processID, threadID FROM RegionSummary) u)`},
	}
	for _, tt := range tests {
		got, want := count(t, ds, tt.where), sqlInt(t, db, tt.sql)
		if got != want || want == 0 {
			t.Errorf("%s: %d in the store, %d rows in the repository (want equal and > 0)", tt.name, got, want)
		}
	}
	// The ProcessUnit count is per experiment; the DPG links every thread.
	if n := count(t, ds, "?x a perfonto:ThreadUnit ; perfonto:hasParentPU ?p . ?p a perfonto:ProcessUnit ; perfonto:hasParentPU ?q . ?q a perfonto:NodeUnit"); n != count(t, ds, "?x a perfonto:ThreadUnit") {
		t.Errorf("%d thread units reach a node unit through a process unit; want all", n)
	}
	// Family classes: rule 1 of rules/perfonto.rules needs MPCodeRegion +
	// hasCrType "CR_MPIP2P".
	if got, want := count(t, ds, `?x a perfonto:MPCodeRegion ; perfonto:hasCrType "CR_MPIP2P"`), sqlInt(t, db, "SELECT count(*) FROM CodeRegion WHERE CodeRegionType = 'CR_MPIP2P'"); got != want {
		t.Errorf("MPCodeRegion with CR_MPIP2P: %d, want %d", got, want)
	}
	if got := sqlInt(t, db, "SELECT count(DISTINCT CodeRegionType) FROM CodeRegion"); got < 20 {
		t.Errorf("the fixture has %d code region types; want ≥ 20", got)
	}
}

// metricKey is one metric value for comparison: summary, table segment,
// name and the value as a float.
type metricKey struct {
	rs    int64
	table string
	name  string
	value float64
}

func TestMetricsMatchRows(t *testing.T) {
	dsn, db := fixture(t)
	ds, _ := convertInto(t, scalea.Options{DSN: dsn, Base: base})
	var want []metricKey
	for _, tbl := range []struct{ name, seg string }{{"TimingMetrics", "timing"}, {"HardwareMetrics", "hardware"}, {"TemporalOverheadMetrics", "overhead"}} {
		r, err := db.Query("SELECT regionSummaryID, name, value FROM " + tbl.name)
		if err != nil {
			t.Fatal(err)
		}
		for r.Next() {
			k := metricKey{table: tbl.seg}
			if err := r.Scan(&k.rs, &k.name, &k.value); err != nil {
				t.Fatal(err)
			}
			want = append(want, k)
		}
		r.Close()
	}
	var got []metricKey
	for _, row := range rows(t, ds, prefixes+`SELECT ?rs ?m ?name ?value ?def WHERE { ?rs perfonto:hasMetric ?m . ?m a perfonto:PerformanceMetric ; perfonto:hasMetricName ?name ; perfonto:hasMetricValue ?value ; perfonto:hasMetricDefinition ?def }`) {
		rs, m, name, value, def := row[0], row[1], row[2], row[3], row[4]
		seg := strings.Split(strings.TrimPrefix(m.Value, rs.Value+"/"), "/")[0]
		if seg == "summary" {
			continue // from RegionSummary.numberCalls/numberSubs, checked below
		}
		v, err := strconv.ParseFloat(value.Value, 64)
		if err != nil {
			t.Fatalf("metric %v value %v: %v", m, value, err)
		}
		got = append(got, metricKey{keyOf(t, rs, "rs"), seg, name.Value, v})
		// The catalog datatype, except a non-integral value of an int64
		// metric (double, with a warning).
		wantDT := convert.MetricDatatype(name.Value)
		if name.Value == "site_cache_events" {
			wantDT = ontology.XSDLong // PMC says int64
		}
		if wantDT == ontology.XSDLong && v != float64(int64(v)) {
			wantDT = ontology.XSDDouble
		}
		if value.Datatype != wantDT {
			t.Errorf("metric %v: value %v, want datatype %s", m, value, wantDT)
		}
		if cat, ok := ontology.LookupMetric(name.Value); ok && def.Value != cat.IRI {
			t.Errorf("metric %v: definition %v, want the catalog's %s", m, def, cat.IRI)
		} else if !ok && def.Value != baseIRI+"metric/"+name.Value {
			t.Errorf("metric %v: definition %v, want the site-local one", m, def)
		}
	}
	cmp := func(a, b metricKey) int {
		return strings.Compare(fmt.Sprint(a.rs, a.table, a.name, a.value), fmt.Sprint(b.rs, b.table, b.name, b.value))
	}
	slices.SortFunc(want, cmp)
	slices.SortFunc(got, cmp)
	if len(got) != len(want) {
		t.Fatalf("%d metrics in the store, %d metric rows", len(got), len(want))
	}
	for i := range want {
		if got[i] != want[i] {
			t.Fatalf("metric %d differs: store %+v, repository %+v", i, got[i], want[i])
		}
	}
	// Summaries without an ncalls metric row get one from numberCalls.
	for _, row := range rows(t, ds, prefixes+`SELECT ?rs ?v WHERE { ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName "ncalls" ; perfonto:hasMetricValue ?v . FILTER(STRENDS(STR(?m), "/summary/ncalls")) }`) {
		id := keyOf(t, row[0], "rs")
		var calls sql.NullInt64
		var inTable bool
		if err := db.QueryRow(`SELECT numberCalls, EXISTS (SELECT 1 FROM TimingMetrics WHERE regionSummaryID = $1 AND name = 'ncalls') FROM RegionSummary WHERE regionSummaryID = $1`, id).Scan(&calls, &inTable); err != nil {
			t.Fatal(err)
		}
		if inTable || !calls.Valid || row[1].Value != strconv.FormatInt(calls.Int64, 10) || row[1].Datatype != ontology.XSDLong {
			t.Errorf("summary %d: ncalls metric %v from numberCalls %v (in TimingMetrics too: %v)", id, row[1], calls, inTable)
		}
	}
}

func TestParentEdges(t *testing.T) {
	dsn, db := fixture(t)
	ds, _ := convertInto(t, scalea.Options{DSN: dsn, Base: base})
	var want, got [][2]int64
	r, err := db.Query("SELECT regionSummaryID, COALESCE(regionSummaryIDParent, parentRegion) FROM RegionSummary WHERE COALESCE(regionSummaryIDParent, parentRegion) IS NOT NULL")
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var e [2]int64
		if err := r.Scan(&e[0], &e[1]); err != nil {
			t.Fatal(err)
		}
		want = append(want, e)
	}
	r.Close()
	for _, row := range rows(t, ds, prefixes+"SELECT ?c ?p WHERE { ?c perfonto:hasParentRS ?p . ?p perfonto:hasChildRS ?c }") {
		got = append(got, [2]int64{keyOf(t, row[0], "rs"), keyOf(t, row[1], "rs")})
	}
	cmp := func(a, b [2]int64) int { return int(a[0]-b[0])*1_000_000 + int(a[1]-b[1]) }
	slices.SortFunc(want, cmp)
	slices.SortFunc(got, cmp)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("hasParentRS edges: %d in the store, %d non-null parent references (want equal, > 0)", len(got), len(want))
	}
}

func TestFig629(t *testing.T) {
	dsn, db := fixture(t)
	ds, _ := convertInto(t, scalea.Options{DSN: dsn, Base: base})
	rdql := `SELECT ?regionsummary
WHERE
(?regionsummary perfonto:inProcessingUnit ?processingunit)
(?processingunit perfonto:inNode "gsr410")
(?regionsummary perfonto:hasMetric ?metric)
(?metric perfonto:hasMetricName "wtime")
(?metric perfonto:hasMetricValue ?value)
AND (?value >=3E8)
USING perfonto
FOR <http://www.par.univie.ac.at/project/scalea/perfonto#>`
	var got, want []int64
	for _, row := range rows(t, ds, rdql) {
		got = append(got, keyOf(t, row[0], "rs"))
	}
	r, err := db.Query(`SELECT DISTINCT rs.regionSummaryID FROM RegionSummary rs JOIN TimingMetrics m ON m.regionSummaryID = rs.regionSummaryID
		WHERE rs.computationalNode = 'gsr410' AND m.name = 'wtime' AND m.value >= 3E8`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var id int64
		r.Scan(&id)
		want = append(want, id)
	}
	r.Close()
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("Fig. 6.29 RDQL: %v; SQL: %v (want equal, non-empty)", got, want)
	}
}

func TestExperimentSelectionAndBases(t *testing.T) {
	dsn, db := fixture(t)
	ds, _ := convertInto(t, scalea.Options{DSN: dsn, Base: base, Experiments: []int64{2}})
	exps := rows(t, ds, prefixes+"SELECT DISTINCT ?e WHERE { ?rs a perfonto:RegionSummary ; perfonto:inExperiment ?e }")
	if len(exps) != 1 || exps[0][0].Value != baseIRI+"exp/2" {
		t.Errorf("--experiment 2 converted the summaries of %v", exps)
	}
	if got, want := count(t, ds, "?x a perfonto:RegionSummary"), sqlInt(t, db, "SELECT count(*) FROM RegionSummary WHERE experimentID = 2"); got != want {
		t.Errorf("--experiment 2: %d summaries, want %d", got, want)
	}
	if got := count(t, ds, "?x a perfonto:Experiment"); got != 1 {
		t.Errorf("--experiment 2: %d experiments", got)
	}
	if got := count(t, ds, "?x a perfonto:Version"); got != 1 {
		t.Errorf("--experiment 2: %d versions, want the experiment's one", got)
	}
	if got := count(t, ds, "?x a perfonto:Cluster"); got != 2 {
		t.Errorf("--experiment keeps the resources; %d clusters", got)
	}
	ds, _ = convertInto(t, scalea.Options{DSN: dsn, Base: base, Experiments: []int64{2}, NoResources: true})
	if got := count(t, ds, "?x a perfonto:Cluster"); got != 0 {
		t.Errorf("--no-resources: %d clusters", got)
	}

	_, err := convert.Run(context.Background(), scalea.New(scalea.Options{DSN: dsn, Base: base, Experiments: []int64{2, 4711}}), convert.NewNTriplesSink(&strings.Builder{}, false))
	var unknown *scalea.UnknownExperimentError
	if !errors.As(err, &unknown) || !strings.Contains(err.Error(), "no experiment 4711") {
		t.Errorf("unknown --experiment: %v", err)
	}

	// Two bases never mint the same IRI.
	a, _ := converttest.Sorted(t, scalea.New(scalea.Options{DSN: dsn, Base: base}))
	b, _ := converttest.Sorted(t, scalea.New(scalea.Options{DSN: dsn, Base: convert.MustBase("http://perfkb.example/site/linz#")}))
	subjects := func(nt []byte) map[string]bool {
		m := map[string]bool{}
		for _, l := range strings.Split(string(nt), "\n") {
			if s, _, ok := strings.Cut(l, " "); ok {
				m[s] = true
			}
		}
		return m
	}
	sa, sb := subjects(a), subjects(b)
	for s := range sa {
		if sb[s] {
			t.Fatalf("both bases minted %s", s)
		}
	}
	if len(sa) == 0 || len(sa) != len(sb) {
		t.Errorf("%d and %d subjects for the two bases; want the same non-zero number", len(sa), len(sb))
	}
}

func TestNullsAndWarnings(t *testing.T) {
	dsn, _ := fixture(t)
	ds, rep := convertInto(t, scalea.Options{DSN: dsn, Base: base})
	// Experiment 4 has NULL endTime and compiler: no triple, no warning.
	if n := count(t, ds, "<"+baseIRI+"exp/4> perfonto:endTime ?x"); n != 0 {
		t.Errorf("NULL endTime gave %d triples", n)
	}
	if n := count(t, ds, "<"+baseIRI+"exp/4> perfonto:startTime ?x"); n != 1 {
		t.Errorf("experiment 4 has %d start times", n)
	}
	for _, w := range rep.Warnings {
		if strings.Contains(w.Position, "endTime") || strings.Contains(w.Position, "compiler") {
			t.Errorf("a NULL produced a warning: %s", w)
		}
	}
	wantWarnings := []string{
		`table CodeRegion key=22 column=CodeRegionType: unknown code region type "CR_SITE_SPECIFIC"`,
		`table ComputationalNode key=3 column=physMem: cannot read "lots" as a size`,
		`table ComputationalNode key=4 column=cpuSpeed: cannot read "fast" as a clock speed`,
		`table PMC key=7 column=pmcMetricName: metric "wtime" is defined again`,
		`table HardwareMetrics key=(regionSummaryID=5,name=L2_TCM) column=value: value 12.5 of an integer (xsd:long) metric is not integral`,
		`table TemporalOverheadMetrics key=(regionSummaryID=7,name=`,
	}
	all := fmt.Sprint(rep.Warnings)
	for _, w := range wantWarnings {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q:\n%s", w, all)
		}
	}
	// Units: "2 GB" is 2048 MB, "2.4 GHz" 2400 MHz, "lots" stays a string.
	checks := []struct{ q, want string }{
		{"<" + baseIRI + "node/1> perfonto:virtualMemory ?x", `"2048"^^<` + ontology.XSDLong + ">"},
		{"<" + baseIRI + "node/1> perfonto:cpuSpeed ?x", `"2400"^^<` + ontology.XSDDouble + ">"},
		{"<" + baseIRI + "node/2> perfonto:cpuSpeed ?x", `"800"^^<` + ontology.XSDDouble + ">"},
		{"<" + baseIRI + "node/3> perfonto:physicalMemory ?x", `"lots"`},
		{"<" + baseIRI + "node/1> perfonto:dataCacheSize ?x", `"16,512"`},
		{"<" + baseIRI + "NetworkMPP2PPerf/2/mpiBcast/3> perfonto:benchmarkTime ?x", `"150"^^<` + ontology.XSDDouble + ">"},
		{"<" + baseIRI + "exp/1> perfonto:endTime ?x", `"2005-03-01T11:30:00.25"^^<` + ontology.XSDDateTime + ">"},
		{"<" + baseIRI + "exp/1> perfonto:atSite ?s . ?s perfonto:siteName ?x", `"innsbruck"`},
		{"<" + baseIRI + "rs/23> perfonto:ofCodeRegion ?x", "<" + baseIRI + "cr/1>"},
	}
	for _, c := range checks {
		r := rows(t, ds, prefixes+"SELECT ?x WHERE { "+c.q+" }")
		if len(r) != 1 || r[0][0].String() != c.want {
			t.Errorf("%s: %v, want %s", c.q, r, c.want)
		}
	}
	// NULL array element: mpiBcast[2] of benchmark 2 is NULL.
	if n := count(t, ds, "<"+baseIRI+"NetworkMPP2PPerf/2> perfonto:hasBenchmarkValue ?x"); n != 4 {
		t.Errorf("benchmark 2 has %d bcast values; want the 4 non-NULL ones", n)
	}
}

// TestConformance runs the converter suite with the bad inputs of the
// issue, each on its own repository.
func TestConformance(t *testing.T) {
	dsn, _ := fixture(t)
	good := func(testing.TB) convert.Converter { return scalea.New(scalea.Options{DSN: dsn, Base: base}) }
	bad := func(name string, want []string, mutate ...string) converttest.BadCase {
		var once sync.Once
		var badDSN string
		return converttest.BadCase{Name: name, Want: want, New: func(tb testing.TB) convert.Converter {
			once.Do(func() { badDSN, _ = repository(t, mutate...) })
			return scalea.New(scalea.Options{DSN: badDSN, Base: base})
		}}
	}
	// The first summary of experiment 2 (even experiments use the ID
	// columns) and of experiment 1 (identifier columns).
	firstOf2 := "(SELECT min(regionSummaryID) FROM RegionSummary WHERE experimentID = 2)"
	firstOf1 := "(SELECT min(regionSummaryID) FROM RegionSummary WHERE experimentID = 1)"
	cases := []converttest.BadCase{
		{Name: "unreachable server", NotInvalidInput: true, Want: []string{"cannot connect", "127.0.0.1:1", "xxxxx"},
			New: func(testing.TB) convert.Converter {
				return scalea.New(scalea.Options{DSN: "postgres://perf:s3cret@127.0.0.1:1/scalea?sslmode=disable&connect_timeout=5", Base: base})
			}},
		{Name: "bad credentials", NotInvalidInput: true, Want: []string{"cannot connect", "nosuchuser", "xxxxx"},
			New: func(testing.TB) convert.Converter {
				return scalea.New(scalea.Options{DSN: withUser(t, dsn, "nosuchuser", "s3cret"), Base: base})
			}},
		bad("missing table", []string{"table HardwareMetrics", "missing table"}, "DROP TABLE HardwareMetrics"),
		bad("missing column", []string{"table RegionSummary column=numberSubs", "missing column"}, "ALTER TABLE RegionSummary DROP COLUMN numberSubs"),
		bad("dangling parent summary", []string{"table RegionSummary key=", "column=regionSummaryIDParent", "999999 is not in table RegionSummary"},
			"UPDATE RegionSummary SET regionSummaryIDParent = 999999 WHERE regionSummaryID = "+firstOf2+" + 1"),
		bad("dangling parentRegion", []string{"column=parentRegion", "999999 is not in table RegionSummary"},
			"UPDATE RegionSummary SET parentRegion = 999999 WHERE regionSummaryID = "+firstOf1+" + 1"),
		bad("dangling experiment", []string{"table RegionSummary key=", "column=experimentID", "777 is not in table Experiment"},
			"UPDATE RegionSummary SET experimentID = 777 WHERE regionSummaryID = "+firstOf2),
		bad("dangling code region", []string{"column=codeRegionID", "99999 is not in table CodeRegion"},
			"UPDATE RegionSummary SET codeRegionID = 99999 WHERE regionSummaryID = "+firstOf2),
		bad("unknown region identifier", []string{"column=codeRegion:", "4242 is not in table CodeRegion (by codeRegion within version"},
			"UPDATE RegionSummary SET codeRegion = 4242 WHERE regionSummaryID = "+firstOf1),
		bad("dangling version", []string{"table Experiment key=2 column=versionID", "888 is not in table Version"},
			"UPDATE Experiment SET versionID = 888 WHERE experimentID = 2"),
		bad("dangling source file", []string{"table CodeRegion key=3 column=sourceFileID", "is not in table SourceFile"},
			"UPDATE CodeRegion SET sourceFileID = 5555 WHERE codeRegionID = 3"),
		bad("metric value not a number", []string{"table TimingMetrics key=(regionSummaryID=", "not a number"},
			"ALTER TABLE TimingMetrics ALTER COLUMN value TYPE TEXT", "UPDATE TimingMetrics SET value = 'fast' WHERE regionSummaryID = 3 AND name = 'stime'"),
		// Impossible values: refused, with the row and column.
		bad("NaN wtime", []string{"table TimingMetrics key=(regionSummaryID=3,name=wtime) column=value", "value NaN is not a finite number"},
			"UPDATE TimingMetrics SET value = 'NaN' WHERE regionSummaryID = 3 AND name = 'wtime'"),
		bad("-Infinity wtime", []string{"table TimingMetrics key=(regionSummaryID=3,name=wtime) column=value", "value -Infinity is not a finite number"},
			"UPDATE TimingMetrics SET value = '-Infinity' WHERE regionSummaryID = 3 AND name = 'wtime'"),
		bad("negative call count", []string{"table RegionSummary key=", "column=numberCalls", "numberCalls is -3: a count cannot be negative"},
			"UPDATE RegionSummary SET numberCalls = -3 WHERE regionSummaryID = "+firstOf2),
		bad("negative subroutine count", []string{"column=numberSubs", "numberSubs is -1: a count cannot be negative"},
			"UPDATE RegionSummary SET numberSubs = -1 WHERE regionSummaryID = "+firstOf1),
		bad("summary self-loop", []string{"table RegionSummary key=", "column=regionSummaryIDParent", "the row is its own parent"},
			"UPDATE RegionSummary SET regionSummaryIDParent = regionSummaryID WHERE regionSummaryID = "+firstOf2+" + 1"),
		bad("summary cycle", []string{"table RegionSummary key=", "parent cycle through 2 rows"},
			"UPDATE RegionSummary SET regionSummaryIDParent = "+firstOf2+" + 2 WHERE regionSummaryID = "+firstOf2+" + 1",
			"UPDATE RegionSummary SET regionSummaryIDParent = "+firstOf2+" + 1 WHERE regionSummaryID = "+firstOf2+" + 2"),
		bad("parentRegion cycle", []string{"table RegionSummary key=", "parent cycle through 3 rows"},
			"UPDATE RegionSummary SET parentRegion = "+firstOf1+" + 2 WHERE regionSummaryID = "+firstOf1+" + 1",
			"UPDATE RegionSummary SET parentRegion = "+firstOf1+" + 3 WHERE regionSummaryID = "+firstOf1+" + 2",
			"UPDATE RegionSummary SET parentRegion = "+firstOf1+" + 1 WHERE regionSummaryID = "+firstOf1+" + 3"),
		bad("code region self-loop", []string{"table CodeRegion key=3 column=parentCodeRegionID", "the row is its own parent"},
			"UPDATE CodeRegion SET parentCodeRegionID = 3 WHERE codeRegionID = 3"),
		bad("code region cycle", []string{"table CodeRegion key=3 column=parentCodeRegionID", "parent cycle through 2 rows (keys 3 → 4)"},
			"UPDATE CodeRegion SET parentCodeRegionID = 4 WHERE codeRegionID = 3", "UPDATE CodeRegion SET parentCodeRegionID = 3 WHERE codeRegionID = 4"),
	}
	converttest.Run(t, converttest.Suite{New: good, Graph: base.Graph(), Bad: cases})
}

// withUser returns dsn with another user and password.
func withUser(t *testing.T, dsn, user, password string) string {
	t.Helper()
	if !strings.HasPrefix(dsn, "postgres://") {
		t.Skip("the bad-credentials case needs a URL DSN")
	}
	rest := strings.TrimPrefix(dsn, "postgres://")
	at := strings.Index(rest, "@")
	return "postgres://" + user + ":" + password + "@" + rest[at+1:]
}

func TestLenient(t *testing.T) {
	dsn, db := repository(t,
		"UPDATE Experiment SET versionID = 888 WHERE experimentID = 2",
		"UPDATE RegionSummary SET codeRegionID = 99999 WHERE regionSummaryID = (SELECT min(regionSummaryID) FROM RegionSummary WHERE experimentID = 4)")
	ds, rep := convertInto(t, scalea.Options{DSN: dsn, Base: base, Lenient: true})
	all := fmt.Sprint(rep.Warnings)
	for _, w := range []string{"table Experiment key=2 column=versionID: dangling reference: versionID 888 is not in table Version; row dropped", "column=codeRegionID: dangling reference: codeRegionID 99999"} {
		if !strings.Contains(all, w) {
			t.Errorf("warnings lack %q: %s", w, all)
		}
	}
	if n := count(t, ds, "<"+baseIRI+"exp/2> ?p ?x"); n != 0 {
		t.Errorf("the dropped experiment has %d triples", n)
	}
	// Its summaries and their metrics are dropped with it; the bad summary
	// of experiment 4 too, with the summaries below it (they depend on it).
	subtree := sqlInt(t, db, `WITH RECURSIVE d AS (
		SELECT regionSummaryID FROM RegionSummary WHERE regionSummaryID = (SELECT min(regionSummaryID) FROM RegionSummary WHERE experimentID = 4)
		UNION SELECT r.regionSummaryID FROM RegionSummary r JOIN d ON COALESCE(r.regionSummaryIDParent, r.parentRegion) = d.regionSummaryID)
		SELECT count(*) FROM d`)
	if subtree < 2 {
		t.Fatalf("the dropped summary has a subtree of %d", subtree)
	}
	want := sqlInt(t, db, "SELECT count(*) FROM RegionSummary WHERE experimentID <> 2") - subtree
	if got := count(t, ds, "?x a perfonto:RegionSummary"); got != want {
		t.Errorf("%d summaries, want %d", got, want)
	}
	if n := count(t, ds, "?rs perfonto:hasMetric ?x . FILTER NOT EXISTS { ?rs a perfonto:RegionSummary }"); n != 0 {
		t.Errorf("%d metrics of dropped summaries", n)
	}
}

// TestShippedRulesFire runs rules/perfonto.rules unchanged on converted
// data: rule 1 (Fig. 6.30) flags exactly the MPI point-to-point summaries
// whose average message length exceeds 65536 bytes.
func TestShippedRulesFire(t *testing.T) {
	dsn, db := fixture(t)
	ds, _ := convertInto(t, scalea.Options{DSN: dsn, Base: base})
	prog, err := reasoner.LoadProgram([]string{"PERFONTO"}, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Run(context.Background(), ds, prog, reasoner.Options{}); err != nil {
		t.Fatal(err)
	}
	var got []int64
	for _, row := range rows(t, ds, prefixes+"SELECT DISTINCT ?rs WHERE { ?rs perfonto:hasProblem ?f . ?f a perfonto:BigMessage }") {
		got = append(got, keyOf(t, row[0], "rs"))
	}
	var want []int64
	r, err := db.Query(`SELECT DISTINCT rs.regionSummaryID FROM RegionSummary rs
		JOIN Experiment e ON e.experimentID = rs.experimentID
		JOIN CodeRegion c ON c.codeRegionID = rs.codeRegionID
		   OR (rs.codeRegionID IS NULL AND c.codeRegion = rs.codeRegion AND c.sourceFileID IN (SELECT sourceFileID FROM SourceFile WHERE versionID = e.versionID))
		JOIN HardwareMetrics m ON m.regionSummaryID = rs.regionSummaryID
		WHERE c.CodeRegionType = 'CR_MPIP2P' AND m.name = 'AvgMessageLength' AND m.value > 65536`)
	if err != nil {
		t.Fatal(err)
	}
	for r.Next() {
		var id int64
		r.Scan(&id)
		want = append(want, id)
	}
	r.Close()
	slices.Sort(got)
	slices.Sort(want)
	if len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("BigMessage findings on %d summaries; SQL finds %d (want equal, > 0)", len(got), len(want))
	}
}

// TestNodeNamesAndPositions: a processing unit's node is found by host
// name or alias, an unknown node name is a warning; --positions col-line
// swaps CodeRegion's _x and _y.
func TestNodeNamesAndPositions(t *testing.T) {
	dsn, _ := repository(t,
		"UPDATE RegionSummary SET computationalNode = 'gsr410.site.example' WHERE experimentID = 1 AND computationalNode = 'gsr410'",
		"UPDATE RegionSummary SET computationalNode = 'ghost' WHERE experimentID = 3")
	ds, rep := convertInto(t, scalea.Options{DSN: dsn, Base: base, ColumnLine: true})
	r := rows(t, ds, prefixes+`SELECT DISTINCT ?n WHERE { ?pu perfonto:inNode "gsr410.site.example" ; perfonto:onComputationalNode ?n }`)
	if len(r) != 1 || r[0][0].Value != baseIRI+"node/1" {
		t.Errorf("alias gsr410.site.example resolves to %v, want node/1", r)
	}
	if n := count(t, ds, `?x perfonto:inNode "ghost" ; perfonto:onComputationalNode ?n`); n != 0 {
		t.Errorf("unknown node ghost got %d onComputationalNode links", n)
	}
	if n := count(t, ds, `?x perfonto:inNode "ghost"`); n == 0 {
		t.Error("the processing units on node ghost are missing")
	}
	if all := fmt.Sprint(rep.Warnings); !strings.Contains(all, `node "ghost" is neither a hostName nor a hostAlias`) {
		t.Errorf("no warning about node ghost: %s", all)
	}
	// The fixture's first region: startPos_x 10 (line), startPos_y 7.
	r = rows(t, ds, prefixes+"SELECT ?l ?c WHERE { <"+baseIRI+"cr/1> perfonto:startLine ?l ; perfonto:startColumn ?c }")
	if len(r) != 1 || r[0][0].Value != "7" || r[0][1].Value != "10" {
		t.Errorf("col-line positions of cr/1: %v, want line 7 column 10", r)
	}
}
