// Package kb is perfkb's knowledge base: the store every other package reads
// and writes through.
//
// The seam is the Dataset interface. Terms (IRIs, blank nodes, literals) are
// dictionary-encoded to integer IDs; the query engine and the reasoner match
// quad patterns of IDs, intern and resolve terms, read statistics for
// planning, and apply batches of additions and removals atomically. They never
// see Cayley iterators or quad.Value conversions in their hot loops.
//
//	RDF files, converters ──▶ rdfio.Load
//	                              │
//	                              ▼
//	                           Dataset ◀── query (SPARQL), reasoner (rules)
//	                              │
//	      ┌───────────────────────┼─────────────────────┐
//	   Memory                native (Pebble,        cayleyadapter (memstore,
//	 (in-memory)          registered as a Cayley     leveldb, PostgreSQL …)
//	                            backend)
//
// kb is also the ground every other package stands on: the one RDF term
// model (Term, TermQuad, the typed-literal constructors), the one N-Triples
// term encoder (AppendTerm) and the one IRI resolver (ResolveIRI, RFC
// 3986). Reading and writing RDF text, Load and Export included, is
// kb/rdfio's, which imports kb, as DESIGN.md's package map has it. The
// alternative, a leaf rdf/ package with kb.Term as an alias of rdf.Term
// (Oxigraph's oxrdf), would give the same one type under two names; kb
// already imports nothing of perfkb but ontology, so the term model can
// live here without a cycle, and one name is clearer than an alias.
//
// Every quad lives in a named graph: asserted data in one graph per source
// (site, experiment, file), derived data in InferredGraph, and triples loaded
// without a graph in DefaultGraph. Implementations are checked by one
// conformance suite, kb/kbtest.
package kb
