package cube

import (
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"testing"

	"github.com/perfkb/perfkb/internal/oracle"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

// scoutPath is the report Scalasca 2.6's scout.mpi wrote for the trace of
// testdata/scalasca/mktrace.py (origin in testdata/README).
var scoutPath = filepath.Join("testdata", "scalasca", "scout.cubex")

// callPaths reads a .cubex's call tree from its anchor.xml with
// encoding/xml, apart from the package's reader: cnode ID → the region
// names from the root, joined by "/".
func callPaths(t *testing.T, path string) map[int]string {
	t.Helper()
	type cnode struct {
		ID     int     `xml:"id,attr"`
		Callee int     `xml:"calleeId,attr"`
		Kids   []cnode `xml:"cnode"`
	}
	var doc struct {
		Regions []struct {
			ID   int    `xml:"id,attr"`
			Name string `xml:"name"`
		} `xml:"program>region"`
		CNodes []cnode `xml:"program>cnode"`
	}
	if err := xml.Unmarshal(untar(t, path)["anchor.xml"], &doc); err != nil {
		t.Fatal(err)
	}
	name := map[int]string{}
	for _, r := range doc.Regions {
		name[r.ID] = r.Name
	}
	out := map[int]string{}
	var walk func(prefix string, ns []cnode)
	walk = func(prefix string, ns []cnode) {
		for _, n := range ns {
			p := prefix + name[n.Callee]
			out[n.ID] = p
			walk(p+"/", n.Kids)
		}
	}
	walk("", doc.CNodes)
	return out
}

// TestScalascaReport converts the real Scalasca report and runs the
// shipped rule sets unchanged on it. The expected call paths come from
// the traced program's known behaviour (mktrace.py's plan, by hand):
// rank 1's receive in exchange waits 40 ms for rank 0's late send (Late
// Sender); ranks 0, 1 and 2 wait 30, 20 and 10 ms in the barrier for rank 3
// (Wait at N x N and Wait at Barrier; rank 3 does not wait); rank 2's
// send waits 50 ms for rank 3's receive (Late Receiver, which has no
// PERFONTO class and keeps its CUBE name); halo's messages wait nowhere.
// Call paths are named through anchor.xml's call tree read with
// encoding/xml, so the cnode IDs Scalasca chose do not enter the test.
func TestScalascaReport(t *testing.T) {
	paths := callPaths(t, scoutPath)
	cnode := func(p string) int {
		for id, q := range paths {
			if q == p {
				return id
			}
		}
		t.Fatalf("no call path %q in %v", p, paths)
		return -1
	}
	rs := func(rank int, p string) string { return rsOf(scoutPath, rank, 0, cnode(p)) }
	const (
		recv    = "main/exchange/MPI_Recv"
		send    = "main/exchange/MPI_Send"
		barrier = "main/MPI_Barrier"
	)
	c, _ := convertFile(t, scoutPath)
	for _, tc := range []struct {
		rank   int
		path   string
		metric string
		want   float64
	}{
		{1, recv, "ls_wait", 40000}, // µs
		{0, barrier, "wnxn_wait", 30000},
		{1, barrier, "wnxn_wait", 20000},
		{2, barrier, "wnxn_wait", 10000},
		{2, send, "mpi_latereceiver", 0.05}, // s, under its CUBE name
		{1, recv, "wtime", 42000},           // MPI_Recv from 10 to 52 ms
		{0, "main", "wtime", 103000},        // inclusive
		{0, "main", "excl_wtime", 1000},     // 103 ms less the children's 102
		{1, recv, "bytes_recv", 1024},       // Scalasca's bytes_rcvd
		{3, recv, "bytes_recv", 1 << 20},
		{0, send, "bytes_sent", 1024},
		{1, recv, "ncalls", 1},
	} {
		got, ok := metricValue(t, c, rs(tc.rank, tc.path), tc.metric)
		if !ok || !near(got, tc.want) {
			t.Errorf("rank %d %s: %s = %v (present %v), want %v", tc.rank, tc.path, tc.metric, got, ok, tc.want)
		}
	}
	// No other call path carries a wait state.
	for _, m := range []string{"ls_wait", "wnxn_wait", "mpi_latereceiver"} {
		var carriers []string
		for _, q := range c.qs {
			if q.P.Value == ontology.HasMetricName && q.O.Value == m {
				carriers = append(carriers, q.S.Value)
			}
		}
		want := map[string]int{"ls_wait": 1, "wnxn_wait": 3, "mpi_latereceiver": 1}[m]
		if len(carriers) != want {
			t.Errorf("%s on %d call paths %v, want %d", m, len(carriers), carriers, want)
		}
	}

	ds := loadStore(t, c)
	prog, err := reasoner.LoadProgram([]string{"RDFS", "PERFONTO", "WAITSTATES"}, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Run(context.Background(), ds, prog, reasoner.Options{NoDerivations: true}); err != nil {
		t.Fatal(err)
	}
	sorted := func(s ...string) []string { sort.Strings(s); return s }
	waiting := sorted(rs(0, barrier), rs(1, barrier), rs(2, barrier))
	for _, tc := range []struct {
		class string
		want  []string
	}{
		{"LateSender", []string{rs(1, recv)}},
		{"WaitAtNxN", waiting},
		{"WaitAtBarrier", waiting},
	} {
		if got := findings(t, ds, tc.class); !slices.Equal(got, tc.want) {
			t.Errorf("%s on\n %v\nwant\n %v", tc.class, got, tc.want)
		}
	}
}

// TestScalascaReportCarriers checks the hand-made expectation of
// TestScalascaReport against the file itself, read by pycubexr: the
// (call path, rank) pairs whose mpi_latesender and mpi_barrier_wait values
// are non-zero.
func TestScalascaReportCarriers(t *testing.T) {
	py := oracle.Python(t, "pycubexr")
	const script = `
import json, sys
from pycubexr import CubexParser
out = {}
with CubexParser(sys.argv[1]) as cubex:
    for name in ("mpi_latesender", "mpi_barrier_wait", "mpi_latereceiver"):
        mv = cubex.get_metric_values(cubex.get_metric_by_name(name))
        out[name] = sorted([cn.id, loc] for cn in cubex.all_cnodes()
                           for loc, v in enumerate(mv.cnode_values(cn)) if float(v) != 0)
json.dump(out, sys.stdout)
`
	out, err := exec.CommandContext(context.Background(), py, "-c", script, scoutPath).Output()
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		t.Fatalf("pycubexr: %v\n%s", err, ee.Stderr)
	} else if err != nil {
		t.Fatal(err)
	}
	var got map[string][][2]int
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	paths := callPaths(t, scoutPath)
	named := func(pairs [][2]int) []string {
		var s []string
		for _, p := range pairs {
			s = append(s, paths[p[0]]+" rank "+string(rune('0'+p[1])))
		}
		sort.Strings(s)
		return s
	}
	for m, want := range map[string][]string{
		"mpi_latesender":   {"main/exchange/MPI_Recv rank 1"},
		"mpi_barrier_wait": {"main/MPI_Barrier rank 0", "main/MPI_Barrier rank 1", "main/MPI_Barrier rank 2"},
		"mpi_latereceiver": {"main/exchange/MPI_Send rank 2"},
	} {
		if g := named(got[m]); !slices.Equal(g, want) {
			t.Errorf("pycubexr: %s non-zero on %v, the program's plan says %v", m, g, want)
		}
	}
}
