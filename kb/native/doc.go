// Package native is perfkb's own store: a dictionary-encoded quad store on
// Pebble (github.com/cockroachdb/pebble/v2) that implements kb.Dataset at
// the ID level and is registered as the Cayley backend "perfkb".
//
//	Intern    ──▶ arena dictionary (term ⇄ dense ID; fresh terms in memory,
//	              older ones read from disk and cached)
//	Apply     ──▶ one synced Pebble batch: six index entries per quad (one
//	              delta log entry instead while the store has a read side,
//	              deltalog.go), the (predicate, graph) counters they change,
//	              new dictionary entries; from 16,384 additions (and no
//	              removals) the bulk path below
//	BeginBulk ──▶ stage 32-bit keys ─▶ radix sort per index on two cores
//	              ─▶ one sstable per index + counters + dictionary
//	              ─▶ one atomic Ingest (a rewrite that writes side files
//	              writes SPOG's sstable alone: partial.go)
//	Match     ──▶ bound positions pick the index whose key prefix they form
//	              ─▶ one Pebble range scan (iterators pooled until the next write)
//
// Key layout (keys.go): each quad is stored in six indexes (SPOG, POSG,
// OSPG, GSPO, GPOS, GOSP) whose keys are order-preserving variable-length
// IDs, so every quad pattern is a single prefix scan that yields exactly its
// matches. Terms are stored both ways (term → ID, ID → term) in a compact
// binary encoding; the next ID after a restart is one past the largest
// stored. Exact counts per (predicate, graph) are written with the data they
// count and kept in memory; per-predicate, per-graph and total counts derive
// from them.
//
// Crash safety: an Apply is one Pebble batch, synced before it returns, or
// one Ingest; a bulk load becomes visible in one Ingest, so a kill -9
// leaves a store with or without each batch, never part of one, and
// reopening needs no rebuild. ApplyChanges (kb.ChangeReporter) is Apply
// that also returns what it changed, which the rule service's undo log
// records instead of asking about each quad first.
//
// Read side: while the quads fit Options.MemoryBudget, reads are answered
// from sorted 16-byte ID-tuple arrays, one per index order (readside.go).
// A bulk load writes those arrays beside Pebble's files as side files
// (sidefile.go), which a later open maps instead of rebuilding them from
// the SPOG index: opening costs the same at any size, a one-shot command
// reads the arrays a server reads, and the kernel pages in what queries
// touch. Any write that changes the six indexes removes the side files
// before it commits, so a set found at open always describes the indexes
// as they are.
//
// Delta log (deltalog.go): while the store has a read side, a write
// smaller than the store appends its net changes to a log in a key range
// of its own instead of the six indexes, so Pebble never compacts it into
// the base; open replays it over the side files (or the SPOG index), and
// it is folded into a new base, side files included, by one
// IngestAndExcise when it outgrows the base or before the read side goes.
//
// OpenMemory returns a MemStore (mem.go) for tests and for queries over
// files loaded on the fly: the same dictionary, and per index order a
// sorted array of 16-byte ID tuples in immutable snapshots swapped
// atomically (a base plus a small delta for Apply); bulk commits sort with
// one counting-sort pass per field (mem_sort.go). OpenPebbleMemory runs
// the Pebble code on Pebble's in-memory file system (no WAL, no
// compression).
//
// Cayley: importing this package registers the backend, so
// cayley.NewGraph("perfkb", path, nil) opens a native store directory and
// Cayley's path API reads and writes it (QuadStore). Quads without a label
// live in kb.DefaultGraph; quad.Int, quad.Float, quad.Bool and quad.Time
// become xsd:integer, xsd:double, xsd:boolean and xsd:dateTime literals and
// come back as native values when their lexical form is canonical.
package native
