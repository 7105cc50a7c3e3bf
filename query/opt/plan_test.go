package opt_test

import (
	"context"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/cockroachdb/datadriven"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/syntax"
)

// hideStats is a store without the planner's per-predicate statistics
// (only kb.Dataset's methods show through the embedded interface).
type hideStats struct{ kb.Dataset }

// TestPlans runs the data-driven plan tests in testdata/*.test
// (CockroachDB opt style; regenerate with go test -rewrite, then review
// every changed plan). Commands:
//
//	load                 N-Quads into a fresh in-memory native store
//	plan [no-optimize] [nostats]
//	                     the optimizer's plan of the SPARQL query (as
//	                     perfkb query --explain prints it); nostats hides
//	                     the store's per-predicate statistics
//	results              the query's rows, sorted; fails unless the plan
//	                     as optimized and as written give the same rows
func TestPlans(t *testing.T) {
	datadriven.Walk(t, "testdata", func(t *testing.T, path string) {
		var ds kb.Dataset
		datadriven.RunTest(t, path, func(t *testing.T, d *datadriven.TestData) string {
			ctx := context.Background()
			switch d.Cmd {
			case "load":
				if ds != nil {
					ds.Close()
				}
				ds = native.OpenMemory()
				sum, err := rdfio.Load(ctx, ds, strings.NewReader(d.Input), rdfio.LoadOptions{Format: rdfio.NQuads})
				if err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				return fmt.Sprintf("%d quads", sum.Triples)
			case "plan":
				if ds == nil {
					t.Fatalf("%s: plan before load", d.Pos)
				}
				q, err := syntax.ParseQuery(d.Input, syntax.Options{})
				if err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				store := ds
				if d.HasArg("nostats") {
					store = hideStats{ds}
				}
				p, err := eval.Plan(ctx, store, q, eval.Options{NoOptimize: d.HasArg("no-optimize")})
				if err != nil {
					t.Fatalf("%s: %v", d.Pos, err)
				}
				return p.String()
			case "results":
				opt := rows(t, ds, d.Input, false)
				asWritten := rows(t, ds, d.Input, true)
				if opt != asWritten {
					t.Errorf("%s: optimized and as-written plans disagree:\noptimized:\n%s\nas written:\n%s", d.Pos, opt, asWritten)
				}
				return opt
			}
			t.Fatalf("%s: unknown command %q", d.Pos, d.Cmd)
			return ""
		})
		if ds != nil {
			ds.Close()
		}
	})
}

// rows runs text and returns its rows, one a line, sorted.
func rows(t *testing.T, ds kb.Dataset, text string, noOpt bool) string {
	t.Helper()
	res, err := query.Run(context.Background(), ds, text, query.Options{NoOptimize: noOpt})
	if err != nil {
		t.Fatal(err)
	}
	all, err := res.Rows()
	if err != nil {
		t.Fatal(err)
	}
	lines := make([]string, 0, len(all))
	for _, r := range all {
		cells := make([]string, len(r))
		for i, c := range r {
			if c.IsZero() {
				cells[i] = "-"
			} else {
				cells[i] = c.String()
			}
		}
		lines = append(lines, strings.Join(cells, " "))
	}
	sort.Strings(lines)
	if len(lines) == 0 {
		return "(no rows)"
	}
	return strings.Join(lines, "\n")
}
