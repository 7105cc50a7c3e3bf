package sample

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"
)

// Scaling series (Options.Scaling): for each of two versions of the MPI
// application "Stommel" and two problem sizes, runs at p = 1, 2, 4, 8, 16
// and 32 processes (one thread each) whose times follow a model: an Amdahl
// fraction (a sequential setup on process 0 and a replicated
// initialisation on every process), perfectly parallel compute, boundary
// and output regions, and a halo exchange whose communication time grows
// with (p-1)·log2(p). Version 1's exchange stops scaling: every process
// sends a halo of fixed size whatever p (a constant 0.2% of the sequential
// time, a loss of parallelism) and its communication dominates, so its
// time grows monotonically in p, faster than p (Extra-P models it as
// c0 + c1·p^(4/3)). Version 2 exchanges a halo that shrinks with p and
// overlaps communication: it keeps scaling. The main program region carries
// the identified overheads (odata_p2p, osync for the ranks waiting for the
// setup, olopa), so the unidentified overhead is small but not zero.
//
// The regions planted to stop scaling (efficiency against the sequential
// run below 0.5 at some p, every other region and every program above it)
// are listed in Summary.PlantedPoorScalability.

// ScalingProcesses are the process counts of each scaling series.
var ScalingProcesses = []int{1, 2, 4, 8, 16, 32}

// ScalingProblemSizes are the two problem sizes of each version.
var ScalingProblemSizes = []string{"N=1000", "N=2000"}

// The time model, as fractions of the sequential run's time.
const (
	shareSetup    = 0.01  // sequential setup, process 0 only (unparallelized)
	shareRepl     = 0.005 // replicated initialisation, every process
	shareCompute  = 0.85
	shareBoundary = 0.08
	shareExchange = 0.02
	// haloFixed is version 1's exchange time without communication, the
	// same on every process whatever p; the rest of shareExchange is in
	// its update boundary (packing the halo), so the shares still sum to 1.
	haloFixed  = 0.002
	shareWrite = 0.02
	shareSelf  = 0.015 // the main program's own statements
	extraUnid  = 0.001 // unidentified: parallel runs spend 0.1% of T_s/p more in main's own statements
	// commSlow and commFast scale (p-1)·log2(p) into the halo exchange's
	// communication time for versions 1 and 2 (per unit of the sequential
	// time, halved for the larger problem).
	commSlow = 9e-5
	commFast = 2e-6
	// imbalanceFactor: in the N=1000, p=8 run of version 1 the compute
	// kernel on process 3 takes this much longer (load imbalance that PU
	// similarity must find; its efficiency stays above 0.5).
	imbalanceFactor = 1.6
	imbalanceP      = 8
	imbalanceProc   = 3
)

// scaling region indexes of the template.
const (
	scMain = iota
	scSetup
	scRepl
	scSolve
	scLoop
	scCompute
	scBoundary
	scExchange
	scWrite
)

func scalingTemplate() []region {
	return []region{
		{mnemonic: "CR_P", name: "main", parent: -1, calls: 1},
		{mnemonic: "CR_OTHERSEQ", name: "sequential setup", parent: scMain, calls: 1},
		{mnemonic: "CR_OTHERREP", name: "replicated init", parent: scMain, calls: 1},
		{mnemonic: "CR_Y", name: "solve", parent: scMain, calls: 1},
		{mnemonic: "CR_U", name: "time step loop", parent: scSolve, calls: 1},
		{mnemonic: "CR_L", name: "compute kernel", parent: scLoop, calls: 500},
		{mnemonic: "CR_L", name: "update boundary", parent: scLoop, calls: 500},
		{mnemonic: "CR_MPIP2P", name: "exchange halo", parent: scLoop, calls: 500},
		{mnemonic: "CR_W", name: "write results", parent: scMain, calls: 1},
	}
}

// scalingSeries writes the scaling series of a site after its other data.
func (g *siteGen) scalingSeries(seed uint64) {
	rng := rand.New(rand.NewPCG(seed^0x5ca1ab1e, uint64(g.index)+77))
	jit := func() float64 { return 0.9995 + rng.Float64()*0.001 } // ±0.05%
	e := g.e
	ap := app{name: "Stommel", paradigm: mpi, exe: "stommel", problemSz: ScalingProblemSizes}
	appIRI := []byte(g.base + "app/" + ap.name)
	e.term(appIRI, pType, cApplication)
	e.str(appIRI, pApplicationName, ap.name)
	cl := &g.clusters[0]
	for v := 1; v <= 2; v++ {
		ver := version{iri: []byte(g.base + "app/" + ap.name + "/v" + strconv.Itoa(v)), info: ap.name + " " + strconv.Itoa(v) + ".0"}
		e.term(ver.iri, pType, cVersion)
		e.str(ver.iri, pVersionInfo, ver.info)
		e.iri(appIRI, pHasVersion, ver.iri)
		ver.regions = scalingTemplate()
		ver.compute = scCompute
		g.codeRegions(ap, &ver)
		planted := []int{scSetup, scRepl}
		comm := commFast
		if v == 1 {
			planted = append(planted, scExchange)
			comm = commSlow
		}
		for _, i := range planted {
			g.sum.PlantedPoorScalability = append(g.sum.PlantedPoorScalability, string(ver.regions[i].iri))
		}
		for si, size := range ScalingProblemSizes {
			ts := 2e7 * float64(si*3+1) // sequential time: 20 s and 80 s
			k := comm / float64(si+1)
			for _, p := range ScalingProcesses {
				x := []byte(g.base + "exp/scaling-v" + strconv.Itoa(v) + "-" + size[2:] + "-p" + strconv.Itoa(p))
				e.term(x, pType, cExperiment)
				e.iri(x, pOfVersion, ver.iri)
				e.iri(x, pAtSite, g.siteIRI)
				start := startEpoch.Add(time.Duration(g.index)*time.Hour + time.Duration(v*100+si*10+p)*time.Minute)
				e.typed(x, pStartTime, start.Format(time.RFC3339), dtDateTime)
				e.str(x, pCommandLine, "mpirun -np "+strconv.Itoa(p)+" ./stommel "+size)
				e.str(x, pCompiler, "mpif90 (pgf90 5.2)")
				e.str(x, pExperimentInfo, "Stommel "+ver.info+" scaling run, "+strconv.Itoa(p)+" processes, "+size)
				e.integer(x, pNumberOfProcesses, int64(p), dtInteger)
				e.integer(x, pNumberOfThreads, 1, dtInteger)
				e.str(x, pProblemSize, size)
				for n := 0; n < p && n < len(cl.nodes); n++ {
					e.iri(x, pUsesNode, cl.nodes[n].iri)
				}
				g.sum.Experiments++
				g.sum.ScalingExperiments++
				pf := float64(p)
				commTime := k * (pf - 1) * math.Log2(pf) * ts
				for proc := 0; proc < p; proc++ {
					nd := &cl.nodes[proc%len(cl.nodes)]
					pu := puIRI(nil, x, proc, 0)
					pp := puIRI(nil, x, proc, -1)
					e.term(pp, pType, cProcessUnit)
					e.iri(pp, pInExperiment, x)
					e.str(pp, pInNode, nd.host)
					e.integer(pp, pProcessID, int64(proc), dtInteger)
					e.term(pu, pType, cThreadUnit)
					e.iri(pu, pInExperiment, x)
					e.str(pu, pInNode, nd.host)
					e.iri(pu, pOnNode, nd.iri)
					e.integer(pu, pProcessID, int64(proc), dtInteger)
					e.integer(pu, pThreadID, 0, dtInteger)
					e.iri(pu, pHasParentPU, pp)
					g.sum.ProcessingUnits += 2
					// Times of this process.
					t := make([]float64, len(ver.regions))
					compute := shareCompute * ts / pf * jit()
					if v == 1 && si == 0 && p == imbalanceP && proc == imbalanceProc {
						compute *= imbalanceFactor
					}
					t[scCompute] = compute
					fixed := 0.0
					if v == 1 {
						fixed = haloFixed * ts * jit()
						t[scBoundary] = (shareBoundary + shareExchange - haloFixed) * ts / pf * jit()
						t[scExchange] = fixed + commTime
					} else {
						t[scBoundary] = shareBoundary * ts / pf * jit()
						t[scExchange] = shareExchange*ts/pf*jit() + commTime
					}
					t[scLoop] = t[scCompute] + t[scBoundary] + t[scExchange]
					t[scSolve] = t[scLoop]
					t[scRepl] = shareRepl * ts * jit()
					t[scWrite] = shareWrite * ts / pf * jit()
					wait := 0.0
					if proc == 0 {
						t[scSetup] = shareSetup * ts * jit()
					} else {
						wait = shareSetup * ts // waiting at the barrier for process 0's setup
					}
					self := shareSelf * ts / pf
					if p > 1 {
						self += extraUnid * ts / pf
					}
					t[scMain] = t[scSetup] + t[scRepl] + t[scSolve] + t[scWrite] + self + wait
					g.scalingSummaries(x, pu, proc, &ver, t, p, commTime, wait, fixed)
				}
			}
		}
	}
}

// scalingSummaries writes the region summaries of one process.
// fixed is replicated exchange work (version 1), a loss of parallelism
// like the replicated initialisation.
func (g *siteGen) scalingSummaries(x, pu []byte, proc int, ver *version, t []float64, p int, commTime, wait, fixed float64) {
	e := g.e
	prefix := string(x) + "/rs/p" + strconv.Itoa(proc) + "t0/"
	iris := make([][]byte, len(ver.regions))
	pf := float64(p)
	for i := range ver.regions {
		if i == scSetup && proc != 0 {
			continue // only process 0 runs the sequential setup
		}
		r := &ver.regions[i]
		rs := []byte(prefix + strconv.Itoa(i+1))
		iris[i] = rs
		e.term(rs, pType, cRegionSummary)
		e.iri(rs, pOfCodeRegion, r.iri)
		e.iri(rs, pInProcessingUnit, pu)
		e.iri(rs, pInExperiment, x)
		if r.parent >= 0 {
			e.iri(iris[r.parent], pHasChildRS, rs)
		}
		g.metricD(rs, mWtime, t[i])
		g.metricL(rs, mNcalls, r.calls)
		switch i {
		case scMain:
			g.metricD(rs, mOdataP2P, commTime)
			if p > 1 {
				loss := (t[scRepl] + fixed) * (1 - 1/pf)
				if proc == 0 {
					loss += t[scSetup] * (1 - 1/pf)
				} else {
					g.metricD(rs, mOsync, wait*(1-1/pf))
				}
				g.metricD(rs, mOlopa, loss)
			}
		case scExchange:
			g.metricD(rs, mOdataP2P, commTime)
		}
		g.sum.RegionSummaries++
	}
}
