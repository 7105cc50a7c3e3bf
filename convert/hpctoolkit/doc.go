// Package hpctoolkit converts HPCToolkit databases (the directory hpcprof
// writes: meta.db and profile.db, binary format version 4 as FORMATS.md in
// the HPCToolkit repository describes it) to PERFONTO call-path region
// summaries, in pure Go.
//
// meta.db holds the metrics (each a name and the propagation scopes it is
// summed over: point, function, execution …, each with its own
// propMetricId), the context tree (entry points, functions, loops, source
// lines and instructions, with the relation to their parent: lexical
// nesting, call or inlined call), and the load modules, source files and
// functions they refer to. profile.db holds one sparse block of (context,
// metric, value) per profile: a summary profile of statistics over all
// threads first, then one profile per application thread or GPU stream,
// named by an identifier tuple (NODE, RANK, THREAD, GPUCONTEXT …). cct.db
// holds the same values by context and is not read; trace.db is not read.
//
// # Mapping
//
//	HPCToolkit                           PERFONTO
//	the database directory               Experiment <base>exp/<directory name>
//	thread profile, identifier tuple     ThreadUnit <exp>/pu/p<RANK>t<THREAD> under its
//	NODE / RANK / THREAD                 ProcessUnit and the NodeUnit "hostid <hex id>"
//	                                     (missing kinds count as 0, no NODE as "node 0")
//	function context                     CodeRegion <base>region/<function name> (main →
//	                                     CR_P, MPI_* → CR_MPI…, others CR_Y; anonymous:
//	                                     "<unknown function> MODULE@0xOFFSET"), inSourceFile
//	                                     and startLine of the function's definition
//	loop context                         CodeRegion "loop at FILE:LINE", CR_L
//	source line context                  CodeRegion "FILE:LINE", CR_A
//	instruction context                  CodeRegion "MODULE@0xOFFSET", CR_A
//	entry point                          CodeRegion named by its pretty name ("main
//	                                     thread"), CR_A
//	(context, thread profile) with a     RegionSummary <exp>/rs/<pu>/<ctxId>: ofCodeRegion,
//	value, and its ancestors             inProcessingUnit, inExperiment; the parent
//	                                     context's summary hasChildRS it
//	metric M, execution scope            M (inclusive)
//	metric M, function scope             excl_M (exclusive)
//	REALTIME (sec), CPUTIME (sec)        wtime, ctime (µs); other "(sec)" metrics in µs
//	cycles, instructions, PAPI_X         TOT_CYC, TOT_INS, X (the catalog's names)
//
// Other names keep their letters and digits, the rest becoming '_'
// ("GXCOPY:D2A (B)" → GXCOPY_D2A_B). Values are as stored (f64); catalog
// counters that are whole numbers are written as xsd:long.
//
// Not converted, each with a report warning: the point scope and custom
// scopes (lex_aware …), profiles whose identifier tuple has a kind other
// than NODE, RANK, THREAD and CORE (GPU contexts and streams have no
// PERFONTO processing unit), and values of contexts that meta.db does not
// list (hpcprof writes them for call sites and sampled instructions;
// hpcviewer skips them too, and their costs are in their listed
// ancestors' inclusive values). The summary profile and the global
// context (ctxId 0) are statistics over what is converted and are not
// written. The relation of a context (call, inlined call) has no PERFONTO
// term.
//
// # The experiment.xml layout
//
// A directory without meta.db but with experiment.xml (hpcprof before
// 2020) is read as that layout: experiment.xml's MetricDBTable names the
// columns and SecCallPathProfileData the context tree (PF and Pr
// procedures, L loops, S statements, C call sites), and one
// <prog>-<rank>-<thread>-<hostid>-<pid>-<gen>.metric-db file per thread
// holds a 32-byte header and big-endian float64 values per (context id,
// column). PF/Pr map as function contexts, L as loops, S as source lines
// (in the enclosing file); call sites are no summaries, their callee's
// summary being the caller's child. A column "M (I)" is M, "M (E)" excl_M
// minus the exclusive values of the loops, statements and inlined
// procedures directly inside (which HPCToolkit counts in the enclosing
// context's too). Thread ids from 500 (GPU streams) and call sites'
// exclusive values are warned and skipped. Errors are
// "experiment.xml:LINE:COL" and "<file>.metric-db: byte N (field)".
//
// Errors name the file and "byte N (structure field)": a missing magic,
// format or footer, a section or array outside the file or its section, a
// child-context array shared by two contexts (a cycle), a value block
// whose indices do not fit; the store is left unchanged.
package hpctoolkit
