// Package pprof converts profiles in pprof's protobuf format
// (profile.proto, as Go's runtime/pprof, gperftools and perf_to_profile
// write them) to PERFONTO call-path region summaries, reading them with
// github.com/google/pprof/profile.
//
// Mapping:
//
//	profile.proto                        PERFONTO
//	-----------------------------------  ---------------------------------------------------
//	the profile                          Experiment <base>exp/<file name>, one thread-level
//	                                     processing unit p0t0 (a profile is one process)
//	Function (name; an unsymbolized      CodeRegion <base>region/<name> with its C.1 classes
//	Location: "0x<address>")             (main / main.main → CR_P, others CR_Y), regionName,
//	                                     inSourceFile (SourceFile <base>src/<file>), startLine
//	Sample.location stack, root first,   one RegionSummary per distinct call path
//	inlined Line entries expanded        "<exp>/rs/p0t0/<f1 => f2 => …>", ofCodeRegion the
//	                                     last function, hasChildRS from the caller's path
//	SampleType cpu/<time unit>           ctime (inclusive) and excl_ctime, µs
//	SampleType wall/<time unit>          wtime and excl_wtime, µs (catalog metrics)
//	other SampleType t/u                 t and excl_t (alloc_space, inuse_objects,
//	                                     samples, contentions, delay …): counts and bytes
//	                                     as xsd:long, times in µs; defined as
//	                                     MetricDefinition <base>metric/<name> (mnemonic,
//	                                     unit, data type, description)
//	Sample.value[i]                      added to the inclusive metric of every call path
//	                                     on the stack and to the exclusive metric of the
//	                                     stack's own path
//
// Every metric carries hasMetricDefinition (the catalog entry, or the
// definition under the base). Labels, mappings, addresses, period and
// comments are not converted. Per function, the sum of exclusive values
// is pprof's flat and the sum of inclusive values over call paths without
// an enclosing call of the same function is pprof's cum (the tests check
// both against `go tool pprof -top`).
//
// A file that is not a pprof protobuf fails with the byte offset (in the
// uncompressed data) where it stops following profile.proto, the record
// there ("Profile.sample #3 field 2"), or the index of a sample that does
// not fit the sample types; the store is left unchanged.
package pprof
