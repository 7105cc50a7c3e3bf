package compensate

import (
	"context"
	"maps"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

// at is the expected approximated time of one event (location, index in
// its stream) under the lower and the upper bound.
type at struct {
	loc, idx     int
	lower, upper float64
}

// boundCase is a test trace of one case of 003 §3 with its approximated
// times computed by hand from the paper's equations.
type boundCase struct {
	file  string
	o     float64 // O, µs
	c     float64 // C, ns per byte
	coll  CollectiveMode
	want  []at
	cases map[Case]int64
}

// Every case below uses eq. (1), a = prev_a + (m − prev_m) − O, for the
// events that do not depend on communication; the first event of a
// location keeps its measured time. Times are in the trace's ticks.
var boundCases = []boundCase{
	{
		// The trace (ns ticks), O = 100, C·size = 1 ns/B · 16 B = 16.
		// Rank 0: enter main 0 → 0, enter MPI_Send 1000 → 900, send 2000 →
		// 1800, leave 3000 → 2700, then the work region 4000 → 3600, 50000 →
		// 49500. Rank 1: 0 → 0, work 1000 → 900, 40000 → 39800, enter
		// MPI_Recv 41000 → 40700.
		// (m.2): enter.recv_m 41000 > exit.send_m 3000 (the leave of
		// MPI_Send, not a later event of rank 0).
		// Comm^min = (40700 − 1800) + 16 = 38916 (8).
		// Lower: max(2·16, 38916) = 38916 (6, 9) → recv_a = 1800 + 38916 = 40716.
		// Upper: max(42000 − 2000, 38916) = 40000 (5, 10) → recv_a = 41800.
		// Leave MPI_Recv (43000): 40716 + 1000 − 100 = 41616, so MPI_Recv
		// lasts 41616 − 40700 = 916 ns; upper 41800 + 900 = 42700 (2000 ns).
		// Leave main (44000): 41616 + 900 = 42516; 42700 + 900 = 43600.
		file: "m2-lower.trace", o: 0.1, c: 1,
		want: []at{{1, 3, 40700, 40700}, {1, 4, 40716, 41800}, {1, 5, 41616, 42700}, {1, 6, 42516, 43600},
			{0, 3, 2700, 2700}, {0, 5, 49500, 49500}},
		cases: map[Case]int64{CaseM2: 1},
	},
	{
		// µs ticks, O = 1, C·size = 2. Rank 0: 0 → 0, MPI_Send 10 → 9, send
		// 12 → 10, leave 30 → 27, work 32 → 28, 60 → 55, main 62 → 56.
		// Rank 1: 0 → 0, work 2 → 1, 18 → 16, enter MPI_Recv 20 → 17.
		// (m.1): enter.recv_m 20 ≤ exit.send_m 30. Comm_m = 40 − 12 = 28 (2);
		// send_a + Comm_m = 38 > enter.recv_a 17 (a.1) → recv_a = 38 (3).
		// Leave 42 → 38 + 2 − 1 = 39; main 50 → 39 + 8 − 1 = 46.
		file: "m1-a1.trace", o: 1, c: 1,
		want:  []at{{0, 3, 27, 27}, {0, 6, 56, 56}, {1, 3, 17, 17}, {1, 4, 38, 38}, {1, 5, 39, 39}, {1, 6, 46, 46}},
		cases: map[Case]int64{CaseA1: 1},
	},
	{
		// O = 1, C·size = 2. Rank 0: 0, work 2 → 1, 4 → 2, 6 → 3, 8 → 4,
		// 10 → 5, 12 → 6, MPI_Send 14 → 7, send 15 → 7, leave 20 → 11,
		// main 30 → 20. Rank 1: 0, enter MPI_Recv 13 → 12.
		// (m.1): 13 ≤ 20. Comm_m = 18 − 15 = 3 (2); 7 + 3 = 10 ≤ 12 (a.2) →
		// recv_a = 12 + 2 = 14 (4). Leave 20 → 14 + 2 − 1 = 15; main 30 →
		// 15 + 10 − 1 = 24.
		file: "m1-a2.trace", o: 1, c: 1,
		want:  []at{{0, 8, 7, 7}, {0, 9, 11, 11}, {1, 1, 12, 12}, {1, 2, 14, 14}, {1, 3, 15, 15}, {1, 4, 24, 24}},
		cases: map[Case]int64{CaseA2: 1},
	},
	{
		// O = 1, C·size = 2. Rank 0: 0, MPI_Send 10 → 9, send 11 → 9, leave
		// 13 → 11, main 40 → 37. Rank 1: 0, work 2 → 1, 4 → 2, 6 → 3, 8 → 4,
		// 10 → 5, 12 → 6, enter MPI_Recv 14 → 7.
		// (m.2): 14 > 13. Comm^min = (7 − 9) + 2 = 0 (8).
		// Lower: max(2·2, 0) = 4 (6, 9) → recv_a = 9 + 4 = 13.
		// Upper: max(20 − 11, 0) = 9 (5, 10) → recv_a = 18.
		// Leave 22 → 13 + 2 − 1 = 14 | 19; main 40 → 14 + 17 = 31 | 36.
		file: "m2-copy.trace", o: 1, c: 1,
		want:  []at{{0, 2, 9, 9}, {1, 7, 7, 7}, {1, 8, 13, 18}, {1, 9, 14, 19}, {1, 10, 31, 36}},
		cases: map[Case]int64{CaseM2: 1},
	},
	{
		// O = 1, C·size = 2. Rank 0: 0, work 2 → 1 … 12 → 6, MPI_Send 14 →
		// 7, send 15 → 7, leave 17 → 8, main 40 → 30. Rank 1: 0, enter
		// MPI_Recv 18 → 17.
		// (m.2): 18 > 17. Comm^min = (17 − 7) + 2 = 12 (8).
		// Lower: max(4, 12) = 12 (9); upper: max(20 − 15, 12) = 12 (5, 10):
		// both recv_a = 7 + 12 = 19, the copy time after enter.recv_a (7).
		// Leave 22 → 19 + 2 − 1 = 20; main 40 → 20 + 18 − 1 = 37.
		file: "m2-min.trace", o: 1, c: 1,
		want:  []at{{0, 8, 7, 7}, {0, 9, 8, 8}, {0, 10, 30, 30}, {1, 1, 17, 17}, {1, 2, 19, 19}, {1, 3, 20, 20}, {1, 4, 37, 37}},
		cases: map[Case]int64{CaseM2: 1},
	},
	{
		// O = 1, C·size = 2. Each receive is matched while its sender is
		// still in MPI_Sendrecv, so exit.send is the leave read ahead.
		// Rank 0: 0, enter 10 → 9, send 11 → 9. Rank 1: 0, enter 12 → 11,
		// send 13 → 11.
		// Rank 1's receive: (m.1) 12 ≤ 22; Comm_m = 21 − 11 = 10; 9 + 10 =
		// 19 > 11 (a.1) → 19 (3); leave 23 → 20; main 30 → 26.
		// Rank 0's receive: (m.1) 10 ≤ 23; Comm_m = 20 − 13 = 7; 11 + 7 =
		// 18 > 9 (a.1) → 18 (3); leave 22 → 19; main 30 → 26.
		file: "sendrecv.trace", o: 1, c: 1,
		want:  []at{{0, 3, 18, 18}, {0, 4, 19, 19}, {0, 5, 26, 26}, {1, 3, 19, 19}, {1, 4, 20, 20}, {1, 5, 26, 26}},
		cases: map[Case]int64{CaseA1: 2},
	},
	{
		// 1-to-n, O = 1, C·size = 1 ns/B · 1000 B = 1. Root: 0, enter
		// MPI_Bcast 10 → 9, collective end 20 → 18, leave 22 → 19, main 30 →
		// 26. Receiver: 0, enter 5 → 4.
		// send := enter.send (10 → 9), exit.send := the root's leave (22),
		// recv := the receiver's collective end (25).
		// (m.1): 5 ≤ 22. Comm_m = 25 − 10 = 15; 9 + 15 = 24 > 4 (a.1) → 24.
		// Leave 27 → 24 + 2 − 1 = 25; main 30 → 25 + 3 − 1 = 27.
		file: "bcast-m1.trace", o: 1, c: 1,
		want:  []at{{0, 2, 18, 18}, {0, 3, 19, 19}, {0, 4, 26, 26}, {1, 1, 4, 4}, {1, 2, 24, 24}, {1, 3, 25, 25}, {1, 4, 27, 27}},
		cases: map[Case]int64{CaseA1: 1},
	},
	{
		// 1-to-n, O = 1, C·size = 2. Root: 0, enter MPI_Bcast 10 → 9,
		// collective end 12 → 10, leave 14 → 11, main 40 → 36. Receiver: 0,
		// work 2 → 1, 20 → 18, enter MPI_Bcast 22 → 19.
		// (m.2): 22 > exit.send_m 14. Comm^min = (19 − 9) + 2 = 12 (8).
		// Lower: max(4, 12) = 12 → 9 + 12 = 21; upper: max(26 − 10, 12) =
		// 16 → 25. Leave 28 → 22 | 26; main 40 → 33 | 37.
		file: "bcast-m2.trace", o: 1, c: 1,
		want:  []at{{0, 3, 11, 11}, {0, 4, 36, 36}, {1, 3, 19, 19}, {1, 4, 21, 25}, {1, 5, 22, 26}, {1, 6, 33, 37}},
		cases: map[Case]int64{CaseM2: 1},
	},
	{
		// n-to-n, eq. (12), O = 1. Enters: 10 → 9, 30 → 29, 40 → 39. j =
		// rank 2 (latest measured enter 40), k = rank 2 (latest approximated
		// 39), l = rank 0 (earliest measured exit 50): every exit_a = 39 +
		// (50 − 40) = 49. Leaves: 49 + 2 − 1 = 50 on every rank.
		file: "barrier.trace", o: 1,
		want: []at{{0, 1, 9, 9}, {1, 1, 29, 29}, {2, 1, 39, 39}, {0, 2, 49, 49}, {1, 2, 49, 49}, {2, 2, 49, 49},
			{0, 3, 50, 50}, {2, 3, 50, 50}},
	},
	{
		// n-to-n, eq. (13): each rank's own measured exit: 39 + (50 − 40) =
		// 49, 39 + (55 − 40) = 54, 39 + (60 − 40) = 59; leaves + 2 − 1.
		file: "barrier.trace", o: 1, coll: CollPerProcess,
		want: []at{{0, 2, 49, 49}, {1, 2, 54, 54}, {2, 2, 59, 59}, {0, 3, 50, 50}, {1, 3, 55, 55}, {2, 3, 60, 60}},
	},
}

func loadTrace(t *testing.T, file string) *trace.Mem {
	t.Helper()
	f, err := os.Open(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	m, err := trace.ReadText(f, file)
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// TestBoundCases runs every hand-computed case through both engines: Run
// (each location as far as it goes) and Stream (locations advanced on
// demand, as perfkb convert does), whose orders of approximating events
// differ.
func TestBoundCases(t *testing.T) {
	for _, c := range boundCases {
		mem := loadTrace(t, c.file)
		for _, b := range []Bound{Lower, Upper} {
			name := c.file + "/" + b.String()
			if c.coll == CollPerProcess {
				name += "/eq13"
			}
			t.Run(name, func(t *testing.T) {
				model := &Model{OverheadUs: c.o, Copy: []CopyPoint{{Bytes: 1, NsPerByte: c.c}}, Bound: b, Collective: c.coll}
				r, err := Run(context.Background(), mem, model)
				if err != nil {
					t.Fatal(err)
				}
				streamed := map[[2]int]float64{}
				var rep Report
				for e, err := range Stream(context.Background(), mem, model, &rep) {
					if err != nil {
						t.Fatal(err)
					}
					streamed[[2]int{e.Loc, int(e.Seq)}] = float64(e.Time)
				}
				for _, w := range c.want {
					want := w.lower
					if b == Upper {
						want = w.upper
					}
					if got := r.Approx[w.loc][w.idx]; !near(got, want) {
						t.Errorf("Run: location %d event %d = %v, want %v", w.loc, w.idx, got, want)
					}
					if got := streamed[[2]int{w.loc, w.idx}]; got != want {
						t.Errorf("Stream: location %d event %d = %v, want %v", w.loc, w.idx, got, want)
					}
				}
				wantCases := c.cases
				if wantCases == nil {
					wantCases = map[Case]int64{}
				}
				if !maps.Equal(r.Report.Cases, wantCases) || !maps.Equal(rep.Cases, wantCases) {
					t.Errorf("cases: Run %v, Stream %v, want %v", r.Report.Cases, rep.Cases, wantCases)
				}
			})
		}
	}
}
