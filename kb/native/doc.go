// Package native is perfkb's own store: a dictionary-encoded quad store on
// Pebble (github.com/cockroachdb/pebble/v2) that implements kb.Dataset at
// the ID level and is registered as the Cayley backend "perfkb".
//
// Terms are encoded to dense integer IDs (both directions are stored, so IDs
// survive restarts). Each quad is stored in six indexes (SPOG, POSG, OSPG,
// GSPO, GPOS, GOSP) whose keys are order-preserving variable-length IDs, so
// every quad pattern is a single prefix scan that yields exactly its
// matches. Exact counts per (predicate, graph) are written in the same
// Pebble batch as the data they count and kept in memory; per-predicate,
// per-graph and total counts derive from them.
//
//	Apply     ──▶ one synced Pebble batch (index entries, counters, new terms)
//	BeginBulk ──▶ sort once per index in parallel ──▶ sstables ──▶ one atomic Ingest
//	Match     ──▶ plan (bound positions ─▶ index, prefix) ──▶ one Pebble range scan
//
// OpenMemory runs the same code on an in-memory file system, for tests and
// queries over files loaded on the fly. Cayley opens the same data through
// cayley.NewGraph("perfkb", path, nil) once this package is imported.
package native
