package hpctoolkit

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/internal/oracle"
)

// cpiDB is Hatchet's cpi database: 4 ranks, one thread each.
var cpiDB = filepath.Join("testdata", "xml", "hpctoolkit-cpi-database")

// TestXMLHandDecoded checks values of the cpi database against bytes read
// by hand: rank 0's metric-db (1.cpi-000000-000-a8c00270-160443-0) holds
// 60 contexts × 2 metrics (CPUTIME (usec) (I), (E)) as big-endian float64
// from byte 32, row id-1.
func TestXMLHandDecoded(t *testing.T) {
	c := convertDB(t, cpiDB)
	f64 := func(u uint64) float64 { return math.Float64frombits(u) }
	for _, tc := range []struct {
		key  string
		want float64
	}{
		// Context 2 (<program root>), bytes 0x30..0x3f: 412e7e8c00000000, 0.
		{"p0t0/2/ctime", f64(0x412e7e8c00000000)},
		// Context 4 (main): inclusive at 0x50 is the same 999238 µs.
		{"p0t0/4/ctime", f64(0x412e7e8c00000000)},
	} {
		if got := c.values[tc.key]; got != tc.want {
			t.Errorf("%s = %v, want %v", tc.key, got, tc.want)
		}
	}
	if f64(0x412e7e8c00000000) != 999238 {
		t.Fatalf("hand decoding: %v", f64(0x412e7e8c00000000))
	}
	// Statement 44 in the PSM library, whose exclusive time is its own:
	// the file's row 43, read here with encoding/binary.
	b, err := os.ReadFile(filepath.Join(cpiDB, "1.cpi-000000-000-a8c00270-160443-0.metric-db"))
	if err != nil {
		t.Fatal(err)
	}
	excl44 := math.Float64frombits(binary.BigEndian.Uint64(b[32+(43*2+1)*8:]))
	if excl44 == 0 || c.values["p0t0/44/excl_ctime"] != excl44 {
		t.Errorf("statement 44 excl_ctime = %v, file %v", c.values["p0t0/44/excl_ctime"], excl44)
	}
	if got := c.region["p0t0/4"]; got != "main" {
		t.Errorf("context 4 region %q", got)
	}
	if got := c.region["p0t0/44"]; got != "<unknown file>:0" {
		t.Errorf("context 44 region %q", got)
	}
	if got := c.inNode[base.String()+"exp/hpctoolkit-cpi-database/pu/p2t0"]; got != "hostid a8c00270" {
		t.Errorf("rank 2 node %q", got)
	}
	// <C> 3 (main's call site in <program root>) is not a summary:
	// main hangs below the program root.
	if !slices.Contains(c.children["p0t0/2"], "p0t0/4") {
		t.Errorf("program root's children %v", c.children["p0t0/2"])
	}
}

// hatchetOut is what testdata/xml/read_hatchet.py prints.
type hatchetOut struct {
	Rows []struct {
		Nid, Rank, Thread int
		Values            map[string]float64
	}
	Types map[string]string
	Edges [][2]int
}

// TestXMLAgainstHatchet compares every context's inclusive and exclusive
// CPU time per thread, and the call-tree edges, with Hatchet's
// from_hpctoolkit. Hatchet's "time (inc)" is perfkb's ctime and its "time"
// excl_ctime. One named difference: HPCToolkit's exclusive time of a
// procedure or loop includes that of the loops and statements inside it;
// Hatchet subtracts its statements' but not its loops', perfkb both. For a
// context with a loop (or inlined procedure) k directly inside, the test
// therefore expects Hatchet's value minus k's exclusive time, which is
// Hatchet's value of k plus those of k's statements.
func TestXMLAgainstHatchet(t *testing.T) {
	py := oracle.Python(t, "hatchet")
	for _, dir := range []string{cpiDB, filepath.Join("testdata", "xml", "hpctoolkit-allgather-database")} {
		t.Run(filepath.Base(dir), func(t *testing.T) {
			cmd := exec.Command(py, filepath.Join("testdata", "xml", "read_hatchet.py"), dir)
			var stderr bytes.Buffer
			cmd.Stderr = &stderr
			out, err := cmd.Output()
			if err != nil {
				t.Fatalf("hatchet: %v\n%s", err, stderr.Bytes())
			}
			var want hatchetOut
			if err := json.Unmarshal(out, &want); err != nil {
				t.Fatal(err)
			}
			c := convertDB(t, dir)
			kids := map[int][]int{}
			for _, e := range want.Edges {
				kids[e[0]] = append(kids[e[0]], e[1])
			}
			kind := func(id int) string { return want.Types[fmt.Sprint(id)] }
			hatchetTime := map[string]float64{} // "rank thread nid" → Hatchet's exclusive time
			for _, row := range want.Rows {
				hatchetTime[fmt.Sprint(row.Rank, row.Thread, row.Nid)] = row.Values["time"]
			}
			compared, equal, absentZero, adjusted := 0, 0, 0, 0
			for _, row := range want.Rows {
				for col, v := range row.Values {
					name := map[string]string{"time (inc)": "ctime", "time": "excl_ctime"}[col]
					if name == "" {
						t.Fatalf("unexpected Hatchet column %q", col)
					}
					if col == "time" {
						for _, k := range kids[row.Nid] {
							if kind(k) != "L" && kind(k) != "Pr" {
								continue
							}
							v -= hatchetTime[fmt.Sprint(row.Rank, row.Thread, k)]
							for _, s := range kids[k] {
								if kind(s) == "S" {
									v -= hatchetTime[fmt.Sprint(row.Rank, row.Thread, s)]
								}
							}
							adjusted++
						}
					}
					key := fmt.Sprintf("p%dt%d/%d/%s", row.Rank, row.Thread, row.Nid, name)
					got, ok := c.values[key]
					if !ok && v == 0 {
						absentZero++
						continue
					}
					compared++
					if !ok || math.Abs(got-v) > 1e-9*math.Max(1, math.Abs(v)) {
						t.Errorf("%s = %v (present %v), Hatchet %v", key, got, ok, v)
						continue
					}
					equal++
				}
			}
			// Edges: Hatchet's (parent, child) context ids, at every
			// thread where perfkb has the child's summary.
			var wantEdges, gotEdges []string
			for parent, kids := range c.children {
				pu, p, _ := strings.Cut(parent, "/")
				for _, k := range kids {
					gotEdges = append(gotEdges, pu+" "+p+" -> "+strings.TrimPrefix(k, pu+"/"))
				}
			}
			threads := map[string]bool{}
			has := map[string]bool{}
			for _, row := range want.Rows {
				threads[fmt.Sprintf("p%dt%d", row.Rank, row.Thread)] = true
			}
			for rs := range c.region {
				has[rs] = true
			}
			for _, e := range want.Edges {
				for pu := range threads {
					if has[fmt.Sprintf("%s/%d", pu, e[1])] {
						wantEdges = append(wantEdges, fmt.Sprintf("%s %d -> %d", pu, e[0], e[1]))
					}
				}
			}
			sort.Strings(wantEdges)
			sort.Strings(gotEdges)
			if !slices.Equal(gotEdges, wantEdges) {
				t.Errorf("hasChildRS edges differ from Hatchet's:\n got %d %v\nwant %d %v", len(gotEdges), gotEdges, len(wantEdges), wantEdges)
			}
			if compared == 0 {
				t.Fatal("Hatchet gave no values")
			}
			t.Logf("%s: %d of %d values equal Hatchet's (%d zero values perfkb leaves out; %d loop exclusive times subtracted from Hatchet's); %d of %d edges (%d context edges × threads)",
				dir, equal, compared, absentZero, adjusted, len(gotEdges), len(wantEdges), len(want.Edges))
		})
	}
}

// xmlCorrupted copies the cpi database to a temporary directory and changes
// one of its files (a nil change removes it).
func xmlCorrupted(t testing.TB, file string, change func(b []byte) []byte) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "bad")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	ents, err := os.ReadDir(cpiDB)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.IsDir() {
			continue
		}
		b, err := os.ReadFile(filepath.Join(cpiDB, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasSuffix(e.Name(), file) {
			if change == nil {
				continue
			}
			b = change(bytes.Clone(b))
		}
		if err := os.WriteFile(filepath.Join(dir, e.Name()), b, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

const rank0DB = "1.cpi-000000-000-a8c00270-160443-0.metric-db"

func TestXMLConformance(t *testing.T) {
	replace := func(old, new string) func([]byte) []byte {
		return func(b []byte) []byte { return bytes.Replace(b, []byte(old), []byte(new), 1) }
	}
	var bad []converttest.BadCase
	for _, bc := range []struct {
		name, file string
		change     func([]byte) []byte
		want       []string
	}{
		{"truncated metric-db", rank0DB, func(b []byte) []byte { return b[:500] },
			[]string{rank0DB + ": byte 500 (values)", "60 contexts × 2 metrics need 960 bytes", "truncated"}},
		{"not a metric-db", rank0DB, func([]byte) []byte { return bytes.Repeat([]byte("x"), 64) },
			[]string{rank0DB + ": byte 0 (magic)", "not an HPCToolkit metric-db file"}},
		{"metric count", rank0DB, func(b []byte) []byte { b[31] = 3; return b },
			[]string{rank0DB + ": byte 28 (number of metrics)", "db-num-metrics=2"}},
		{"too few contexts", rank0DB, func(b []byte) []byte { b[27] = 10; return b },
			[]string{rank0DB + ": byte 24 (number of contexts)", "10 contexts, but experiment.xml has context id 60"}},
		{"XML that is not HPCToolkit", "experiment.xml", func([]byte) []byte { return []byte("<?xml version=\"1.0\"?>\n<cube version=\"4.0\"/>\n") },
			[]string{"experiment.xml:2:1", "expected an <HPCToolkitExperiment> root element"}},
		{"XML cut short", "experiment.xml", func(b []byte) []byte { return b[:len(b)-2000] },
			[]string{"experiment.xml:", "XML syntax"}},
		{"unknown procedure", "experiment.xml", replace(`<PF i="4" s="7" l="19" lm="2" f="3" n="7">`, `<PF i="4" s="7" l="19" lm="2" f="3" n="77">`),
			[]string{"experiment.xml:302:1", `<PF n="77">: no such <Procedure>`}},
	} {
		bad = append(bad, converttest.BadCase{Name: bc.name, Want: bc.want, New: func(t testing.TB) convert.Converter {
			return New(xmlCorrupted(t, bc.file, bc.change), base, Options{})
		}})
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter { return New(cpiDB, base, Options{}) },
		Bad: bad,
	})
}

// TestXMLNoMetricDB: experiment.xml without its metric-db files is an
// error naming what is missing.
func TestXMLNoMetricDB(t *testing.T) {
	dir := t.TempDir()
	b, err := os.ReadFile(filepath.Join(cpiDB, "experiment.xml"))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "experiment.xml"), b, 0o644); err != nil {
		t.Fatal(err)
	}
	_, err = New(dir, base, Options{}).Convert(t.Context(), &memSink{})
	if err == nil || !strings.Contains(err.Error(), "no *.metric-db files beside experiment.xml") {
		t.Errorf("error %v", err)
	}
	_, err = New(t.TempDir(), base, Options{}).Convert(t.Context(), &memSink{})
	if err == nil || !strings.Contains(err.Error(), "neither meta.db") {
		t.Errorf("empty directory: error %v", err)
	}
}
