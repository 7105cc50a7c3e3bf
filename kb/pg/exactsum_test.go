package pg

import (
	"bufio"
	"math/rand"
	"os"
	"strconv"
	"strings"
	"testing"
)

// TestExactSum: the aggregates' sum is the exact sum rounded once, in any
// order of the values; the oracle is Python's math.fsum
// (testdata/exactsum.tsv), which plain addition misses in the first three
// rows.
func TestExactSum(t *testing.T) {
	f, err := os.Open("testdata/exactsum.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	rng := rand.New(rand.NewSource(1))
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		cols := strings.Split(line, "\t")
		if len(cols) != 2 {
			t.Fatalf("bad line %q", line)
		}
		var xs []float64
		for _, w := range strings.Fields(cols[0]) {
			x, err := strconv.ParseFloat(w, 64)
			if err != nil {
				t.Fatal(err)
			}
			xs = append(xs, x)
		}
		for round := range 5 {
			if round > 0 {
				rng.Shuffle(len(xs), func(i, j int) { xs[i], xs[j] = xs[j], xs[i] })
			}
			var e exactSum
			for _, x := range xs {
				e.add(x)
			}
			if cols[1] == "overflow" {
				if !e.overflow {
					t.Errorf("%v: no overflow reported", xs)
				}
				continue
			}
			want, err := strconv.ParseFloat(cols[1], 64)
			if err != nil {
				t.Fatal(err)
			}
			if e.overflow || e.value() != want {
				t.Errorf("%v: sum %v (overflow %v); want %v", xs, e.value(), e.overflow, want)
			}
		}
	}
}
