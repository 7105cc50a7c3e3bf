package eval

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// foldData writes a TriG file of many groups whose answers depend on the
// order their rows arrive in: doubles of very different magnitude (1e16,
// 1, -1e16: the sum rounds differently in each order), a string among the
// numbers of some groups (an error for SUM, the group's first error), and
// subjects whose GROUP_CONCAT and SAMPLE show the order; each subject has
// two types so the join has a second level.
func foldData(t *testing.T) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("@prefix ex: <http://e/> .\n@prefix xsd: <http://www.w3.org/2001/XMLSchema#> .\n")
	vals := []string{`"1e16"^^xsd:double`, `"1.0"^^xsd:double`, `"-1e16"^^xsd:double`, `"3.5"^^xsd:double`, `7`, `0.25`}
	for i := 0; i < 600; i++ {
		g := (i*37 + i/7) % 41
		v := vals[(i*5+g)%len(vals)]
		if g%10 == 3 && i%9 == 0 {
			v = `"x"`
		}
		fmt.Fprintf(&b, "ex:s%03d ex:grp ex:g%02d ; ex:kind ex:k%d ; ex:v %s ; a ex:T, ex:U .\n", i, g, i%3, v)
	}
	path := filepath.Join(t.TempDir(), "fold.trig")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestGroupFoldParallel checks the GROUP BYs folded on workers
// (groupfold.go) against the serial evaluation (the join and the fold on
// the query's goroutine), row for row and in the same order (no ORDER BY:
// the groups come in the order of their first rows): SUM and AVG of
// doubles, GROUP_CONCAT, SAMPLE, COUNT DISTINCT, MIN/MAX, a group whose
// SUM meets an error, two keys, HAVING, in blocks of one and several
// first-pattern matches, on every store; and that the fold ran on
// workers where the store supports it.
func TestGroupFoldParallel(t *testing.T) {
	stores := trigStores(t, foldData(t), "http://e/")
	defer func(min float64, w, blk int) {
		groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinOn, groupFoldOn = min, w, blk, true, true
	}(groupJoinMin, groupJoinWorkers, groupJoinBlock)
	queries := []string{
		`PREFIX ex: <http://e/>
SELECT ?g (SUM(?v) AS ?sum) (AVG(?v) AS ?avg) (COUNT(DISTINCT ?v) AS ?d) (MIN(?v) AS ?min) (MAX(?v) AS ?max)
{ ?s ex:grp ?g ; ex:v ?v ; a ex:T } GROUP BY ?g`,
		`PREFIX ex: <http://e/>
SELECT ?g (GROUP_CONCAT(STR(?s)) AS ?c) (SAMPLE(?s) AS ?x) (COUNT(*) AS ?n)
{ ?s ex:grp ?g ; a ?t } GROUP BY ?g`,
		`PREFIX ex: <http://e/>
SELECT ?g ?k (SUM(?v) AS ?sum) (GROUP_CONCAT(STR(?v); separator="|") AS ?c)
{ ?s ex:grp ?g ; ex:kind ?k ; ex:v ?v } GROUP BY ?g ?k HAVING (COUNT(*) > 2)`,
	}
	for name, ds := range stores {
		for qi, q := range queries {
			groupJoinOn, groupFoldOn = false, false
			serial, err := run(t, ds, q, Options{})
			if err != nil {
				t.Fatalf("%s query %d serial: %v", name, qi, err)
			}
			if len(serial) < 20 {
				t.Fatalf("%s query %d: %d groups serially; the data should give more", name, qi, len(serial))
			}
			for _, blk := range []int{1, 7} {
				for _, w := range []int{groupFoldMinWorkers, 7} {
					groupJoinOn, groupFoldOn, groupJoinMin, groupJoinWorkers, groupJoinBlock = true, true, 0, w, blk
					before := groupFoldRuns.Load()
					got, err := run(t, ds, q, Options{})
					if err != nil {
						t.Fatalf("%s query %d block %d workers %d: %v", name, qi, blk, w, err)
					}
					if !equalRows(got, serial) {
						t.Errorf("%s query %d block %d workers %d: folded on workers\n%v\nserially\n%v", name, qi, blk, w, got, serial)
					}
					if name != "kbtest" && groupFoldRuns.Load() == before {
						t.Errorf("%s query %d: the fold did not run on workers", name, qi)
					}
				}
			}
		}
	}
}

// TestGroupFoldBudget: with the fold on workers the groups are still
// charged to the query's one budget: a budget below what the groups need
// stops the query with the budget's error, as the serial fold does.
func TestGroupFoldBudget(t *testing.T) {
	stores := trigStores(t, foldData(t), "http://e/")
	defer func(min float64, w, blk int) {
		groupJoinMin, groupJoinWorkers, groupJoinBlock, groupJoinOn, groupFoldOn = min, w, blk, true, true
	}(groupJoinMin, groupJoinWorkers, groupJoinBlock)
	const q = `PREFIX ex: <http://e/>
SELECT ?s (GROUP_CONCAT(STR(?t)) AS ?c) { ?s ex:grp ?g ; a ?t } GROUP BY ?s`
	for name, ds := range stores {
		if name == "kbtest" {
			continue
		}
		for _, fold := range []bool{false, true} {
			groupJoinOn, groupFoldOn, groupJoinMin, groupJoinWorkers, groupJoinBlock = true, fold, 0, groupFoldMinWorkers, 4
			before := groupFoldRuns.Load()
			_, err := run(t, ds, q, Options{QueryMemory: 16 << 10})
			if fold && groupFoldRuns.Load() == before {
				t.Errorf("%s: the fold did not run on workers", name)
			}
			var le *LimitError
			if !errors.As(err, &le) || le.Limit != LimitQueryMemory {
				t.Errorf("%s fold on workers %v: got %v, want the query-memory limit", name, fold, err)
			}
		}
	}
}
