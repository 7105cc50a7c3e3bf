package caliper

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/converttest"
)

// TestShippedRules converts the 8-rank LULESH json-split profile and runs
// the shipped RDFS and PERFONTO rule sets unchanged. Of them, only Load
// Imbalance reads what a Caliper profile has (wtime per region and rank):
// a summary is flagged when its wtime is more than 1.5 times that of
// another summary of the same code region in the experiment. The expected
// summaries are computed here from the file's own rows (the
// inclusive#sum#time.duration column, µs, per rank and path node), not from
// the conversion.
func TestShippedRules(t *testing.T) {
	const file = "lulesh-annotation-profile.json"
	b, err := os.ReadFile(filepath.Join("testdata", file))
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Columns []string
		Data    [][]any
		Nodes   []struct {
			Label  string
			Parent *int
		}
	}
	if err := json.Unmarshal(b, &js); err != nil {
		t.Fatal(err)
	}
	col := func(name string) int { return slices.Index(js.Columns, name) }
	incl, rank, path := col("inclusive#sum#time.duration"), col("mpi.rank"), col("path")
	pathOf := func(n int) []string {
		var p []string
		for i := &n; i != nil; i = js.Nodes[*i].Parent {
			p = append([]string{js.Nodes[*i].Label}, p...)
		}
		return p
	}
	type summary struct {
		key, region string
		wtime       float64
	}
	var sums []summary
	for _, row := range js.Data {
		if row[path] == nil {
			continue // outside every region
		}
		p := pathOf(int(row[path].(float64)))
		sums = append(sums, summary{key(int(row[rank].(float64)), p...), p[len(p)-1], row[incl].(float64)})
	}
	var want []string
	for _, s := range sums {
		if slices.ContainsFunc(sums, func(o summary) bool { return o.region == s.region && s.wtime > 1.5*o.wtime }) {
			want = append(want, base.String()+"exp/"+file+"/rs/"+s.key)
		}
	}
	slices.Sort(want)
	if len(want) == 0 {
		t.Fatal("the profile has no imbalance to find: the test checks nothing")
	}
	got := converttest.Findings(t, New(filepath.Join("testdata", file), base, Options{}), "RDFS", "PERFONTO")
	if !slices.Equal(got["LoadImbalance"], want) {
		t.Errorf("LoadImbalance on\n %v\nwant\n %v", strings.Join(got["LoadImbalance"], "\n "), strings.Join(want, "\n "))
	}
	for class := range got {
		if class != "LoadImbalance" {
			t.Errorf("unexpected %s findings on %v", class, got[class])
		}
	}
	t.Logf("%d LoadImbalance findings of %d summaries, as the file's values say", len(want), len(sums))
}
