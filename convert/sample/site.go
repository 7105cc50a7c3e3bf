package sample

import (
	"math"
	"math/rand/v2"
	"strconv"
	"time"

	"github.com/perfkb/perfkb/ontology"
)

// siteGen generates one site's data.
type siteGen struct {
	e      *emitter
	sum    *Summary
	seen   *seenSet
	rng    *rand.Rand
	index  int
	name   string
	names  []string
	base   string // resource IRI prefix, ends in '/'
	target int64  // emitter line count to stop at
	budget int64  // lines this site may write

	siteIRI  []byte
	clusters []cluster
	apps     []app
	expCount int
	p2pCount int // CR_MPIP2P region summaries written so far
	scratch  []byte
	iriA     []byte
	iriB     []byte
}

type node struct {
	iri  []byte
	host string
	mhz  float64
}

type cluster struct {
	iri   []byte
	name  string
	smp   bool
	cpus  int
	nodes []node
}

type paradigm int

const (
	mpi paradigm = iota
	openMP
	hybrid
	hpf
)

type app struct {
	name      string
	paradigm  paradigm
	exe       string
	versions  []version
	problemSz []string
}

type version struct {
	iri     []byte
	info    string
	regions []region
	compute int // index of the load-imbalance candidate loop
}

type region struct {
	iri      []byte
	mnemonic string
	name     string
	parent   int
	share    float64 // fraction of the main program's wall-clock time
	calls    int64
	kind     metricKind
}

type metricKind int

const (
	kindPlain metricKind = iota
	kindMain
	kindLoop
	kindP2P
	kindSend
	kindRecv
	kindMPIBarrier
	kindOMPBarrier
	kindLock
	kindForkJoin
	kindStartup
	kindSched
	kindInspector
	kindExecutor
	kindDataType
)

var startEpoch = time.Date(2004, time.March, 1, 8, 0, 0, 0, time.UTC)

func newSiteGen(e *emitter, sum *Summary, seen *seenSet, seed uint64, index int, names []string, graph string, target int64) *siteGen {
	g := &siteGen{
		e: e, sum: sum, seen: seen,
		rng:    rand.New(rand.NewPCG(seed, uint64(index)*0x9e3779b97f4a7c15+1)),
		index:  index,
		name:   names[index],
		names:  names,
		base:   graph + "/",
		target: target,
		budget: target - e.n,
	}
	g.siteIRI = []byte(g.base + "site")
	return g
}

func (g *siteGen) remaining() int64 { return g.target - g.e.n }

func (g *siteGen) uniform(lo, hi float64) float64 { return lo + g.rng.Float64()*(hi-lo) }

func (g *siteGen) jitter() float64 { return g.uniform(0.97, 1.03) }

func (g *siteGen) pick(list []string) string { return list[g.rng.IntN(len(list))] }

func clamp(v, lo, hi int64) int64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

func (g *siteGen) run() {
	g.infrastructure()
	g.applications()
	g.sensors()
	g.traceExperiment()
	for g.e.err == nil && g.remaining() > 0 {
		if !g.experiment() {
			break
		}
	}
}

var clusterNames = []string{"gsr", "karwendel", "hydra", "altix", "agrid", "schafberg", "zid", "lcg", "alex", "dps", "blindis", "olperer"}

var cpuTypes = []struct {
	name  string
	mhz   float64
	model string
}{
	{"Intel Pentium 4 Xeon", 2400, "Dell PowerEdge 2650"},
	{"Intel Pentium III", 1000, "IBM xSeries 330"},
	{"AMD Opteron 248", 2200, "Sun Fire V20z"},
	{"Intel Itanium 2", 1500, "SGI Altix 350"},
	{"AMD Athlon MP", 1800, "Tyan Thunder K7"},
}

func (g *siteGen) infrastructure() {
	e := g.e
	e.term(g.siteIRI, pType, cSite)
	e.str(g.siteIRI, pSiteName, g.name)
	e.str(g.siteIRI, pSiteLocation, "Austrian Grid, "+g.name)
	nClusters := 1
	if g.budget >= 20000 {
		nClusters = 2
	}
	nodesPer := int(clamp(g.budget/20000, 2, 32))
	for c := 0; c < nClusters; c++ {
		cname := clusterNames[(g.index*2+c)%len(clusterNames)]
		if g.index*2+c >= len(clusterNames) {
			cname += strconv.Itoa(g.index*2 + c)
		}
		smp := c == 1 || g.index%3 == 2
		cpu := cpuTypes[(g.index+c)%len(cpuTypes)]
		cl := cluster{iri: []byte(g.base + "cluster/" + cname), name: cname, smp: smp, cpus: 1}
		if smp {
			cl.cpus = []int{2, 4, 8}[g.rng.IntN(3)]
		}
		if smp {
			e.term(cl.iri, pType, cSMPCluster)
		} else {
			e.term(cl.iri, pType, cCluster)
		}
		e.str(cl.iri, pClusterName, cname)
		e.iri(cl.iri, pClusterAtSite, g.siteIRI)
		e.iri(g.siteIRI, pHasCluster, cl.iri)
		e.dbl(cl.iri, pTotalFlops, float64(nodesPer*cl.cpus)*cpu.mhz*2)
		for k := 0; k < nodesPer; k++ {
			// The gsr cluster starts at gsr410, the node of the
			// dissertation's example query (Fig. 6.29).
			host := cname + strconv.Itoa(410+k)
			if cname != "gsr" {
				host = cname + pad2(k+1)
			}
			n := node{iri: []byte(g.base + "node/" + host), host: host, mhz: cpu.mhz}
			cl.nodes = append(cl.nodes, n)
			if smp {
				e.term(n.iri, pType, cSMPNode)
			} else {
				e.term(n.iri, pType, cNode)
			}
			e.str(n.iri, pHostName, host)
			e.str(n.iri, pHostAddress, "10."+strconv.Itoa(g.index+1)+"."+strconv.Itoa(c+1)+"."+strconv.Itoa(k+10))
			e.str(n.iri, pSystemModel, cpu.model)
			mem := int64(1024 * cl.cpus * (1 + g.rng.IntN(2)))
			e.integer(n.iri, pPhysicalMemory, mem, dtLong)
			e.integer(n.iri, pVirtualMemory, mem*2, dtLong)
			e.integer(n.iri, pNumCPU, int64(cl.cpus), dtInteger)
			e.str(n.iri, pCPUType, cpu.name)
			e.dbl(n.iri, pCPUSpeed, cpu.mhz)
			e.dbl(n.iri, pPeakMflops, cpu.mhz*2*float64(cl.cpus))
			e.str(n.iri, pOSName, "Linux")
			e.str(n.iri, pOSVersion, g.pick([]string{"2.4.20", "2.4.26", "2.6.8"}))
			e.integer(n.iri, pHardDiskSize, int64(40960*(1+g.rng.IntN(4))), dtLong)
			e.str(n.iri, pDataCacheSize, "16,512")
			e.str(n.iri, pCacheMissPenalty, "7,120")
			e.iri(n.iri, pInCluster, cl.iri)
			e.iri(cl.iri, pHasNode, n.iri)
		}
		// Network with benchmarked message passing performance.
		netIRI := []byte(g.base + "network/" + cname)
		myrinet := smp || g.index%2 == 1
		if myrinet {
			e.term(netIRI, pType, cMyrinet)
			e.str(netIRI, pNetworkName, cname+" Myrinet 2000")
			e.dbl(netIRI, pNetworkBandwidth, 2000)
			e.dbl(netIRI, pNetworkLatency, g.uniform(6, 9))
		} else {
			e.term(netIRI, pType, cEthernet)
			e.str(netIRI, pNetworkName, cname+" Gigabit Ethernet")
			e.dbl(netIRI, pNetworkBandwidth, 1000)
			e.dbl(netIRI, pNetworkLatency, g.uniform(45, 70))
		}
		e.iri(cl.iri, pHasNetwork, netIRI)
		lat := 8.0
		if !myrinet {
			lat = 55
		}
		p2p := []byte(g.base + "perf/" + cname + "/mpp2p")
		e.term(p2p, pType, cMPP2PPerf)
		e.str(p2p, pMPILibName, g.pick([]string{"MPICH 1.2.5", "MPICH-GM 1.2.5", "LAM/MPI 7.0"}))
		e.dbl(p2p, pMPISyncSendTime, lat+g.uniform(8, 12))
		e.dbl(p2p, pMPIAsyncSendTime, lat*0.5+g.uniform(2, 4))
		e.dbl(p2p, pMPISsendTime, lat*2+g.uniform(8, 12))
		e.iri(netIRI, pHasMPP2PPerf, p2p)
		col := []byte(g.base + "perf/" + cname + "/mpcol")
		e.term(col, pType, cMPColPerf)
		e.str(col, pMPILibName, "MPICH 1.2.5")
		e.integer(col, pNumNode, int64(nodesPer), dtInteger)
		e.dbl(col, pMPIBarrierTime, lat*math.Log2(float64(nodesPer))*2+g.uniform(1, 5))
		e.dbl(col, pMPIBcastTime, lat*math.Log2(float64(nodesPer))*3+g.uniform(10, 30))
		e.iri(netIRI, pHasMPColPerf, col)
		if smp {
			sm := []byte(g.base + "perf/" + cname + "/shmem")
			e.term(sm, pType, cSharedMemoryPerf)
			e.str(sm, pOMPLibName, g.pick([]string{"Intel OpenMP 8.1", "Omni OpenMP 1.6", "PGI OpenMP 5.2"}))
			e.dbl(sm, pOMPLockTime, g.uniform(0.2, 0.6))
			e.dbl(sm, pOMPBarrierTime, g.uniform(1, 4))
			e.dbl(sm, pOMPForkJoinTime, g.uniform(3, 9))
			e.iri(cl.iri, pHasSharedMemoryPerf, sm)
		}
		g.clusters = append(g.clusters, cl)
	}
}

func pad2(k int) string {
	if k < 10 {
		return "0" + strconv.Itoa(k)
	}
	return strconv.Itoa(k)
}

var appCatalog = []app{
	{name: "3DPIC", paradigm: mpi, exe: "3dpic", problemSz: []string{"64x64x64", "128x128x128", "256x256x256"}},
	{name: "LAPW0", paradigm: hybrid, exe: "lapw0", problemSz: []string{"case=TiC", "case=GaN", "case=Al2O3"}},
	{name: "Jacobi3D", paradigm: hpf, exe: "jacobi", problemSz: []string{"N=256", "N=512", "N=1024"}},
	{name: "MM5", paradigm: openMP, exe: "mm5", problemSz: []string{"domain=alps", "domain=europe"}},
	{name: "NAS-CG", paradigm: mpi, exe: "cg", problemSz: []string{"class=A", "class=B", "class=C"}},
	{name: "WIEN2k", paradigm: hybrid, exe: "lapw1", problemSz: []string{"k=100", "k=400"}},
	{name: "Montage", paradigm: mpi, exe: "mProjExec", problemSz: []string{"M17", "M31", "M101"}},
}

func (g *siteGen) applications() {
	nApps := int(clamp(g.budget/150000+1, 1, int64(len(appCatalog))))
	nVersions := int(clamp(g.budget/40000+1, 1, 3))
	// templateSize grows with the budget so small outputs stay small.
	templateSize := int(clamp(g.budget/3000, 9, 36))
	for a := 0; a < nApps; a++ {
		// The first application of every site is an MPI code (the trace
		// experiment needs send/receive/barrier regions); the rest rotate.
		ap := appCatalog[0]
		if a > 0 {
			ap = appCatalog[1+(g.index+a-1)%(len(appCatalog)-1)]
		}
		appIRI := []byte(g.base + "app/" + ap.name)
		g.e.term(appIRI, pType, cApplication)
		g.e.str(appIRI, pApplicationName, ap.name)
		for v := 0; v < nVersions; v++ {
			vIRI := []byte(g.base + "app/" + ap.name + "/v" + strconv.Itoa(v+1))
			ver := version{iri: vIRI, info: ap.name + " " + strconv.Itoa(v+1) + ".0"}
			g.e.term(vIRI, pType, cVersion)
			g.e.str(vIRI, pVersionInfo, ver.info)
			g.e.iri(appIRI, pHasVersion, vIRI)
			size := templateSize
			if size > 9 {
				size += g.rng.IntN(templateSize/3 + 1)
			}
			ver.regions, ver.compute = g.template(ap.paradigm, size)
			g.codeRegions(ap, &ver)
			ap.versions = append(ap.versions, ver)
		}
		g.apps = append(g.apps, ap)
	}
}

// template builds the static code region tree of a version; regions come
// parent before child. It returns the tree and the index of the compute loop
// that load-imbalance experiments make imbalanced.
func (g *siteGen) template(par paradigm, size int) ([]region, int) {
	var rs []region
	add := func(mn, name string, parent int, kind metricKind) int {
		rs = append(rs, region{mnemonic: mn, name: name, parent: parent, kind: kind})
		return len(rs) - 1
	}
	root := add("CR_P", "main", -1, kindMain)
	usesMPI := par == mpi || par == hybrid || par == hpf
	if usesMPI {
		add("CR_MPISTARTUP", "MPI_Init", root, kindStartup)
	}
	small := size < 12 // the smallest outputs skip file opening and closing
	if !small {
		add("CR_O", "open input", root, kindPlain)
		add("CR_R", "read input", root, kindPlain)
	}
	proc := add("CR_Y", "solve", root, kindPlain)
	step := add("CR_U", "time step loop", proc, kindLoop)
	compute := add("CR_L", "compute kernel", step, kindLoop)
	if usesMPI {
		p2p := add("CR_MPIP2P", "exchange halo", step, kindP2P)
		add("CR_MPISEND", "MPI_Send", p2p, kindSend)
		add("CR_MPIRECV", "MPI_Recv", p2p, kindRecv)
		add("CR_MPIBA", "MPI_Barrier", step, kindMPIBarrier)
	}
	if par == openMP || par == hybrid {
		pd := add("CR_OMPPD", "parallel do", step, kindForkJoin)
		add("CR_OMPIDO", "parallel do body", pd, kindLoop)
	}
	if par == hpf {
		ind := add("CR_I", "INDEPENDENT loop", step, kindSched)
		add("CR_N", "inspector", ind, kindInspector)
		add("CR_X", "executor", ind, kindExecutor)
	}
	tail := []struct {
		mn, name string
		kind     metricKind
	}{{"CR_W", "write results", kindPlain}}
	if !small {
		tail = append(tail, struct {
			mn, name string
			kind     metricKind
		}{"CR_C", "close output", kindPlain})
	}
	if usesMPI && !small {
		tail = append(tail, struct {
			mn, name string
			kind     metricKind
		}{"CR_MPISTARTUP", "MPI_Finalize", kindStartup})
	}
	type extra struct {
		mn, name string
		kind     metricKind
		nest     bool // may hold children
	}
	var extras []extra
	switch par {
	case mpi:
		extras = []extra{{"CR_MPIP2P", "exchange boundary", kindP2P, true}, {"CR_MPICOL", "MPI_Allreduce", kindPlain, false}, {"CR_MPITP", "MPI_Pack", kindDataType, false}, {"CR_MPIP2P", "shift particles", kindP2P, true}, {"CR_MPICOL", "MPI_Bcast", kindPlain, false}}
	case openMP:
		extras = []extra{{"CR_OMPPA", "parallel region", kindForkJoin, true}, {"CR_OMPDO", "omp do", kindLoop, false}, {"CR_OMPBA", "omp barrier", kindOMPBarrier, false}, {"CR_OMPCR", "omp critical", kindLock, true}, {"CR_OMPSI", "omp single", kindPlain, false}, {"CR_OMPLO", "omp lock", kindLock, false}, {"CR_OMPMA", "omp master", kindPlain, false}, {"CR_OMPAT", "omp atomic", kindLock, false}}
	case hybrid:
		extras = []extra{{"CR_MPIP2P", "exchange boundary", kindP2P, true}, {"CR_OMPPA", "parallel region", kindForkJoin, true}, {"CR_MPICOL", "MPI_Allreduce", kindPlain, false}, {"CR_OMPBA", "omp barrier", kindOMPBarrier, false}, {"CR_OMPCR", "omp critical", kindLock, true}, {"CR_OMPDO", "omp do", kindLoop, false}}
	case hpf:
		extras = []extra{{"CR_D", "work distribution", kindSched, false}, {"CR_G", "gather", kindPlain, false}, {"CR_T", "scatter", kindPlain, false}, {"CR_MPICOL", "MPI_Allreduce", kindPlain, false}, {"CR_I", "INDEPENDENT loop", kindSched, true}}
	}
	generic := []extra{{"CR_S", "call update", kindPlain, true}, {"CR_F", "function norm", kindPlain, false}, {"CR_B", "branch convergence", kindPlain, false}, {"CR_A", "user region", kindPlain, true}, {"CR_L", "loop", kindLoop, true}, {"CR_OTHERSEQ", "sequential setup", kindPlain, false}, {"CR_OTHERREP", "replicated init", kindPlain, false}}
	parents := []int{step, proc}
	for i := 0; len(rs)+len(tail) < size; i++ {
		var x extra
		if i%3 == 2 || len(extras) == 0 {
			x = generic[g.rng.IntN(len(generic))]
		} else {
			x = extras[g.rng.IntN(len(extras))]
		}
		parent := parents[g.rng.IntN(len(parents))]
		idx := add(x.mn, x.name+" "+strconv.Itoa(i+1), parent, x.kind)
		switch {
		case x.mn == "CR_MPIP2P":
			add("CR_MPISEND", "MPI_Isend", idx, kindSend)
			add("CR_MPIRECV", "MPI_Irecv", idx, kindRecv)
		case x.mn == "CR_OMPCR":
			add("CR_OMPICR", "inside critical", idx, kindPlain)
		case x.nest && len(parents) < 8:
			parents = append(parents, idx)
		}
	}
	for _, t := range tail {
		add(t.mn, t.name, root, t.kind)
	}
	// Shares of the main program's time: children split 85% of the parent.
	children := make([][]int, len(rs))
	for i := 1; i < len(rs); i++ {
		children[rs[i].parent] = append(children[rs[i].parent], i)
	}
	rs[root].share = 1
	rs[root].calls = 1
	for i := range rs {
		kids := children[i]
		if len(kids) == 0 {
			continue
		}
		weights := make([]float64, len(kids))
		total := 0.0
		for k := range kids {
			weights[k] = g.uniform(0.5, 2)
			if kids[k] == compute {
				weights[k] *= 0.5
			}
			total += weights[k]
		}
		for k, c := range kids {
			rs[c].share = rs[i].share * 0.85 * weights[k] / total
			mult := int64(1)
			if rs[i].kind == kindLoop || rs[i].mnemonic == "CR_U" {
				mult = int64(10 + g.rng.IntN(90))
			} else if rs[c].kind != kindStartup && i != root {
				mult = int64(1 + g.rng.IntN(4))
			}
			rs[c].calls = rs[i].calls * mult
		}
	}
	return rs, compute
}

var regionUnits = []string{"main.f90", "solver.f90", "comm.f90", "io.f90"}

func (g *siteGen) codeRegions(ap app, ver *version) {
	e := g.e
	nFiles := 2 + g.rng.IntN(2)
	files := make([][]byte, nFiles)
	for f := range files {
		files[f] = append(append([]byte{}, ver.iri...), "/src/"+regionUnits[f]...)
		e.term(files[f], pType, cSourceFile)
		e.str(files[f], pFileName, regionUnits[f])
		e.str(files[f], pFileLocation, "/home/perf/"+ap.exe+"/src/"+regionUnits[f])
		e.iri(ver.iri, pHasSourceFile, files[f])
	}
	line := int64(10)
	for i := range ver.regions {
		r := &ver.regions[i]
		r.iri = append(append([]byte{}, ver.iri...), "/cr/"+strconv.Itoa(i+1)...)
		ct, ok := ontology.LookupCodeRegionType(r.mnemonic)
		if !ok {
			panic("sample: unknown code region mnemonic " + r.mnemonic)
		}
		g.seen.regions[r.mnemonic] = true
		e.term(r.iri, pType, "<"+ct.Class+">")
		if ct.Family != ct.Class {
			e.term(r.iri, pType, "<"+ct.Family+">")
		}
		e.str(r.iri, pHasCrType, r.mnemonic)
		e.str(r.iri, pRegionName, r.name)
		e.str(r.iri, pRegionIdentifier, ap.exe+"-"+strconv.Itoa(i+1))
		file := files[0]
		if i > 0 {
			file = files[1+i%(nFiles-1)]
		}
		e.iri(r.iri, pInSourceFile, file)
		e.str(r.iri, pCodeRegionUnit, r.name)
		span := int64(3 + g.rng.IntN(60))
		e.integer(r.iri, pStartLine, line, dtInteger)
		e.integer(r.iri, pStartColumn, int64(7+g.rng.IntN(12)), dtInteger)
		e.integer(r.iri, pEndLine, line+span, dtInteger)
		e.integer(r.iri, pEndColumn, int64(7+g.rng.IntN(30)), dtInteger)
		line += span/2 + 1
		if r.parent >= 0 {
			e.iri(r.iri, pHasParentCR, ver.regions[r.parent].iri)
		}
		g.sum.CodeRegions++
	}
}
