package trace

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
)

func readTrace(t *testing.T, path string) *Mem {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := ReadText(f, path)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

func TestMnemonics(t *testing.T) {
	for _, c := range []struct {
		r    Region
		want []string
	}{
		{Region{Name: "MPI_Send", Paradigm: ParadigmMPI}, []string{"CR_MPISEND", "CR_MPIP2P"}},
		{Region{Name: "MPI_Isend", Paradigm: ParadigmMPI}, []string{"CR_MPISEND", "CR_MPIP2P"}},
		{Region{Name: "MPI_Bsend", Paradigm: ParadigmMPI}, []string{"CR_MPISEND", "CR_MPIP2P"}},
		{Region{Name: "MPI_Ssend", Paradigm: ParadigmMPI}, []string{"CR_MPISEND", "CR_MPIP2P"}},
		{Region{Name: "MPI_Rsend", Paradigm: ParadigmMPI}, []string{"CR_MPISEND", "CR_MPIP2P"}},
		{Region{Name: "MPI_Recv", Paradigm: ParadigmMPI}, []string{"CR_MPIRECV", "CR_MPIP2P"}},
		{Region{Name: "MPI_Irecv", Paradigm: ParadigmMPI}, []string{"CR_MPIRECV", "CR_MPIP2P"}},
		{Region{Name: "MPI_Sendrecv", Paradigm: ParadigmMPI}, []string{"CR_MPIP2P"}},
		{Region{Name: "MPI_Barrier", Paradigm: ParadigmMPI}, []string{"CR_MPIBA"}},
		{Region{Name: "MPI_Allreduce", Paradigm: ParadigmMPI}, []string{"CR_MPICOL"}},
		{Region{Name: "MPI_Bcast", Paradigm: ParadigmMPI}, []string{"CR_MPICOL"}},
		{Region{Name: "MPI_Init", Paradigm: ParadigmMPI}, []string{"CR_MPISTARTUP"}},
		{Region{Name: "MPI_Finalize", Paradigm: ParadigmMPI}, []string{"CR_MPISTARTUP"}},
		{Region{Name: "MPI_Pack", Paradigm: ParadigmMPI}, []string{"CR_MPITP"}},
		{Region{Name: "MPI_Unpack", Paradigm: ParadigmMPI}, []string{"CR_MPITP"}},
		{Region{Name: "MPI_Comm_rank", Paradigm: ParadigmMPI}, []string{"CR_MPIALL"}},
		{Region{Name: "MPI_Wait"}, []string{"CR_MPIALL"}},
		{Region{Name: "!$omp parallel @foo.c:12", Paradigm: ParadigmOpenMP}, []string{"CR_OMPPA"}},
		{Region{Name: "!$omp parallel for @foo.c:20", Paradigm: ParadigmOpenMP}, []string{"CR_OMPPD"}},
		{Region{Name: "!$omp barrier", Paradigm: ParadigmOpenMP}, []string{"CR_OMPBA"}},
		{Region{Name: "!$omp implicit barrier", Paradigm: ParadigmOpenMP}, []string{"CR_OMPBA"}},
		{Region{Name: "!$omp critical", Paradigm: ParadigmOpenMP}, []string{"CR_OMPCR"}},
		{Region{Name: "!$omp single", Paradigm: ParadigmOpenMP}, []string{"CR_OMPSI"}},
		{Region{Name: "!$omp taskwait", Paradigm: ParadigmOpenMP}, []string{"CR_OMPALL"}},
		{Region{Name: "main"}, []string{"CR_P"}},
		{Region{Name: "compute_forces"}, []string{"CR_Y"}},
	} {
		if got := Mnemonics(c.r); !slices.Equal(got, c.want) {
			t.Errorf("Mnemonics(%q) = %v, want %v", c.r.Name, got, c.want)
		}
	}
}

func TestCorrectorInterpolates(t *testing.T) {
	c := NewCorrector([]ClockOffset{{Time: 100, Offset: 10}, {Time: 200, Offset: 30}})
	for _, tc := range []struct{ in, want Time }{
		{0, 10},      // before the first record: first offset
		{100, 110},   // at a record
		{150, 170},   // halfway: offset 20
		{175, 200},   // three quarters: offset 25
		{200, 230},   // at the last record
		{1000, 1030}, // after: last offset
	} {
		if got := c.Global(tc.in); got != tc.want {
			t.Errorf("Global(%d) = %d, want %d", tc.in, got, tc.want)
		}
	}
}

func TestMergeOrder(t *testing.T) {
	m := &Mem{D: Defs{Resolution: 1, Locations: make([]Location, 3),
		Offsets: [][]ClockOffset{nil, {{Time: 0, Offset: 5}}, nil}}}
	m.Stream = [][]Event{
		{{Time: 1}, {Time: 6}, {Time: 6}},
		{{Time: 0}, {Time: 1}}, // corrected to 5, 6
		{{Time: 6}, {Time: 2}}, // second is non-monotone: stays in stream order
	}
	type ls struct {
		loc int
		seq int64
		t   Time
	}
	var got []ls
	for e, err := range Merge(context.Background(), m) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ls{e.Loc, e.Seq, e.Time})
	}
	want := []ls{{0, 0, 1}, {1, 0, 5}, {0, 1, 6}, {0, 2, 6}, {1, 1, 6}, {2, 0, 6}, {2, 1, 2}}
	if !slices.Equal(got, want) {
		t.Errorf("merged order\n got %v\nwant %v", got, want)
	}
}

// expectation is the "# expect KIND LOC INDEX [related LOC INDEX]" line of
// a crafted trace.
type expectation struct {
	kind     ViolationKind
	loc      int
	index    int64
	rel      bool
	relLoc   int
	relIndex int64
}

func readExpect(t *testing.T, path string) expectation {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) >= 5 && fs[0] == "#" && fs[1] == "expect" {
			n := func(s string) int {
				v, err := strconv.Atoi(s)
				if err != nil {
					t.Fatalf("%s: bad expect line: %v", path, err)
				}
				return v
			}
			ex := expectation{kind: ViolationKind(fs[2]), loc: n(fs[3]), index: int64(n(fs[4]))}
			if len(fs) == 8 && fs[5] == "related" {
				ex.rel, ex.relLoc, ex.relIndex = true, n(fs[6]), int64(n(fs[7]))
			}
			return ex
		}
	}
	t.Fatalf("%s: no expect line", path)
	return expectation{}
}

func TestCheckCraftedViolations(t *testing.T) {
	files, err := filepath.Glob("testdata/check/*.trace")
	if err != nil || len(files) < 11 {
		t.Fatalf("crafted traces: %v %v", files, err)
	}
	kinds := map[ViolationKind]bool{}
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			ex := readExpect(t, path)
			kinds[ex.kind] = true
			vs, err := Check(context.Background(), readTrace(t, path))
			if err != nil {
				t.Fatal(err)
			}
			if len(vs) != 1 {
				t.Fatalf("want exactly one violation, got %d: %v", len(vs), vs)
			}
			v := vs[0]
			if v.Kind != ex.kind || v.Loc != ex.loc || v.Index != ex.index {
				t.Errorf("got %v, want %s at location %d index %d", v, ex.kind, ex.loc, ex.index)
			}
			if v.Fatal != ex.kind.Fatal() {
				t.Errorf("fatal = %v", v.Fatal)
			}
			if ex.rel {
				if v.Related == nil || v.Related.Loc != ex.relLoc || v.Related.Index != ex.relIndex {
					t.Errorf("related = %+v, want location %d index %d", v.Related, ex.relLoc, ex.relIndex)
				}
			} else if v.Related != nil && ex.kind != UnmatchedLeave {
				t.Errorf("unexpected related event %+v", v.Related)
			}
		})
	}
	for _, k := range []ViolationKind{NonMonotoneTime, UnmatchedLeave, UnmatchedSend, UnmatchedRecv, RecvBeforeSend,
		IncompleteRequest, UnknownRequest, CollectiveMismatch, CollectiveIncomplete, MatchAcrossGap, UnclosedRegion} {
		if !kinds[k] {
			t.Errorf("no crafted trace for %s", k)
		}
	}
}

func TestCheckValidTrace(t *testing.T) {
	vs, err := Check(context.Background(), readTrace(t, "testdata/valid.trace"))
	if err != nil {
		t.Fatal(err)
	}
	if len(vs) != 0 {
		t.Errorf("valid trace reports %v", vs)
	}
}

func TestSummaryValidTrace(t *testing.T) {
	m := readTrace(t, "testdata/valid.trace")
	s, err := Summarize(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	if s.Events != int64(len(m.Stream[0])+len(m.Stream[1])) {
		t.Errorf("events %d", s.Events)
	}
	find := func(loc int, path ...int) *Node {
		for _, n := range s.Nodes {
			if n.Loc == loc && slices.Equal(n.Path(), path) {
				return n
			}
		}
		t.Fatalf("no node %v on location %d", path, loc)
		return nil
	}
	// Hand-computed from testdata/valid.trace.
	main0 := find(0, 0)
	if main0.Calls != 1 || main0.Incl != 600 || main0.Subs != 5 {
		t.Errorf("main on 0: calls %d incl %d subs %d", main0.Calls, main0.Incl, main0.Subs)
	}
	// Children of main on 0: compute 100, send 10, isend 5, wait 10, barrier 160.
	if main0.Excl != 600-100-10-5-10-160 {
		t.Errorf("main on 0: excl %d", main0.Excl)
	}
	send := find(0, 0, 1)
	if send.MsgsSent != 1 || send.BytesSent != 100000 || send.Incl != 10 {
		t.Errorf("send node %+v", send)
	}
	recv := find(1, 0, 2)
	// Receive entered at 20, send entered at 110: Late Sender waits 90.
	if recv.LSWait != 90 || recv.LSCount != 1 || recv.BytesRecv != 100000 {
		t.Errorf("recv node: ls %d/%d bytes %d", recv.LSWait, recv.LSCount, recv.BytesRecv)
	}
	// Barrier: rank 0 entered at 300, rank 1 at 400: rank 0 waits 100.
	if b := find(0, 0, 3); b.NxNWait != 100 || b.NxNCount != 1 {
		t.Errorf("barrier on 0: wait %d count %d", b.NxNWait, b.NxNCount)
	}
	if b := find(1, 0, 3); b.NxNWait != 0 {
		t.Errorf("barrier on 1: wait %d", b.NxNWait)
	}
	// Non-blocking: Irecv completes in MPI_Wait entered at 160, Isend region entered at 200: waits 40.
	if w := find(1, 0, 7); w.LSWait != 40 || w.BytesRecv != 64 {
		t.Errorf("wait on 1: ls %d bytes %d", w.LSWait, w.BytesRecv)
	}
	if !s.Flags["nonblocking"] {
		t.Error("nonblocking extension not flagged")
	}
	st := s.RegionStats(false)
	if st[0].Name != "main" || st[0].Count != 2 || st[0].Total != 1200 || st[0].Mean != 600 || st[0].StdDev != 0 {
		t.Errorf("top region stat %+v", st[0])
	}
	ms := s.MessageStats()
	if len(ms) != 1 || ms[0].Src != 0 || ms[0].Dst != 1 || ms[0].Count != 2 || ms[0].Bytes != 100064 {
		t.Errorf("message stats %+v", ms)
	}
}

func TestStdDev(t *testing.T) {
	// Durations 2, 4, 4, 4, 5, 5, 7, 9: mean 5, population sd 2.
	m := &Mem{D: Defs{Resolution: 1_000_000, Locations: make([]Location, 1), Regions: []Region{{Name: "f"}}}, Stream: make([][]Event, 1)}
	var tm Time
	for _, d := range []Time{2, 4, 4, 4, 5, 5, 7, 9} {
		m.Stream[0] = append(m.Stream[0], Event{Kind: Enter, Time: tm}, Event{Kind: Leave, Time: tm + d})
		tm += d
	}
	s, err := Summarize(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	n := s.Nodes[0]
	if n.Calls != 8 || n.Mean() != 5 || n.StdDev() != 2 || n.Min != 2 || n.Max != 9 {
		t.Errorf("calls %d mean %v sd %v min %d max %d", n.Calls, n.Mean(), n.StdDev(), n.Min, n.Max)
	}
}

func TestReadTextErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"location 0 n 0 x\n", "t:1: field 5 (\"x\") is not an integer"},
		{"location 0 n 0 0\n0 5 bogus\n", "t:2: unknown event kind \"bogus\""},
		{"location 0 n 0 0\n3 5 enter 0\n", "t:2: location 3 is not defined"},
		{"location 0 n 0 0\n\n0 5 enter 0\n", "t:3: region 0 is not defined"},
	} {
		_, err := ReadText(strings.NewReader(c.in), "t")
		if err == nil || err.Error() != c.want {
			t.Errorf("ReadText(%q) error %v, want %q", c.in, err, c.want)
		}
	}
}

func TestCorrected(t *testing.T) {
	m := &Mem{D: Defs{Resolution: 1, Locations: make([]Location, 2), Offsets: [][]ClockOffset{nil, {{Time: 0, Offset: 0}, {Time: 100, Offset: 10}}}},
		Stream: [][]Event{{{Time: 5}}, {{Time: 50}, {Kind: BufferFlush, Time: 60, Stop: 100}}}}
	c := Corrected(m)
	if c.Defs().Offsets != nil {
		t.Error("offsets left in the corrected definitions")
	}
	var got []Time
	for e, err := range c.Events(context.Background(), 1) {
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, e.Time, e.Stop)
	}
	// 50 + 5 (halfway), 60 + 6, flush end 100 + 10.
	if !slices.Equal(got, []Time{55, 0, 66, 110}) {
		t.Errorf("corrected %v", got)
	}
}
