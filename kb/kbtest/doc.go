// Package kbtest is the conformance suite for kb.Dataset implementations.
//
// Every implementation runs the same suite from its own test file:
//
//	func TestDataset(t *testing.T) {
//		kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return kb.NewMemory() })
//	}
//
// The suite checks the dictionary (intern, lookup and resolve round trips
// that keep literal datatypes and language tags exactly), Match for every
// combination of bound positions across several graphs, atomic deltas,
// counting and statistics, bulk loads, kb.Load through the store (a syntax
// error leaves it unchanged; blank nodes stay distinct per load), concurrent
// readers and a writer (run it with -race), and Close.
package kbtest
