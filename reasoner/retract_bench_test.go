package reasoner

import (
	"bytes"
	"context"
	"os"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/rules"
)

// BenchmarkRetractExperiment deletes experiments (every quad whose subject
// is the experiment's IRI or under it) from `perfkb sample` data closed
// under the shipped rules, and compares each retraction with a recompute
// from scratch over the data without them, in the same run. Two
// experiments go, A and then B: recompute (NewEngine + Run on a store
// loaded without A and B); live-first (Engine.Remove of A on the engine
// that materialised the full data: the engine's first retraction, which
// builds the hash indexes its joins probe); live (Engine.Remove of B on
// the same engine afterwards, as a server's engine deletes); store (B
// deleted from a store closed without A, then RunRetract, which loads the
// store into a fresh engine first); on demand (B removed from a store
// closed without A by a fresh engine that reads the store per lookup key,
// Options.LoadOnDemand, as perfkb drop-graph --retract). It reports CPU seconds and wall time
// of each and fails when the retracted stores' inferred graphs differ in
// size from the recompute's. PERFKB_BENCH_TRIPLES (default 200000) and
// PERFKB_BENCH_SITES (default 6: about 70 experiments) set the data.
//
//	go test -run '^$' -bench RetractExperiment -benchtime 1x ./reasoner/
func BenchmarkRetractExperiment(b *testing.B) {
	size, sites := int64(200000), 6
	if v := os.Getenv("PERFKB_BENCH_TRIPLES"); v != "" {
		n, err := strconv.ParseInt(v, 10, 64)
		if err != nil {
			b.Fatalf("PERFKB_BENCH_TRIPLES: %v", err)
		}
		size = n
	}
	if v := os.Getenv("PERFKB_BENCH_SITES"); v != "" {
		n, err := strconv.Atoi(v)
		if err != nil {
			b.Fatalf("PERFKB_BENCH_SITES: %v", err)
		}
		sites = n
	}
	ctx := context.Background()
	var data bytes.Buffer
	info, err := sample.Generate(ctx, &data, sample.Options{Triples: size, Sites: sites, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	// B: the second experiment of the second site, an ordinary profiling
	// run; A: the third of the third site.
	expA := sample.GraphIRI(sample.DefaultGraphBase, info.Sites[2]) + "/exp/3"
	expB := sample.GraphIRI(sample.DefaultGraphBase, info.Sites[1]) + "/exp/2"
	under := func(line, exp string) bool {
		return strings.HasPrefix(line, "<"+exp+">") || strings.HasPrefix(line, "<"+exp+"/")
	}
	var withoutA, without bytes.Buffer
	for line := range strings.SplitSeq(data.String(), "\n") {
		if under(line, expA) {
			continue
		}
		withoutA.WriteString(line)
		withoutA.WriteByte('\n')
		if under(line, expB) {
			continue
		}
		without.WriteString(line)
		without.WriteByte('\n')
	}
	prog, err := LoadProgram(rules.Default, ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	open := func(nq []byte) *native.MemStore {
		ds := native.OpenMemory()
		if _, err := rdfio.Load(ctx, ds, bytes.NewReader(nq), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
			b.Fatal(err)
		}
		if _, err := rdfio.Load(ctx, ds, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, Graph: kb.IRI(ontology.OntologyIRI)}); err != nil {
			b.Fatal(err)
		}
		return ds
	}
	experimentQuads := func(ds kb.Dataset, exp string) []kb.Quad {
		quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
		if err != nil {
			b.Fatal(err)
		}
		var out []kb.Quad
		for _, q := range quads {
			s, err := ds.Resolve(ctx, q.S)
			if err != nil {
				b.Fatal(err)
			}
			g, err := ds.Resolve(ctx, q.G)
			if err != nil {
				b.Fatal(err)
			}
			if g.Value == kb.InferredGraphIRI || g.Value == kb.DerivationsGraphIRI || g.Value == kb.RulesInternalGraphIRI {
				continue
			}
			if s.Value == exp || strings.HasPrefix(s.Value, exp+"/") {
				out = append(out, q)
			}
		}
		return out
	}
	inferred := func(ds kb.Dataset) int {
		id, ok, err := ds.Lookup(ctx, kb.InferredGraph)
		if err != nil || !ok {
			b.Fatalf("no inferred graph: %v", err)
		}
		quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{G: id}))
		if err != nil {
			b.Fatal(err)
		}
		return len(quads)
	}
	type timing struct{ cpu, wall float64 }
	measure := func(f func()) timing {
		runtime.GC() // not charged to the measured step
		c, w := cpuSeconds(), time.Now()
		f()
		return timing{cpuSeconds() - c, time.Since(w).Seconds()}
	}
	for b.Loop() {
		// Recompute: the data without the experiment, from scratch.
		c := open(without.Bytes())
		var full Summary
		recompute := measure(func() {
			if full, err = Run(ctx, c, prog, Options{}); err != nil {
				b.Fatal(err)
			}
		})
		want := inferred(c)

		// Live: the engine that closed the full data removes A, then B.
		a := open(data.Bytes())
		eng, err := NewEngine(ctx, a, prog, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Run(ctx); err != nil {
			b.Fatal(err)
		}
		del := experimentQuads(a, expA)
		liveFirst := measure(func() {
			if _, err = eng.Remove(ctx, del); err != nil {
				b.Fatal(err)
			}
		})
		del = experimentQuads(a, expB)
		before := eng.summary.Retracted
		var sum Summary
		eng.phases = &phaseTimes{clock: cpuSeconds, sum: map[string]float64{}}
		live := measure(func() {
			if sum, err = eng.Remove(ctx, del); err != nil {
				b.Fatal(err)
			}
		})
		if got := inferred(a); got != want {
			b.Errorf("live: %d inferred triples after retraction, recompute has %d", got, want)
		}

		sum.Retracted -= before

		// Store: another process deletes B, then retracts from the store.
		s := open(withoutA.Bytes())
		if _, err := Run(ctx, s, prog, Options{}); err != nil {
			b.Fatal(err)
		}
		del = experimentQuads(s, expB)
		store := measure(func() {
			if err := s.Apply(ctx, kb.Delta{Remove: del}); err != nil {
				b.Fatal(err)
			}
			if _, err := RunRetract(ctx, s, prog, del, Options{}); err != nil {
				b.Fatal(err)
			}
		})
		if got := inferred(s); got != want {
			b.Errorf("store: %d inferred triples after retraction, recompute has %d", got, want)
		}
		// On demand: a fresh engine that reads the store per lookup key
		// (as perfkb drop-graph --retract makes one) removes B from a
		// store closed without A.
		d := open(withoutA.Bytes())
		if _, err := Run(ctx, d, prog, Options{}); err != nil {
			b.Fatal(err)
		}
		del = experimentQuads(d, expB)
		onDemand := measure(func() {
			e, err := NewEngine(ctx, d, prog, Options{LoadOnDemand: true})
			if err != nil {
				b.Fatal(err)
			}
			if _, err := e.Remove(ctx, del); err != nil {
				b.Fatal(err)
			}
		})
		if got := inferred(d); got != want {
			b.Errorf("on demand: %d inferred triples after retraction, recompute has %d", got, want)
		}
		b.ReportMetric(onDemand.cpu, "ondemand-cpu-s")
		b.ReportMetric(recompute.cpu/onDemand.cpu, "recompute/ondemand-cpu")
		b.ReportMetric(float64(info.Experiments+info.TraceExperiments), "experiments")
		b.ReportMetric(float64(len(del)), "deleted-quads")
		b.ReportMetric(float64(sum.Retracted), "retracted")
		b.ReportMetric(float64(full.Derived), "recompute-derived")
		b.ReportMetric(recompute.cpu, "recompute-cpu-s")
		b.ReportMetric(recompute.wall, "recompute-wall-s")
		b.ReportMetric(liveFirst.cpu, "live-first-cpu-s")
		b.ReportMetric(liveFirst.wall, "live-first-wall-s")
		b.ReportMetric(recompute.cpu/liveFirst.cpu, "recompute/live-first-cpu")
		b.ReportMetric(live.cpu, "live-cpu-s")
		b.ReportMetric(live.wall, "live-wall-s")
		b.ReportMetric(store.cpu, "store-cpu-s")
		b.ReportMetric(store.wall, "store-wall-s")
		b.ReportMetric(recompute.cpu/live.cpu, "recompute/live-cpu")
		b.ReportMetric(recompute.wall/live.wall, "recompute/live-wall")
		b.ReportMetric(recompute.cpu/store.cpu, "recompute/store-cpu")
		reportPhases(b, eng.phases.sum, 1)
		b.ReportMetric(recompute.wall/store.wall, "recompute/store-wall")
	}
}

// BenchmarkRemoveAgain removes the same experiment (as
// BenchmarkRetractExperiment's B) from a live engine ten times, adding it
// back in between, and reports the least and the median CPU seconds of
// the ten removals: on a loaded machine a steadier figure than one
// retraction. Each removal must withdraw as many triples as the first.
// Three recomputes from scratch over the data without the experiment (Run
// on a freshly loaded store, as BenchmarkRetractExperiment's) give the
// least recompute, and the ratios of least to least and median to median.
// PERFKB_REMOVE_AGAIN sets another number of removals (more samples for a
// -cpuprofile).
//
//	go test -run '^$' -bench RemoveAgain -benchtime 1x ./reasoner/
func BenchmarkRemoveAgain(b *testing.B) {
	ctx := context.Background()
	var data bytes.Buffer
	info, err := sample.Generate(ctx, &data, sample.Options{Triples: 200000, Sites: 6, Seed: 1})
	if err != nil {
		b.Fatal(err)
	}
	exp := sample.GraphIRI(sample.DefaultGraphBase, info.Sites[1]) + "/exp/2"
	prog, err := LoadProgram(rules.Default, ParseOptions{})
	if err != nil {
		b.Fatal(err)
	}
	times := 10
	if v := os.Getenv("PERFKB_REMOVE_AGAIN"); v != "" {
		if times, err = strconv.Atoi(v); err != nil || times < 1 {
			b.Fatalf("PERFKB_REMOVE_AGAIN=%q: want a positive count", v)
		}
	}
	var without bytes.Buffer
	for line := range strings.SplitSeq(data.String(), "\n") {
		if !strings.HasPrefix(line, "<"+exp+">") && !strings.HasPrefix(line, "<"+exp+"/") {
			without.WriteString(line)
			without.WriteByte('\n')
		}
	}
	for b.Loop() {
		var recomputes []float64
		for range 3 {
			c := native.OpenMemory()
			if _, err := rdfio.Load(ctx, c, bytes.NewReader(without.Bytes()), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
				b.Fatal(err)
			}
			if _, err := rdfio.Load(ctx, c, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, Graph: kb.IRI(ontology.OntologyIRI)}); err != nil {
				b.Fatal(err)
			}
			runtime.GC() // not charged to the recompute
			start := cpuSeconds()
			if _, err := Run(ctx, c, prog, Options{}); err != nil {
				b.Fatal(err)
			}
			recomputes = append(recomputes, cpuSeconds()-start)
		}
		slices.Sort(recomputes)
		ds := native.OpenMemory()
		if _, err := rdfio.Load(ctx, ds, bytes.NewReader(data.Bytes()), rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
			b.Fatal(err)
		}
		if _, err := rdfio.Load(ctx, ds, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, Graph: kb.IRI(ontology.OntologyIRI)}); err != nil {
			b.Fatal(err)
		}
		eng, err := NewEngine(ctx, ds, prog, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := eng.Run(ctx); err != nil {
			b.Fatal(err)
		}
		quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
		if err != nil {
			b.Fatal(err)
		}
		var del []kb.Quad
		for _, q := range quads {
			s, err := ds.Resolve(ctx, q.S)
			if err != nil {
				b.Fatal(err)
			}
			g, err := ds.Resolve(ctx, q.G)
			if err != nil {
				b.Fatal(err)
			}
			if g.Value == kb.InferredGraphIRI || g.Value == kb.DerivationsGraphIRI || g.Value == kb.RulesInternalGraphIRI {
				continue
			}
			if s.Value == exp || strings.HasPrefix(s.Value, exp+"/") {
				del = append(del, q)
			}
		}
		var cpus []float64
		var first int64
		eng.phases = &phaseTimes{clock: cpuSeconds, sum: map[string]float64{}}
		for i := range times {
			before := eng.summary.Retracted
			runtime.GC() // not charged to the removal
			c := cpuSeconds()
			if _, err := eng.Remove(ctx, del); err != nil {
				b.Fatal(err)
			}
			cpus = append(cpus, cpuSeconds()-c)
			n := eng.summary.Retracted - before
			if i == 0 {
				first = n
			} else if n != first {
				b.Fatalf("removal %d withdrew %d triples, the first %d", i+1, n, first)
			}
			phases := eng.phases
			eng.phases = nil // the additions are not a removal's phases
			if _, err := eng.Add(ctx, del); err != nil {
				b.Fatal(err)
			}
			eng.phases = phases
		}
		slices.Sort(cpus)
		b.ReportMetric(float64(len(del)), "deleted-quads")
		b.ReportMetric(float64(first), "retracted")
		b.ReportMetric(cpus[0], "min-remove-cpu-s")
		b.ReportMetric(cpus[len(cpus)/2], "median-remove-cpu-s")
		b.ReportMetric(recomputes[0], "min-recompute-cpu-s")
		b.ReportMetric(recomputes[0]/cpus[0], "min-recompute/min-remove")
		b.ReportMetric(recomputes[1]/cpus[len(cpus)/2], "median-recompute/median-remove")
		reportPhases(b, eng.phases.sum, times)
	}
}

// reportPhases reports the CPU time of each retraction phase (see
// Engine.timePhase) in milliseconds per removal, over n removals.
func reportPhases(b *testing.B, phases map[string]float64, n int) {
	for phase, s := range phases {
		b.ReportMetric(s*1000/float64(n), phase+"-cpu-ms")
	}
}
