// Package caliper converts Caliper profiles to PERFONTO call-path region
// summaries, in pure Go: the native .cali text stream (records of
// comma-separated KEY=VALUE entries, with backslash escapes, as
// caliper-reader parses them) and cali-query's json-split output (what
// Hatchet's Caliper reader takes).
//
// A .cali file defines a metadata tree of nodes (__rec=node: id, attr,
// data, parent) on top of the predefined type nodes and the
// meta-attributes cali.attribute.name/type/prop (node ids 8, 9, 10);
// snapshot records (__rec=ctx) reference tree nodes (ref) and carry
// immediate values (attr, data); __rec=globals holds the run metadata
// (Caliper's and Adiak's). Attributes with the nested property (function,
// loop, annotation, region …) form a record's region path; numeric
// attributes are its values; attribute.unit metadata gives units.
//
// # Mapping
//
//	Caliper                              PERFONTO
//	the file                             Experiment <base>exp/<file name>
//	mpi.rank (absent: 0)                 ThreadUnit <exp>/pu/p<rank>t0 with its process
//	                                     and node (a profile does not name threads)
//	region path (nested attributes; in   RegionSummary <exp>/rs/p<rank>t0/<a => b => c>:
//	json-split the "path" column, else   ofCodeRegion the last element, inProcessingUnit,
//	the one whose nodes have parents)    inExperiment; the parent path's summary hasChildRS
//	                                     it (parent paths without a record too)
//	path element                         CodeRegion <base>region/<name>: "loop" attribute →
//	                                     CR_L, main → CR_P, MPI_* → CR_MPI…, else CR_Y
//	sum#time.duration, time.duration     excl_wtime (µs)
//	inclusive#sum#time.duration          wtime (µs); absent: the sum of excl_wtime over
//	                                     the path's subtree, as Hatchet computes "time (inc)"
//	min#time.duration, max#time.duration min_wtime, max_wtime (µs)
//	other numeric attribute A            A with punctuation as '_' ("avg#time.duration" →
//	                                     avg_time_duration), scaled to µs when its
//	                                     attribute.unit is a time unit or it is a
//	                                     time.duration aggregate
//	globals (Caliper, Adiak)             experimentInfo "name=value" each; problem_size →
//	                                     problemSize, cmdline → commandLine, launchdate
//	                                     (Unix s) → startTime
//
// time.duration values without attribute.unit metadata are seconds in a
// .cali of Caliper 2 or later and microseconds otherwise (Caliper 1 and
// json-split, which names no version); Options.TimeUnit overrides.
//
// Not converted, each counted in a warning: records outside every region,
// records of a spot.channel other than regionprofile (Spot time series,
// which Hatchet skips too), json-split columns that are neither
// values nor the region path (sampler program counters …).
//
// Records of the same (rank, path), which differ only in columns that are
// not converted (a sampled profile's source lines), are merged with one
// warning, as Hatchet's json-split reader merges them: values added, min#
// and max# kept, avg# weighted by count (without counts: not converted).
//
// Errors: "FILE:LINE:COLUMN" for .cali (a line without __rec, an entry
// that is not KEY=VALUE, a node or attribute referenced before it is
// defined, a numeric attribute whose value is not a number, attr and data
// lists of different lengths) and for JSON syntax; "FILE: data[R][C]" or
// "nodes[N]" for json-split rows that do not fit the columns or nodes.
// The store is left unchanged.
package caliper
