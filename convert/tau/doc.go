// Package tau converts TAU profiles (profile.N.C.T files, or one
// MULTI__<metric>/ directory per metric) to PERFONTO region summaries,
// in pure Go, following the format ParaProf reads:
//
//	N templated_functions[_MULTI_<metric>]
//	# Name Calls Subrs Excl Incl ProfileCalls # <metadata>…</metadata>
//	"name" calls subrs excl incl profilecalls GROUP="groups"     (N lines)
//	K aggregates
//	M userevents
//	# eventname numevents max min mean sumsqr
//	"event" numevents max min mean sumsqr                        (M lines)
//
// One RegionSummary per (function or call path, thread): call-path names
// "A => B => C" give hasChildRS from "A => B"; in flat profiles the
// functions hang one level under the thread's root (the function with the
// largest inclusive time). Metrics: ncalls (Calls), nsubs (Subrs), the
// inclusive value under the metric's C.2 name (the time metric → wtime,
// µs; PAPI_ prefix stripped) and excl_wtime (Excl of the time metric).
// Message-size user events give AvgMessageLength (the weighted mean over
// the region's events) on MPI point-to-point regions, so Fig. 6.30 fires
// on TAU data. Every user event's statistics are kept too, as metrics
// ue_numevents, ue_max, ue_min, ue_mean and ue_sumsqr carrying
// perfonto:userEventName, on the region summary of the event's context
// path (thread-global events: on the thread root). The ProfileCalls
// column (almost always 0) and aggregates are not stored.
//
// A thread's node (perfonto:inNode) comes from the metadata TAU writes in
// the header: "Node Name" (uname), else the Blue Gene location ("BGQ Node
// Name", "BGP Location", "BGL Location"), else "Hostname", else "node N".
// Context metadata (an attribute with a timer_context) describes one call
// of a timer and is not taken as the thread's.
//
// Impossible values are refused with the file and line, never stored:
// a number that is not finite (NaN, ±Inf, or out of float64 range such as
// 1e400), a negative count (calls, subrs, profile calls, numevents), and a
// function or user event name longer than MaxName (64 KiB). A negative
// time is kept: it is a measurement artefact (clock skew), not a broken
// structure.
package tau
