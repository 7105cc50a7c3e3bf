// Package graphstore is the storage side of the SPARQL 1.1 Graph Store
// Protocol over a kb.Dataset: it lists graphs and their sizes, streams a
// graph's triples, replaces, appends to and drops graphs atomically, and
// lists the store's named graphs as local sites. The HTTP package server
// negotiates formats and maps errors; this package only reads and writes
// the store.
//
// Uploads are received whole (in memory up to a limit, then in a temporary
// file) before any lock is taken, so a slow client holds nothing but its
// own connection. Replaces and drops, which read a graph and then remove
// what they read, exclude every other write; appends run concurrently so
// the store can group their commits.
package graphstore
