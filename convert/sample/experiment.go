package sample

import (
	"math"
	"strconv"
	"time"
)

// character is the overall behaviour planted in an experiment's main
// program region summaries.
type character int

const (
	healthy character = iota
	ioDominated
	syncDominated
	commDominated
	unidentified
	numCharacters
)

var characterInfo = [...]string{"healthy run", "I/O dominated run", "synchronization dominated run", "communication dominated run", "run with large unidentified overhead"}

// experimentPlan holds the per-experiment choices.
type experimentPlan struct {
	iri        []byte
	app        *app
	ver        *version
	cl         *cluster
	procs      int
	threads    int
	char       character
	imbalanced bool
	mainTime   float64 // wall-clock time of the main program in microseconds
}

// perPUCost estimates the lines one thread-level processing unit costs.
func perPUCost(ver *version) int64 { return int64(len(ver.regions))*34 + 8 }

// experiment writes one profiling experiment; it returns false when the
// remaining budget is too small to start one.
func (g *siteGen) experiment() bool {
	a := &g.apps[g.expCount%len(g.apps)]
	ver := &a.versions[(g.expCount/len(g.apps))%len(a.versions)]
	cost := perPUCost(ver)
	rem := g.remaining()
	if rem < cost && g.expCount > 0 {
		return false
	}
	n := g.expCount
	g.expCount++
	plan := experimentPlan{
		iri: []byte(g.base + "exp/" + strconv.Itoa(n+1)),
		app: a, ver: ver,
	}
	// Clusters: OpenMP and hybrid codes prefer the SMP cluster.
	plan.cl = &g.clusters[0]
	if (a.paradigm == openMP || a.paradigm == hybrid) && len(g.clusters) > 1 {
		plan.cl = &g.clusters[1]
	}
	// Size: about an eighth of the site budget per experiment, 2..128 PUs.
	maxPUs := clamp(g.budget/8/cost, 2, 128)
	pus := int(maxPUs/2 + g.rng.Int64N(maxPUs/2+1))
	if pus < 2 {
		pus = 2
	}
	switch a.paradigm {
	case openMP:
		plan.procs, plan.threads = 1, int(clamp(int64(pus), 2, 16))
	case hybrid:
		plan.threads = 2
		if plan.cl.cpus >= 4 && pus >= 8 {
			plan.threads = 4
		}
		plan.procs = int(clamp(int64(pus/plan.threads), 1, 64))
	default:
		plan.procs, plan.threads = int(clamp(int64(pus), 2, 128)), 1
	}
	// The first experiments of a site cycle through all characters and
	// both balance cases, so even small outputs contain every case.
	if n < int(numCharacters) {
		plan.char = character((n + g.index) % int(numCharacters))
	} else if g.rng.Float64() < 0.45 {
		plan.char = character(1 + g.rng.IntN(int(numCharacters)-1))
	}
	switch {
	case n == 0:
		plan.imbalanced = true
	case n == 1:
		plan.imbalanced = false
	default:
		plan.imbalanced = g.rng.Float64() < 0.3
	}
	plan.mainTime = math.Exp(g.uniform(math.Log(2e6), math.Log(6e8)))
	if n == 0 {
		// A long first run, so the Fig. 6.29 query (wtime >= 3E8 on
		// gsr410) has answers at every scale.
		plan.mainTime = g.uniform(3.3e8, 5e8)
	}
	g.writeExperimentHeader(&plan, n)
	g.sum.Experiments++

	emittedPUs := 0
	for p := 0; p < plan.procs && g.e.err == nil; p++ {
		for t := 0; t < plan.threads; t++ {
			if emittedPUs >= 2 && g.remaining() < cost/2 {
				p = plan.procs
				break
			}
			g.processingUnit(&plan, p, t, emittedPUs)
			emittedPUs++
		}
	}
	if plan.imbalanced && emittedPUs >= 2 {
		g.sum.ImbalancedRegions++
		g.sum.BalancedRegions += len(ver.regions) - 1
	} else {
		g.sum.BalancedRegions += len(ver.regions)
	}
	return true
}

func (g *siteGen) writeExperimentHeader(plan *experimentPlan, n int) {
	e := g.e
	x := plan.iri
	e.term(x, pType, cExperiment)
	e.iri(x, pOfVersion, plan.ver.iri)
	e.iri(x, pAtSite, g.siteIRI)
	start := startEpoch.Add(time.Duration(g.index)*time.Hour + time.Duration(n)*97*time.Minute)
	end := start.Add(time.Duration(plan.mainTime*1.02) * time.Microsecond)
	e.typed(x, pStartTime, start.Format(time.RFC3339), dtDateTime)
	e.typed(x, pEndTime, end.Format(time.RFC3339), dtDateTime)
	size := plan.app.problemSz[g.rng.IntN(len(plan.app.problemSz))]
	var cmd, compiler, opts string
	switch plan.app.paradigm {
	case openMP:
		cmd = "env OMP_NUM_THREADS=" + strconv.Itoa(plan.threads) + " ./" + plan.app.exe + " " + size
		compiler, opts = "ifort 8.1 (Intel Fortran Compiler)", "-O3 -openmp"
	case hybrid:
		cmd = "mpirun -np " + strconv.Itoa(plan.procs) + " -env OMP_NUM_THREADS=" + strconv.Itoa(plan.threads) + " ./" + plan.app.exe + " " + size
		compiler, opts = "mpif90 (ifort 8.1)", "-O3 -openmp -fpp"
	case hpf:
		cmd = "mpirun -np " + strconv.Itoa(plan.procs) + " ./" + plan.app.exe + " " + size
		compiler, opts = "VFC 2.0 + pgf90 5.2", "-O2 -hpf"
	default:
		cmd = "mpirun -np " + strconv.Itoa(plan.procs) + " ./" + plan.app.exe + " " + size
		compiler, opts = g.pick([]string{"mpif90 (pgf90 5.2)", "mpif90 (ifort 8.1)", "mpif77 (g77 3.3)"}), g.pick([]string{"-O2", "-O3", "-O3 -funroll-loops"})
	}
	e.str(x, pCommandLine, cmd)
	e.str(x, pCompiler, compiler)
	e.str(x, pCompilerOptions, opts)
	e.str(x, pExperimentInfo, plan.app.name+" on "+plan.cl.name+": "+characterInfo[plan.char])
	e.integer(x, pNumberOfProcesses, int64(plan.procs), dtInteger)
	e.integer(x, pNumberOfThreads, int64(plan.threads), dtInteger)
	e.str(x, pProblemSize, size)
	used := plan.procs
	if used > len(plan.cl.nodes) {
		used = len(plan.cl.nodes)
	}
	for i := 0; i < used; i++ {
		e.iri(x, pUsesNode, plan.cl.nodes[i].iri)
	}
}

// puIRI writes the IRI of processing unit (p, t) of an experiment into buf;
// t < 0 names the process-level unit.
func puIRI(buf, exp []byte, p, t int) []byte {
	buf = append(buf[:0], exp...)
	buf = append(buf, "/pu/p"...)
	buf = strconv.AppendInt(buf, int64(p), 10)
	if t >= 0 {
		buf = append(buf, 't')
		buf = strconv.AppendInt(buf, int64(t), 10)
	}
	return buf
}

// processingUnit writes thread-level processing unit (p, t) (with its node-
// and process-level parents on first use) and its region summary tree;
// ordinal counts the units written so far in the experiment.
func (g *siteGen) processingUnit(plan *experimentPlan, p, t, ordinal int) {
	e := g.e
	nodeIndex := p % len(plan.cl.nodes)
	nd := &plan.cl.nodes[nodeIndex]
	nodeUnit := append(append(g.scratch[:0], plan.iri...), "/pu/"+nd.host...)
	g.scratch = nodeUnit
	if t == 0 && p < len(plan.cl.nodes) {
		// The node level of the dynamic processing unit graph, once per node.
		e.term(nodeUnit, pType, cNodeUnit)
		e.iri(nodeUnit, pInExperiment, plan.iri)
		e.str(nodeUnit, pInNode, nd.host)
		e.iri(nodeUnit, pOnNode, nd.iri)
		g.sum.ProcessingUnits++
	}
	proc := puIRI(g.iriB, plan.iri, p, -1)
	if t == 0 {
		e.term(proc, pType, cProcessUnit)
		e.iri(proc, pInExperiment, plan.iri)
		e.str(proc, pInNode, nd.host)
		e.iri(proc, pOnNode, nd.iri)
		e.integer(proc, pProcessID, int64(p), dtInteger)
		e.iri(proc, pHasParentPU, nodeUnit)
		g.sum.ProcessingUnits++
	}
	pu := puIRI(g.iriA, plan.iri, p, t)
	e.term(pu, pType, cThreadUnit)
	e.iri(pu, pInExperiment, plan.iri)
	e.str(pu, pInNode, nd.host)
	e.iri(pu, pOnNode, nd.iri)
	e.integer(pu, pProcessID, int64(p), dtInteger)
	e.integer(pu, pThreadID, int64(t), dtInteger)
	e.iri(pu, pHasParentPU, proc)
	g.sum.ProcessingUnits++
	g.iriA, g.iriB = pu, proc

	// Region summaries: IRI = exp/rs/p<p>t<t>/<region index>.
	prefix := append([]byte{}, plan.iri...)
	prefix = append(prefix, "/rs/p"...)
	prefix = strconv.AppendInt(prefix, int64(p), 10)
	prefix = append(prefix, 't')
	prefix = strconv.AppendInt(prefix, int64(t), 10)
	prefix = append(prefix, '/')
	regions := plan.ver.regions
	rsIRI := func(i int) []byte {
		b := append(g.scratch[:0], prefix...)
		b = strconv.AppendInt(b, int64(i+1), 10)
		g.scratch = b
		return b
	}
	parentIRIs := make([][]byte, len(regions))
	for i := range regions {
		r := &regions[i]
		rs := append([]byte{}, rsIRI(i)...)
		parentIRIs[i] = rs
		e.term(rs, pType, cRegionSummary)
		e.iri(rs, pOfCodeRegion, r.iri)
		e.iri(rs, pInProcessingUnit, pu)
		e.iri(rs, pInExperiment, plan.iri)
		if r.parent >= 0 {
			e.iri(parentIRIs[r.parent], pHasChildRS, rs)
		}
		wtime := plan.mainTime * r.share * g.jitter()
		if i == plan.ver.compute && plan.imbalanced && ordinal == 0 {
			wtime *= 4
		}
		if math.Round(wtime*1000)/1000 >= Fig629Threshold && nd.host == Fig629Node {
			g.sum.Fig629Matches++
		}
		g.regionMetrics(plan, rs, r, wtime)
		g.sum.RegionSummaries++
	}
}

// regionMetrics writes the metrics of one region summary.
func (g *siteGen) regionMetrics(plan *experimentPlan, rs []byte, r *region, wtime float64) {
	busy := 1.0
	if r.kind == kindMain {
		switch plan.char {
		case ioDominated, syncDominated, commDominated:
			busy = 0.3
		case unidentified:
			busy = 0.4
		}
	}
	g.metricD(rs, mWtime, wtime)
	g.metricD(rs, mUtime, wtime*busy*g.uniform(0.8, 0.92))
	g.metricD(rs, mStime, wtime*g.uniform(0.01, 0.05))
	g.metricL(rs, mNcalls, r.calls)
	cycles := wtime * plan.cl.nodes[0].mhz
	access := math.Max(1000, math.Round(cycles*g.uniform(0.005, 0.03)))
	ratio := g.uniform(0.02, 0.28)
	if g.rng.Float64() < 0.15 {
		ratio = g.uniform(0.72, 0.95)
		g.sum.PoorCacheRegionSummaries++
	} else {
		g.sum.GoodCacheRegionSummaries++
	}
	g.metricL(rs, mL2TCA, int64(access))
	g.metricL(rs, mL2TCM, int64(math.Round(access*ratio)))
	switch r.kind {
	case kindMain:
		g.mainMetrics(plan, rs, r, wtime, cycles)
	case kindLoop:
		g.metricL(rs, mTotCyc, int64(cycles))
		g.metricL(rs, mFPIns, int64(cycles*g.uniform(0.2, 0.6)))
		g.metricL(rs, mL1DCM, int64(access*g.uniform(2, 6)))
	case kindP2P:
		g.sum.P2PRegionSummaries++
		var length float64
		big := g.rng.Float64() < 0.2
		switch g.p2pCount { // every site has at least one big and one small case
		case 0:
			big = true
		case 1:
			big = false
		}
		g.p2pCount++
		if big {
			length = math.Round(math.Exp2(float64(17+g.rng.IntN(6))) * g.uniform(1, 1.9))
			g.sum.BigMessageRegionSummaries++
		} else {
			length = math.Round(math.Exp2(float64(6+g.rng.IntN(9))) * g.uniform(1, 1.99))
		}
		g.metricD(rs, mAvgMsgLen, length)
	case kindSend:
		g.metricD(rs, mOdataSend, g.leafShare(wtime, true))
	case kindRecv:
		g.metricD(rs, mOdataRecv, g.leafShare(wtime, true))
	case kindMPIBarrier:
		g.metricD(rs, mOsyncMpbar, g.leafShare(wtime, true))
	case kindOMPBarrier:
		g.metricD(rs, mOsyncBar, g.leafShare(wtime, true))
	case kindLock:
		g.metricD(rs, mOsyncLock, g.leafShare(wtime, g.rng.IntN(2) == 0))
	case kindForkJoin:
		g.metricD(rs, mOctrpFkjn, g.leafShare(wtime, false))
	case kindStartup:
		g.metricD(rs, mOctrpInfl, g.leafShare(wtime, true))
	case kindSched:
		g.metricD(rs, mOctrpSched, g.leafShare(wtime, false))
	case kindInspector:
		g.metricD(rs, mOctrpInsp, g.leafShare(wtime, true))
	case kindExecutor:
		g.metricD(rs, mOctrpExec, g.leafShare(wtime, false))
	case kindDataType:
		g.metricD(rs, mOaddDtc, g.leafShare(wtime, true))
	}
}

// leafShare returns the value of a region-specific overhead metric: a
// dominating share (>= DominantFraction) of wtime or a small one (<=
// HealthyFraction), never in between, so thresholds on these metrics
// classify them clearly as well.
func (g *siteGen) leafShare(wtime float64, dominant bool) float64 {
	if dominant {
		return wtime * g.uniform(DominantFraction+0.02, 0.95)
	}
	return wtime * g.uniform(0.005, HealthyFraction-0.02)
}

// mainMetrics writes the aggregate overhead metrics of a main program
// region summary following the experiment's character.
func (g *siteGen) mainMetrics(plan *experimentPlan, rs []byte, r *region, wtime, cycles float64) {
	g.sum.MainRegionSummaries++
	small := func() float64 { return wtime * g.uniform(0.002, 0.025) }
	big := func() float64 { return wtime * g.uniform(DominantFraction+0.01, 0.78) }
	io, sync, comm := small(), small(), small()
	unid := wtime * g.uniform(0.005, 0.04)
	switch plan.char {
	case ioDominated:
		io = big()
		g.sum.IODominated++
	case syncDominated:
		sync = big()
		g.sum.SynchronizationDominated++
	case commDominated:
		comm = big()
		g.sum.HighCommunication++
	case unidentified:
		unid = wtime * g.uniform(UnidentifiedFraction+0.01, 0.68)
		g.sum.LargeUnidentifiedOverhead++
	}
	if plan.char == ioDominated || plan.char == syncDominated || plan.char == commDominated {
		g.sum.HighIdentifiedOverhead++
	}
	other := wtime * g.uniform(0, 0.01)
	ident := io + sync + comm + other
	readShare := g.uniform(0.2, 0.8)
	p2pShare := g.uniform(0.3, 0.8)
	g.metricL(rs, mNsubs, int64(len(plan.ver.regions)-1))
	g.metricL(rs, mTotCyc, int64(cycles))
	g.metricL(rs, mTotIns, int64(cycles*g.uniform(0.6, 1.4)))
	g.metricD(rs, mOdataFread, io*readShare)
	g.metricD(rs, mOdataFwrite, io*(1-readShare))
	g.metricD(rs, mOsync, sync)
	g.metricD(rs, mOdataP2P, comm*p2pShare)
	g.metricD(rs, mOdataCol, comm*(1-p2pShare))
	g.metricD(rs, mOallIdent, ident)
	g.metricD(rs, mOallUnid, unid)
	g.metricD(rs, mOall, ident+unid)
}

// metricIRI writes rs + "/" + name into the scratch buffer.
func (g *siteGen) metricIRI(rs []byte, m metricSpec) []byte {
	b := append(g.scratch[:0], rs...)
	b = append(b, '/')
	b = append(b, m.name...)
	g.scratch = b
	return b
}

func (g *siteGen) metricHead(rs []byte, m metricSpec) []byte {
	mi := g.metricIRI(rs, m)
	g.e.iri(rs, pHasMetric, mi)
	g.e.term(mi, pType, cPerformanceMetric)
	g.e.term(mi, pHasMetricName, m.quoted)
	if !g.seen.metrics[m.name] {
		g.seen.metrics[m.name] = true
	}
	g.sum.Metrics++
	return mi
}

// metricD writes a metric whose catalog type is double.
func (g *siteGen) metricD(rs []byte, m metricSpec, v float64) {
	mi := g.metricHead(rs, m)
	if m.long {
		g.e.integer(mi, pHasMetricValue, int64(math.Round(v)), dtLong)
		return
	}
	g.e.dbl(mi, pHasMetricValue, v)
}

// metricL writes a metric whose catalog type is int64.
func (g *siteGen) metricL(rs []byte, m metricSpec, v int64) {
	mi := g.metricHead(rs, m)
	if m.long {
		g.e.integer(mi, pHasMetricValue, v, dtLong)
		return
	}
	g.e.dbl(mi, pHasMetricValue, float64(v))
}
