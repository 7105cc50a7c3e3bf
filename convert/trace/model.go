package trace

import (
	"context"
	"fmt"
	"iter"
	"strings"
)

// Time is an event time in the trace's clock ticks (see Defs.Resolution).
type Time int64

// Paradigm is the programming model a region belongs to.
type Paradigm uint8

// Paradigms of regions.
const (
	ParadigmUser Paradigm = iota
	ParadigmMPI
	ParadigmOpenMP
	ParadigmMeasurement
)

var paradigmNames = [...]string{"user", "mpi", "openmp", "measurement"}

func (p Paradigm) String() string {
	if int(p) < len(paradigmNames) {
		return paradigmNames[p]
	}
	return fmt.Sprintf("paradigm(%d)", p)
}

// Location is one stream of events: a thread of a process on a node (the
// thread-level ProcessingUnit of Truong §3.6.4).
type Location struct {
	ID      int    // index in Defs.Locations
	Node    string // host name
	Process int    // MPI rank
	Thread  int    // thread number within the process
	Context int    // TAU's context (profile.N.C.T); 0 for traces
	Name    string // the trace's name for the location, if any
}

// Region is a code region events enter and leave.
type Region struct {
	ID       int
	Name     string
	Paradigm Paradigm
	Role     string // e.g. "function", "barrier", "parallel", "loop" (free text from the trace)
}

// Comm is a communicator: an ordered group of locations. Peers in Send,
// Recv and collective roots are location IDs, not ranks; readers translate.
type Comm struct {
	ID      int
	Name    string
	Members []int // location IDs
}

// ClockOffset is one clock correction record of a location: at local time
// Time, the global time is Time+Offset. Between records the offset is
// interpolated linearly (as KOJAK does, 003 §5).
type ClockOffset struct {
	Time   Time
	Offset int64
}

// Defs are a trace's global definitions.
type Defs struct {
	Resolution uint64 // ticks per second
	Start      Time   // global trace start (ticks)
	Locations  []Location
	Regions    []Region
	Comms      []Comm
	Offsets    [][]ClockOffset // per location ID, sorted by Time; may be nil
}

// Micros converts a duration in ticks to microseconds.
func (d *Defs) Micros(t Time) float64 {
	if d.Resolution == 0 {
		return float64(t)
	}
	return float64(t) * 1e6 / float64(d.Resolution)
}

// Kind is the type of an event.
type Kind uint8

// Event kinds.
const (
	Enter Kind = iota
	Leave
	Send          // blocking or standard send: Peer, Comm, Tag, Bytes
	Recv          // receive completion: Peer (source), Comm, Tag, Bytes
	Isend         // non-blocking send issued: Peer, Comm, Tag, Bytes, Request
	IsendComplete // completion of an Isend request: Request
	IrecvRequest  // non-blocking receive posted: Request
	Irecv         // completion of an Irecv request: Peer, Comm, Tag, Bytes, Request
	CollectiveBegin
	CollectiveEnd // Op, Root, Comm, Bytes (sent), BytesRecv
	BufferFlush   // Time .. Stop: the measurement system flushed its buffer
	MeasurementOnOff
)

var kindNames = [...]string{"Enter", "Leave", "Send", "Recv", "Isend", "IsendComplete", "IrecvRequest", "Irecv",
	"CollectiveBegin", "CollectiveEnd", "BufferFlush", "MeasurementOnOff"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return fmt.Sprintf("kind(%d)", k)
}

// CollOp is a collective operation.
type CollOp uint8

// Collective operations, grouped by pattern.
const (
	OpBarrier   CollOp = iota
	OpBcast            // 1-to-n
	OpScatter          // 1-to-n
	OpScatterv         // 1-to-n
	OpGather           // n-to-1
	OpGatherv          // n-to-1
	OpReduce           // n-to-1
	OpAllgather        // n-to-n
	OpAllgatherv
	OpAlltoall
	OpAlltoallv
	OpAllreduce
	OpReduceScatter
	OpScan
	OpOther
)

var opNames = [...]string{"barrier", "bcast", "scatter", "scatterv", "gather", "gatherv", "reduce",
	"allgather", "allgatherv", "alltoall", "alltoallv", "allreduce", "reduce_scatter", "scan", "other"}

func (o CollOp) String() string {
	if int(o) < len(opNames) {
		return opNames[o]
	}
	return "other"
}

// Pattern classifies collectives for compensation (003 §3.2): 1-to-n,
// n-to-1 or n-to-n (barriers are n-to-n).
func (o CollOp) Pattern() string {
	switch o {
	case OpBcast, OpScatter, OpScatterv:
		return "1-to-n"
	case OpGather, OpGatherv, OpReduce:
		return "n-to-1"
	}
	return "n-to-n"
}

// Event is one trace record. Which fields matter depends on Kind.
type Event struct {
	Kind    Kind
	Loc     int   // location ID
	Seq     int64 // index of the event in its location's stream (0-based)
	Time    Time  // local clock (clock offsets are applied by Merge)
	Region  int   // Enter, Leave: region ID
	Peer    int   // Send/Isend: destination location; Recv/Irecv: source location
	Comm    int   // communicator ID
	Tag     int
	Bytes   int64 // message size; CollectiveEnd: bytes sent
	Recvd   int64 // CollectiveEnd: bytes received
	Request uint64
	Op      CollOp
	Root    int  // CollectiveEnd: root location (-1 for none)
	Stop    Time // BufferFlush: end of the flush
	On      bool // MeasurementOnOff: true when measurement resumes
}

// Source gives a trace's definitions and one event stream per location.
// Events yields each location's events in stream order, numbering Seq from
// 0; errors end the stream.
type Source interface {
	Defs() *Defs
	Events(ctx context.Context, loc int) iter.Seq2[Event, error]
}

// Mem is an in-memory Source, used by tests and by the compensation engine
// for its output.
type Mem struct {
	D      Defs
	Stream [][]Event // per location ID
}

// Defs implements Source.
func (m *Mem) Defs() *Defs { return &m.D }

// Events implements Source; Seq and Loc are set from the position.
func (m *Mem) Events(ctx context.Context, loc int) iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for i, e := range m.Stream[loc] {
			if i&4095 == 0 {
				if err := ctx.Err(); err != nil {
					yield(Event{}, err)
					return
				}
			}
			e.Seq = int64(i)
			e.Loc = loc
			if !yield(e, nil) {
				return
			}
		}
	}
}

// Mnemonics returns the Appendix C.1 code region mnemonics of a region,
// most specific first (Truong C.1, mapping as issue 11 fixes it).
func Mnemonics(r Region) []string {
	name := r.Name
	lower := strings.ToLower(name)
	switch {
	case r.Paradigm == ParadigmMPI || strings.HasPrefix(lower, "mpi_"):
		switch strings.ToUpper(name) {
		case "MPI_SEND", "MPI_ISEND", "MPI_BSEND", "MPI_SSEND", "MPI_RSEND",
			"MPI_IBSEND", "MPI_ISSEND", "MPI_IRSEND":
			return []string{"CR_MPISEND", "CR_MPIP2P"}
		case "MPI_RECV", "MPI_IRECV":
			return []string{"CR_MPIRECV", "CR_MPIP2P"}
		case "MPI_SENDRECV", "MPI_SENDRECV_REPLACE":
			return []string{"CR_MPIP2P"}
		case "MPI_BARRIER":
			return []string{"CR_MPIBA"}
		case "MPI_INIT", "MPI_INIT_THREAD", "MPI_FINALIZE":
			return []string{"CR_MPISTARTUP"}
		case "MPI_PACK", "MPI_UNPACK":
			return []string{"CR_MPITP"}
		case "MPI_BCAST", "MPI_SCATTER", "MPI_SCATTERV", "MPI_GATHER", "MPI_GATHERV", "MPI_REDUCE",
			"MPI_ALLGATHER", "MPI_ALLGATHERV", "MPI_ALLTOALL", "MPI_ALLTOALLV", "MPI_ALLTOALLW",
			"MPI_ALLREDUCE", "MPI_REDUCE_SCATTER", "MPI_REDUCE_SCATTER_BLOCK", "MPI_SCAN", "MPI_EXSCAN":
			return []string{"CR_MPICOL"}
		}
		return []string{"CR_MPIALL"}
	case r.Paradigm == ParadigmOpenMP || strings.HasPrefix(lower, "!$omp"):
		return []string{ompMnemonic(lower)}
	case lower == "main" || lower == "main_" || lower == "program":
		return []string{"CR_P"}
	}
	return []string{"CR_Y"}
}

// ompMnemonic maps an OpenMP construct name ("!$omp parallel @file:12",
// "omp barrier", "parallel for") to its C.1 mnemonic.
func ompMnemonic(lower string) string {
	s := strings.TrimPrefix(lower, "!$omp")
	s = strings.TrimPrefix(strings.TrimSpace(s), "omp ")
	if i := strings.IndexAny(s, "@("); i >= 0 {
		s = s[:i]
	}
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "parallel do"), strings.HasPrefix(s, "parallel for"):
		return "CR_OMPPD"
	case strings.HasPrefix(s, "parallel sections"):
		return "CR_OMPPS"
	case strings.HasPrefix(s, "parallel workshare"):
		return "CR_OMPPW"
	case strings.HasPrefix(s, "parallel"):
		return "CR_OMPPA"
	case strings.HasPrefix(s, "do"), strings.HasPrefix(s, "for"), strings.HasPrefix(s, "loop"):
		return "CR_OMPDO"
	case strings.HasPrefix(s, "section"):
		return "CR_OMPSE"
	case strings.HasPrefix(s, "workshare"):
		return "CR_OMPWO"
	case strings.HasPrefix(s, "single"):
		return "CR_OMPSI"
	case strings.HasPrefix(s, "master"), strings.HasPrefix(s, "masked"):
		return "CR_OMPMA"
	case strings.HasPrefix(s, "barrier"), strings.HasPrefix(s, "implicit barrier"), strings.HasPrefix(s, "ibarrier"):
		return "CR_OMPBA"
	case strings.HasPrefix(s, "critical"):
		return "CR_OMPCR"
	case strings.HasPrefix(s, "atomic"):
		return "CR_OMPAT"
	case strings.HasPrefix(s, "ordered"):
		return "CR_OMPOR"
	case strings.HasPrefix(s, "flush"):
		return "CR_OMPFL"
	case strings.Contains(s, "lock"):
		return "CR_OMPLO"
	}
	return "CR_OMPALL"
}
