// Package rdfio reads and writes the RDF syntaxes perfkb accepts: N-Triples,
// N-Quads, Turtle, TriG and RDF/XML. It is the one home of the RDF codecs —
// the loader (kb.Load), export and content negotiation find a format through
// its registry (Lookup, ByExtension, ByMediaType).
//
// The parsers are streaming (a statement at a time, memory bounded by the
// largest statement), run on the caller's goroutine and never panic on any
// input: every malformed input is a *textpos.Error (the positioned error of
// every perfkb parser) at FILE:LINE:COLUMN. They
// share one Unicode policy — invalid UTF-8 and escapes of surrogate code
// points are errors, a leading byte order mark is skipped — and resolve
// relative IRIs against the base per RFC 3986.
//
// The package depends on nothing else in perfkb but the leaf textpos, so
// that kb can use it; its Term mirrors kb.Term field for field.
package rdfio
