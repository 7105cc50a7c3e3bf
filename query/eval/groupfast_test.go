package eval

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/kbtest"
)

// TestFastAggMatchesValueLists runs SUM, AVG, MIN and MAX (grouped and
// not) over each VALUES list of testdata/fastagg-values.txt with the
// running aggregates and with the kept value lists, and requires the same
// answers: mixed kinds, overflow, NaN, -0 and non-numbers spill from the
// fast state into the general path and must not change a result.
func TestFastAggMatchesValueLists(t *testing.T) {
	f, err := os.Open("testdata/fastagg-values.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		n++
		for _, q := range []string{
			`PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT (SUM(?v) AS ?s) (AVG(?v) AS ?a) (MIN(?v) AS ?lo) (MAX(?v) AS ?hi) (COUNT(?v) AS ?n) { VALUES ?v { ` + line + ` } }`,
			`PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT ?g (SUM(?v) AS ?s) (AVG(?v) AS ?a) (MIN(?v) AS ?lo) (MAX(?v) AS ?hi) { VALUES ?v { ` + line + ` } BIND(isNumeric(?v) AS ?g) } GROUP BY ?g ORDER BY ?g`,
		} {
			fastAggOn = false
			want, wantErr := run(t, kbtest.NewMemory(), q, Options{})
			fastAggOn = true
			got, gotErr := run(t, kbtest.NewMemory(), q, Options{})
			if (wantErr == nil) != (gotErr == nil) {
				t.Fatalf("%s: error %v, value lists %v", line, gotErr, wantErr)
			}
			if len(got) != len(want) {
				t.Fatalf("%s: %d rows, value lists %d", line, len(got), len(want))
			}
			for i := range want {
				for j := range want[i] {
					if got[i][j] != want[i][j] {
						t.Errorf("%s: row %d column %d: %v, value lists give %v", line, i, j, got[i][j], want[i][j])
					}
				}
			}
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if n < 10 {
		t.Fatalf("only %d cases read", n)
	}
}
