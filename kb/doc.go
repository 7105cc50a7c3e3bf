// Package kb is perfkb's knowledge base: the store every other package reads
// and writes through.
//
// The seam is the Dataset interface. Terms (IRIs, blank nodes, literals) are
// dictionary-encoded to integer IDs; the query engine and the reasoner match
// quad patterns of IDs, intern and resolve terms, read statistics for
// planning, and apply batches of additions and removals atomically. They never
// see Cayley iterators or quad.Value conversions in their hot loops.
//
//	converters ──▶ Load ──▶ Dataset ◀── query (SPARQL), reasoner (rules)
//	                          │
//	      ┌───────────────────┼─────────────────────┐
//	   Memory            native (Pebble,        cayleyadapter (memstore,
//	 (in-memory)      registered as a Cayley     leveldb, PostgreSQL …)
//	                        backend)
//
// Every quad lives in a named graph: asserted data in one graph per source
// (site, experiment, file), derived data in InferredGraph, and triples loaded
// without a graph in DefaultGraph. Implementations are checked by one
// conformance suite, kb/kbtest.
package kb
