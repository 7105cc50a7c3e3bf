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
// quads is partitioned by graph (LIST (g)): a load that brings many quads
// to a graph the store holds nothing of builds a partition quads_g<ID> of
// its own beside its transaction and attaches it in it (partition.go); the
// other graphs share quads_default. Every partition has one unique index
// (s, p, o, g) and two more, (p, o, s, g) and (o, s, p, g), so that every
// quad pattern but one with only the graph bound starts with an index
// prefix. Open sets plan_cache_mode = force_custom_plan: a generic plan
// over the partitions can scan a predicate's quads where a custom one
// probes an index. counts lets Count and Stats answer
// predicate and graph counts without scanning quads, and is kept exact in
// the same transaction as every write.
//
// Writes (Apply, a bulk load's Commit) run in one transaction each and take
// a transaction-scoped advisory lock first, so any number of processes can
// share one database and their writes are serialized by PostgreSQL, not by
// a lock in one process. A bulk load keeps its quads in memory and writes
// them at Commit, in one transaction, with binary COPY: a load that fails
// or is aborted leaves the store as it was, and other sessions see all of
// it or none. A large load into a store holding no more quads than the load
// is sorted and deduplicated in the process, left without the quads the
// store holds, and copied straight into quads with its indexes dropped and
// built again afterwards, inside the same transaction, which is faster than
// maintaining three B-trees row by row; other loads go through a temporary
// staging table and one INSERT … SELECT. The load's new terms take a block
// of IDs with one setval of term_ids, which is safe because every other
// nextval of it runs inside an INSERT into terms, which waits for the lock
// the load holds on terms.
//
// The SQL of a BGP (MatchBGP, the kb.BGPMatcher capability) is one join of
// quads with itself (SELECT DISTINCT over the union default graph: a
// solution names its triples, so that counts a triple held in several
// graphs once); the FILTER comparisons of a variable with a number the
// query engine hands along (kb.BGP.Numeric) join terms and test num, so that
// only solutions the FILTER may keep come back (the engine still applies
// the FILTER). A property path p+ or p* from a node is one recursive query
// (MatchClosure, kb.ClosureMatcher). A GROUP BY over a BGP is one
// statement grouping on term IDs (AggregateBGP, kb.BGPAggregator): it
// returns each group's value IDs in an array, and perfkb adds up their
// num, which it reads once per process and ID, exactly (one rounding,
// whatever the order); it aggregates only finite xsd:double values, whose
// num is exact, and says when a group holds others, so that the engine
// evaluates the query itself), and a COUNT over a BGP joined with p+ or p* is one recursive
// statement walking from every start at once (CountClosure,
// kb.ClosureCounter); both put the BGP's FILTER NOT EXISTS patterns in
// the SQL. Those two statements run in a read-only REPEATABLE READ
// transaction that reads counts first: with three or more patterns they
// join in the order perfkb works out from per-predicate statistics,
// kept by SET LOCAL join_collapse_limit = 1, since PostgreSQL's column
// statistics over all predicates estimate about one row per step (a
// pattern with a constant counted exactly); an aggregate whose every
// join meets a large share of its predicate joins by hash alone; each
// pattern reads only the graphs holding its predicate; and the DISTINCT
// goes when no predicate is in two graphs (joinorder.go). DROP GRAPH of
// a graph with a partition of its own detaches
// and drops the partition in the update's transaction (dropgraph.go).
// The store declares kb.RoundTripLookups,
// so the engine hashes OPTIONAL, EXISTS and MINUS patterns evaluated once,
// alone, after a few rows instead of sending one statement per row.
//
// Match reads with one SELECT, so an iterator sees the snapshot of that
// statement; it materialises the result, so the nested lookups of a join
// never hold more than one connection each.
//
// The store registers with Cayley as the backend CayleyBackend
// ("perfkb-postgres") through kb/cayleyqs, so Cayley's API reads and
// writes these tables too (cayley.go).
package pg
