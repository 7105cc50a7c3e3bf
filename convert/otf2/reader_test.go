//go:build otf2

package otf2

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

// generate runs a generator script of testdata/gen with Debian's
// python3-otf2 and returns the archive's anchor file.
func generate(t *testing.T, script string) (string, string) {
	t.Helper()
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import otf2").Run(); err != nil {
		t.Skip("python3-otf2 is not installed (apt-get install python3-otf2): cannot write the test traces")
	}
	dir := t.TempDir()
	out, err := exec.Command(py, filepath.Join("testdata", "gen", script), dir).CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", script, err, out)
	}
	return filepath.Join(dir, "traces.otf2"), dir
}

type expected struct {
	Locations map[string]struct {
		Rank, Thread, Events int
		Node                 string
	}
	Regions map[string]struct{ Calls, Incl int64 }
}

func readExpected(t *testing.T, dir string) expected {
	b, err := os.ReadFile(filepath.Join(dir, "expected.json"))
	if err != nil {
		t.Fatal(err)
	}
	var e expected
	if err := json.Unmarshal(b, &e); err != nil {
		t.Fatal(err)
	}
	return e
}

// otf2PrintCounts runs otf2-print and counts the events per location ref.
func otf2PrintCounts(t *testing.T, anchor string) map[int]int {
	t.Helper()
	if _, err := exec.LookPath("otf2-print"); err != nil {
		t.Skip("otf2-print (otf2-tools) is not installed")
	}
	var stdout, stderr bytes.Buffer
	cmd := exec.Command("otf2-print", anchor)
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("otf2-print: %v\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("otf2-print warns: %s", stderr.String())
	}
	counts := map[int]int{}
	sc := bufio.NewScanner(&stdout)
	inEvents := false
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "----") {
			inEvents = true
			continue
		}
		f := strings.Fields(line)
		if !inEvents || len(f) < 3 || strings.HasPrefix(line, "===") {
			continue
		}
		loc, err := strconv.Atoi(f[1])
		if err != nil {
			continue
		}
		counts[loc]++
	}
	return counts
}

func TestMPIOpenMPTrace(t *testing.T) {
	anchor, dir := generate(t, "mpi_omp.py")
	want := readExpected(t, dir)
	a, err := OpenArchive(anchor)
	if err != nil {
		t.Fatal(err)
	}
	d := a.Defs()
	if len(d.Locations) != 4 || d.Resolution != 1_000_000 {
		t.Fatalf("locations %+v resolution %d", d.Locations, d.Resolution)
	}
	printed := otf2PrintCounts(t, anchor)
	ctx := context.Background()
	for id, l := range d.Locations {
		n := 0
		for _, err := range a.Events(ctx, id) {
			if err != nil {
				t.Fatal(err)
			}
			n++
		}
		w, ok := want.Locations[l.Name]
		if !ok {
			t.Fatalf("location %q not generated", l.Name)
		}
		if n != w.Events || n != printed[int(a.locRefs[id])] {
			t.Errorf("%s: %d events, generator wrote %d, otf2-print shows %d", l.Name, n, w.Events, printed[int(a.locRefs[id])])
		}
		if l.Process != w.Rank || l.Thread != w.Thread || l.Node != w.Node {
			t.Errorf("%s: process %d thread %d node %q, want %d %d %q", l.Name, l.Process, l.Thread, l.Node, w.Rank, w.Thread, w.Node)
		}
	}
	vs, err := trace.Check(ctx, a)
	if err != nil || len(vs) != 0 {
		t.Errorf("check: %v %v", err, vs)
	}
	s, err := trace.Summarize(ctx, a)
	if err != nil {
		t.Fatal(err)
	}
	seen := 0
	for _, n := range s.Nodes {
		l := d.Locations[n.Loc]
		var names []string
		for _, r := range n.Path() {
			names = append(names, d.Regions[r].Name)
		}
		key := strconv.Itoa(l.Process) + "/" + strconv.Itoa(l.Thread) + "/" + strings.Join(names, " => ")
		w, ok := want.Regions[key]
		if !ok {
			t.Errorf("region summary %s was not generated", key)
			continue
		}
		seen++
		if n.Calls != w.Calls || int64(n.Incl) != w.Incl {
			t.Errorf("%s: calls %d incl %d, generator put %d, %d", key, n.Calls, n.Incl, w.Calls, w.Incl)
		}
	}
	if seen != len(want.Regions) {
		t.Errorf("%d region summaries, generator has %d", seen, len(want.Regions))
	}
	// Message and wait-state values the generator put in: 200000 bytes
	// 0 → 1, 64 bytes 1 → 0; rank 1 waited 90 µs in MPI_Recv (entered at
	// 10, the send at 100); rank 0 waited 50 µs in the barrier.
	ms := s.MessageStats()
	if len(ms) != 2 || ms[0].Bytes != 200000 || ms[1].Bytes != 64 {
		t.Errorf("messages %+v", ms)
	}
	for _, n := range s.Nodes {
		name := d.Regions[n.Region].Name
		p := d.Locations[n.Loc].Process
		if name == "MPI_Recv" && n.LSWait != 90 {
			t.Errorf("Late Sender on MPI_Recv = %d, want 90", n.LSWait)
		}
		if name == "MPI_Barrier" && p == 0 && n.NxNWait != 50 {
			t.Errorf("barrier wait on rank 0 = %d, want 50", n.NxNWait)
		}
	}
}

func TestMergeEqualsGlobalReader(t *testing.T) {
	anchor, _ := generate(t, "mpi_omp.py")
	a, err := OpenArchive(anchor)
	if err != nil {
		t.Fatal(err)
	}
	want, err := a.GlobalOrder()
	if err != nil {
		t.Fatal(err)
	}
	var got []OrderEntry
	for e, err := range trace.Merge(context.Background(), a) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, OrderEntry{Loc: e.Loc, Time: e.Time})
	}
	if len(got) != len(want) {
		t.Fatalf("merge yields %d events, the global reader %d", len(got), len(want))
	}
	for i := range got {
		if got[i] != want[i] {
			t.Fatalf("event %d: merge %+v, global reader %+v", i, got[i], want[i])
		}
	}
}
