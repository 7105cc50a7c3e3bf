package backend

import (
	"context"
	"encoding/json"
	"os"
	"slices"
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/rules"
)

// example is one entry of server/web/examples.json: the query page's
// shipped examples with what each must return.
type example struct {
	Name   string `json:"name"`
	Query  string `json:"query"`
	Expect struct {
		Vars           []string           `json:"vars"`
		MinRows        int                `json:"minRows"`
		MaxRows        int                `json:"maxRows"`
		Distinct       string             `json:"distinct"`       // no two rows share this column's value
		SortedDesc     string             `json:"sortedDesc"`     // numeric column in descending order
		NumericAtLeast map[string]float64 `json:"numericAtLeast"` // every value of the column >= the bound
		SomeAbove      map[string]float64 `json:"someAbove"`      // some value of the column > the bound
	} `json:"expect"`
}

// TestShippedExamples runs every example of the query page against the
// sample data (after the shipped rules) and checks that it returns what its
// title says: its columns, a row count, and its shape.
func TestShippedExamples(t *testing.T) {
	b, err := os.ReadFile("../web/examples.json")
	if err != nil {
		t.Fatal(err)
	}
	var examples []example
	if err := json.Unmarshal(b, &examples); err != nil {
		t.Fatalf("examples.json: %v", err)
	}
	if len(examples) < 5 {
		t.Fatalf("only %d examples", len(examples))
	}
	_, ds, _ := newFixture(t)
	ctx := context.Background()
	prog, err := reasoner.LoadProgram(rules.Default, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Run(ctx, ds, prog, reasoner.Options{}); err != nil {
		t.Fatal(err)
	}
	for _, ex := range examples {
		t.Run(ex.Name, func(t *testing.T) {
			res, err := query.Run(ctx, ds, ex.Query, query.Options{})
			if err != nil {
				t.Fatal(err)
			}
			vars := res.Vars
			rows, err := res.Rows()
			res.Close()
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(vars, ex.Expect.Vars) {
				t.Errorf("columns %v, want %v", vars, ex.Expect.Vars)
			}
			if len(rows) < ex.Expect.MinRows || (ex.Expect.MaxRows > 0 && len(rows) > ex.Expect.MaxRows) {
				t.Errorf("%d rows, want %d..%d", len(rows), ex.Expect.MinRows, ex.Expect.MaxRows)
			}
			col := func(name string) int {
				i := slices.Index(vars, name)
				if i < 0 {
					t.Fatalf("no column %q", name)
				}
				return i
			}
			num := func(r []string, i int) float64 {
				f, err := strconv.ParseFloat(r[i], 64)
				if err != nil {
					t.Fatalf("column %s value %q is not a number", vars[i], r[i])
				}
				return f
			}
			values := make([][]string, len(rows))
			for k, r := range rows {
				for _, term := range r {
					values[k] = append(values[k], term.Value)
				}
			}
			if c := ex.Expect.Distinct; c != "" {
				i, seen := col(c), map[string]bool{}
				for _, r := range values {
					if seen[r[i]] {
						t.Errorf("?%s value %s appears in two rows", c, r[i])
					}
					seen[r[i]] = true
				}
			}
			if c := ex.Expect.SortedDesc; c != "" {
				i := col(c)
				for k := 1; k < len(values); k++ {
					if num(values[k], i) > num(values[k-1], i) {
						t.Errorf("?%s not descending at row %d", c, k)
					}
				}
			}
			for c, bound := range ex.Expect.NumericAtLeast {
				i := col(c)
				for _, r := range values {
					if num(r, i) < bound {
						t.Errorf("?%s = %s below %g", c, r[i], bound)
					}
				}
			}
			for c, bound := range ex.Expect.SomeAbove {
				i, ok := col(c), false
				for _, r := range values {
					ok = ok || num(r, i) > bound
				}
				if !ok {
					t.Errorf("no ?%s above %g (e.g. grouping by the finding node gives 1 per row)", c, bound)
				}
			}
		})
	}
}
