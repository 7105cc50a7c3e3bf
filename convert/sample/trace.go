package sample

import (
	"strconv"
	"time"
)

// sensors writes SCALEA-G sensor instances on network paths from this site
// to the others (or between two local nodes for a single site) with
// bandwidth measurements, and a host CPU usage sensor.
func (g *siteGen) sensors() {
	e := g.e
	sm := []byte(g.base + "sensormanager/1")
	e.term(sm, pType, cSensorManager)
	e.str(sm, pLabel, "SCALEA-G Sensor Manager at "+g.name)
	src := g.clusters[0].nodes[0].host + ".dps." + g.name + ".at:8060"
	var dsts []string
	for i, n := range g.names {
		if i != g.index && len(dsts) < 4 {
			dsts = append(dsts, clusterNames[(i*2)%len(clusterNames)]+"01.dps."+n+".at:8060")
		}
	}
	if len(dsts) == 0 {
		dsts = append(dsts, g.clusters[0].nodes[1].host+".dps."+g.name+".at:8060")
	}
	perPath := int(clamp(g.budget/100000, 3, 400))
	t0 := startEpoch.Add(time.Duration(g.index) * time.Hour)
	count := 0
	for k, dst := range dsts {
		path := []byte(g.base + "path/" + strconv.Itoa(k+1))
		e.term(path, pType, cNetworkPath)
		e.str(path, pResourceID, src+"->"+dst)
		e.str(path, pPathSource, src)
		e.str(path, pPathDestination, dst)
		si := []byte(g.base + "sensorinstance/bw" + strconv.Itoa(k+1))
		e.term(si, pType, cSensorInstance)
		e.term(si, pInstanceOfSensor, sensorBandwidth)
		e.str(si, pSensorID, "path.bandwidth.capacity.TCP")
		e.iri(si, pMonitorsResource, path)
		e.iri(si, pManagedBy, sm)
		e.dbl(si, pLifetime, 86400)
		for j := 0; j < perPath; j++ {
			m := []byte(g.base + "measurement/bw" + strconv.Itoa(k+1) + "-" + strconv.Itoa(j+1))
			var bw float64
			low := g.rng.Float64() < 0.25
			if count == 0 {
				low = true
			} else if count == 1 {
				low = false
			}
			if low {
				bw = g.uniform(0.2, LowBandwidth-0.05)
				g.sum.LowBandwidthMeasurements++
			} else {
				bw = g.uniform(HighBandwidth, 5)
				g.sum.HealthyBandwidthMeasurements++
			}
			count++
			e.term(m, pType, cPathBandwidth)
			e.iri(m, pProducedBy, si)
			e.iri(m, pAboutResource, path)
			e.typed(m, pMeasurementTime, t0.Add(time.Duration(j)*5*time.Minute).Format(time.RFC3339), dtDateTime)
			e.dbl(m, pBandwidth, bw)
			e.str(m, pMeasurementUnit, "MB/s")
		}
	}
	// Host CPU usage of the first node.
	nd := g.clusters[0].nodes[0]
	host := []byte(g.base + "resource/" + nd.host)
	e.term(host, pType, cMonitoredResource)
	e.str(host, pResourceID, nd.host)
	si := []byte(g.base + "sensorinstance/cpu1")
	e.term(si, pType, cSensorInstance)
	e.term(si, pInstanceOfSensor, sensorCPU)
	e.str(si, pSensorID, "host.cpu.used")
	e.iri(si, pMonitorsResource, host)
	e.iri(si, pManagedBy, sm)
	for j := 0; j < perPath; j++ {
		m := []byte(g.base + "measurement/cpu1-" + strconv.Itoa(j+1))
		e.term(m, pType, cHostMeasurement)
		e.iri(m, pProducedBy, si)
		e.iri(m, pAboutResource, host)
		e.typed(m, pMeasurementTime, t0.Add(time.Duration(j)*5*time.Minute).Format(time.RFC3339), dtDateTime)
		e.dbl(m, pMeasuredValue, g.uniform(5, 98))
		e.str(m, pMeasurementUnit, "percent")
	}
}

// traceState tracks one trace experiment while it is written.
type traceState struct {
	exp     []byte
	ver     *version
	pus     [][]byte
	roots   [][]byte
	riCount int
	evCount int
	clock   float64 // microseconds since the experiment start
	byType  map[string]int
}

// traceExperiment writes an experiment with region instances, enter/exit
// events, point-to-point messages (late and on-time senders) and barriers
// (with and without waiting).
func (g *siteGen) traceExperiment() {
	e := g.e
	ap := &g.apps[0]
	ver := &ap.versions[0]
	st := &traceState{exp: []byte(g.base + "exp/trace1"), ver: ver, byType: map[string]int{}}
	for i, r := range ver.regions {
		if _, ok := st.byType[r.mnemonic]; !ok {
			st.byType[r.mnemonic] = i
		}
	}
	nPUs := 4
	if g.budget < 5000 {
		nPUs = 2
	}
	messages := int(clamp(g.budget/50000, 2, 100))
	barriers := int(clamp(g.budget/200000, 2, 20))
	cl := &g.clusters[0]
	e.term(st.exp, pType, cExperiment)
	e.iri(st.exp, pOfVersion, ver.iri)
	e.iri(st.exp, pAtSite, g.siteIRI)
	start := startEpoch.Add(time.Duration(g.index)*time.Hour - 30*time.Minute)
	e.typed(st.exp, pStartTime, start.Format(time.RFC3339), dtDateTime)
	e.str(st.exp, pCommandLine, "mpirun -np "+strconv.Itoa(nPUs)+" ./"+ap.exe+"-trace "+ap.problemSz[0])
	e.str(st.exp, pCompiler, "mpif90 (pgf90 5.2)")
	e.str(st.exp, pExperimentInfo, "traced run of "+ap.name+" with event records")
	e.integer(st.exp, pNumberOfProcesses, int64(nPUs), dtInteger)
	e.integer(st.exp, pNumberOfThreads, 1, dtInteger)
	g.sum.TraceExperiments++
	for p := 0; p < nPUs; p++ {
		nd := &cl.nodes[p%len(cl.nodes)]
		pu := puIRI(nil, st.exp, p, 0)
		e.term(pu, pType, cThreadUnit)
		e.iri(pu, pInExperiment, st.exp)
		e.str(pu, pInNode, nd.host)
		e.iri(pu, pOnNode, nd.iri)
		e.integer(pu, pProcessID, int64(p), dtInteger)
		e.integer(pu, pThreadID, 0, dtInteger)
		g.sum.ProcessingUnits++
		st.pus = append(st.pus, pu)
		root := g.regionInstance(st, "CR_P", p, nil)
		st.roots = append(st.roots, root)
		g.event(st, root, cEnterEvent, "enter", 0)
	}
	st.clock = 1000
	for k := 0; k < messages; k++ {
		g.message(st, k, k%2 == 0)
	}
	for b := 0; b < barriers; b++ {
		g.barrier(st, b, b%2 == 0)
	}
	end := st.clock + 500
	for p := range st.pus {
		g.event(st, st.roots[p], cExitEvent, "exit", end)
	}
	e.typed(st.exp, pEndTime, start.Add(time.Duration(end)*time.Microsecond).Format(time.RFC3339), dtDateTime)
}

// regionInstance writes a region instance of the first region of the given
// type on processing unit p, as a child of parent (nil for a root).
func (g *siteGen) regionInstance(st *traceState, mnemonic string, p int, parent []byte) []byte {
	e := g.e
	st.riCount++
	ri := []byte(string(st.exp) + "/ri/" + strconv.Itoa(st.riCount))
	e.term(ri, pType, cRegionInstance)
	e.iri(ri, pOfCodeRegion, st.ver.regions[st.byType[mnemonic]].iri)
	e.iri(ri, pInProcessingUnit, st.pus[p])
	e.iri(ri, pInExperiment, st.exp)
	if parent != nil {
		e.iri(parent, pHasChildRI, ri)
	}
	g.sum.RegionInstances++
	return ri
}

// event writes an event of class cls at time t on region instance ri.
func (g *siteGen) event(st *traceState, ri []byte, cls, suffix string, t float64) []byte {
	e := g.e
	st.evCount++
	ev := []byte(string(ri) + "/" + suffix)
	e.iri(ri, pHasEvent, ev)
	e.term(ev, pType, cls)
	e.dbl(ev, pAtEventTime, t)
	g.sum.Events++
	return ev
}

func (g *siteGen) attr(ev []byte, name, value string) {
	e := g.e
	a := []byte(string(ev) + "/attr/" + name)
	e.iri(ev, pHasEventAttr, a)
	e.term(a, pType, cEventAttribute)
	e.str(a, pHasAttrName, name)
	e.str(a, pHasAttrValue, value)
}

// message writes one point-to-point message between two processing units;
// late messages have the receive entered well before the send.
func (g *siteGen) message(st *traceState, k int, late bool) {
	e := g.e
	n := len(st.pus)
	from := k % n
	to := (k + 1) % n
	size := int64(1024 * (1 + g.rng.IntN(64)))
	var sendEnter, recvEnter float64
	if late {
		recvEnter = st.clock
		sendEnter = recvEnter + g.uniform(LateSenderGap+500, 20000)
		g.sum.LateSenderMessages++
	} else {
		sendEnter = st.clock
		recvEnter = sendEnter + g.uniform(OnTimeGap+50, 2000)
		g.sum.OnTimeMessages++
	}
	transfer := 20 + float64(size)/100
	sendExit := sendEnter + transfer*0.3
	recvExit := maxf(recvEnter, sendEnter) + transfer
	msg := []byte(string(st.exp) + "/msg/" + strconv.Itoa(k+1))
	e.term(msg, pType, cMessage)
	e.integer(msg, pMessageSize, size, dtLong)
	e.integer(msg, pMessageTag, int64(100+k), dtInteger)
	e.iri(msg, pMessageSender, st.pus[from])
	e.iri(msg, pMessageReceiver, st.pus[to])

	sri := g.regionInstance(st, "CR_MPISEND", from, st.roots[from])
	g.event(st, sri, cEnterEvent, "enter", sendEnter)
	sev := g.event(st, sri, cSendEvent, "send", sendEnter+1)
	e.iri(sev, pSendsMessage, msg)
	g.attr(sev, "dest", strconv.Itoa(to))
	g.attr(sev, "tag", strconv.Itoa(100+k))
	g.event(st, sri, cExitEvent, "exit", sendExit)

	rri := g.regionInstance(st, "CR_MPIRECV", to, st.roots[to])
	g.event(st, rri, cEnterEvent, "enter", recvEnter)
	rev := g.event(st, rri, cRecvEvent, "recv", recvExit-1)
	e.iri(rev, pReceivesMessage, msg)
	g.attr(rev, "source", strconv.Itoa(from))
	g.attr(rev, "tag", strconv.Itoa(100+k))
	g.event(st, rri, cExitEvent, "exit", recvExit)
	st.clock = maxf(sendExit, recvExit) + 100
}

// barrier writes one barrier in which every processing unit takes part;
// with waiting, one unit arrives late.
func (g *siteGen) barrier(st *traceState, b int, waiting bool) {
	e := g.e
	coll := []byte(string(st.exp) + "/barrier/" + strconv.Itoa(b+1))
	e.term(coll, pType, cCollectiveOperation)
	e.str(coll, pLabel, "MPI_Barrier #"+strconv.Itoa(b+1))
	enters := make([]float64, len(st.pus))
	latest := st.clock
	for p := range st.pus {
		enters[p] = st.clock + g.uniform(0, BalancedBarrierSpread-5)
		if waiting && p == len(st.pus)-1 {
			enters[p] = st.clock + g.uniform(BarrierWaitSpread+1000, 40000)
		}
		latest = maxf(latest, enters[p])
	}
	if waiting {
		g.sum.BarriersWithWaiting++
	} else {
		g.sum.BalancedBarriers++
	}
	exit := latest + 15
	for p := range st.pus {
		ri := g.regionInstance(st, "CR_MPIBA", p, st.roots[p])
		e.iri(ri, pPartOfCollective, coll)
		g.event(st, ri, cEnterEvent, "enter", enters[p])
		g.event(st, ri, cCollectiveEvent, "collective", exit-1)
		g.event(st, ri, cExitEvent, "exit", exit)
	}
	st.clock = exit + 100
}

func maxf(a, b float64) float64 {
	if a > b {
		return a
	}
	return b
}
