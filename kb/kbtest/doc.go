// Package kbtest is the conformance suite for kb.Dataset implementations.
//
// Every implementation runs the same suite from its own test file:
//
//	func TestDataset(t *testing.T) {
//		kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return native.OpenMemory() })
//	}
//
// The suite checks the dictionary (intern, lookup and resolve round trips
// that keep literal datatypes and language tags exactly), Match for every
// combination of bound positions across several graphs, atomic deltas,
// counting and statistics, bulk loads, rdfio.Load through the store (a syntax
// error leaves it unchanged; blank nodes stay distinct per load), concurrent
// readers and a writer (run it with -race), and Close.
//
// It then detects each optional capability of kb/capabilities.go that the
// store declares and checks its contract: TermOf agrees with Resolve and
// knows no unissued ID; ScanQuads yields what Match yields, stops when told,
// lets its callback call the store and wait for a writer, and sees a
// snapshot; MatchQuads slices hold every match and survive writes;
// PredicateDistinct stays within its bounds; concurrent Intern from many
// goroutines gives one ID per term and keeps no caller's bytes; a
// CommitReporter reports monotone progress ending at the total. A
// capability the store lacks is skipped, and the skip names it.
package kbtest
