package caliper

import (
	"context"
	"encoding/json"
	"math"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/internal/oracle"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

var base = convert.MustBase("http://perfkb.example/caliper/")

type memSink struct{ qs []kb.TermQuad }

func (m *memSink) Add(_ context.Context, q kb.TermQuad) error { m.qs = append(m.qs, q); return nil }
func (m *memSink) Close(context.Context, error) error         { return nil }

// result is what a conversion says, keyed by "p<rank>t0/<path>".
type result struct {
	values   map[string]map[string]float64 // rs → metric → value
	parent   map[string]string
	types    map[string][]string // region name → rdf:type local names
	exp      map[string][]string // experiment predicate → objects
	warnings []convert.Warning
}

func run(t *testing.T, file string, opts Options) result {
	t.Helper()
	sink := &memSink{}
	rep, err := New(filepath.Join("testdata", file), base, opts).Convert(context.Background(), sink)
	if err != nil {
		t.Fatal(err)
	}
	exp := base.String() + "exp/" + file
	rsPrefix := exp + "/rs/"
	r := result{values: map[string]map[string]float64{}, parent: map[string]string{}, types: map[string][]string{}, exp: map[string][]string{}, warnings: rep.Warnings}
	metricName := map[string]string{}
	metricValue := map[string]float64{}
	rsMetric := map[string][]string{}
	regionName := map[string]string{}
	regionTypes := map[string][]string{}
	for _, q := range sink.qs {
		s := q.S.Value
		switch q.P.Value {
		case ontology.HasMetric:
			rsMetric[strings.TrimPrefix(s, rsPrefix)] = append(rsMetric[strings.TrimPrefix(s, rsPrefix)], q.O.Value)
		case ontology.HasMetricName:
			metricName[s] = q.O.Value
		case ontology.HasMetricValue:
			v, err := strconv.ParseFloat(q.O.Value, 64)
			if err != nil {
				t.Fatal(err)
			}
			metricValue[s] = v
		case ontology.HasChildRS:
			r.parent[strings.TrimPrefix(q.O.Value, rsPrefix)] = strings.TrimPrefix(s, rsPrefix)
		case ontology.RegionName:
			regionName[s] = q.O.Value
		case ontology.RDFType:
			regionTypes[s] = append(regionTypes[s], strings.TrimPrefix(q.O.Value, ontology.Namespace))
		}
		if s == exp {
			r.exp[q.P.Value] = append(r.exp[q.P.Value], q.O.Value)
		}
	}
	for rs, ms := range rsMetric {
		r.values[rs] = map[string]float64{}
		for _, m := range ms {
			r.values[rs][metricName[m]] = metricValue[m]
		}
	}
	for iri, n := range regionName {
		r.types[n] = regionTypes[iri]
	}
	return r
}

func key(rank int, path ...string) string {
	return "p" + strconv.Itoa(rank) + "t0/" + convert.EscapeSegment(strings.Join(path, " => "))
}

func near(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

func hasWarning(ws []convert.Warning, sub string) bool {
	for _, w := range ws {
		if strings.Contains(w.Message, sub) {
			return true
		}
	}
	return false
}

// TestLuleshCali: Hatchet's LULESH .cali (Caliper 2.2.0-dev, seconds),
// values transcribed by hand from its ctx records.
func TestLuleshCali(t *testing.T) {
	r := run(t, "lulesh-annotation-profile.cali", Options{})
	main := key(0, "main")
	for m, want := range map[string]float64{
		"excl_wtime":        25121, // sum#time.duration=0.025121 s (line 17)
		"min_wtime":         285,   // min#time.duration=0.000285
		"max_wtime":         24836,
		"avg_time_duration": 12561,
		"count":             2,
	} {
		if got := r.values[main][m]; !near(got, want) {
			t.Errorf("main %s = %v, want %v", m, got, want)
		}
	}
	// The file has no inclusive time: main's wtime is the sum of the 19
	// sum#time.duration values of main and every region below it.
	var incl float64
	for _, s := range []float64{0.025121, 0.000206, 0.000102, 0.000226, 0.012400, 0.001854, 0.001841, 0.056681,
		0.059643, 0.080608, 0.001367, 0.002862, 0.055700, 0.031685, 0.014334, 0.002410, 0.044917, 0.095906, 0.004628} {
		incl += s * 1e6
	}
	if got := r.values[main]["wtime"]; !near(got, incl) {
		t.Errorf("main wtime = %v, want %v", got, incl)
	}
	// A leaf: wtime = excl_wtime.
	leaf := key(0, "main", "lulesh.cycle", "LagrangeLeapFrog", "LagrangeElements", "ApplyMaterialPropertiesForElems", "EvalEOSForElems", "CalcEnergyForElems")
	if r.values[leaf]["wtime"] != 95906 || r.values[leaf]["excl_wtime"] != 95906 {
		t.Errorf("CalcEnergyForElems: %v, want wtime = excl_wtime = 95906", r.values[leaf])
	}
	if p := r.parent[key(0, "main", "lulesh.cycle")]; p != main {
		t.Errorf("lulesh.cycle's parent summary %q, want %q", p, main)
	}
	// Hatchet's test of this file: 19 distinct region names.
	if len(r.types) != 19 {
		t.Errorf("%d regions, Hatchet finds 19", len(r.types))
	}
	if !contains(r.types["lulesh.cycle"], "LoopRegion") || !contains(r.types["main"], "MainProgramRegion") {
		t.Errorf("region classes: lulesh.cycle %v, main %v", r.types["lulesh.cycle"], r.types["main"])
	}
	if !contains(r.exp[ontology.ExperimentInfo], "cali.caliper.version=2.2.0-dev") {
		t.Errorf("experimentInfo %v", r.exp[ontology.ExperimentInfo])
	}
	if !hasWarning(r.warnings, "1 records outside every region") {
		t.Errorf("warnings %v", r.warnings)
	}
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// TestLuleshJSON: Hatchet's json-split LULESH profile (8 ranks, µs).
func TestLuleshJSON(t *testing.T) {
	r := run(t, "lulesh-annotation-profile.json", Options{})
	// Rows of rank 3, transcribed from the file: [inclusive, rank, sum, path].
	for _, tc := range []struct {
		path       []string
		incl, excl float64
	}{
		{[]string{"main"}, 5882996, 113830},
		{[]string{"main", "LagrangeLeapFrog", "LagrangeElements"}, 2286636, 670},
		{[]string{"main", "TimeIncrement"}, 323519, 323519},
		{[]string{"main", "LagrangeLeapFrog", "LagrangeNodal", "CalcForceForNodes", "CalcVolumeForceForElems", "CalcHourglassControlForElems", "CalcFBHourglassForceForElems"}, 1222919, 1222919},
	} {
		v := r.values[key(3, tc.path...)]
		if v["wtime"] != tc.incl || v["excl_wtime"] != tc.excl {
			t.Errorf("rank 3 %v: %v, want wtime %v excl_wtime %v", tc.path, v, tc.incl, tc.excl)
		}
	}
	// Hatchet reads 192 rows with a path (200 less one per rank outside
	// every region).
	if len(r.values) != 192 {
		t.Errorf("%d region summaries, want 192", len(r.values))
	}
	if !hasWarning(r.warnings, "8 records outside every region") {
		t.Errorf("warnings %v", r.warnings)
	}
	// Caliper's own inclusive column equals the exclusive value plus the
	// children's inclusive values: the tree is the file's.
	children := map[string]float64{}
	for rs, p := range r.parent {
		children[p] += r.values[rs]["wtime"]
	}
	for rs, v := range r.values {
		if got := v["excl_wtime"] + children[rs]; math.Abs(got-v["wtime"]) > 0.5 {
			t.Errorf("%s: excl_wtime + children's wtime = %v, wtime = %v", rs, got, v["wtime"])
		}
	}
}

// TestSpotAdiak: a Spot .cali with Adiak run metadata (units in
// attribute.unit metadata, cross-rank statistics).
func TestSpotAdiak(t *testing.T) {
	r := run(t, "spot-lulesh.cali", Options{})
	for _, want := range []string{"problem_size=30", "cluster=quartz", "jobsize=64", "cali.caliper.version=2.5.0-dev"} {
		if !contains(r.exp[ontology.ExperimentInfo], want) {
			t.Errorf("no experimentInfo %q in %v", want, r.exp[ontology.ExperimentInfo])
		}
	}
	if got := r.exp[ontology.ProblemSize]; len(got) != 1 || got[0] != "30" {
		t.Errorf("problemSize %v", got)
	}
	if got := r.exp[ontology.StartTime]; len(got) != 1 || got[0] != "2020-09-24T23:29:11" { // launchdate 1600990151
		t.Errorf("startTime %v", got)
	}
	// main: sum#inclusive#sum#time.duration=15043.856074 "sec".
	if got := r.values[key(0, "main")]["sum_inclusive_sum_time_duration"]; !near(got, 15043.856074e6) {
		t.Errorf("main sum_inclusive_sum_time_duration = %v", got)
	}
	if !hasWarning(r.warnings, "21 records of spot.channel other than regionprofile") {
		t.Errorf("warnings %v", r.warnings)
	}
}

// TestCPISampledJSON: a sampled call-path profile whose tree is the
// source.function#callpath.address column.
func TestCPISampledJSON(t *testing.T) {
	r := run(t, "cpi-callpath-profile.json", Options{})
	// First row: [62, 0, 0, 3, 4, 309432.0]: count 62, rank 0, path node 3
	// (_start > __libc_start_main > main).
	v := r.values[key(0, "_start", "__libc_start_main", "main")]
	if v["excl_wtime"] != 309432 || v["count"] != 62 {
		t.Errorf("rank 0 main: %v", v)
	}
	if !contains(r.types["MPI_Bcast"], "MPICollectiveRegion") && !contains(r.types["MPI_Bcast"], "MPICodeRegion") {
		t.Errorf("MPI_Bcast classes %v", r.types["MPI_Bcast"])
	}
	if !hasWarning(r.warnings, "module#cali.sampler.pc, sourceloc#cali.sampler.pc are not converted") {
		t.Errorf("warnings %v", r.warnings)
	}
}

// TestTimeUnitOption: --time-unit overrides the default.
func TestTimeUnitOption(t *testing.T) {
	r := run(t, "lulesh-annotation-profile.json", Options{TimeUnit: "ms"})
	if got := r.values[key(3, "main")]["wtime"]; got != 5882996e3 {
		t.Errorf("wtime with ms = %v", got)
	}
}

// oracleOut is what testdata/oracle/read.py prints.
type oracleOut struct {
	Rows []struct {
		Path   []string
		Rank   int
		Values map[string]*float64
	}
	Edges [][2][]string
}

// TestIndependentReaders compares every numeric value per (region path,
// rank) and every call-tree edge with LLNL's caliper-reader and with
// Hatchet's two Caliper readers (testdata/oracle/read.py). The readers name
// the columns by attribute (Hatchet: "time" for sum#time.duration, "time
// (inc)" for its inclusive sum, which Hatchet computes where the file has
// none); perfkb's name for an attribute is metricFor's, and the file's
// time.duration aggregates are in the file's time unit (seconds in these
// Caliper 2 .cali files, µs in json-split). Hatchet gives each sampled
// source line a node below its function; perfkb does not convert source
// lines, so read.py adds their values to the function's.
func TestIndependentReaders(t *testing.T) {
	for _, tc := range []struct {
		reader, module, file string
		unit                 float64 // µs per time.duration unit
	}{
		{"caliperreader", "caliperreader", "lulesh-annotation-profile.cali", 1e6},
		{"caliperreader", "caliperreader", "spot-lulesh.cali", 1e6},
		{"hatchet-cali", "hatchet", "lulesh-annotation-profile.cali", 1e6},
		{"hatchet-cali", "hatchet", "spot-lulesh.cali", 1e6},
		{"hatchet-json", "hatchet", "lulesh-annotation-profile.json", 1},
		{"hatchet-json", "hatchet", "cpi-callpath-profile.json", 1},
	} {
		t.Run(tc.reader+"/"+tc.file, func(t *testing.T) {
			py := oracle.Python(t, tc.module)
			cmd := exec.Command(py, filepath.Join("testdata", "oracle", "read.py"), tc.reader, filepath.Join("testdata", tc.file))
			var stderr strings.Builder
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("%s: %v\n%s", tc.reader, err, stderr.String())
			}
			var want oracleOut
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			r := run(t, tc.file, Options{})
			compared, equal, absentZero := 0, 0, 0
			for _, row := range want.Rows {
				k := key(row.Rank, row.Path...)
				for col, v := range row.Values {
					if v == nil {
						continue
					}
					name, _ := metricFor(col)
					switch col {
					case "time":
						name = "excl_wtime"
					case "time (inc)":
						name = "wtime"
					}
					w := *v
					if col == "time" || col == "time (inc)" || strings.HasSuffix(col, "time.duration") {
						w *= tc.unit
					}
					got, ok := r.values[k][name]
					if !ok && w == 0 {
						absentZero++ // Hatchet fills ranks without a record with 0
						continue
					}
					compared++
					if !ok || !near(got, w) {
						t.Errorf("%s %s: perfkb %s = %v (present %v), %s %v", k, col, name, got, ok, tc.reader, w)
						continue
					}
					equal++
				}
			}
			var wantEdges, gotEdges []string
			for _, e := range want.Edges {
				wantEdges = append(wantEdges, convert.EscapeSegment(strings.Join(e[0], " => "))+" -> "+convert.EscapeSegment(strings.Join(e[1], " => ")))
			}
			seen := map[string]bool{}
			for child, parent := range r.parent {
				e := parent[strings.Index(parent, "/")+1:] + " -> " + child[strings.Index(child, "/")+1:]
				if !seen[e] {
					seen[e] = true
					gotEdges = append(gotEdges, e)
				}
			}
			sort.Strings(wantEdges)
			sort.Strings(gotEdges)
			if !slices.Equal(gotEdges, wantEdges) {
				t.Errorf("call-tree edges differ from %s's:\n got %d %v\nwant %d %v", tc.reader, len(gotEdges), gotEdges, len(wantEdges), wantEdges)
			}
			if compared == 0 {
				t.Fatalf("%s gave no values", tc.reader)
			}
			t.Logf("%s by %s: %d of %d values equal (%d zero values of rows perfkb has no record for), %d of %d call-tree edges",
				tc.file, tc.reader, equal, compared, absentZero, len(gotEdges), len(wantEdges))
		})
	}
}
