package compensate

import (
	"math"
	"math/rand/v2"

	"github.com/perfkb/perfkb/convert/trace"
)

// This file is an independent discrete-event simulator of the Monte-Carlo
// master/worker program of 003 §5. It shares nothing with the compensation
// engine: it runs each process as a goroutine against a scheduler that
// always grants the communication request with the smallest time, and
// records events the way an instrumented run would (timestamp, then the
// per-event overhead O on the process's clock, so O propagates through the
// messages).

type simParams struct {
	workers     int
	packets     int
	coords      int     // get_coords() calls per packet
	coordUs     float64 // work per get_coords() call
	computeUs   float64 // worker work per packet outside get_coords
	masterUs    float64 // master work per result
	latUs       float64 // message latency
	nsPerByte   float64 // transfer cost per byte
	copyNs      float64 // receive-side buffer copy per byte
	workBytes   int64
	resultBytes int64
	collUs      float64 // collective cost after the last enter
	overheadUs  float64 // O per recorded event (0: uninstrumented)
	seed        uint64
	// prefetch is how many work packets the master keeps queued at each
	// worker (0 and 1: one at a time). With 2 or more a worker's next
	// packet is sent while it still works on the current one, so it
	// enters MPI_Recv after the master left MPI_Send: case (m.2).
	prefetch int
}

const (
	rMain = iota
	rMaster
	rWorker
	rCoords
	rSend
	rRecv
	rAllreduce
	rBcast
)

var simRegions = []trace.Region{
	{ID: rMain, Name: "main"},
	{ID: rMaster, Name: "master"},
	{ID: rWorker, Name: "worker"},
	{ID: rCoords, Name: "get_coords"},
	{ID: rSend, Name: "MPI_Send", Paradigm: trace.ParadigmMPI},
	{ID: rRecv, Name: "MPI_Recv", Paradigm: trace.ParadigmMPI},
	{ID: rAllreduce, Name: "MPI_Allreduce", Paradigm: trace.ParadigmMPI},
	{ID: rBcast, Name: "MPI_Bcast", Paradigm: trace.ParadigmMPI},
}

const (
	tagWork   = 1
	tagStop   = 2
	tagResult = 3
)

type simMsg struct {
	src, tag int
	bytes    int64
	arrival  float64
}

type reqKind int

const (
	reqSend reqKind = iota
	reqRecv
	reqColl
	reqDone
)

type simReq struct {
	kind  reqKind
	t     float64
	dst   int // send
	src   int // recv: -1 for any
	tag   int
	bytes int64
}

type simGrant struct {
	msg simMsg
	t   float64 // completion time (recv, coll)
}

type simProc struct {
	id    int
	clock float64
	o     float64
	ev    []trace.Event
	rng   *rand.Rand
	req   chan simReq
	grant chan simGrant
}

// rec records an event at the current clock, then pays the overhead.
func (p *simProc) rec(e trace.Event) {
	e.Loc = p.id
	e.Time = trace.Time(math.Round(p.clock * 1000)) // ns ticks
	p.ev = append(p.ev, e)
	p.clock += p.o
}

func (p *simProc) work(us float64) { p.clock += us * (0.9 + 0.2*p.rng.Float64()) }

func (p *simProc) call(r simReq) simGrant {
	r.t = p.clock
	p.req <- r
	return <-p.grant
}

// simulate runs the program and returns its trace (ticks are nanoseconds).
func simulate(sp simParams) *trace.Mem {
	n := sp.workers + 1
	master := sp.workers // the master is the last process, as in 003 Fig. 3
	procs := make([]*simProc, n)
	for i := range procs {
		procs[i] = &simProc{id: i, o: sp.overheadUs, rng: rand.New(rand.NewPCG(sp.seed, uint64(i))),
			req: make(chan simReq), grant: make(chan simGrant)}
	}
	coll := func(p *simProc, region int, op trace.CollOp, sent, recvd int64) {
		p.rec(trace.Event{Kind: trace.Enter, Region: region})
		g := p.call(simReq{kind: reqColl})
		p.clock = g.t
		p.rec(trace.Event{Kind: trace.CollectiveEnd, Op: op, Root: master, Comm: 0, Bytes: sent, Recvd: recvd})
		p.rec(trace.Event{Kind: trace.Leave, Region: region})
	}
	send := func(p *simProc, dst, tag int, bytes int64) {
		p.rec(trace.Event{Kind: trace.Enter, Region: rSend})
		p.rec(trace.Event{Kind: trace.Send, Peer: dst, Tag: tag, Bytes: bytes})
		p.call(simReq{kind: reqSend, dst: dst, tag: tag, bytes: bytes})
		p.work(1)
		p.rec(trace.Event{Kind: trace.Leave, Region: rSend})
	}
	recv := func(p *simProc, src int) simMsg {
		p.rec(trace.Event{Kind: trace.Enter, Region: rRecv})
		g := p.call(simReq{kind: reqRecv, src: src})
		p.clock = g.t
		p.rec(trace.Event{Kind: trace.Recv, Peer: g.msg.src, Tag: g.msg.tag, Bytes: g.msg.bytes})
		p.rec(trace.Event{Kind: trace.Leave, Region: rRecv})
		return g.msg
	}
	workerProg := func(p *simProc) {
		p.rec(trace.Event{Kind: trace.Enter, Region: rMain})
		coll(p, rBcast, trace.OpBcast, 0, 64)
		for {
			m := recv(p, master)
			if m.tag == tagStop {
				break
			}
			p.rec(trace.Event{Kind: trace.Enter, Region: rWorker})
			for range sp.coords {
				p.rec(trace.Event{Kind: trace.Enter, Region: rCoords})
				p.work(sp.coordUs)
				p.rec(trace.Event{Kind: trace.Leave, Region: rCoords})
			}
			p.work(sp.computeUs)
			p.rec(trace.Event{Kind: trace.Leave, Region: rWorker})
			send(p, master, tagResult, sp.resultBytes)
		}
		coll(p, rAllreduce, trace.OpAllreduce, 8, 8)
		p.rec(trace.Event{Kind: trace.Leave, Region: rMain})
	}
	masterProg := func(p *simProc) {
		p.rec(trace.Event{Kind: trace.Enter, Region: rMain})
		p.work(20)
		coll(p, rBcast, trace.OpBcast, 64*int64(sp.workers), 0)
		p.rec(trace.Event{Kind: trace.Enter, Region: rMaster})
		sent := 0
		queued := make([]int, sp.workers) // packets sent to a worker, result not yet back
		for range max(sp.prefetch, 1) {
			for w := range sp.workers {
				if sent < sp.packets || queued[w] == 0 {
					send(p, w, tagWork, sp.workBytes)
					sent++
					queued[w]++
				}
			}
		}
		for active := sp.workers; active > 0; {
			m := recv(p, -1)
			queued[m.src]--
			p.work(sp.masterUs)
			switch {
			case sent < sp.packets:
				send(p, m.src, tagWork, sp.workBytes)
				sent++
				queued[m.src]++
			case queued[m.src] == 0:
				send(p, m.src, tagStop, 0)
				active--
			}
		}
		p.rec(trace.Event{Kind: trace.Leave, Region: rMaster})
		coll(p, rAllreduce, trace.OpAllreduce, 8, 8)
		p.rec(trace.Event{Kind: trace.Leave, Region: rMain})
	}
	for i, p := range procs {
		go func() {
			if i == master {
				masterProg(p)
			} else {
				workerProg(p)
			}
			p.req <- simReq{kind: reqDone}
		}()
	}
	// The scheduler: every live process has exactly one pending request.
	pending := make([]*simReq, n)
	wait := func(i int) {
		r := <-procs[i].req
		pending[i] = &r
	}
	for i := range procs {
		wait(i)
	}
	mail := make([][]simMsg, n)
	for {
		best, bestKey := -1, math.Inf(1)
		var bestMsg int
		live, inColl := 0, 0
		collMax := math.Inf(-1)
		for i, r := range pending {
			if r == nil || r.kind == reqDone {
				continue
			}
			live++
			switch r.kind {
			case reqSend:
				if r.t < bestKey {
					best, bestKey = i, r.t
				}
			case reqRecv:
				for k, m := range mail[i] {
					if r.src >= 0 && m.src != r.src {
						continue
					}
					if key := max(r.t, m.arrival); key < bestKey {
						best, bestKey, bestMsg = i, key, k
					}
					if r.src >= 0 {
						break // FIFO per source
					}
				}
			case reqColl:
				inColl++
				collMax = max(collMax, r.t)
			}
		}
		if live == 0 {
			break
		}
		if inColl == live && (best < 0 || collMax <= bestKey) {
			// Everyone is in the collective: release all together.
			for i, r := range pending {
				if r != nil && r.kind == reqColl {
					procs[i].grant <- simGrant{t: collMax + sp.collUs}
					wait(i)
				}
			}
			continue
		}
		if best < 0 {
			panic("simulator deadlock")
		}
		r := pending[best]
		switch r.kind {
		case reqSend:
			mail[r.dst] = append(mail[r.dst], simMsg{src: best, tag: r.tag, bytes: r.bytes,
				arrival: r.t + sp.latUs + float64(r.bytes)*sp.nsPerByte/1000})
			procs[best].grant <- simGrant{}
		case reqRecv:
			m := mail[best][bestMsg]
			mail[best] = append(mail[best][:bestMsg], mail[best][bestMsg+1:]...)
			procs[best].grant <- simGrant{msg: m, t: bestKey + float64(m.bytes)*sp.copyNs/1000}
		}
		wait(best)
	}
	mem := &trace.Mem{D: trace.Defs{Resolution: 1_000_000_000, Regions: simRegions}}
	all := make([]int, n)
	for i, p := range procs {
		all[i] = i
		mem.D.Locations = append(mem.D.Locations, trace.Location{ID: i, Node: "node" + string(rune('a'+i)), Process: i})
		mem.Stream = append(mem.Stream, p.ev)
	}
	mem.D.Comms = []trace.Comm{{ID: 0, Name: "MPI_COMM_WORLD", Members: all}}
	return mem
}
