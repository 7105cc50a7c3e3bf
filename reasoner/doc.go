// Package reasoner is perfkb's forward-chaining rule engine. It runs rule
// files in Apache Jena's rule syntax over a kb.Dataset and writes what it
// derives to the inferred graph, recording why.
//
//	rule files ──LoadSources (resolver: files | shipped sets only)──▶ rulelang.Parse + #@advice
//	           ──▶ AST ──Compile──▶ Program ──NewEngine(ds)──▶ plans over IDs
//	                                                                     │
//	      kb.Dataset ──load──▶ working memory (per-predicate tables) ◀──┘
//	                              │ semi-naive rounds (joins driven by the newest triples)
//	                              ▼
//	      inferred graph + derivation records ──▶ Findings, Explain
//
// Compilation checks builtins, arities and head variables (errors with
// file:line:column) and is done once. Binding a program to a store interns
// its constants and builds, per rule, one join plan per body pattern: that
// pattern reads only the triples derived in the previous round (the delta),
// patterns before it read only older triples, patterns after it read all,
// so each combination of premises is joined once (semi-naive evaluation).
// Other patterns are ordered greedily by index fan-out given the bound
// variables, and plans are rebuilt each round from the current table sizes.
// Filters (greaterThan …) run as soon as their inputs are bound; calls that
// only compute head values (makeSkolem, strConcat) run after the filters;
// noValue and print run after every pattern; a match whose head triples all
// exist already skips its trailing filters. Values a builtin computes for
// other builtins stay terms and never reach the store's dictionary. Rules
// whose delta pattern's predicate got no new triples are skipped.
//
// The working memory holds every triple the rules may read, per predicate,
// in columns with hash indexes built on first use; it is loaded once from
// the store (all graphs except the derivations graph, or Options.ReadGraphs)
// and kept by an Engine, so Engine.Add (or RunIncremental) derives only the
// consequences of new triples. New triples go to kb.InferredGraph: Run
// holds what its rounds derive and writes it with one Dataset.Apply at the
// end (up to RunHoldQuads quads, or Options.BatchSize when set), so a store
// that writes a large Apply as one ingest (the native store) writes the
// run once instead of once per round; Add likewise per batch.
//
// Explanations: for each derived triple the engine records the rule and
// the premises as store IDs, many derivations to one literal and one quad
// per subject of it, in the graph urn:x-perfkb:derivations (derivation.go
// has the format), so `perfkb reason --explain IRI`, run in another
// process, can print the derivation tree down to asserted triples
// (Explain). Options.NoDerivations skips the records.
//
// A Run that reaches the fixpoint leaves a marker in the derivations graph
// naming the program and a digest of the store's other quads; a later Run
// of that program over the same quads stops after one scan of the store
// (Summary.UpToDate), and any write outside the derivations graph makes it
// reason again (fixpoint.go).
//
// Deletes: Engine.Remove (or RunRetract, after a delete already applied to
// the store) withdraws the derived triples, derivation records and so
// findings that no longer follow, by delete-and-rederive over the working
// memory (retract.go); Engine.Add likewise withdraws what a noValue test
// allowed before the added triples. Programs with remove or drop are not
// retracted (ErrNotRetractable).
//
// remove and drop delete the matched triple from the working memory and from
// every graph of the store at the end of the round; consequences derived
// from it earlier are kept, as in Jena's forward engine.
package reasoner
