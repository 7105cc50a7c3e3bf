// Package sample generates realistic, deterministic PERFONTO data for a
// number of grid sites, for demos, tests and benchmarks.
//
// Each site has clusters (some SMP) of computational nodes with hardware
// data, Ethernet or Myrinet networks with benchmarked message passing
// performance, applications with versions, source files and a static code
// region tree of many Appendix C.1 types, profiling experiments whose region
// summary call trees (hasChildRS) carry timing, counter and overhead metrics
// per processing unit, one traced experiment with region instances, enter
// and exit events, messages and barriers, and SCALEA-G sensor measurements of
// network path bandwidth. Each site is written into its own named graph
// (N-Quads), or as plain N-Triples.
//
// The data plant clear problem and healthy cases, kept away from any
// reasonable threshold (see the constants) and counted in Summary:
// AvgMessageLength of CR_MPIP2P regions above or below 65536, L2 miss ratio
// above 0.7 or below 0.3, identified/unidentified overhead, I/O,
// synchronization and communication shares of the main program, load
// imbalance of a loop across processing units, late senders and barrier
// waits in the trace, and low or healthy path bandwidth.
//
// Output is streamed through a buffered writer; memory does not grow with the
// number of triples. The same Options (including Seed) give the same bytes.
package sample
