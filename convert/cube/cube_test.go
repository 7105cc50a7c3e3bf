package cube

import (
	"archive/tar"
	"context"
	"encoding/binary"
	"encoding/csv"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

var base = convert.MustBase("http://perfkb.example/cube/")

type collect struct {
	qs  []kb.TermQuad
	idx map[[2]string][]kb.Term
}

func (c *collect) Add(_ context.Context, q kb.TermQuad) error { c.qs = append(c.qs, q); return nil }
func (c *collect) Close(context.Context, error) error         { return nil }

func (c *collect) objects(s, p string) []kb.Term {
	if c.idx == nil {
		c.idx = map[[2]string][]kb.Term{}
		for _, q := range c.qs {
			k := [2]string{q.S.Value, q.P.Value}
			c.idx[k] = append(c.idx[k], q.O)
		}
	}
	return c.idx[[2]string{s, p}]
}

func convertFile(t *testing.T, path string) (*collect, convert.Report) {
	t.Helper()
	c := &collect{}
	rep, err := New(path, base, Options{}).Convert(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	return c, rep
}

// rsOf is the region summary IRI of a cnode on the thread (p, t).
func rsOf(path string, p, th, cnode int) string {
	abs, _ := filepath.Abs(path)
	exp := base.IRI("exp", filepath.Base(filepath.Dir(abs)), strings.TrimSuffix(filepath.Base(path), ".cubex")).Value
	return fmt.Sprintf("%s/rs/p%dt%d/%d", exp, p, th, cnode)
}

// metricValue returns the value of a region summary's metric and whether
// it is there.
func metricValue(t *testing.T, c *collect, rs, name string) (float64, bool) {
	t.Helper()
	vs := c.objects(rs+"/"+name, ontology.HasMetricValue)
	if len(vs) == 0 {
		return 0, false
	}
	if len(vs) > 1 {
		t.Fatalf("%s %s has %d values", rs, name, len(vs))
	}
	if names := c.objects(rs+"/"+name, ontology.HasMetricName); len(names) != 1 || names[0] != kb.String(name) {
		t.Errorf("%s/%s metric name %v", rs, name, names)
	}
	if !slices.Contains(c.objects(rs, ontology.HasMetric), kb.IRI(rs+"/"+name)) {
		t.Errorf("%s lacks hasMetric %s", rs, name)
	}
	f, err := strconv.ParseFloat(vs[0].Value, 64)
	if err != nil {
		t.Fatalf("%s %s = %v: %v", rs, name, vs[0], err)
	}
	return f, true
}

// dump reads a CSV the CUBE tools wrote: cnode ID, location (“Thread
// ID”), then one column per metric.
func dump(t *testing.T, path string) (header []string, rows [][]string) {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	for i := range recs[0] {
		recs[0][i] = strings.TrimSpace(recs[0][i])
	}
	return recs[0], recs[1:]
}

func near(got, want float64) bool {
	return math.Abs(got-want) <= 1e-3+5e-6*math.Abs(want)
}

// TestAgainstCubeDump compares every value with the CSV dumps the CUBE
// tools wrote of the same files (exclusive and inclusive along the call
// tree; the time column has 6 significant digits).
func TestAgainstCubeDump(t *testing.T) {
	for _, tc := range []struct {
		dir, file string
		// location index → (process, thread) of its PU, from anchor.xml
		pu func(loc int) (int, int)
	}{
		{"call_tree_test", "call_tree_test.cubex", func(int) (int, int) { return 0, 0 }},
		{"time.p4", "profile.cubex", func(l int) (int, int) { return l, 0 }},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			path := filepath.Join("testdata", tc.dir, tc.file)
			c, _ := convertFile(t, path)
			checked := 0
			for _, kind := range []string{"excl", "incl"} {
				header, rows := dump(t, filepath.Join("testdata", tc.dir, kind+".csv"))
				for _, row := range rows {
					cn, _ := strconv.Atoi(row[0])
					loc, _ := strconv.Atoi(row[1])
					p, th := tc.pu(loc)
					rs := rsOf(path, p, th, cn)
					for i, col := range header[2:] {
						want, err := strconv.ParseFloat(row[i+2], 64)
						if err != nil {
							t.Fatal(err)
						}
						var name string
						var scale float64 = 1
						switch {
						case col == "time" && kind == "incl":
							name, scale = "wtime", 1e6
						case col == "time":
							name, scale = "excl_wtime", 1e6
						case kind == "incl":
							continue // the other metrics are EXCLUSIVE: stored and compared as exclusive
						case col == "visits":
							name = "ncalls"
						case col == "min_time", col == "max_time":
							name, scale = strings.TrimSuffix(col, "time")+"wtime", 1e6
						case col == "bytes_sent":
							name = "bytes_sent"
						case col == "bytes_received":
							name = "bytes_recv"
						default:
							name = col
						}
						got, ok := metricValue(t, c, rs, name)
						if want == 0 {
							// Zero is absent; an exclusive time computed
							// for a visited call path may be ~0.
							if ok && (name != "excl_wtime" || !near(got, 0)) {
								t.Errorf("cnode %d location %d: %s = %g, the dump has 0 (absent)", cn, loc, name, got)
							}
							continue
						}
						if !ok {
							t.Errorf("cnode %d location %d: no %s, the dump has %g", cn, loc, name, want)
							continue
						}
						if !near(got, want*scale) {
							t.Errorf("cnode %d location %d: %s = %.9g, the dump has %g (×%g)", cn, loc, name, got, want, scale)
						}
						checked++
					}
				}
			}
			if checked < 50 {
				t.Errorf("only %d values checked", checked)
			}
			t.Logf("%d values equal the CUBE tools' dump", checked)
		})
	}
}

// TestHandDecoded decodes a few values of call_tree_test.cubex by hand
// (standard library tar, fixed offsets) and finds them on the call paths
// the anchor says. The call tree (anchor.xml lines 190-230) is
//
//	0 test.x ─ 1 main ─┬ 2 a ─ 3 a1, 4 a2, 5 a3
//	                   ├ 6 b ─ 7 b1, 8 b2, 9 b3
//	                   ├ 10 c ─ 11 c1, 12 c2, 13 c3
//	                   └ 14 d ─ 15 d1, 16 d2, 17 d3
//
// Metric 0 (visits) is EXCLUSIVE: tree index i is cnode i (depth first).
// Metric 1 (time) is INCLUSIVE: tree indices run 0, 1, then main's
// children 2, 6, 10, 14, then a's children 3, 4, 5, then b's 7, 8, 9 …
func TestHandDecoded(t *testing.T) {
	path := filepath.Join("testdata", "call_tree_test", "call_tree_test.cubex")
	members := untar(t, path)
	for _, m := range []string{"0.index", "1.index"} {
		b := members[m]
		// "CUBEX.INDEX", int32 1, int16 version, byte type 1, int32 N = 18
		if string(b[:11]) != "CUBEX.INDEX" || binary.LittleEndian.Uint32(b[11:]) != 1 || b[17] != 1 || binary.LittleEndian.Uint32(b[18:]) != 18 {
			t.Fatalf("%s header % x", m, b[:22])
		}
		for i := 0; i < 18; i++ {
			if got := binary.LittleEndian.Uint32(b[22+4*i:]); got != uint32(i) {
				t.Fatalf("%s entry %d = %d: the file lists every tree index in order", m, i, got)
			}
		}
	}
	c, _ := convertFile(t, path)
	row := func(member string, i int) []byte { return members[member][len("CUBEX.DATA")+8*i:] }
	for _, tc := range []struct {
		treeIndex, cnode int
	}{{0, 0}, {2, 2}, {3, 6}, {4, 10}, {5, 14}, {6, 3}, {9, 7}, {17, 17}} {
		want := math.Float64frombits(binary.LittleEndian.Uint64(row("1.data", tc.treeIndex))) * 1e6
		got, ok := metricValue(t, c, rsOf(path, 0, 0, tc.cnode), "wtime")
		if !ok || got != want {
			t.Errorf("time tree index %d → cnode %d: wtime %g, the file has %g", tc.treeIndex, tc.cnode, got, want)
		}
	}
	for cn := 0; cn < 18; cn++ {
		want := float64(binary.LittleEndian.Uint64(row("0.data", cn)))
		got, _ := metricValue(t, c, rsOf(path, 0, 0, cn), "ncalls")
		if got != want {
			t.Errorf("visits of cnode %d: ncalls %g, the file has %g", cn, got, want)
		}
	}
	// Exclusive time of b (cnode 6) = its inclusive time minus b1, b2, b3's.
	incl := func(ti int) float64 { return math.Float64frombits(binary.LittleEndian.Uint64(row("1.data", ti))) }
	want := (incl(3) - incl(9) - incl(10) - incl(11)) * 1e6
	if got, _ := metricValue(t, c, rsOf(path, 0, 0, 6), "excl_wtime"); got != want {
		t.Errorf("excl_wtime of b = %g, want %g", got, want)
	}
}

func untar(t *testing.T, path string) map[string][]byte {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	out := map[string][]byte{}
	tr := tar.NewReader(f)
	for {
		h, err := tr.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		b, err := io.ReadAll(tr)
		if err != nil {
			t.Fatal(err)
		}
		out[h.Name] = b
	}
}

func edges(c *collect) []string {
	var out []string
	for _, q := range c.qs {
		if q.P.Value == ontology.HasChildRS {
			out = append(out, q.S.Value+" -> "+q.O.Value)
		}
	}
	sort.Strings(out)
	return out
}

func TestCallTreeEdges(t *testing.T) {
	path := filepath.Join("testdata", "call_tree_test", "call_tree_test.cubex")
	c, _ := convertFile(t, path)
	// From anchor.xml's nesting (see TestHandDecoded).
	tree := map[int][]int{0: {1}, 1: {2, 6, 10, 14}, 2: {3, 4, 5}, 6: {7, 8, 9}, 10: {11, 12, 13}, 14: {15, 16, 17}}
	var want []string
	for p, kids := range tree {
		for _, k := range kids {
			want = append(want, rsOf(path, 0, 0, p)+" -> "+rsOf(path, 0, 0, k))
		}
	}
	sort.Strings(want)
	if got := edges(c); !slices.Equal(got, want) {
		t.Errorf("hasChildRS edges\n got %v\nwant %v", got, want)
	}
	// Regions: cnode 1 calls main (C.1 CR_P), cnode 2 calls region 4, named "signed char".
	region := func(cn int) string {
		r := c.objects(rsOf(path, 0, 0, cn), ontology.OfCodeRegion)
		if len(r) != 1 {
			t.Fatalf("cnode %d regions %v", cn, r)
		}
		return r[0].Value
	}
	if got := c.objects(region(1), ontology.HasCrType); !slices.Equal(got, []kb.Term{kb.String("CR_P")}) {
		t.Errorf("main's hasCrType %v", got)
	}
	if got := c.objects(region(2), ontology.RegionName); !slices.Equal(got, []kb.Term{kb.String("signed char")}) {
		t.Errorf("cnode 2's region name %v", got)
	}
	pu := c.objects(rsOf(path, 0, 0, 5), ontology.InProcessingUnit)
	if len(pu) != 1 || !slices.Equal(c.objects(pu[0].Value, ontology.InNode), []kb.Term{kb.String("node gpu1")}) {
		t.Errorf("PU %v in node %v", pu, c.objects(pu[0].Value, ontology.InNode))
	}
}

// TestMultiProcessSystemTree checks the PUs of a 4-rank run: one node per
// rank, named as in its system tree.
func TestMultiProcessSystemTree(t *testing.T) {
	path := filepath.Join("testdata", "time.p4", "profile.cubex")
	c, _ := convertFile(t, path)
	for rank, node := range []string{"node mpsd0023", "node mpsd0027", "node mpsd0030", "node mpsd0032"} {
		pu := c.objects(rsOf(path, rank, 0, 0), ontology.InProcessingUnit)
		if len(pu) != 1 {
			t.Fatalf("rank %d: PU %v", rank, pu)
		}
		if got := c.objects(pu[0].Value, ontology.InNode); !slices.Equal(got, []kb.Term{kb.String(node)}) {
			t.Errorf("rank %d: node %v, want %q", rank, got, node)
		}
		if got := c.objects(pu[0].Value, ontology.ProcessID); !slices.Equal(got, []kb.Term{kb.Literal(strconv.Itoa(rank), ontology.XSDInteger)}) {
			t.Errorf("rank %d: processID %v", rank, got)
		}
	}
}

func TestDataTypes(t *testing.T) {
	path := filepath.Join("testdata", "cube-values_example.cubex")
	c, rep := convertFile(t, path)
	var skipped []string
	for _, w := range rep.Warnings {
		if strings.Contains(w.Message, "is not a scalar") {
			skipped = append(skipped, strings.Fields(w.Message)[1])
		}
	}
	want := []string{`"RATE":`, `"TAU_ATOMIC":`, `"HISTOGRAM5":`, `"NDOUBLES10":`, `"SCALE_FUNC3":`, `"COMPLEX":`, `"TAU_ATOMIC2":`}
	if !slices.Equal(skipped, want) {
		t.Errorf("skipped metrics %v, want %v", skipped, want)
	}
	names := map[string]bool{}
	for _, q := range c.qs {
		if q.P.Value == ontology.HasMetricName {
			names[q.O.Value] = true
		}
	}
	for _, n := range []string{"INT8", "UINT8", "INT16", "UINT16", "INT32", "UINT32", "INT64", "UINT64", "DOUBLE", "MINDOUBLE", "MAXDOUBLE", "excl_INT8", "excl_DOUBLE"} {
		if !names[n] {
			t.Errorf("no values of metric %s", n)
		}
	}
	if names["excl_MINDOUBLE"] || names["excl_MAXDOUBLE"] {
		t.Error("exclusive values of MIN/MAXDOUBLE metrics, which do not add up")
	}
}

func loadStore(t *testing.T, c *collect) kb.Dataset {
	t.Helper()
	ds := native.OpenMemory()
	i := 0
	if _, err := rdfio.LoadQuads(context.Background(), ds, func() (kb.TermQuad, error) {
		if i == len(c.qs) {
			return kb.TermQuad{}, io.EOF
		}
		i++
		return c.qs[i-1], nil
	}, rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	return ds
}

func findings(t *testing.T, ds kb.Dataset, typ string) []string {
	t.Helper()
	fs, err := reasoner.Findings(context.Background(), ds, reasoner.FindingFilter{Type: typ})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.Subject.Value)
	}
	sort.Strings(out)
	return out
}

// TestScalascaWaitStates converts a Scalasca-style report and runs the
// shipped rule sets unchanged on it: Late Sender findings appear on
// exactly the call paths whose mpi_latesender time passes the rule's
// thresholds (above 1000 µs and above 30 % of the call path's time),
// Wait at N x N on the barrier and collective paths that wait, Wait at
// Barrier on the barrier path.
func TestScalascaWaitStates(t *testing.T) {
	w := scalasca()
	path := w.write(t, t.TempDir(), "scorep_test_trace/scout.cubex")
	c, rep := convertFile(t, path)
	var time, ls *wMetric
	var walk func(ms []*wMetric)
	walk = func(ms []*wMetric) {
		for _, m := range ms {
			switch m.uniq {
			case "time":
				time = m
			case "mpi_latesender":
				ls = m
			}
			walk(m.kids)
		}
	}
	walk(w.metrics)
	node := map[int]*wCNode{}
	for _, n := range w.preorder() {
		node[n.id] = n
	}
	// Every call path that carries mpi_latesender carries ls_wait, in µs.
	var carriers, wantLS []string
	for k, v := range ls.excl {
		rs := rsOf(path, w.locs[k[1]].process, 0, k[0])
		carriers = append(carriers, rs)
		if got, ok := metricValue(t, c, rs, "ls_wait"); !ok || got != v*1e6 {
			t.Errorf("cnode %d rank %d: ls_wait %g, want %g", k[0], k[1], got, v*1e6)
		}
		wtime := w.inclusive(time, node[k[0]], k[1]) * 1e6
		if v*1e6 > 1000 && v*1e6 > 0.3*wtime {
			wantLS = append(wantLS, rs)
		}
	}
	sort.Strings(carriers)
	sort.Strings(wantLS)
	n := 0
	for _, q := range c.qs {
		if q.P.Value == ontology.HasMetricName && q.O == kb.String("ls_wait") {
			n++
		}
	}
	if n != len(carriers) {
		t.Errorf("%d ls_wait values, want %d (the call paths carrying mpi_latesender)", n, len(carriers))
	}
	if got, _ := metricValue(t, c, rsOf(path, 1, 0, 4), "mpi_latesender_wo"); got != 0.2 {
		t.Errorf("mpi_latesender_wo kept in seconds under its CUBE name: %g", got)
	}
	if got, _ := metricValue(t, c, rsOf(path, 0, 0, 3), "mpi_latereceiver"); got != 0.25 {
		t.Errorf("mpi_latereceiver: %g", got)
	}
	if !slices.ContainsFunc(rep.Warnings, func(w convert.Warning) bool { return strings.Contains(w.Message, "execution") }) {
		t.Errorf("no warning about the derived metric: %v", rep.Warnings)
	}

	ds := loadStore(t, c)
	prog, err := reasoner.LoadProgram([]string{"RDFS", "PERFONTO", "WAITSTATES"}, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Run(context.Background(), ds, prog, reasoner.Options{NoDerivations: true}); err != nil {
		t.Fatal(err)
	}
	if got := findings(t, ds, "LateSender"); !slices.Equal(got, wantLS) || len(got) != 2 {
		t.Errorf("LateSender on\n %v\nwant\n %v", got, wantLS)
	}
	wantNxN := []string{rsOf(path, 0, 0, 6), rsOf(path, 1, 0, 5)} // Allreduce on rank 0, Barrier on rank 1
	sort.Strings(wantNxN)
	if got := findings(t, ds, "WaitAtNxN"); !slices.Equal(got, wantNxN) {
		t.Errorf("WaitAtNxN on\n %v\nwant\n %v", got, wantNxN)
	}
	if got, want := findings(t, ds, "WaitAtBarrier"), []string{rsOf(path, 1, 0, 5)}; !slices.Equal(got, want) {
		t.Errorf("WaitAtBarrier on %v, want %v (the barrier that waits)", got, want)
	}
}
