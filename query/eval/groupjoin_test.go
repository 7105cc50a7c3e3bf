package eval

import (
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestGroupJoinParallel runs the hand-worked GROUP BYs of numcolumn_test.go
// over a join with the join dealt to workers in blocks of one and two
// first-pattern matches (groupjoin.go), optimized and not, on every store,
// and checks that the workers ran where the store supports them. A
// GROUP_CONCAT, whose answer depends on the order the group's rows
// arrive in, must equal the serial evaluation's.
func TestGroupJoinParallel(t *testing.T) {
	stores := trigStores(t, "testdata/numcolumn.trig", "http://e/")
	defer func(min float64, w, blk int) {
		groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinOn = min, w, blk, true
	}(groupJoinMin, groupJoinWorkers, groupJoinBlock)
	const grouped = `PREFIX ex: <http://e/>
SELECT ?g (COUNT(?v) AS ?n) (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) (MIN(?v) AS ?min) (MAX(?v) AS ?max)
{ ?s ex:grp ?g . ?s ex:v ?v } GROUP BY ?g ORDER BY ?g`
	// ex:unb's h2 has no value: the inner join drops it.
	want := map[string][5]numWant{}
	for g, w := range numColumnGroups {
		want[g] = w
	}
	want["unb"] = [5]numWant{"int 1", "int 4", "dec 4", "lex 4 integer", "lex 4 integer"}
	const concat = `PREFIX ex: <http://e/>
SELECT ?g (GROUP_CONCAT(STR(?s)) AS ?c) (SAMPLE(?v) AS ?x) { ?s ex:grp ?g . ?s ex:v ?v } GROUP BY ?g`
	for name, ds := range stores {
		for _, blk := range []int{1, 2} {
			for _, noOpt := range []bool{false, true} {
				opts := Options{NoOptimize: noOpt}
				groupJoinOn = false
				serial, err := run(t, ds, concat, opts)
				if err != nil {
					t.Fatal(err)
				}
				groupJoinOn, groupJoinMin, groupJoinWorkers, groupJoinBlock = true, 0, 3, blk
				before := groupJoinRuns.Load()
				rows, err := run(t, ds, grouped, opts)
				if err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				if len(rows) != len(want) {
					t.Errorf("%s block %d noOpt %v: %d groups, want %d", name, blk, noOpt, len(rows), len(want))
				}
				for _, r := range rows {
					g := strings.TrimPrefix(r[0].Value, "http://e/")
					for i, w := range want[g] {
						if !checkNum(r[i+1], w) {
							t.Errorf("%s block %d noOpt %v: group %s aggregate %d: got %v, want (by hand) %q", name, blk, noOpt, g, i, r[i+1], w)
						}
					}
				}
				par, err := run(t, ds, concat, opts)
				if err != nil {
					t.Fatal(err)
				}
				if !equalRows(serial, par) {
					t.Errorf("%s block %d noOpt %v: GROUP_CONCAT on workers\n%v\nserially\n%v", name, blk, noOpt, par, serial)
				}
				if name != "kbtest" && groupJoinRuns.Load()-before != 2 {
					t.Errorf("%s block %d noOpt %v: %d joins ran on workers, want 2", name, blk, noOpt, groupJoinRuns.Load()-before)
				}
			}
		}
	}
}

// TestGroupJoinBudget checks that a GROUP BY over a cross join, whose
// blocks each fan out to many rows, holds only a few chunks of them
// waiting for the fold: with a budget far below all its rows it gives the
// serial evaluation's answer (which streams them) on workers, and the
// chunks it holds are charged: with a budget below one chunk it stops
// with the budget's error.
func TestGroupJoinBudget(t *testing.T) {
	stores := trigStores(t, "testdata/numcolumn.trig", "http://e/")
	defer func(min float64, w, blk, chunk int) {
		groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinChunk, groupJoinOn = min, w, blk, chunk, true
	}(groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinChunk)
	groupJoinMin, groupJoinWorkers, groupJoinBlock = 0, 2, 2
	const q = `PREFIX ex: <http://e/>
SELECT ?g (COUNT(*) AS ?n) { ?s ex:grp ?g . ?a ex:v ?b . ?c ex:v ?d . ?e ex:v ?f } GROUP BY ?g ORDER BY ?g`
	for name, ds := range stores {
		groupJoinOn, groupJoinChunk = false, 256
		want, err := run(t, ds, q, Options{})
		if err != nil {
			t.Fatalf("%s serial: %v", name, err)
		}
		groupJoinOn, groupJoinChunk = true, 8
		before := groupJoinRuns.Load()
		got, err := run(t, ds, q, Options{QueryMemory: 64 << 10})
		if name != "kbtest" && groupJoinRuns.Load() == before {
			t.Errorf("%s: the join did not run on workers", name)
		}
		if err != nil || !equalRows(got, want) {
			t.Errorf("%s: got %v (%v), want %v", name, got, err, want)
		}
		if name == "kbtest" {
			continue
		}
		groupJoinChunk = 64
		_, err = run(t, ds, q, Options{QueryMemory: 4 << 10})
		var le *LimitError
		if !errors.As(err, &le) || le.Limit != LimitQueryMemory {
			t.Errorf("%s: budget below one chunk: got %v, want the query-memory limit", name, err)
		}
	}
}

// equalRows reports whether two results hold the same rows in the same order.
func equalRows(a, b [][]kb.Term) bool {
	return slices.EqualFunc(a, b, func(x, y []kb.Term) bool { return slices.Equal(x, y) })
}
