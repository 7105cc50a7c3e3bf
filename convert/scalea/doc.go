// Package scalea converts a SCALEA experiment data repository — the
// PostgreSQL database of Truong's dissertation, §5.5.1–5.5.2 and Appendix
// E (testdata/schema.sql) — into PERFONTO triples of the shapes
// convert/sample writes, so the shipped rules (rules/perfonto.rules) run
// unchanged on converted data (§6.5.5's "Performance Data Wrapper", §7.2.3).
//
// The whole repository is read in one consistent snapshot: one REPEATABLE
// READ READ ONLY transaction reads the small tables through server-side
// cursors (DECLARE … CURSOR, FETCH 10000), and the large ones (processing
// units, region summaries, the three metric tables) are streamed with
// COPY (query) TO STDOUT on connections of their own that import that
// transaction's snapshot (pg_export_snapshot), all started at once so
// PostgreSQL sorts them while earlier tables are converted. Every query is
// ordered by its key, so memory is bounded by a few blocks per stream and
// the output is the same on every run.
// References are checked in SQL (LEFT JOINs), not in Go maps.
//
// # Mapping
//
// IRIs are <base> + the segments below; E, R … are the row keys.
//
//	Table (columns)                     IRI                      Triples
//	PMC                                 —                        name in the catalog: metrics link perfonto:metric_<name>;
//	                                    metric/<name>            else a MetricDefinition: metricMnemonic, metricUnit,
//	                                                             metricDataType, metricDescription ("int64"… → xsd:long values)
//	—                                   site                     Site, siteName (--site, default the last segment of --base)
//	Cluster                             cluster/C                Cluster, clusterName, totalFlops, clusterAtSite; site hasCluster
//	ComputationalNode                   node/N                   ComputationalNode, hostName, one hostAlias / hostAddress per
//	                                                             array element, physicalMemory/virtualMemory (TEXT with MB, GB…
//	                                                             → megabytes), cpuSpeed (MHz, GHz → MHz), numCpu, cpuType,
//	                                                             systemModel, osName, osVersion, hardDiskSize, dataCacheSize and
//	                                                             cacheMissPenalty ("16,512": INTEGER[] in level order),
//	                                                             inCluster; cluster hasNode
//	Network                             network/W                Network, networkName, networkBandwidth, networkLatency,
//	                                                             networkOf; cluster hasNetwork
//	NetworkMPP2PPerf (collective cols)  NetworkMPP2PPerf/B       NetworkMPColPerf (by column meaning: mpiBarrier, mpiBcast,
//	                                                             numNode are collectives), mpiLibName, numNode, mpiBarrierTime;
//	                                                             network hasMPColPerf
//	NetworkMPColPerf (p2p cols)         NetworkMPColPerf/B       NetworkMPP2PPerf (mpiSync, mpiAsync, mpiSsend are sends),
//	                                                             mpiLibName; network hasMPP2PPerf
//	REAL[] elements                     <bench>/<column>/<i>     BenchmarkValue, benchmarkColumn, benchmarkIndex (1-based),
//	                                                             benchmarkTime; bench hasBenchmarkValue
//	NodeSharedMemoryPerf                NodeSharedMemoryPerf/B   NodeSharedMemoryPerf, ompLibName; the referenced *cluster*
//	                                                             hasSharedMemoryPerf
//	VirtualMachine, VirtualNode         vm/M, vnode/V            VirtualMachine, virtualMachineName; VirtualNode,
//	                                                             virtualNodeName, numCpu; vm hasVirtualNode (no experiment
//	                                                             links: the schema has none)
//	Application                         app/A                    Application, applicationName
//	Version                             version/V                Version, versionInfo, versionOf; app hasVersion
//	SourceFile                          file/F                   SourceFile, fileName, fileContents, fileLocation,
//	                                                             sourceFileOf; version hasSourceFile
//	CodeRegion                          cr/R                     the C.1 class and its family (ontology.LookupCodeRegionType),
//	                                                             hasCrType; unknown type: CodeRegion + hasCrType + warning;
//	                                                             regionIdentifier (= codeRegion), startLine, startColumn,
//	                                                             endLine, endColumn (_x = line, _y = column; ColumnLine swaps),
//	                                                             codeRegionUnit, inSourceFile (file hasCodeRegion),
//	                                                             hasParentCodeRegion
//	Experiment                          exp/E                    Experiment, ofVersion (version hasExperiment),
//	                                                             experimentInfo, startTime, endTime (xsd:dateTime, no zone),
//	                                                             commandLine, compiler, compilerOptions, atSite,
//	                                                             experimentIdentifier
//	RegionSummary PU columns            exp/E/pu/NODE            NodeUnit, inExperiment, inNode, onComputationalNode (node
//	(distinct per experiment)           exp/E/pu/NODE/P          named by hostName or an alias; else a warning); ProcessUnit
//	                                    exp/E/pu/NODE/P/T        + processID, hasParentPU; ThreadUnit + processID, threadID,
//	                                                             hasParentPU; hasChildPU downwards; exp hasProcessingUnit
//	RegionSummary                       rs/S                     RegionSummary, ofCodeRegion (codeRegionID, else codeRegion
//	                                                             looked up as regionIdentifier within the experiment's
//	                                                             version), inProcessingUnit (the thread unit), inExperiment,
//	                                                             hasParentRS (regionSummaryIDParent, else parentRegion) and
//	                                                             the parent's hasChildRS, numberCalls, numberSubs,
//	                                                             codeRegionGroup; ncalls/nsubs metrics (rs/S/summary/ncalls)
//	                                                             when no metric table carries them for S
//	TimingMetrics, HardwareMetrics,     rs/S/timing/<name>,      PerformanceMetric; rs hasMetric; hasMetricName,
//	TemporalOverheadMetrics             rs/S/hardware/<name>,    hasMetricValue (catalog datatype, source lexical form kept),
//	                                    rs/S/overhead/<name>     hasMetricDefinition; a repeated (S, table, name) gets /2, /3 …
//	                                                             and a warning
//
// Oddities of Appendix E handled here: the swapped benchmark table names
// (mapped by column meaning, above); NodeSharedMemoryPerf referencing a
// cluster; RegionSummary's duplicate columns (the PU triple of the row
// wins over puID, with a warning when they differ; codeRegionID over
// codeRegion; regionSummaryIDParent over parentRegion);
// CodeRegion.sourceFileID without a foreign key (checked like one);
// ProcessingUnit rows have no experiment, so processing units come from
// the summaries that use them (an unreferenced ProcessingUnit row
// produces nothing).
//
// # Errors
//
// An unreachable server or bad credentials is a plain error naming the DSN
// without its password. A missing table or column, a value that is not a
// number, and a dangling reference (experiment, version, application,
// source file, code region, parent summary, cluster, network …) are
// *convert.Error naming table, key and column; Options.Lenient turns a
// dangling reference into a warning and drops the row (and the rows that
// depend on it). A NULL in a nullable column omits the triple silently.
// Impossible values are refused the same way, never warned about and
// never relaxed by Lenient: a metric value that is NaN or ±Infinity, a
// negative numberCalls or numberSubs, and a row that is its own parent or
// a cycle of parent links among RegionSummary rows (regionSummaryIDParent
// or parentRegion) or CodeRegion rows (parentCodeRegionID), since call
// trees and region nesting must be trees; a cycle is named by its lowest
// key and lists its keys.
// An unknown Options.Experiments id is an *UnknownExperimentError.
package scalea
