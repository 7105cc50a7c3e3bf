// Package cayleyqs shows any kb.Dataset to Cayley as a graph.QuadStore, so
// that Cayley's path API, query languages and tools work on perfkb's
// stores. The native store and the PostgreSQL store register themselves
// with Cayley through it (graph.RegisterQuadStore), and both pass Cayley's
// graphtest conformance suite.
//
//	Cayley (path, Gizmo, GraphQL, tools) ──▶ QuadStore ──▶ kb.Dataset (native | pg | …)
//
// It is the opposite direction of kb/cayleyadapter, which serves a
// kb.Dataset from a Cayley quad store.
//
// A node is a term ID and a quad a kb.Quad of IDs. Quads without a label
// are stored in kb.DefaultGraph and come back without one. Cayley's native
// values (quad.Int, quad.Float, quad.Bool, quad.Time) are stored as
// xsd-typed literals and come back as native values when their lexical
// form is the canonical one (TermFromValue, ValueFromTerm).
//
// The adapter needs only kb.Dataset. A store does better by implementing
// the optional interfaces here: CheckedApplier makes ApplyDeltas' checks
// (Cayley's "quad exists" and "quad does not exist" errors) and its write
// one atomic step under the store's writer lock, so another writer cannot
// slip in between; NodeLister enumerates the terms quads use without
// scanning every quad; QuadChecker answers whether one quad is stored.
package cayleyqs
