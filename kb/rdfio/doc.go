// Package rdfio reads and writes the RDF syntaxes perfkb accepts: N-Triples,
// N-Quads, Turtle, TriG, RDF/XML and JSON-LD. It is the one home of the RDF
// codecs and of the one RDF format table, its registry (Lookup, ByFileName,
// ByMediaType): Load, LoadFile and Export find a format there, and so does
// content negotiation.
//
//	RDF text ──decoder──▶ kb.TermQuad ──Load──▶ kb.Dataset
//	converters ─────────▶ kb.TermQuad ──LoadQuads──▶ kb.Dataset
//	kb.Dataset ──Export──▶ kb.TermQuad ──encoder──▶ RDF text
//
// Load and LoadQuads are atomic bulk loads (all of the input or none of
// it); N-Triples and N-Quads are parsed in parallel chunks of whole lines.
//
// The parsers are streaming (a statement at a time, memory bounded by the
// largest statement), run on the caller's goroutine and never panic on any
// input: every malformed input is a *textpos.Error (the positioned error of
// every perfkb parser) at FILE:LINE:COLUMN. They
// share one Unicode policy — invalid UTF-8 and escapes of surrogate code
// points are errors, a leading byte order mark is skipped — and resolve
// relative IRIs against the base with kb.ResolveIRI (RFC 3986).
//
// Terms are kb.Term, perfkb's one term model; rdfio sits above kb and
// below everything that reads or writes RDF text.
package rdfio
