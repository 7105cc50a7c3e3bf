// Package cube converts CUBE4 files (.cubex: Score-P profiles such as
// profile.cubex and Scalasca trace-analysis reports such as scout.cubex)
// to PERFONTO region summaries, in pure Go.
//
// A .cubex file is a tar archive (optionally gzip-compressed) of
//
//	anchor.xml   metadata: <metrics> (a tree), <program> (<region>s and the
//	             nested <cnode> call tree), <system> (system tree nodes,
//	             location groups = processes, locations = threads …)
//	<id>.index   "CUBEX.INDEX", int32 1 (byte order), int16 version, byte
//	             index type (1: sparse), int32 N, N int32 call-tree indices
//	<id>.data    "CUBEX.DATA" + N × L values, or "ZCUBEX.DATA", int64 N,
//	             N × (int64 uncompressed offset, compressed offset, size)
//	             and N zlib segments that decompress to the same values
//
// for each metric with stored values (L = number of locations; one row of
// L values per index entry, in location-ID order). Call-tree indices
// count the cnodes depth-first for EXCLUSIVE metrics and, as cubelib
// does, "children first" for INCLUSIVE ones (a node, then all its
// children, then the subtree of the first child …). Derived metrics
// (CubePL) have no files and are skipped with one warning; so are the
// compound data types (RATE, TAU_ATOMIC, HISTOGRAM, NDOUBLES, COMPLEX).
// Tar headers with a wrong checksum (CubeWriter 4.8) are read with a
// warning.
//
// # Mapping
//
//	CUBE                                 PERFONTO
//	location (system tree leaf)          ThreadUnit <exp>/pu/p<process rank>t<location rank>,
//	                                     under a ProcessUnit and the NodeUnit of the
//	                                     nearest system tree node of class "node"
//	region                               CodeRegion <base>region/<name>, its C.1 class,
//	                                     family and hasCrType (MPI paradigm → CR_MPI…)
//	(cnode, location) with a non-zero    RegionSummary <exp>/rs/<pu>/<cnode id>: ofCodeRegion,
//	value of some converted metric       inProcessingUnit, inExperiment; the parent
//	                                     cnode's summary hasChildRS it
//	visits (EXCLUSIVE)                   ncalls
//	time (INCLUSIVE, s)                  wtime (inclusive, µs) and excl_wtime (µs)
//	min_time, max_time (s)               min_wtime, max_wtime (µs)
//	bytes_sent, bytes_received           bytes_sent, bytes_recv
//	(Scalasca: bytes_rcvd)
//	Scalasca mpi_latesender (s)          ls_wait (µs): the Late Sender rule's input
//	Scalasca mpi_wait_nxn and            wnxn_wait (µs, their sum per call path): the
//	mpi_barrier_wait (s)                 Wait at N x N rule's input
//	any other INCLUSIVE metric M         M (PAPI_ prefix stripped), as stored, and
//	                                     excl_M = M minus the children's M
//	any other EXCLUSIVE metric M         M as stored (MIN/MAXDOUBLE: as stored)
//
// Every metric's values are its own stored values (as pycubexr returns
// them), not remainders along the metric tree. A zero value is absent, as
// in CUBE. An exclusive value is kept as computed even when it is
// negative (a counter whose children's inclusive values exceed the
// parent's; pycubexr clamps unsigned ones to 0). Other Scalasca wait states (mpi_latereceiver,
// mpi_latesender_wo, omp_ibarrier_wait …) keep their CUBE names and units.
//
// Memory: the archive's table of contents, one metric's values at a time
// (cnodes × locations) and one flag per (cnode, location); the anchor comes
// last in the archive, so the file is read by offset, not streamed.
//
// Errors name the file and the position: "anchor.xml:LINE:COL" for the
// metadata, "<member> byte B (archive byte A)" or "<member> entry E …"
// for the binary members and the tar headers.
package cube
