// Package chrometrace reads and writes Chrome Trace Event JSON, the format
// of Chrome's tracing, Perfetto's JSON export, PyTorch's profiler and
// PerfFlowAspect, in both of its forms ({"traceEvents": [...]} and the bare
// array). Read maps a trace into the common event model of convert/trace,
// so `perfkb trace check/stat` and the trace converter (region summaries,
// events, compensation) work on it; Write turns any trace.Source, measured
// or compensated, into JSON that Perfetto's UI opens.
//
// Mapping on import (Read):
//
//	Trace Event Format                  common model (convert/trace)
//	----------------------------------  ------------------------------------------------
//	(pid, tid)                          Location; Process = integer pid (string pids are
//	                                    numbered after the largest), Thread = rank of tid
//	                                    within its pid; Node left empty ("node <pid>")
//	M process_name / thread_name        Location.Name "process / thread" (not in RDF)
//	X name cat ts dur                   Enter(region name) at ts, Leave at ts+dur
//	B … E (same pid/tid)                Enter at B.ts, Leave at E.ts; an E closes the
//	                                    innermost open B (time order, then file order)
//	name                                Region (one per distinct name); MPI_ names or cat
//	                                    "mpi" → MPI paradigm, OpenMP names or cat "openmp"
//	                                    → OpenMP, so the C.1 mnemonics apply
//	cat                                 Region.Role
//	ts, dur (µs, number or digit        nanosecond ticks (Resolution 1e9), exact to three
//	string)                             decimals; Defs.Start = the earliest slice
//	X cat perfkb.flush                  BufferFlush (Time .. Stop)
//	i cat perfkb.measurement            MeasurementOnOff
//	s / f cat mpi.message, args peer    Send / Recv with Peer (the [pid, tid] location),
//	[pid, tid], tag, bytes, comm        Tag, Bytes, Comm (what Write exports)
//	i cat mpi.collective, args op,      CollectiveEnd; otherData.perfkb_comms gives the
//	root, comm, bytes_sent/_received    communicators (members as [pid, tid])
//	other phases (i, C, b/e, s/f, P,    ignored; one warning per phase with its count
//	O/N/D, …) and M sort indexes
//
// Slices of a thread are ordered by start (longer first) and nested; a
// slice that outlives its parent is cut at the parent's end with a
// warning. Errors (unmatched B/E, malformed or truncated JSON, X without
// dur, wrong field types) are *convert.Error at FILE:LINE:COLUMN naming
// the byte offset and the event index (traceEvents[i]).
//
// Mapping on export (Write): see Write. Read maps an export back to the
// same region statistics, message counts and bytes, and Late Sender and
// Wait at N×N times (the tests check it on text, synthetic, compensated
// and OTF2 traces). Non-blocking sends and receives come back as blocking
// ones, and Defs.Start as the earliest slice.
//
// Memory: the JSON is read whole (its events need not be sorted), so a
// trace costs about its size plus its events.
package chrometrace
