package compensate

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

func baseParams() simParams {
	return simParams{workers: 3, packets: 24, coords: 150, coordUs: 2, computeUs: 150, masterUs: 10,
		latUs: 5, nsPerByte: 1, copyNs: 0.5, workBytes: 8000, resultBytes: 64, collUs: 8, seed: 7}
}

func span(m *trace.Mem) float64 {
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, s := range m.Stream {
		if len(s) > 0 {
			lo = min(lo, float64(s[0].Time))
			hi = max(hi, float64(s[len(s)-1].Time))
		}
	}
	return hi - lo
}

func summarize(t *testing.T, m *trace.Mem) *trace.Summary {
	t.Helper()
	if vs, err := trace.Check(context.Background(), m); err != nil || trace.AnyFatal(vs) {
		t.Fatalf("simulated trace is inconsistent: %v %v", err, vs)
	}
	s, err := trace.Summarize(context.Background(), m)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// inclusive sums inclusive time per region name over all locations.
func inclusive(s *trace.Summary) map[string]float64 {
	out := map[string]float64{}
	for _, n := range s.Nodes {
		out[s.Defs.Regions[n.Region].Name] += float64(n.Incl)
	}
	return out
}

func masterLS(s *trace.Summary, master int) float64 {
	var w float64
	for _, n := range s.Nodes {
		if n.Loc == master {
			w += float64(n.LSWait)
		}
	}
	return w
}

func TestMonteCarloMasterWorker(t *testing.T) {
	p := baseParams()
	truth := simulate(p)
	p.overheadUs = 1
	measured := simulate(p)
	copyCal := []CopyPoint{{Bytes: 1, NsPerByte: p.copyNs}}
	lower, err := Run(context.Background(), measured, &Model{OverheadUs: p.overheadUs, Copy: copyCal, Bound: Lower})
	if err != nil {
		t.Fatal(err)
	}
	upper, err := Run(context.Background(), measured, &Model{OverheadUs: p.overheadUs, Copy: copyCal, Bound: Upper})
	if err != nil {
		t.Fatal(err)
	}
	tu, tm, tl, tup := span(truth), span(measured), span(lower.Trace), span(upper.Trace)
	t.Logf("total time: uninstrumented %.0f ns, measured %.0f, lower %.0f, upper %.0f", tu, tm, tl, tup)
	if tm < 1.3*tu {
		t.Fatalf("the instrumentation should slow the run down noticeably: %.0f vs %.0f", tm, tu)
	}
	if math.Abs(tl-tu) > 0.05*tu {
		t.Errorf("lower-bound total time %.0f not within 5%% of uninstrumented %.0f", tl, tu)
	}
	if tup < tl || tup > tm {
		t.Errorf("upper-bound time %.0f should lie in [lower %.0f, measured %.0f]", tup, tl, tm)
	}
	su, sm, sl := summarize(t, truth), summarize(t, measured), summarize(t, lower.Trace)
	iu, il := inclusive(su), inclusive(sl)
	run := tu * float64(len(truth.D.Locations))
	checked := 0
	for name, v := range iu {
		if v <= 0.01*run {
			continue
		}
		checked++
		if math.Abs(il[name]-v) > 0.10*v {
			t.Errorf("region %s: inclusive %.0f after compensation, %.0f uninstrumented (> 10%% apart)", name, il[name], v)
		}
	}
	if checked < 5 {
		t.Errorf("only %d regions above 1%% of the run were compared", checked)
	}
	master := p.workers
	lsM, lsL := masterLS(sm, master), masterLS(sl, master)
	t.Logf("master Late Sender wait: measured %.0f ns, compensated %.0f ns, uninstrumented %.0f ns", lsM, lsL, masterLS(su, master))
	if !(lsL < lsM) {
		t.Errorf("master's Late Sender wait should shrink after compensation: %.0f → %.0f", lsM, lsL)
	}
}

func TestPropertyRandomTraces(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 25 {
		p := simParams{workers: 1 + rng.IntN(5), packets: 1 + rng.IntN(20), coords: rng.IntN(30),
			coordUs: rng.Float64() * 5, computeUs: rng.Float64() * 100, masterUs: rng.Float64() * 20,
			latUs: rng.Float64() * 20, nsPerByte: rng.Float64() * 2, copyNs: rng.Float64(),
			workBytes: rng.Int64N(100000), resultBytes: rng.Int64N(1000), collUs: rng.Float64() * 10,
			overheadUs: rng.Float64() * 3, seed: uint64(i), prefetch: 1 + rng.IntN(3)}
		m := simulate(p)
		for _, b := range []Bound{Lower, Upper} {
			// O and C are deliberately wrong half the time (over-estimates
			// included): the invariants must hold whatever the constants.
			o := p.overheadUs * (0.5 + rng.Float64())
			model := &Model{OverheadUs: o, Copy: []CopyPoint{{Bytes: 1 + rng.Int64N(1000), NsPerByte: rng.Float64() * 3}}, Bound: b,
				Collective: CollectiveMode(rng.IntN(2))}
			r, err := Run(context.Background(), m, model)
			if err != nil {
				t.Fatalf("case %d (%+v, %s): %v", i, p, b, err)
			}
			if r.Report.Events != int64(countEvents(m)) {
				t.Fatalf("case %d: %d of %d events approximated", i, r.Report.Events, countEvents(m))
			}
		}
	}
}

func countEvents(m *trace.Mem) int {
	n := 0
	for _, s := range m.Stream {
		n += len(s)
	}
	return n
}

// mainByLoc returns the inclusive time of main on each location.
func mainByLoc(s *trace.Summary) map[int]float64 {
	out := map[int]float64{}
	for _, n := range s.Nodes {
		if s.Defs.Regions[n.Region].Name == "main" {
			out[n.Loc] += float64(n.Incl)
		}
	}
	return out
}

// TestMonteCarloPrefetchM2 runs the master/worker program with two packets
// queued per worker, so most worker receives are case (m.2): the lower
// bound (eqs. 6, 8, 9) must recover the uninstrumented run.
func TestMonteCarloPrefetchM2(t *testing.T) {
	for _, o := range []float64{1, 2} {
		t.Run(fmt.Sprintf("O=%gus", o), func(t *testing.T) { prefetchM2(t, o) })
	}
}

func prefetchM2(t *testing.T, o float64) {
	p := baseParams()
	p.prefetch = 2
	truth := simulate(p)
	p.overheadUs = o
	measured := simulate(p)
	copyCal := []CopyPoint{{Bytes: 1, NsPerByte: p.copyNs}}
	lower, err := Run(context.Background(), measured, &Model{OverheadUs: p.overheadUs, Copy: copyCal, Bound: Lower})
	if err != nil {
		t.Fatal(err)
	}
	upper, err := Run(context.Background(), measured, &Model{OverheadUs: p.overheadUs, Copy: copyCal, Bound: Upper})
	if err != nil {
		t.Fatal(err)
	}
	rep := lower.Report
	recvs := rep.Cases[CaseA1] + rep.Cases[CaseA2] + rep.Cases[CaseM2]
	t.Logf("receives: %v", rep.Cases)
	// Each worker's first packet finds it waiting (m.1); the rest are queued.
	if rep.Cases[CaseM2] < recvs/3 {
		t.Fatalf("only %d of %d receives are (m.2): the simulation does not test the bounds", rep.Cases[CaseM2], recvs)
	}
	tu, tm, tl, tup := span(truth), span(measured), span(lower.Trace), span(upper.Trace)
	t.Logf("total time: uninstrumented %.0f ns, measured %.0f, lower %.0f, upper %.0f", tu, tm, tl, tup)
	if tm < 1.3*tu {
		t.Fatalf("the instrumentation should slow the run down noticeably: %.0f vs %.0f", tm, tu)
	}
	if math.Abs(tl-tu) > 0.02*tu {
		t.Errorf("lower-bound total time %.0f not within 2%% of uninstrumented %.0f", tl, tu)
	}
	if !(tup > tl) {
		t.Errorf("upper-bound time %.0f should exceed the lower bound %.0f when (m.2) receives occur", tup, tl)
	}
	su, sl := summarize(t, truth), summarize(t, lower.Trace)
	mu, ml := mainByLoc(su), mainByLoc(sl)
	for loc, v := range mu {
		t.Logf("main on location %d: uninstrumented %.0f, lower %.0f (%+.2f%%)", loc, v, ml[loc], 100*(ml[loc]-v)/v)
		if math.Abs(ml[loc]-v) > 0.02*v {
			t.Errorf("main on location %d: %.0f after compensation, %.0f uninstrumented (> 2%% apart)", loc, ml[loc], v)
		}
	}
	iu, il := inclusive(su), inclusive(sl)
	run := tu * float64(len(truth.D.Locations))
	for name, v := range iu {
		if v <= 0.01*run {
			continue
		}
		t.Logf("%s: uninstrumented %.0f, lower %.0f (%+.2f%%)", name, v, il[name], 100*(il[name]-v)/v)
		if math.Abs(il[name]-v) > 0.02*v {
			t.Errorf("region %s: inclusive %.0f after compensation, %.0f uninstrumented (> 2%% apart)", name, il[name], v)
		}
	}
}
