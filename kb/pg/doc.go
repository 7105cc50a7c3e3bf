// Package pg is a kb.Dataset on PostgreSQL: the store behind --store
// postgres://… specifications.
//
// The database holds, in one schema (perfkb unless Options.Schema names
// another):
//
//	terms   (id bigint, h bytea, kind, value, datatype, lang, num)
//	quads   (s, p, o, g bigint)              — term IDs only
//	counts  (p, g bigint, n bigint)          — quads per (predicate, graph)
//	meta    (key, value)                     — the schema version
//
// terms is the dictionary. A term's ID comes from the sequence term_ids and
// never changes, so every process keeps the terms it has seen in memory and
// only asks the database for ones it has not. h is a 128-bit hash of the
// whole term, the key Intern and Lookup find terms by: a unique index on the
// term's text would cap its length at a B-tree row (about 2.7 kB), which a
// long literal exceeds. num holds the value of a numeric literal, for
// filters evaluated in SQL.
//
// quads has one unique index (s, p, o, g) and two more, (p, o, s, g) and
// (o, s, p, g), so that every quad pattern but one with only the graph
// bound starts with an index prefix; counts lets Count and Stats answer
// predicate and graph counts without scanning quads, and is kept exact in
// the same transaction as every write.
//
// Writes (Apply, a bulk load's Commit) run in one transaction each and take
// a transaction-scoped advisory lock first, so any number of processes can
// share one database and their writes are serialized by PostgreSQL, not by
// a lock in one process. A bulk load streams its quads with COPY (binary)
// into a temporary staging table inside its own transaction and moves them
// into quads with one INSERT … SELECT at Commit: a load that fails or is
// aborted leaves the store as it was, and other sessions see all of it or
// none. A large load into a comparatively small store drops the two
// secondary indexes and builds them again afterwards, inside the same
// transaction, which is faster than maintaining them row by row.
//
// Match reads with one SELECT, so an iterator sees the snapshot of that
// statement; it materialises the result, so the nested lookups of a join
// never hold more than one connection each.
package pg
