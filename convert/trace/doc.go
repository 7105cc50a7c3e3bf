// Package trace is the common event model of perfkb's trace converters and
// the SIMPLE-style evaluation tools built on it (Hofmann et al., 002 §2.2):
// MERGE (a k-way merge of per-location event streams with clock offsets
// applied), CHECKTRACE (consistency checks reporting each violation with its
// location, event index, time and related event), TRCSTAT (region and
// message statistics) and LIST; and the dynamic region graph of each
// location (Truong, Def. 3.17) written as PERFONTO region summaries in the
// shape convert/sample writes, so the shipped analysis rules run on it.
//
// Readers (convert/otf2, tests, the synthetic generator) provide a Source:
// global definitions plus one event iterator per location, so memory grows
// with the number of locations and open regions, never with trace length.
package trace
