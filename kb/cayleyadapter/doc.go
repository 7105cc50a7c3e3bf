// Package cayleyadapter serves a kb.Dataset from any Cayley v0.7.7 quad
// store: Cayley's memstore (tests), leveldb (the generic embedded backend)
// and the SQL backend on PostgreSQL, or any graph.QuadStore given to New.
//
//	kb.Dataset ──▶ Dataset ──▶ dictionary (kb.ID ⇄ kb.Term ⇄ quad.Value, in memory)
//	                  │
//	                  └──▶ graph.QuadStore (memstore | leveldb | postgres | …)
//
// Terms map exactly onto quad values: IRIs to quad.IRI, blank nodes to
// quad.BNode, xsd:string literals to quad.String, other typed literals to
// quad.TypedString (never converted to Cayley's native Int/Float/Time, so
// "007"^^xsd:integer stays "007") and language-tagged strings to
// quad.LangString. Values written by other tools as native Cayley values are
// read back as the equivalent typed literal.
//
// IDs come from an in-memory dictionary built lazily: a term gets an ID when
// it is interned or first met in the store. IDs are therefore only stable
// for the life of one Dataset value, as kb.Dataset allows.
//
// Consistency comes from a readers/writer lock around the store (Cayley's
// memstore has no locking of its own): Match materialises its result under
// the read lock, so an iterator sees a snapshot; writes go to Cayley in
// transactions of Options.BatchSize quads under the write lock, so readers
// never see half of an Apply or of a bulk Commit. See Dataset.Apply and
// Dataset.BeginBulk for what happens when the store fails part way through
// a large write.
package cayleyadapter
