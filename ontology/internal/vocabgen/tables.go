package main

// This file holds the content of PERFONTO as Go tables. main.go renders them
// into ../../perfonto.ttl, ../../vocab.go and ../../catalog_gen.go.

// class is one owl:Class. Parents are its direct superclasses; Mnemonic is
// the Appendix C.1 code region mnemonic attached with perfonto:crMnemonic.
type class struct {
	Name     string
	Parents  []string
	Label    string
	Comment  string
	Mnemonic string
	GoName   string // optional override of the Go constant name
}

// Property kinds.
const (
	objectProp     = "owl:ObjectProperty"
	datatypeProp   = "owl:DatatypeProperty"
	annotationProp = "owl:AnnotationProperty"
)

// property is one OWL property.
type property struct {
	Name       string
	Kind       string
	Domain     string // prefixed name, "" for none
	Range      string // prefixed name, "" for none
	Parents    []string
	Inverse    string
	Transitive bool
	Functional bool
	Label      string
	Comment    string
}

// individual is one named individual with extra property assertions.
type individual struct {
	Name    string
	Types   []string
	Label   string
	Comment string
	Extra   [][2]string // predicate, already-rendered Turtle object
	GoName  string
}

// metric is one row of the performance metrics catalog (5.5.1, Appendix C.2
// and C.3, plus the derived ratio metrics of 3.7).
type metric struct {
	Name      string // the mnemonic, exactly as used in hasMetricName
	DataType  string // as in the appendix: double, int64
	Unit      string
	Desc      string
	Class     string // TimingMetric, CounterMetric, HardwareCounterMetric, OverheadMetric, RatioMetric
	Utility   string // HigherIsBetter, LowerIsBetter, NominalIsBetter
	Overhead  string // overhead class measured (overhead metrics)
	ValueType string // xsd datatype of hasMetricValue literals (derived from DataType when empty)
}

// codeRegionType is one Appendix C.1 mnemonic and the class it names.
type codeRegionType struct {
	Mnemonic string
	Class    string
	Parent   string
	Desc     string
	Label    string
}

var coreClasses = []class{
	// Experiment-related concepts (6.5.4, Fig. 6.24).
	{Name: "Application", Comment: "An application (program) whose executions are studied; it has one or more code versions."},
	{Name: "Version", Comment: "An implementation (code version) of an application, made of source files and executed in experiments."},
	{Name: "SourceFile", Comment: "A source file of a version of an application, holding static code regions."},
	{Name: "CodeRegion", Comment: "A static code region: a lexical sequence of program statements of a program unit enclosed by an entry and an exit statement (Definition 3.11). Its type is given by perfonto:hasCrType and by its class in the code region classification (3.6.3)."},
	{Name: "GenericCodeRegion", Parents: []string{"CodeRegion"}, Comment: "A programming-paradigm independent code region: loops, procedures, calls, I/O statements, branches and arbitrary regions (3.6.3)."},
	{Name: "SpecificCodeRegion", Parents: []string{"CodeRegion"}, Comment: "A programming-paradigm dependent code region: message passing, shared memory and HPF regions (3.6.3)."},
	{Name: "MPCodeRegion", Parents: []string{"SpecificCodeRegion"}, Label: "message passing code region", Comment: "A message passing code region, such as an MPI send, receive, collective or barrier."},
	{Name: "SMCodeRegion", Parents: []string{"SpecificCodeRegion"}, Label: "shared memory code region", Comment: "A shared memory code region, such as an OpenMP parallel loop, critical section or barrier."},
	{Name: "HPFCodeRegion", Parents: []string{"SpecificCodeRegion"}, Label: "HPF code region", Comment: "A High Performance Fortran code region, such as an INDEPENDENT loop, inspector or executor."},
	{Name: "OtherCodeRegion", Parents: []string{"CodeRegion"}, Comment: "A code region classified by how it is parallelised (replicated or sequential code) rather than by its construct."},
	{Name: "Experiment", Comment: "A performance experiment: one sequential or parallel run of a version of an application on a set of given resources (Definition 3.20)."},
	{Name: "DynamicRegion", Comment: "The runtime view of a static code region in a processing unit: either one execution (a region instance) or the summary of equivalent executions (a region summary)."},
	{Name: "RegionInstance", Parents: []string{"DynamicRegion"}, Comment: "A code region instance: one execution of a static (instrumented) code region on a processing unit in an experiment (Definition 3.15). It has events and sub region instances."},
	{Name: "RegionSummary", Parents: []string{"DynamicRegion"}, Comment: "A dynamic code region summary: the performance metric records of the region instances of a code region in a processing unit that share the same code region stack trace (Definition 3.19); a node of the dynamic code region call graph (DRG)."},
	{Name: "PerformanceMetric", Comment: "A performance metric record (Definition 3.22): a tuple of metric name (from the metrics catalog) and value attached to a region summary."},
	{Name: "Event", Comment: "An event record of a trace: something that happened at a time on a processing unit, with event attributes."},
	{Name: "EnterEvent", Parents: []string{"Event"}, Comment: "The event of entering a region instance."},
	{Name: "ExitEvent", Parents: []string{"Event"}, Comment: "The event of exiting a region instance."},
	{Name: "SendEvent", Parents: []string{"Event"}, Comment: "The event of sending a point-to-point message."},
	{Name: "RecvEvent", Parents: []string{"Event"}, Label: "receive event", Comment: "The event of receiving a point-to-point message."},
	{Name: "CollectiveEvent", Parents: []string{"Event"}, Comment: "The event recording a process's participation in a collective operation (barrier, broadcast, reduction ...)."},
	{Name: "EventAttribute", Comment: "A name/value attribute of an event record, such as a message tag, size or partner."},
	{Name: "Message", Comment: "A point-to-point message, linking its send event to its receive event in a trace."},
	{Name: "CollectiveOperation", Comment: "One execution of a collective operation (e.g. a barrier) in which region instances on several processing units take part."},
	{Name: "ProcessingUnit", Comment: "The context on which a code region is executed (Definition 3.14): a (computational node, process, thread) triple, or (activity, node, process, thread) for Grid workflows."},
	{Name: "NodeUnit", Parents: []string{"ProcessingUnit"}, Label: "node processing unit", Comment: "A processing unit at computational node level: the root of the dynamic processing unit graph (DPG) of an experiment on one node, parent of its processes."},
	{Name: "ProcessUnit", Parents: []string{"ProcessingUnit"}, Label: "process processing unit", Comment: "A processing unit at process level: a process on a computational node; parent of its threads in the dynamic processing unit graph."},
	{Name: "ThreadUnit", Parents: []string{"ProcessingUnit"}, Label: "thread processing unit", Comment: "A processing unit at thread level: a thread of a process on a computational node."},
	{Name: "ActivityUnit", Parents: []string{"ProcessingUnit"}, Label: "activity processing unit", Comment: "A processing unit of a Grid workflow: an activity executed on a computational node."},
	{Name: "MetricDefinition", Comment: "An entry of the performance metrics catalog (5.5.1): a metric's unique name, data type, unit and well-defined meaning."},
	{Name: "TimingMetric", Parents: []string{"MetricDefinition"}, Label: "measured timing metric", Comment: "A timing metric obtained from measurement, such as wall-clock or system time (3.7)."},
	{Name: "CounterMetric", Parents: []string{"MetricDefinition"}, Label: "measured counter metric", Comment: "A counter metric obtained from measurement, such as the number of calls (3.7)."},
	{Name: "HardwareCounterMetric", Parents: []string{"CounterMetric"}, Comment: "A measured hardware counter metric, named after the PAPI preset events (Appendix C.2)."},
	{Name: "OverheadMetric", Parents: []string{"MetricDefinition"}, Comment: "A metric derived from overhead analysis, such as send/receive or synchronization overhead (3.7, Appendix C.3)."},
	{Name: "RatioMetric", Parents: []string{"MetricDefinition"}, Comment: "A metric computed from other metrics by a ratio-based scheme, such as the L2 cache miss ratio (3.7)."},
	{Name: "MetricUtility", Comment: "The utility function class of a metric: higher is better, lower is better or nominal is best (3.7)."},
	{Name: "PerformanceClass", Comment: "A class of values of a performance metric, identified by a performance characteristic term such as good or poor (Definitions 3.23, 3.24)."},
	// Temporal overhead classification (5.2, Fig. 5.1).
	{Name: "TemporalOverhead", Comment: "Temporal overhead of a parallel program, T_o = T_p - T_s/p (Definition 5.2.1); divided into identified and unidentified overhead."},
	{Name: "IdentifiedOverhead", Parents: []string{"TemporalOverhead"}, Comment: "The part T_i of the temporal overhead that can be identified and assigned to an overhead category."},
	{Name: "UnidentifiedOverhead", Parents: []string{"TemporalOverhead"}, Comment: "The part T_u of the temporal overhead that is not covered by the identified categories (5.2.6)."},
	{Name: "DataMovementOverhead", Parents: []string{"IdentifiedOverhead"}, Comment: "Overhead of data transfer within local memory, file I/O, communication and remote memory access (5.2.1)."},
	{Name: "LocalMemoryAccessOverhead", Parents: []string{"DataMovementOverhead"}, Comment: "Data movement within local memory, e.g. cache misses and page faults."},
	{Name: "CommunicationOverhead", Parents: []string{"DataMovementOverhead"}, Comment: "Data movement by communication between processes."},
	{Name: "PointToPointCommunicationOverhead", Parents: []string{"CommunicationOverhead"}, Label: "point-to-point communication overhead", Comment: "Communication overhead of exchanging data between two peers, such as send and receive."},
	{Name: "SendOverhead", Parents: []string{"PointToPointCommunicationOverhead"}, Comment: "Point-to-point overhead of SEND operations."},
	{Name: "ReceiveOverhead", Parents: []string{"PointToPointCommunicationOverhead"}, Comment: "Point-to-point overhead of RECV operations."},
	{Name: "CollectiveCommunicationOverhead", Parents: []string{"CommunicationOverhead"}, Comment: "Communication overhead of collective operations such as scatter and broadcast."},
	{Name: "RemoteMemoryAccessOverhead", Parents: []string{"DataMovementOverhead"}, Comment: "Overhead of operations on memory of remote machines, such as put, get and accumulate."},
	{Name: "FileIOOverhead", Parents: []string{"DataMovementOverhead"}, Label: "file I/O overhead", Comment: "Data movement from and to the file system: reads, writes and other file operations."},
	{Name: "SynchronizationOverhead", Parents: []string{"IdentifiedOverhead"}, Comment: "Overhead of coordinating processes and threads, e.g. barriers and locks (5.2.2)."},
	{Name: "SingleAddressSpaceSynchronizationOverhead", Parents: []string{"SynchronizationOverhead"}, Comment: "Synchronization inside a single process, e.g. any OpenMP barrier, lock or flush."},
	{Name: "MultipleAddressSpaceSynchronizationOverhead", Parents: []string{"SynchronizationOverhead"}, Comment: "Synchronization between processes, e.g. MPI barriers, RMA locks and window synchronization."},
	{Name: "ControlOfParallelismOverhead", Parents: []string{"IdentifiedOverhead"}, Comment: "Overhead of controlling and managing parallelism, e.g. fork/join and loop scheduling (5.2.3)."},
	{Name: "SchedulingOverhead", Parents: []string{"ControlOfParallelismOverhead"}, Comment: "Control of parallelism overhead of loop scheduling."},
	{Name: "WorkDistributionOverhead", Parents: []string{"ControlOfParallelismOverhead"}, Comment: "Control of parallelism overhead of work distribution (HPF)."},
	{Name: "InspectorExecutorOverhead", Parents: []string{"ControlOfParallelismOverhead"}, Label: "inspector/executor overhead", Comment: "Control of parallelism overhead of HPF inspector and executor phases."},
	{Name: "ForkJoinOverhead", Parents: []string{"ControlOfParallelismOverhead"}, Label: "fork/join overhead", Comment: "Control of parallelism overhead of forking and joining threads."},
	{Name: "MessagePassingInitFinalizeOverhead", Parents: []string{"ControlOfParallelismOverhead"}, Label: "message passing initialization/finalization overhead", Comment: "Control of parallelism overhead of initializing and finalizing message passing."},
	{Name: "ProcessSpawnOverhead", Parents: []string{"ControlOfParallelismOverhead"}, Comment: "Control of parallelism overhead of spawning processes."},
	{Name: "AdditionalComputationOverhead", Parents: []string{"IdentifiedOverhead"}, Comment: "Overhead of changes to the original sequential program, e.g. algorithmic or compiler changes (5.2.4)."},
	{Name: "AlgorithmChangeOverhead", Parents: []string{"AdditionalComputationOverhead"}, Comment: "Additional computation due to an algorithm change."},
	{Name: "CompilerChangeOverhead", Parents: []string{"AdditionalComputationOverhead"}, Comment: "Additional computation due to compiler changes."},
	{Name: "FrontEndNormalizationOverhead", Parents: []string{"AdditionalComputationOverhead"}, Label: "front-end normalization overhead", Comment: "Additional computation due to front-end normalization."},
	{Name: "DataTypeConversionOverhead", Parents: []string{"AdditionalComputationOverhead"}, Comment: "Additional computation due to data type conversion, e.g. MPI_PACK."},
	{Name: "ProcessingUnitInformationOverhead", Parents: []string{"AdditionalComputationOverhead"}, Comment: "Additional computation to request processing unit information, e.g. the number of threads."},
	{Name: "LossOfParallelismOverhead", Parents: []string{"IdentifiedOverhead"}, Comment: "Overhead of imperfect parallelization: work not fully conducted in parallel (5.2.5)."},
	{Name: "UnparallelizedCodeOverhead", Parents: []string{"LossOfParallelismOverhead"}, Comment: "Loss of parallelism of code executed by only one processor (5.2.5.1)."},
	{Name: "ReplicatedCodeOverhead", Parents: []string{"LossOfParallelismOverhead"}, Comment: "Loss of parallelism of code executed by all processors (5.2.5.2)."},
	{Name: "PartiallyParallelizedCodeOverhead", Parents: []string{"LossOfParallelismOverhead"}, Comment: "Loss of parallelism of code executed by more than one but not all processors (5.2.5.3)."},
	// Resource-related concepts (6.5.4, 5.5.2, Appendix E).
	{Name: "Site", Comment: "A Grid site: an administrative domain offering clusters and networks."},
	{Name: "Cluster", Comment: "A group of physical machines (computational nodes) with the same configuration, connected by specific networks."},
	{Name: "SMPCluster", Parents: []string{"Cluster"}, Label: "SMP cluster", Comment: "A cluster of SMP machines."},
	{Name: "ComputationalNode", Comment: "A physical machine (computational node) with its static and benchmarked characteristics."},
	{Name: "SMPComputationalNode", Parents: []string{"ComputationalNode"}, Label: "SMP computational node", Comment: "A computational node that is a symmetric multiprocessor."},
	{Name: "Network", Comment: "A network available to a cluster, with its bandwidth and latency."},
	{Name: "EthernetNetwork", Parents: []string{"Network"}, Label: "Ethernet network", Comment: "An Ethernet network."},
	{Name: "MyrinetNetwork", Parents: []string{"Network"}, Label: "Myrinet network", Comment: "A Myrinet network."},
	{Name: "NodeSharedMemoryPerf", Label: "node shared memory performance", Comment: "Benchmarked performance characteristics of shared memory operations (lock, barrier, fork/join) of a computational node."},
	{Name: "NetworkMPColPerf", Label: "network message passing collective performance", Comment: "Benchmarked performance characteristics of message passing collective operations of a network."},
	{Name: "NetworkMPP2PPerf", Label: "network message passing point-to-point performance", Comment: "Benchmarked performance characteristics of message passing point-to-point operations of a network."},
	{Name: "VirtualMachine", Comment: "The collection of physical machines available to an experiment (Appendix E)."},
	{Name: "VirtualNode", Comment: "A node of a virtual machine with its number of CPUs (Appendix E)."},
	// SCALEA-G sensors (6.2.3).
	{Name: "Sensor", Comment: "A SCALEA-G monitoring sensor: it monitors resources and provides measurement data, identified by a sensor identifier (6.2.3.1)."},
	{Name: "SystemSensor", Parents: []string{"Sensor"}, Comment: "A sensor that monitors and measures Grid computational resources and networks (6.2.3.3)."},
	{Name: "ApplicationSensor", Parents: []string{"Sensor"}, Comment: "A sensor embedded in an application that measures code regions and monitors events (6.2.3.3)."},
	{Name: "ProfilingSensor", Parents: []string{"ApplicationSensor"}, Comment: "An application sensor collecting user-selected performance metrics of code regions."},
	{Name: "EventSensor", Parents: []string{"ApplicationSensor"}, Label: "user-defined event sensor", Comment: "An application sensor generating user-defined events when given conditions occur."},
	{Name: "SensorInstance", Comment: "One invocation of a sensor with its parameters and lifetime, monitoring particular resources (6.2.3.1)."},
	{Name: "SensorManager", Comment: "A SCALEA-G Sensor Manager Service that controls sensors and receives, stores and provides their data (6.2.3.5)."},
	{Name: "MonitoredResource", Comment: "A resource monitored by a sensor, identified by a resource identifier."},
	{Name: "NetworkPath", Parents: []string{"MonitoredResource"}, Comment: "The network-level abstraction of a virtual link between two Internet hosts."},
	{Name: "SensorMeasurement", Comment: "Measurement data delivered by a sensor instance for a resource at an event time."},
	{Name: "PathBandwidthMeasurement", Parents: []string{"SensorMeasurement"}, Comment: "A measurement of the bandwidth capacity of a network path (sensor path.bandwidth.capacity.TCP)."},
	{Name: "HostMeasurement", Parents: []string{"SensorMeasurement"}, Comment: "A measurement of a host resource, such as CPU or memory usage."},
	// Findings (rule output).
	{Name: "PerformanceProblem", Comment: "A performance problem found by analysis rules; rules assert it with perfonto:hasProblem on the flagged region summary, region instance, experiment or resource."},
	{Name: "BigMessage", Parents: []string{"PerformanceProblem"}, Comment: "MPI point-to-point regions whose average message length exceeds a threshold (Fig. 6.30)."},
	{Name: "HighCommunicationRatio", Parents: []string{"PerformanceProblem"}, Comment: "Communication time is high relative to computation time."},
	{Name: "PoorCacheBehaviour", Parents: []string{"PerformanceProblem"}, Comment: "A high cache miss ratio, e.g. L2_TCM/L2_TCA above a threshold."},
	{Name: "HighIdentifiedOverhead", Parents: []string{"PerformanceProblem"}, Comment: "The identified overhead (oall_ident) is a large fraction of the wall-clock time."},
	{Name: "LargeUnidentifiedOverhead", Parents: []string{"PerformanceProblem"}, Comment: "The unidentified overhead (oall_unid) is a large fraction of the wall-clock time."},
	{Name: "SynchronizationDominated", Parents: []string{"PerformanceProblem"}, Comment: "Synchronization overhead dominates the wall-clock time."},
	{Name: "LoadImbalance", Parents: []string{"PerformanceProblem"}, Comment: "The time of a code region differs strongly across the processing units of an experiment."},
	{Name: "IODominated", Parents: []string{"PerformanceProblem"}, Label: "I/O dominated", Comment: "File I/O dominates the wall-clock time."},
	{Name: "LateSender", Parents: []string{"PerformanceProblem"}, Comment: "A receive is posted before the matching send is started, so the receiver waits (Wolf et al., section 5)."},
	{Name: "WaitAtBarrier", Parents: []string{"PerformanceProblem"}, Comment: "Processing units wait at a barrier for the last one to arrive."},
	{Name: "LowNetworkBandwidth", Parents: []string{"PerformanceProblem"}, Comment: "A network path's measured bandwidth is low."},
}

// codeRegionTypes lists Table C.1. CR_COMALL, CR_HPFALL, CR_OMPALL and
// CR_MPIALL ("all ... code regions") are attached to the umbrella classes.
var codeRegionTypes = []codeRegionType{
	{"CR_COMALL", "GenericCodeRegion", "", "All common code regions", ""},
	{"CR_P", "MainProgramRegion", "GenericCodeRegion", "Main program", "main program region"},
	{"CR_A", "ArbitraryCodeRegion", "GenericCodeRegion", "Arbitrary code region", ""},
	{"CR_L", "LoopRegion", "GenericCodeRegion", "All loops (general)", ""},
	{"CR_U", "OutermostLoopRegion", "LoopRegion", "Outermost loop", ""},
	{"CR_B", "BranchRegion", "GenericCodeRegion", "Branch code region", ""},
	{"CR_W", "IOWriteRegion", "IORegion", "I/O Write operation", "I/O write region"},
	{"CR_R", "IOReadRegion", "IORegion", "I/O read operation", "I/O read region"},
	{"CR_O", "IOOpenRegion", "IORegion", "I/O open operation", "I/O open region"},
	{"CR_C", "IOCloseRegion", "IORegion", "I/O close operation", "I/O close region"},
	{"CR_Y", "ProcedureRegion", "GenericCodeRegion", "Procedure's internal (function or subroutine)", ""},
	{"CR_S", "SubroutineCallRegion", "CallRegion", "Subroutine call", ""},
	{"CR_F", "FunctionCallRegion", "CallRegion", "Function calls", ""},
	{"CR_HPFALL", "HPFCodeRegion", "", "All HPF code regions", ""},
	{"CR_I", "HPFIndependentLoopRegion", "HPFCodeRegion", "INDEPENDENT loop (HPF)", "HPF INDEPENDENT loop region"},
	{"CR_D", "HPFWorkDistributionRegion", "HPFCodeRegion", "Work distribution (HPF)", "HPF work distribution region"},
	{"CR_N", "HPFInspectorRegion", "HPFCodeRegion", "Inspector (HPF)", "HPF inspector region"},
	{"CR_X", "HPFExecutorRegion", "HPFCodeRegion", "Executor (HPF)", "HPF executor region"},
	{"CR_G", "HPFGatherRegion", "HPFCodeRegion", "Gather (HPF)", "HPF gather region"},
	{"CR_T", "HPFScatterRegion", "HPFCodeRegion", "Scatter (HPF)", "HPF scatter region"},
	{"CR_OMPALL", "OpenMPCodeRegion", "SMCodeRegion", "All OpenMP code regions", "OpenMP code region"},
	{"CR_OMPPA", "OMPParallelRegion", "OpenMPCodeRegion", "OMP PARALLEL", "OMP PARALLEL region"},
	{"CR_OMPPD", "OMPParallelDoRegion", "OpenMPCodeRegion", "OMP PARALLEL DO", "OMP PARALLEL DO region"},
	{"CR_OMPPS", "OMPParallelSectionsRegion", "OpenMPCodeRegion", "OMP PARALLEL SECTIONS", "OMP PARALLEL SECTIONS region"},
	{"CR_OMPPW", "OMPParallelWorkshareRegion", "OpenMPCodeRegion", "OMP PARALLEL WORKSHARE", "OMP PARALLEL WORKSHARE region"},
	{"CR_OMPDO", "OMPDoRegion", "OpenMPCodeRegion", "OMP DO", "OMP DO region"},
	{"CR_OMPSE", "OMPSectionsRegion", "OpenMPCodeRegion", "OMP SECTIONS (Table C.1 also lists CR_OMPSE for OMP SECTION; see OMPSectionRegion)", "OMP SECTIONS region"},
	{"CR_OMPWO", "OMPWorkshareRegion", "OpenMPCodeRegion", "OMP WORKSHARE", "OMP WORKSHARE region"},
	{"CR_OMPSI", "OMPSingleRegion", "OpenMPCodeRegion", "OMP SINGLE", "OMP SINGLE region"},
	{"CR_OMPMA", "OMPMasterRegion", "OpenMPCodeRegion", "OMP MASTER", "OMP MASTER region"},
	{"CR_OMPBA", "OMPBarrierRegion", "OpenMPCodeRegion", "OMP BARRIER", "OMP BARRIER region"},
	{"CR_OMPCR", "OMPCriticalRegion", "OpenMPCodeRegion", "OMP CRITICAL", "OMP CRITICAL region"},
	{"CR_OMPAT", "OMPAtomicRegion", "OpenMPCodeRegion", "OMP ATOMIC", "OMP ATOMIC region"},
	{"CR_OMPOR", "OMPOrderedRegion", "OpenMPCodeRegion", "OMP ORDERED", "OMP ORDERED region"},
	{"CR_OMPFL", "OMPFlushRegion", "OpenMPCodeRegion", "OMP FLUSH", "OMP FLUSH region"},
	{"CR_OMPICR", "OMPInsideCriticalRegion", "OpenMPCodeRegion", "Codes inside OMP CRITICAL", "code inside OMP CRITICAL"},
	{"CR_OMPIOR", "OMPInsideOrderedRegion", "OpenMPCodeRegion", "Codes inside OMP ORDERED", "code inside OMP ORDERED"},
	{"CR_OMPISE", "OMPInsideSingleRegion", "OpenMPCodeRegion", "Codes inside OMP SINGLE", "code inside OMP SINGLE"},
	{"CR_OMPBPA", "OMPParallelDirectiveRegion", "OpenMPCodeRegion", "OMP PARALLEL directive", "OMP PARALLEL directive region"},
	{"CR_OMPEPA", "OMPEndParallelDirectiveRegion", "OpenMPCodeRegion", "OMP END PARALLEL directive", "OMP END PARALLEL directive region"},
	{"CR_OMPIDO", "OMPDoBodyRegion", "OpenMPCodeRegion", "The body of do loop of OMP DO", "OMP DO loop body region"},
	{"CR_OMPLO", "OMPLockRegion", "OpenMPCodeRegion", "OpenMP locks", "OpenMP lock region"},
	{"CR_MPIALL", "MPICodeRegion", "MPCodeRegion", "All MPI code regions", "MPI code region"},
	{"CR_MPISTARTUP", "MPIStartupRegion", "MPICodeRegion", "MPI initialization and MPI finalization", "MPI startup region"},
	{"CR_MPIP2P", "MPIPointToPointRegion", "MPICodeRegion", "MPI point-to-point communication", "MPI point-to-point region"},
	{"CR_MPISEND", "MPISendRegion", "MPIPointToPointRegion", "MPI Send", "MPI send region"},
	{"CR_MPIRECV", "MPIReceiveRegion", "MPIPointToPointRegion", "MPI Receive", "MPI receive region"},
	{"CR_MPICOL", "MPICollectiveRegion", "MPICodeRegion", "MPI Collective communication", "MPI collective region"},
	{"CR_MPITP", "MPIDataTypeConversionRegion", "MPICodeRegion", "MPI data type conversions", "MPI data type conversion region"},
	{"CR_MPIBA", "MPIBarrierRegion", "MPICodeRegion", "MPI barrier", "MPI barrier region"},
	{"CR_OTHERREP", "ReplicatedCodeRegion", "OtherCodeRegion", "Replicated code region", ""},
	{"CR_OTHERSEQ", "SequentialCodeRegion", "OtherCodeRegion", "Sequential code region", ""},
}

// extraRegionClasses are intermediate classes of the code region
// classification that have no mnemonic of their own.
var extraRegionClasses = []class{
	{Name: "IORegion", Parents: []string{"GenericCodeRegion"}, Label: "I/O region", Comment: "A generic code region performing an I/O statement (open, close, read, write)."},
	{Name: "CallRegion", Parents: []string{"GenericCodeRegion"}, Comment: "A generic code region that is a procedure call (subroutine or function call)."},
	{Name: "OMPSectionRegion", Parents: []string{"OMPSectionsRegion"}, Label: "OMP SECTION region", Comment: "An OMP SECTION inside OMP SECTIONS. Table C.1 lists the mnemonic CR_OMPSE for both OMP SECTIONS and OMP SECTION; regions of this class carry hasCrType \"CR_OMPSE\"."},
}

func xsdFor(dataType string) string {
	switch dataType {
	case "int64":
		return "xsd:long"
	case "uint64":
		return "xsd:unsignedLong"
	case "int":
		return "xsd:integer"
	}
	return "xsd:double"
}

var properties = []property{
	// Experiment-related object properties (6.5.4, Fig. 6.24/6.25).
	{Name: "hasVersion", Kind: objectProp, Domain: "Application", Range: "Version", Inverse: "versionOf", Comment: "A code version of the application."},
	{Name: "versionOf", Kind: objectProp, Domain: "Version", Range: "Application", Functional: true, Comment: "The application this version implements."},
	{Name: "hasSourceFile", Kind: objectProp, Domain: "Version", Range: "SourceFile", Inverse: "sourceFileOf", Comment: "A source file of the version."},
	{Name: "sourceFileOf", Kind: objectProp, Domain: "SourceFile", Range: "Version", Functional: true, Comment: "The version this source file belongs to."},
	{Name: "hasCodeRegion", Kind: objectProp, Domain: "SourceFile", Range: "CodeRegion", Inverse: "inSourceFile", Comment: "A static code region of the source file."},
	{Name: "inSourceFile", Kind: objectProp, Domain: "CodeRegion", Range: "SourceFile", Functional: true, Comment: "The source file that contains the code region."},
	{Name: "hasParentCodeRegion", Kind: objectProp, Domain: "CodeRegion", Range: "CodeRegion", Inverse: "hasChildCodeRegion", Parents: []string{"hasEnclosingCodeRegion"}, Comment: "The code region that lexically encloses this one directly."},
	{Name: "hasChildCodeRegion", Kind: objectProp, Domain: "CodeRegion", Range: "CodeRegion", Parents: []string{"hasEnclosedCodeRegion"}, Comment: "A code region directly and lexically enclosed by this one."},
	{Name: "hasEnclosingCodeRegion", Kind: objectProp, Domain: "CodeRegion", Range: "CodeRegion", Transitive: true, Inverse: "hasEnclosedCodeRegion", Comment: "A code region that lexically encloses this one, directly or indirectly (transitive)."},
	{Name: "hasEnclosedCodeRegion", Kind: objectProp, Domain: "CodeRegion", Range: "CodeRegion", Transitive: true, Comment: "A code region lexically enclosed by this one, directly or indirectly (transitive)."},
	{Name: "hasExperiment", Kind: objectProp, Domain: "Version", Range: "Experiment", Inverse: "ofVersion", Comment: "An experiment that executed this version."},
	{Name: "ofVersion", Kind: objectProp, Domain: "Experiment", Range: "Version", Functional: true, Comment: "The version of the application executed by the experiment."},
	{Name: "inExperiment", Kind: objectProp, Range: "Experiment", Comment: "The experiment a processing unit, region summary or region instance belongs to."},
	{Name: "hasProcessingUnit", Kind: objectProp, Domain: "Experiment", Range: "ProcessingUnit", Comment: "A processing unit used by the experiment."},
	{Name: "inProcessingUnit", Kind: objectProp, Domain: "DynamicRegion", Range: "ProcessingUnit", Functional: true, Comment: "The processing unit (calling context) on which the region summary or region instance was executed."},
	{Name: "ofCodeRegion", Kind: objectProp, Domain: "DynamicRegion", Range: "CodeRegion", Functional: true, Comment: "The static code region that the region summary or region instance executes."},
	{Name: "hasChildRS", Kind: objectProp, Domain: "RegionSummary", Range: "RegionSummary", Inverse: "hasParentRS", Parents: []string{"hasDescendantRS"}, Label: "has child region summary", Comment: "A sub region summary: a child node of this node in the dynamic code region call graph."},
	{Name: "hasParentRS", Kind: objectProp, Domain: "RegionSummary", Range: "RegionSummary", Functional: true, Parents: []string{"hasAncestorRS"}, Label: "has parent region summary", Comment: "The parent region summary of this node in the dynamic code region call graph."},
	{Name: "hasAncestorRS", Kind: objectProp, Domain: "RegionSummary", Range: "RegionSummary", Transitive: true, Inverse: "hasDescendantRS", Label: "has ancestor region summary", Comment: "A region summary on the call path from the root of the DRG to this one (transitive)."},
	{Name: "hasDescendantRS", Kind: objectProp, Domain: "RegionSummary", Range: "RegionSummary", Transitive: true, Label: "has descendant region summary", Comment: "A region summary in the subtree of this one in the DRG (transitive)."},
	{Name: "hasChildRI", Kind: objectProp, Domain: "RegionInstance", Range: "RegionInstance", Inverse: "hasParentRI", Parents: []string{"hasDescendantRI"}, Label: "has child region instance", Comment: "A sub region instance executed directly inside this region instance."},
	{Name: "hasParentRI", Kind: objectProp, Domain: "RegionInstance", Range: "RegionInstance", Functional: true, Parents: []string{"hasAncestorRI"}, Label: "has parent region instance", Comment: "The region instance in which this one was executed directly."},
	{Name: "hasAncestorRI", Kind: objectProp, Domain: "RegionInstance", Range: "RegionInstance", Transitive: true, Inverse: "hasDescendantRI", Label: "has ancestor region instance", Comment: "A region instance on the code region stack trace of this one (transitive)."},
	{Name: "hasDescendantRI", Kind: objectProp, Domain: "RegionInstance", Range: "RegionInstance", Transitive: true, Label: "has descendant region instance", Comment: "A region instance executed, directly or indirectly, inside this one (transitive)."},
	{Name: "hasMetric", Kind: objectProp, Range: "PerformanceMetric", Inverse: "metricOf", Comment: "A performance metric record of a region summary, or of an experiment or code region for metrics computed across experiments (speedup, efficiency). It has no rdfs:domain, so that RDFS reasoning does not make an experiment a region summary."},
	{Name: "metricOf", Kind: objectProp, Domain: "PerformanceMetric", Functional: true, Comment: "The region summary (or experiment, region aggregate, code region...) this performance metric record belongs to. It has no rdfs:range: as the inverse of perfonto:hasMetric, a range would make every subject with a metric (an experiment, a region aggregate) a region summary."},
	{Name: "hasMetricDefinition", Kind: objectProp, Domain: "PerformanceMetric", Range: "MetricDefinition", Comment: "The metrics catalog entry of the metric named by hasMetricName."},
	{Name: "hasEvent", Kind: objectProp, Domain: "RegionInstance", Range: "Event", Inverse: "eventOf", Comment: "An event record of the region instance."},
	{Name: "eventOf", Kind: objectProp, Domain: "Event", Range: "RegionInstance", Functional: true, Comment: "The region instance the event belongs to."},
	{Name: "hasEventAttr", Kind: objectProp, Domain: "Event", Range: "EventAttribute", Label: "has event attribute", Comment: "An attribute of the event."},
	{Name: "sendsMessage", Kind: objectProp, Domain: "SendEvent", Range: "Message", Inverse: "sentByEvent", Comment: "The message sent at this send event."},
	{Name: "sentByEvent", Kind: objectProp, Domain: "Message", Range: "SendEvent", Functional: true, Comment: "The send event of the message."},
	{Name: "receivesMessage", Kind: objectProp, Domain: "RecvEvent", Range: "Message", Inverse: "receivedByEvent", Comment: "The message received at this receive event."},
	{Name: "receivedByEvent", Kind: objectProp, Domain: "Message", Range: "RecvEvent", Functional: true, Comment: "The receive event of the message."},
	{Name: "messageSender", Kind: objectProp, Domain: "Message", Range: "ProcessingUnit", Comment: "The processing unit that sent the message."},
	{Name: "messageReceiver", Kind: objectProp, Domain: "Message", Range: "ProcessingUnit", Comment: "The processing unit that received the message."},
	{Name: "partOfCollective", Kind: objectProp, Domain: "RegionInstance", Range: "CollectiveOperation", Comment: "The collective operation (e.g. one barrier) this region instance takes part in."},
	{Name: "onComputationalNode", Kind: objectProp, Domain: "ProcessingUnit", Range: "ComputationalNode", Comment: "The computational node of the processing unit (the node named by inNode)."},
	{Name: "hasParentPU", Kind: objectProp, Domain: "ProcessingUnit", Range: "ProcessingUnit", Inverse: "hasChildPU", Label: "has parent processing unit", Comment: "The parent in the dynamic processing unit graph: a thread's process or a process's node."},
	{Name: "hasChildPU", Kind: objectProp, Domain: "ProcessingUnit", Range: "ProcessingUnit", Label: "has child processing unit", Comment: "A child in the dynamic processing unit graph: a node's process or a process's thread."},
	{Name: "usesVirtualMachine", Kind: objectProp, Domain: "Experiment", Range: "VirtualMachine", Comment: "The virtual machine (set of computational nodes) on which the experiment was taken."},
	{Name: "hasVirtualNode", Kind: objectProp, Domain: "VirtualMachine", Range: "VirtualNode", Comment: "A node of the virtual machine."},
	{Name: "usesNode", Kind: objectProp, Domain: "Experiment", Range: "ComputationalNode", Comment: "A computational node on which the experiment ran."},
	{Name: "atSite", Kind: objectProp, Range: "Site", Comment: "The Grid site an experiment was taken at or a resource belongs to."},
	// Experiment-related datatype properties.
	{Name: "applicationName", Kind: datatypeProp, Domain: "Application", Range: "xsd:string", Comment: "The name of the application."},
	{Name: "versionInfo", Kind: datatypeProp, Domain: "Version", Range: "xsd:string", Comment: "Descriptive information of the version (Appendix E Version.versionInfo)."},
	{Name: "fileName", Kind: datatypeProp, Domain: "SourceFile", Range: "xsd:string", Comment: "The name of the source file."},
	{Name: "fileLocation", Kind: datatypeProp, Domain: "SourceFile", Range: "xsd:string", Comment: "The location (path) of the source file."},
	{Name: "fileContents", Kind: datatypeProp, Domain: "SourceFile", Range: "xsd:string", Comment: "The contents of the source file."},
	{Name: "hasCrType", Kind: datatypeProp, Domain: "CodeRegion", Range: "xsd:string", Label: "has code region type", Comment: "The code region type mnemonic of Appendix C.1 (e.g. \"CR_MPIP2P\") of the code region."},
	{Name: "crMnemonic", Kind: annotationProp, Range: "xsd:string", Label: "code region mnemonic", Comment: "The Appendix C.1 mnemonic attached to a code region class; instances of the class carry the same string with perfonto:hasCrType."},
	{Name: "regionIdentifier", Kind: datatypeProp, Domain: "CodeRegion", Range: "xsd:string", Comment: "The unique static identifier the instrumentation system assigned to the code region."},
	{Name: "regionName", Kind: datatypeProp, Domain: "CodeRegion", Range: "xsd:string", Comment: "A human-readable name of the code region, such as the procedure or call it covers."},
	{Name: "codeRegionUnit", Kind: datatypeProp, Domain: "CodeRegion", Range: "xsd:string", Comment: "The program unit containing the code region (Appendix E CodeRegion.CodeRegionUnit)."},
	{Name: "startLine", Kind: datatypeProp, Domain: "CodeRegion", Range: "xsd:integer", Functional: true, Comment: "The source line where the code region begins."},
	{Name: "startColumn", Kind: datatypeProp, Domain: "CodeRegion", Range: "xsd:integer", Functional: true, Comment: "The source column where the code region begins."},
	{Name: "endLine", Kind: datatypeProp, Domain: "CodeRegion", Range: "xsd:integer", Functional: true, Comment: "The source line where the code region ends."},
	{Name: "endColumn", Kind: datatypeProp, Domain: "CodeRegion", Range: "xsd:integer", Functional: true, Comment: "The source column where the code region ends."},
	{Name: "experimentInfo", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:string", Comment: "Free-text information about the experiment (Appendix E Experiment.info)."},
	{Name: "startTime", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:dateTime", Functional: true, Comment: "When the experiment started."},
	{Name: "endTime", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:dateTime", Functional: true, Comment: "When the experiment ended."},
	{Name: "commandLine", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:string", Comment: "The command line that started the experiment."},
	{Name: "compiler", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:string", Comment: "The compiler used to build the executed program."},
	{Name: "compilerOptions", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:string", Comment: "The compiler options used to build the executed program."},
	{Name: "numberOfProcesses", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:integer", Comment: "The number of processes of the experiment."},
	{Name: "numberOfThreads", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:integer", Comment: "The number of threads per process of the experiment."},
	{Name: "problemSize", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:string", Comment: "The problem size factor of the experiment (a controlled factor, 3.7)."},
	{Name: "inNode", Kind: datatypeProp, Domain: "ProcessingUnit", Range: "xsd:string", Comment: "The name of the computational node of the processing unit, e.g. \"gsr410\" (Fig. 6.29)."},
	{Name: "processID", Kind: datatypeProp, Domain: "ProcessingUnit", Range: "xsd:integer", Label: "process identifier", Comment: "The process identifier of the processing unit."},
	{Name: "threadID", Kind: datatypeProp, Domain: "ProcessingUnit", Range: "xsd:integer", Label: "thread identifier", Comment: "The thread identifier of the processing unit."},
	{Name: "activityID", Kind: datatypeProp, Domain: "ProcessingUnit", Range: "xsd:string", Label: "activity identifier", Comment: "The workflow activity identifier of the processing unit."},
	{Name: "numberCalls", Kind: datatypeProp, Domain: "RegionSummary", Range: "xsd:integer", Comment: "The number of region instances summarised (Appendix E RegionSummary.numberCalls)."},
	{Name: "numberSubs", Kind: datatypeProp, Domain: "RegionSummary", Range: "xsd:integer", Comment: "The number of executions of sub code regions (Appendix E RegionSummary.numberSubs)."},
	{Name: "hasMetricName", Kind: datatypeProp, Domain: "PerformanceMetric", Range: "xsd:string", Functional: true, Comment: "The name of the metric, a mnemonic defined in the performance metrics catalog (e.g. \"wtime\")."},
	{Name: "hasMetricValue", Kind: datatypeProp, Domain: "PerformanceMetric", Functional: true, Comment: "The value of the metric, a typed literal whose datatype is the catalog entry's valueDatatype (xsd:double or xsd:long)."},
	{Name: "atEventTime", Kind: datatypeProp, Domain: "Event", Range: "xsd:double", Functional: true, Comment: "The time at which the event happened, in microseconds since the start of the experiment."},
	{Name: "hasAttrName", Kind: datatypeProp, Domain: "EventAttribute", Range: "xsd:string", Label: "has attribute name", Comment: "The name of the event attribute."},
	{Name: "hasAttrValue", Kind: datatypeProp, Domain: "EventAttribute", Label: "has attribute value", Comment: "The value of the event attribute."},
	{Name: "messageSize", Kind: datatypeProp, Domain: "Message", Range: "xsd:long", Comment: "The size of the message in bytes."},
	{Name: "messageTag", Kind: datatypeProp, Domain: "Message", Range: "xsd:integer", Comment: "The tag of the message."},
	// Metrics catalog properties (5.5.1, Appendix E PMC).
	{Name: "metricMnemonic", Kind: datatypeProp, Domain: "MetricDefinition", Range: "xsd:string", Functional: true, Comment: "The unique name of the catalog metric; data use the same string with hasMetricName."},
	{Name: "metricUnit", Kind: datatypeProp, Domain: "MetricDefinition", Range: "xsd:string", Comment: "The measurement unit of the metric, e.g. microsecond, counter, byte."},
	{Name: "metricDataType", Kind: datatypeProp, Domain: "MetricDefinition", Range: "xsd:string", Comment: "The data type of the metric value as named by the catalog, e.g. double or int64."},
	{Name: "valueDatatype", Kind: annotationProp, Label: "value datatype", Comment: "The XML Schema datatype of the typed literals that carry values of the metric (the object of hasMetricValue)."},
	{Name: "metricDescription", Kind: datatypeProp, Domain: "MetricDefinition", Range: "xsd:string", Comment: "The well-defined meaning of the metric."},
	{Name: "hasUtility", Kind: objectProp, Domain: "MetricDefinition", Range: "MetricUtility", Comment: "Whether higher, lower or nominal values of the metric indicate better performance."},
	{Name: "measuresOverhead", Kind: annotationProp, Comment: "The temporal overhead class (5.2) that an overhead metric quantifies."},
	{Name: "hasPerformanceClass", Kind: objectProp, Domain: "PerformanceMetric", Range: "PerformanceClass", Comment: "The performance class the metric value falls into."},
	{Name: "characteristicTerm", Kind: datatypeProp, Domain: "PerformanceClass", Range: "xsd:string", Comment: "The linguistic performance characteristic term of a performance class, e.g. good or poor."},
	// Resource-related properties.
	{Name: "hasCluster", Kind: objectProp, Domain: "Site", Range: "Cluster", Inverse: "clusterAtSite", Comment: "A cluster of the Grid site."},
	{Name: "clusterAtSite", Kind: objectProp, Domain: "Cluster", Range: "Site", Parents: []string{"atSite"}, Functional: true, Comment: "The Grid site of the cluster."},
	{Name: "hasNode", Kind: objectProp, Domain: "Cluster", Range: "ComputationalNode", Inverse: "inCluster", Comment: "A computational node of the cluster."},
	{Name: "inCluster", Kind: objectProp, Domain: "ComputationalNode", Range: "Cluster", Functional: true, Comment: "The cluster the computational node belongs to."},
	{Name: "hasNetwork", Kind: objectProp, Domain: "Cluster", Range: "Network", Inverse: "networkOf", Comment: "A network connecting the nodes of the cluster."},
	{Name: "networkOf", Kind: objectProp, Domain: "Network", Range: "Cluster", Comment: "The cluster whose nodes the network connects."},
	{Name: "hasSharedMemoryPerf", Kind: objectProp, Range: "NodeSharedMemoryPerf", Label: "has shared memory performance", Comment: "Benchmarked shared memory performance of a computational node or of the nodes of a cluster."},
	{Name: "hasMPP2PPerf", Kind: objectProp, Domain: "Network", Range: "NetworkMPP2PPerf", Label: "has message passing point-to-point performance", Comment: "Benchmarked message passing point-to-point performance of the network."},
	{Name: "hasMPColPerf", Kind: objectProp, Domain: "Network", Range: "NetworkMPColPerf", Label: "has message passing collective performance", Comment: "Benchmarked message passing collective performance of the network."},
	{Name: "siteName", Kind: datatypeProp, Domain: "Site", Range: "xsd:string", Comment: "The name of the Grid site."},
	{Name: "siteLocation", Kind: datatypeProp, Domain: "Site", Range: "xsd:string", Comment: "The geographic location or organisation of the Grid site."},
	{Name: "clusterName", Kind: datatypeProp, Domain: "Cluster", Range: "xsd:string", Comment: "The name of the cluster."},
	{Name: "totalFlops", Kind: datatypeProp, Domain: "Cluster", Range: "xsd:double", Comment: "The total peak performance of the cluster in MFLOPS (Appendix E Cluster.totalFlops)."},
	{Name: "hostName", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Comment: "The host name of the computational node."},
	{Name: "hostAlias", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Comment: "An alias name of the computational node."},
	{Name: "hostAddress", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Comment: "A network address of the computational node."},
	{Name: "systemModel", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Comment: "The system model of the computational node."},
	{Name: "physicalMemory", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:long", Comment: "The physical memory of the computational node in megabytes."},
	{Name: "virtualMemory", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:long", Comment: "The virtual memory of the computational node in megabytes."},
	{Name: "numCpu", Kind: datatypeProp, Range: "xsd:integer", Label: "number of CPUs", Comment: "The number of CPUs of a computational node or virtual node."},
	{Name: "cpuType", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Label: "CPU type", Comment: "The CPU type of the computational node."},
	{Name: "cpuSpeed", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:double", Label: "CPU speed", Comment: "The CPU clock speed of the computational node in MHz."},
	{Name: "peakMflops", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:double", Label: "peak MFLOPS", Comment: "The peak floating point performance of the computational node in MFLOPS."},
	{Name: "osName", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Label: "OS name", Comment: "The operating system of the computational node."},
	{Name: "osVersion", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Label: "OS version", Comment: "The operating system version of the computational node."},
	{Name: "hardDiskSize", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:long", Comment: "The hard disk size of the computational node in megabytes."},
	{Name: "dataCacheSize", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Comment: "The data cache sizes of the computational node per level in kilobytes, as a comma-separated list (L1,L2,...)."},
	{Name: "cacheMissPenalty", Kind: datatypeProp, Domain: "ComputationalNode", Range: "xsd:string", Comment: "The cache miss penalties of the computational node per level in cycles, as a comma-separated list."},
	{Name: "networkName", Kind: datatypeProp, Domain: "Network", Range: "xsd:string", Comment: "The name of the network."},
	{Name: "networkBandwidth", Kind: datatypeProp, Domain: "Network", Range: "xsd:double", Comment: "The nominal bandwidth of the network in megabits per second."},
	{Name: "networkLatency", Kind: datatypeProp, Domain: "Network", Range: "xsd:double", Comment: "The latency of the network in microseconds."},
	{Name: "mpiLibName", Kind: datatypeProp, Range: "xsd:string", Label: "MPI library name", Comment: "The MPI library used by a message passing benchmark."},
	{Name: "ompLibName", Kind: datatypeProp, Domain: "NodeSharedMemoryPerf", Range: "xsd:string", Label: "OpenMP library name", Comment: "The OpenMP library used by the shared memory benchmark."},
	{Name: "numNode", Kind: datatypeProp, Domain: "NetworkMPColPerf", Range: "xsd:integer", Label: "number of nodes", Comment: "The number of nodes used by the collective benchmark."},
	{Name: "mpiBarrierTime", Kind: datatypeProp, Domain: "NetworkMPColPerf", Range: "xsd:double", Label: "MPI barrier time", Comment: "Benchmarked time of an MPI barrier in microseconds."},
	{Name: "mpiBcastTime", Kind: datatypeProp, Domain: "NetworkMPColPerf", Range: "xsd:double", Label: "MPI broadcast time", Comment: "Benchmarked time of an MPI broadcast of 1 KB in microseconds."},
	{Name: "mpiSyncSendTime", Kind: datatypeProp, Domain: "NetworkMPP2PPerf", Range: "xsd:double", Label: "MPI blocking send time", Comment: "Benchmarked time of a blocking point-to-point send of 1 KB in microseconds."},
	{Name: "mpiAsyncSendTime", Kind: datatypeProp, Domain: "NetworkMPP2PPerf", Range: "xsd:double", Label: "MPI non-blocking send time", Comment: "Benchmarked time of a non-blocking point-to-point send of 1 KB in microseconds."},
	{Name: "mpiSsendTime", Kind: datatypeProp, Domain: "NetworkMPP2PPerf", Range: "xsd:double", Label: "MPI synchronous send time", Comment: "Benchmarked time of a synchronous send (MPI_Ssend) of 1 KB in microseconds."},
	{Name: "ompLockTime", Kind: datatypeProp, Domain: "NodeSharedMemoryPerf", Range: "xsd:double", Label: "OpenMP lock time", Comment: "Benchmarked time to acquire and release an OpenMP lock in microseconds."},
	{Name: "ompBarrierTime", Kind: datatypeProp, Domain: "NodeSharedMemoryPerf", Range: "xsd:double", Label: "OpenMP barrier time", Comment: "Benchmarked time of an OpenMP barrier in microseconds."},
	{Name: "ompForkJoinTime", Kind: datatypeProp, Domain: "NodeSharedMemoryPerf", Range: "xsd:double", Label: "OpenMP fork/join time", Comment: "Benchmarked time of an OpenMP fork/join in microseconds."},
	{Name: "virtualMachineName", Kind: datatypeProp, Domain: "VirtualMachine", Range: "xsd:string", Comment: "The name of the virtual machine."},
	// SCALEA-G sensors (6.2.3).
	{Name: "sensorID", Kind: datatypeProp, Range: "xsd:string", Label: "sensor identifier", Comment: "The unique identifier (SensorID) of a sensor, e.g. \"path.bandwidth.capacity.TCP\"."},
	{Name: "resourceID", Kind: datatypeProp, Range: "xsd:string", Label: "resource identifier", Comment: "The unique identifier (ResourceID) of a monitored resource."},
	{Name: "sensorDescription", Kind: datatypeProp, Domain: "Sensor", Range: "xsd:string", Comment: "The description of the sensor in its sensor profile."},
	{Name: "isOnDemand", Kind: datatypeProp, Domain: "Sensor", Range: "xsd:boolean", Label: "is on demand", Comment: "Whether the sensor is demand-driven (true) or event-driven (false)."},
	{Name: "instanceOfSensor", Kind: objectProp, Domain: "SensorInstance", Range: "Sensor", Functional: true, Comment: "The sensor of which this is an invocation."},
	{Name: "monitorsResource", Kind: objectProp, Domain: "SensorInstance", Range: "MonitoredResource", Comment: "A resource monitored by the sensor instance."},
	{Name: "managedBy", Kind: objectProp, Domain: "SensorInstance", Range: "SensorManager", Comment: "The Sensor Manager Service receiving the data of the sensor instance."},
	{Name: "lifetime", Kind: datatypeProp, Domain: "SensorInstance", Range: "xsd:double", Comment: "The lifetime of the sensor instance in seconds."},
	{Name: "producedBy", Kind: objectProp, Domain: "SensorMeasurement", Range: "SensorInstance", Functional: true, Comment: "The sensor instance that delivered the measurement."},
	{Name: "aboutResource", Kind: objectProp, Domain: "SensorMeasurement", Range: "MonitoredResource", Comment: "The resource the measurement describes."},
	{Name: "measurementTime", Kind: datatypeProp, Domain: "SensorMeasurement", Range: "xsd:dateTime", Functional: true, Comment: "The event time of the measurement."},
	{Name: "measuredValue", Kind: datatypeProp, Domain: "SensorMeasurement", Range: "xsd:double", Comment: "The measured value in the unit given by measurementUnit."},
	{Name: "measurementUnit", Kind: datatypeProp, Domain: "SensorMeasurement", Range: "xsd:string", Comment: "The unit of measuredValue, e.g. MB/s or percent."},
	{Name: "pathSource", Kind: datatypeProp, Range: "xsd:string", Comment: "The source host (host:port) of a network path or path measurement."},
	{Name: "pathDestination", Kind: datatypeProp, Range: "xsd:string", Comment: "The destination host (host:port) of a network path or path measurement."},
	{Name: "bandwidth", Kind: datatypeProp, Domain: "PathBandwidthMeasurement", Range: "xsd:double", Parents: []string{"measuredValue"}, Comment: "The measured bandwidth capacity of the network path in MB/s."},
	// Findings.
	{Name: "hasProblem", Kind: objectProp, Inverse: "problemOf", Comment: "A performance problem found for the subject (e.g. a region summary); the object is a PerformanceProblem instance or a PerformanceProblem subclass itself, as in (?rs perfonto:hasProblem perfonto:BigMessage)."},
	{Name: "problemOf", Kind: objectProp, Comment: "The thing (region summary, region instance, experiment, resource) a performance problem was found for."},
	{Name: "severity", Kind: datatypeProp, Range: "xsd:decimal", Comment: "How severe a finding is, a decimal in [0,1] (1 = most severe); stated on a PerformanceProblem instance, or on the flagged thing when a rule asserts the problem class itself (no domain, so no type is inferred)."},
	{Name: "severityClass", Kind: datatypeProp, Range: "xsd:string", Comment: "The linguistic severity class of a finding: \"low\", \"medium\" or \"high\"; stated like severity."},
	{Name: "triggeredByMetric", Kind: objectProp, Range: "PerformanceMetric", Comment: "A performance metric record whose value triggered the finding; stated like severity."},
	{Name: "problemDescription", Kind: datatypeProp, Range: "xsd:string", Comment: "A human-readable explanation of the finding; stated like severity."},
}

// individuals besides the metric catalog.
var individuals = []individual{
	{Name: "HigherIsBetter", Types: []string{"MetricUtility"}, Label: "higher is better", Comment: "A higher value of the metric indicates better performance, e.g. cache hit ratio or MFLOPS."},
	{Name: "LowerIsBetter", Types: []string{"MetricUtility"}, Label: "lower is better", Comment: "A lower value of the metric indicates better performance, e.g. overheads or response time."},
	{Name: "NominalIsBetter", Types: []string{"MetricUtility"}, Label: "nominal is best", Comment: "Both high and low values are undesirable, e.g. resource utilization."},
	{Name: "sensor_path_bandwidth_capacity_TCP", GoName: "SensorPathBandwidthCapacityTCP", Types: []string{"SystemSensor"}, Label: "path.bandwidth.capacity.TCP", Comment: "System sensor measuring the bandwidth capacity of a network path between two hosts (Fig. 6.3).",
		Extra: [][2]string{{"perfonto:sensorID", `"path.bandwidth.capacity.TCP"`}, {"perfonto:isOnDemand", `false`}}},
	{Name: "sensor_path_predict_bandwidth_capacity_TCP", GoName: "SensorPathPredictBandwidthCapacityTCP", Types: []string{"SystemSensor"}, Label: "path.predict.bandwidth.capacity.TCP", Comment: "Demand-driven system sensor obtaining predicted network path bandwidth from the Network Weather Service (6.2.3.8).",
		Extra: [][2]string{{"perfonto:sensorID", `"path.predict.bandwidth.capacity.TCP"`}, {"perfonto:isOnDemand", `true`}}},
	{Name: "sensor_host_cpu_used", GoName: "SensorHostCPUUsed", Types: []string{"SystemSensor"}, Label: "host.cpu.used", Comment: "System sensor measuring the CPU usage of a host.",
		Extra: [][2]string{{"perfonto:sensorID", `"host.cpu.used"`}, {"perfonto:isOnDemand", `false`}}},
	{Name: "sensor_host_mem_used", GoName: "SensorHostMemUsed", Types: []string{"SystemSensor"}, Label: "host.mem.used", Comment: "System sensor measuring the memory usage of a host.",
		Extra: [][2]string{{"perfonto:sensorID", `"host.mem.used"`}, {"perfonto:isOnDemand", `false`}}},
	{Name: "sensor_app_profiling", GoName: "SensorApplicationProfiling", Types: []string{"ProfilingSensor"}, Label: "app.profiling", Comment: "Application profiling sensor delivering name=value metrics of code regions per experiment and processing unit (Fig. 6.4).",
		Extra: [][2]string{{"perfonto:sensorID", `"app.profiling"`}, {"perfonto:isOnDemand", `false`}}},
}

const (
	timing   = "TimingMetric"
	counter  = "CounterMetric"
	hwc      = "HardwareCounterMetric"
	overhead = "OverheadMetric"
	ratio    = "RatioMetric"
	higher   = "HigherIsBetter"
	lower    = "LowerIsBetter"
	nominal  = "NominalIsBetter"
	usec     = "microsecond"
)

// metrics is the catalog: Table C.2, Table C.3 and the ratio metrics.
var metrics = []metric{
	{"wtime", "double", usec, "Wall-clock time", timing, lower, "", ""},
	{"utime", "double", usec, "User CPU time", timing, lower, "", ""},
	{"stime", "double", usec, "System CPU time", timing, lower, "", ""},
	{"ctime", "double", usec, "CPU Time, including user CPU time and system CPU time", timing, lower, "", ""},
	{"ncalls", "int64", "counter", "Number of executions", counter, nominal, "", ""},
	{"nsubs", "int64", "counter", "Number of executions of sub code regions", counter, nominal, "", ""},
	{"majflt", "int64", "counter", "Page faults requiring physical I/O", counter, lower, "", ""},
	{"minflt", "int64", "counter", "Page faults not requiring physical I/O", counter, lower, "", ""},
	{"nswap", "int64", "counter", "Number of swaps", counter, lower, "", ""},
	{"L1_DCM", "int64", "counter", "Level 1 data cache misses", hwc, lower, "", ""},
	{"L1_ICM", "int64", "counter", "Level 1 instruction cache misses", hwc, lower, "", ""},
	{"L2_DCM", "int64", "counter", "Level 2 data cache misses", hwc, lower, "", ""},
	{"L2_ICM", "int64", "counter", "Level 2 instruction cache misses", hwc, lower, "", ""},
	{"L3_DCM", "int64", "counter", "Level 3 data cache misses", hwc, lower, "", ""},
	{"L3_ICM", "int64", "counter", "Level 3 instruction cache misses", hwc, lower, "", ""},
	{"L1_TCM", "int64", "counter", "Level 1 cache misses", hwc, lower, "", ""},
	{"L2_TCM", "int64", "counter", "Level 2 cache misses", hwc, lower, "", ""},
	{"L3_TCM", "int64", "counter", "Level 3 cache misses", hwc, lower, "", ""},
	{"CA_SNP", "int64", "counter", "Requests for a snoop", hwc, lower, "", ""},
	{"CA_SHR", "int64", "counter", "Requests for exclusive access to shared cache line", hwc, lower, "", ""},
	{"CA_CLN", "int64", "counter", "Requests for exclusive access to clean cache line", hwc, lower, "", ""},
	{"CA_INV", "int64", "counter", "Requests for cache line invalidation", hwc, lower, "", ""},
	{"CA_ITV", "int64", "counter", "Requests for cache line intervention", hwc, lower, "", ""},
	{"L3_LDM", "int64", "counter", "Level 3 load misses", hwc, lower, "", ""},
	{"L3_STM", "int64", "counter", "Level 3 store misses", hwc, lower, "", ""},
	{"BRU_IDL", "int64", "counter", "Cycles branch units are idle", hwc, lower, "", ""},
	{"FXU_IDL", "int64", "counter", "Cycles integer units are idle", hwc, lower, "", ""},
	{"FPU_IDL", "int64", "counter", "Cycles floating point units are idle", hwc, lower, "", ""},
	{"LSU_IDL", "int64", "counter", "Cycles load/store units are idle", hwc, lower, "", ""},
	{"TLB_DM", "int64", "counter", "Data translation lookaside buffer misses", hwc, lower, "", ""},
	{"TLB_IM", "int64", "counter", "Instruction translation lookaside buffer misses", hwc, lower, "", ""},
	{"TLB_TL", "int64", "counter", "Total translation lookaside buffer misses", hwc, lower, "", ""},
	{"L1_LDM", "int64", "counter", "Level 1 load misses", hwc, lower, "", ""},
	{"L1_STM", "int64", "counter", "Level 1 store misses", hwc, lower, "", ""},
	{"L2_LDM", "int64", "counter", "Level 2 load misses", hwc, lower, "", ""},
	{"L2_STM", "int64", "counter", "Level 2 store misses", hwc, lower, "", ""},
	{"BTAC_M", "int64", "counter", "Branch target address cache misses", hwc, lower, "", ""},
	{"PRF_DM", "int64", "counter", "Data prefetch cache misses", hwc, lower, "", ""},
	{"L3_DCH", "int64", "counter", "Level 3 data cache hits", hwc, higher, "", ""},
	{"TLB_SD", "int64", "counter", "Translation lookaside buffer shootdowns", hwc, lower, "", ""},
	{"CSR_FAL", "int64", "counter", "Failed store conditional instructions", hwc, lower, "", ""},
	{"CSR_SUC", "int64", "counter", "Successful store conditional instructions", hwc, higher, "", ""},
	{"CSR_TOT", "int64", "counter", "Total store conditional instructions", hwc, nominal, "", ""},
	{"MEM_SCY", "int64", "counter", "Cycles Stalled Waiting for memory accesses", hwc, lower, "", ""},
	{"MEM_RCY", "int64", "counter", "Cycles Stalled Waiting for memory Reads", hwc, lower, "", ""},
	{"MEM_WCY", "int64", "counter", "Cycles Stalled Waiting for memory writes", hwc, lower, "", ""},
	{"STL_ICY", "int64", "counter", "Cycles with no instruction issue", hwc, lower, "", ""},
	{"FUL_ICY", "int64", "counter", "Cycles with maximum instruction issue", hwc, higher, "", ""},
	{"STL_CCY", "int64", "counter", "Cycles with no instructions completed", hwc, lower, "", ""},
	{"FUL_CCY", "int64", "counter", "Cycles with maximum instructions completed", hwc, higher, "", ""},
	{"HW_INT", "int64", "counter", "Hardware interrupts", hwc, lower, "", ""},
	{"BR_UCN", "int64", "counter", "Unconditional branch instructions", hwc, nominal, "", ""},
	{"BR_CN", "int64", "counter", "Conditional branch instructions", hwc, nominal, "", ""},
	{"BR_TKN", "int64", "counter", "Conditional branch instructions taken", hwc, nominal, "", ""},
	{"BR_NTK", "int64", "counter", "Conditional branch instructions not taken", hwc, nominal, "", ""},
	{"BR_MSP", "int64", "counter", "Conditional branch instructions mispredicted", hwc, lower, "", ""},
	{"BR_PRC", "int64", "counter", "Conditional branch instructions correctly predicted", hwc, higher, "", ""},
	{"FMA_INS", "int64", "counter", "FMA instructions completed", hwc, nominal, "", ""},
	{"TOT_IIS", "int64", "counter", "Instructions issued", hwc, nominal, "", ""},
	{"TOT_INS", "int64", "counter", "Instructions completed", hwc, nominal, "", ""},
	{"INT_INS", "int64", "counter", "Integer instructions", hwc, nominal, "", ""},
	{"FP_INS", "int64", "counter", "Floating point instructions", hwc, nominal, "", ""},
	{"LD_INS", "int64", "counter", "Load instructions", hwc, nominal, "", ""},
	{"SR_INS", "int64", "counter", "Store instructions", hwc, nominal, "", ""},
	{"BR_INS", "int64", "counter", "Branch instructions", hwc, nominal, "", ""},
	{"VEC_INS", "int64", "counter", "Vector/SIMD instructions", hwc, nominal, "", ""},
	{"FLOPS", "int64", "counter", "Floating point instructions per second", hwc, higher, "", ""},
	{"RES_STL", "int64", "counter", "Cycles stalled on any resource", hwc, lower, "", ""},
	{"FP_STAL", "int64", "counter", "Cycles the FP unit(s) are stalled", hwc, lower, "", ""},
	{"TOT_CYC", "int64", "counter", "Total cycles", hwc, lower, "", ""},
	{"IPS", "int64", "counter", "Instructions per second", hwc, higher, "", ""},
	{"LST_INS", "int64", "counter", "Load/store instructions completed", hwc, nominal, "", ""},
	{"SYC_INS", "int64", "counter", "Synchronization instructions completed", hwc, lower, "", ""},
	{"L1_DCH", "int64", "counter", "Level 1 data cache hits", hwc, higher, "", ""},
	{"L2_DCH", "int64", "counter", "Level 2 data cache hits", hwc, higher, "", ""},
	{"L1_DCA", "int64", "counter", "Level 1 data cache accesses", hwc, nominal, "", ""},
	{"L2_DCA", "int64", "counter", "Level 2 data cache accesses", hwc, nominal, "", ""},
	{"L3_DCA", "int64", "counter", "Level 3 data cache accesses", hwc, nominal, "", ""},
	{"L1_DCR", "int64", "counter", "Level 1 data cache reads", hwc, nominal, "", ""},
	{"L2_DCR", "int64", "counter", "Level 2 data cache reads", hwc, nominal, "", ""},
	{"L3_DCR", "int64", "counter", "Level 3 data cache reads", hwc, nominal, "", ""},
	{"L1_DCW", "int64", "counter", "Level 1 data cache writes", hwc, nominal, "", ""},
	{"L2_DCW", "int64", "counter", "Level 2 data cache writes", hwc, nominal, "", ""},
	{"L3_DCW", "int64", "counter", "Level 3 data cache writes", hwc, nominal, "", ""},
	{"L1_ICH", "int64", "counter", "Level 1 instruction cache hits", hwc, higher, "", ""},
	{"L2_ICH", "int64", "counter", "Level 2 instruction cache hits", hwc, higher, "", ""},
	{"L3_ICH", "int64", "counter", "Level 3 instruction cache hits", hwc, higher, "", ""},
	{"L1_ICA", "int64", "counter", "Level 1 instruction cache accesses", hwc, nominal, "", ""},
	{"L2_ICA", "int64", "counter", "Level 2 instruction cache accesses", hwc, nominal, "", ""},
	{"L3_ICA", "int64", "counter", "Level 3 instruction cache accesses", hwc, nominal, "", ""},
	{"L1_ICR", "int64", "counter", "Level 1 instruction cache reads", hwc, nominal, "", ""},
	{"L2_ICR", "int64", "counter", "Level 2 instruction cache reads", hwc, nominal, "", ""},
	{"L3_ICR", "int64", "counter", "Level 3 instruction cache reads", hwc, nominal, "", ""},
	{"L1_ICW", "int64", "counter", "Level 1 instruction cache writes", hwc, nominal, "", ""},
	{"L2_ICW", "int64", "counter", "Level 2 instruction cache writes", hwc, nominal, "", ""},
	{"L3_ICW", "int64", "counter", "Level 3 instruction cache writes", hwc, nominal, "", ""},
	{"L1_TCH", "int64", "counter", "Level 1 total cache hits", hwc, higher, "", ""},
	{"L2_TCH", "int64", "counter", "Level 2 total cache hits", hwc, higher, "", ""},
	{"L3_TCH", "int64", "counter", "Level 3 total cache hits", hwc, higher, "", ""},
	{"L1_TCA", "int64", "counter", "Level 1 total cache accesses", hwc, nominal, "", ""},
	{"L2_TCA", "int64", "counter", "Level 2 total cache accesses", hwc, nominal, "", ""},
	{"L3_TCA", "int64", "counter", "Level 3 total cache accesses", hwc, nominal, "", ""},
	{"L1_TCR", "int64", "counter", "Level 1 total cache reads", hwc, nominal, "", ""},
	{"L2_TCR", "int64", "counter", "Level 2 total cache reads", hwc, nominal, "", ""},
	{"L3_TCR", "int64", "counter", "Level 3 total cache reads", hwc, nominal, "", ""},
	{"L1_TCW", "int64", "counter", "Level 1 total cache writes", hwc, nominal, "", ""},
	{"L2_TCW", "int64", "counter", "Level 2 total cache writes", hwc, nominal, "", ""},
	{"L3_TCW", "int64", "counter", "Level 3 total cache writes", hwc, nominal, "", ""},
	{"FML_INS", "int64", "counter", "Floating point multiply instructions", hwc, nominal, "", ""},
	{"FAD_INS", "int64", "counter", "Floating point add instructions", hwc, nominal, "", ""},
	{"FDV_INS", "int64", "counter", "Floating point divide instructions", hwc, nominal, "", ""},
	{"FSQ_INS", "int64", "counter", "Floating point square root instructions", hwc, nominal, "", ""},
	{"FNV_INS", "int64", "counter", "Floating point inverse instructions", hwc, nominal, "", ""},
	// Table C.3: overhead metrics.
	{"odata", "double", usec, "Data movement", overhead, lower, "DataMovementOverhead", ""},
	{"odata_l21", "double", usec, "L2 to L1", overhead, lower, "LocalMemoryAccessOverhead", ""},
	{"odata_l23", "double", usec, "L3 to L2", overhead, lower, "LocalMemoryAccessOverhead", ""},
	{"odata_send", "double", usec, "SEND", overhead, lower, "SendOverhead", ""},
	{"odata_recv", "double", usec, "RECV", overhead, lower, "ReceiveOverhead", ""},
	{"odata_p2p", "double", usec, "Point to Point communication", overhead, lower, "PointToPointCommunicationOverhead", ""},
	{"odata_col", "double", usec, "Collective communication", overhead, lower, "CollectiveCommunicationOverhead", ""},
	{"odata_put", "double", usec, "PUT", overhead, lower, "RemoteMemoryAccessOverhead", ""},
	{"odata_get", "double", usec, "GET", overhead, lower, "RemoteMemoryAccessOverhead", ""},
	{"odata_fread", "double", usec, "File System read", overhead, lower, "FileIOOverhead", ""},
	{"odata_fwrite", "double", usec, "File System write", overhead, lower, "FileIOOverhead", ""},
	{"odata_fother", "double", usec, "Other file system operation", overhead, lower, "FileIOOverhead", ""},
	{"osync", "double", usec, "Synchronization", overhead, lower, "SynchronizationOverhead", ""},
	{"osync_bar", "double", usec, "Barriers in Single address space", overhead, lower, "SingleAddressSpaceSynchronizationOverhead", ""},
	{"osync_lock", "double", usec, "Lock in single address space", overhead, lower, "SingleAddressSpaceSynchronizationOverhead", ""},
	{"osync_cond", "double", usec, "Conditional variable in single address space", overhead, lower, "SingleAddressSpaceSynchronizationOverhead", ""},
	{"osync_mpbar", "double", usec, "Barriers in multiple addresses space", overhead, lower, "MultipleAddressSpaceSynchronizationOverhead", ""},
	{"osync_dcs", "double", usec, "Deferred communication synchronization", overhead, lower, "MultipleAddressSpaceSynchronizationOverhead", ""},
	{"osync_crs", "double", usec, "Collective RMA synchronization", overhead, lower, "MultipleAddressSpaceSynchronizationOverhead", ""},
	{"osync_rlo", "double", usec, "RMA Locks", overhead, lower, "MultipleAddressSpaceSynchronizationOverhead", ""},
	{"octrp", "double", usec, "Control of parallelism", overhead, lower, "ControlOfParallelismOverhead", ""},
	{"octrp_sched", "double", usec, "Schedule", overhead, lower, "SchedulingOverhead", ""},
	{"octrp_insp", "double", usec, "Inspector", overhead, lower, "InspectorExecutorOverhead", ""},
	{"octrp_exec", "double", usec, "Executor", overhead, lower, "InspectorExecutorOverhead", ""},
	{"octrp_fkjn", "double", usec, "Fork/join threads", overhead, lower, "ForkJoinOverhead", ""},
	{"octrp_infl", "double", usec, "Initialize/Finalize message passing", overhead, lower, "MessagePassingInitFinalizeOverhead", ""},
	{"octrp_sp", "double", usec, "Spawn processes", overhead, lower, "ProcessSpawnOverhead", ""},
	{"oadd", "double", usec, "Additional overhead", overhead, lower, "AdditionalComputationOverhead", ""},
	{"oadd_algr", "double", usec, "Overhead due to algorithm change", overhead, lower, "AlgorithmChangeOverhead", ""},
	{"oadd_comp", "double", usec, "Overhead due to compiler changes", overhead, lower, "CompilerChangeOverhead", ""},
	{"oadd_dtc", "double", usec, "Overhead due to data type conversion", overhead, lower, "DataTypeConversionOverhead", ""},
	{"oadd_pui", "double", usec, "Overhead of processing unit information", overhead, lower, "ProcessingUnitInformationOverhead", ""},
	{"olopa", "double", usec, "Overhead of loss parallelism", overhead, lower, "LossOfParallelismOverhead", ""},
	{"olopa_unpar", "double", usec, "Unparallelized code", overhead, lower, "UnparallelizedCodeOverhead", ""},
	{"olopa_repl", "double", usec, "Replicated code", overhead, lower, "ReplicatedCodeOverhead", ""},
	{"olopa_ppar", "double", usec, "Partial parallelized code", overhead, lower, "PartiallyParallelizedCodeOverhead", ""},
	{"oall_ident", "double", usec, "Identified Overhead", overhead, lower, "IdentifiedOverhead", ""},
	{"oall_unid", "double", usec, "Unidentified Overhead", overhead, lower, "UnidentifiedOverhead", ""},
	{"oall", "double", usec, "All above overhead", overhead, lower, "TemporalOverhead", ""},
	// Derived ratio metrics (3.7) and the message length of Fig. 6.30.
	{"AvgMessageLength", "double", "byte", "Average length of the messages sent or received by a point-to-point communication region (Fig. 6.30)", ratio, nominal, "", ""},
	{"L2_TCMR", "double", "ratio", "Level 2 cache miss ratio, L2_TCM / L2_TCA", ratio, lower, "", ""},
	{"L1_DCMR", "double", "ratio", "Level 1 data cache miss ratio, L1_DCM / L1_DCA", ratio, lower, "", ""},
	{"stime_wtime", "double", "ratio", "System time per wall-clock time, stime / wtime", ratio, lower, "", ""},
	{"MFLOPS", "double", "MFLOPS", "Millions of floating-point operations per second", ratio, higher, "", ""},
	{"speedup", "double", "ratio", "Speedup T_s / T_p of the parallel over the sequential execution", ratio, higher, "", ""},
	{"efficiency", "double", "ratio", "Parallel efficiency, speedup divided by the number of processors", ratio, higher, "", ""},
	{"load_imbalance", "double", "ratio", "Maximum over mean wall-clock time of a code region across processing units", ratio, lower, "", ""},
	{"comm_comp_ratio", "double", "ratio", "Communication time divided by computation time", ratio, lower, "", ""},
}
