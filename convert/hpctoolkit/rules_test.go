package hpctoolkit

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/converttest"
)

// TestShippedRules runs the shipped RDFS and PERFONTO rule sets unchanged
// on converted HPCToolkit databases. Of them, only Load Imbalance reads
// what these databases have (wtime per context and thread; the other
// rules need communication, overhead or L2 counters): a summary is flagged
// when its wtime is more than 1.5 times that of another summary of the
// same code region. issue-328 has REALTIME on two CPU threads, so the
// expected summaries come from its wtime values (checked against cct.db by
// TestAgainstCCTDB) and region names; the experiment.xml databases and
// d.x measure CPUTIME and cycles, which no shipped rule reads, so nothing
// may fire on them.
func TestShippedRules(t *testing.T) {
	for _, tc := range []struct {
		dir       string
		imbalance bool
	}{
		{"issue-328", true},
		{"d.x", false},
		{filepath.Join("xml", "hpctoolkit-cpi-database"), false},
	} {
		t.Run(tc.dir, func(t *testing.T) {
			dir := filepath.Join("testdata", tc.dir)
			c := convertDB(t, dir)
			type summary struct {
				rs, region string
				wtime      float64
			}
			var sums []summary
			for k, v := range c.values {
				if rs, ok := strings.CutSuffix(k, "/wtime"); ok {
					sums = append(sums, summary{rs, c.region[rs], v})
				}
			}
			var want []string
			for _, s := range sums {
				if slices.ContainsFunc(sums, func(o summary) bool { return o.region == s.region && s.wtime > 1.5*o.wtime }) {
					want = append(want, base.String()+"exp/"+filepath.Base(dir)+"/rs/"+s.rs)
				}
			}
			slices.Sort(want)
			if tc.imbalance != (len(want) > 0) {
				t.Fatalf("%d summaries with wtime, %d imbalanced: not the data this test expects", len(sums), len(want))
			}
			got := converttest.Findings(t, New(dir, base, Options{}), "RDFS", "PERFONTO")
			if !slices.Equal(got["LoadImbalance"], want) {
				t.Errorf("LoadImbalance on\n %v\nwant\n %v", strings.Join(got["LoadImbalance"], "\n "), strings.Join(want, "\n "))
			}
			for class := range got {
				if class != "LoadImbalance" {
					t.Errorf("unexpected %s findings on %v", class, got[class])
				}
			}
			t.Logf("%s: %d LoadImbalance findings of %d summaries with wtime", tc.dir, len(want), len(sums))
		})
	}
}
