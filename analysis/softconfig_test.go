package analysis

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestMembershipTable evaluates the Appendix F functions and hedges at the
// points of testdata/membership.txt, whose degrees were worked out by hand.
func TestMembershipTable(t *testing.T) {
	f, err := os.Open(filepath.Join("testdata", "membership.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n, cases := 0, 0
	for sc.Scan() {
		n++
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		parts := strings.Split(line, "|")
		if len(parts) != 3 {
			t.Fatalf("membership.txt:%d: want FUNCTION | x | degree", n)
		}
		cfg, err := ParseSoftConfig("membership.txt", "class x t "+strings.TrimSpace(parts[0]))
		if err != nil {
			t.Fatalf("membership.txt:%d: %v", n, err)
		}
		x, err1 := strconv.ParseFloat(strings.TrimSpace(parts[1]), 64)
		want, err2 := strconv.ParseFloat(strings.TrimSpace(parts[2]), 64)
		if err1 != nil || err2 != nil {
			t.Fatalf("membership.txt:%d: bad number", n)
		}
		if got := cfg.Classes[0].Fn.Degree(x); !near(got, want) {
			t.Errorf("membership.txt:%d: %s at %g = %g, want %g", n, parts[0], x, got, want)
		}
		cases++
	}
	if cases < 30 {
		t.Fatalf("only %d cases", cases)
	}
}

func TestSoftConfigErrors(t *testing.T) {
	tests := []struct {
		text, want string
	}{
		{"class efficiency poor q 1 2", "soft.conf:1:23: expected a membership function"},
		{"\nclass efficiency poor s 1", "soft.conf:2:23: s takes 2 parameters, found 1"},
		{"score wtime -1 linear", "soft.conf:1:13: expected a positive weight"},
		{"class L2 high triangle 1 x 3", "soft.conf:1:26: expected a number"},
		{"class L2 high triangle 3 2 1", "parameters out of order"},
		{"similar 2", "soft.conf:1:9: expected a threshold in [0,1]"},
		{"rank wtime", "soft.conf:1:1: expected class, score, similarity, similar, bottleneck, factor, factorvalue, cluster or filter"},
		{"factor atoms 1 same", "soft.conf:1:8: expected a factor (problemsize"},
		{"factor units 0 same", "soft.conf:1:14: expected a positive weight"},
		{"factor units 1 same 2", "soft.conf:1:21: expected nothing after same"},
		{"factor units 1 -4 linear", "soft.conf:1:16: expected same, auto or the factor's largest value"},
		{"factor units 1 64 s 0", "soft.conf:1:19: s takes 2 parameters, found 1"},
		{"factorvalue machine P4 fast", "soft.conf:1:24: expected a number"},
		{"cluster 1 2 0.01", "soft.conf:1:9: expected a number of clusters of at least 2"},
		{"cluster 3 1 0.01", "soft.conf:1:11: expected a fuzziness above 1"},
		{"cluster 3 2 0", "soft.conf:1:13: expected a threshold in (0,1)"},
		{"filter wtime/program", "soft.conf:1:21: expected filter METRIC [HEDGE...] FUNCTION"},
		{"class efficiency", "soft.conf:1:"},
	}
	for _, tc := range tests {
		_, err := ParseSoftConfig("soft.conf", tc.text)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want %q", tc.text, err, tc.want)
		}
	}
	if _, err := ParseSoftConfig("soft.conf", DefaultSoftConfigText()); err != nil {
		t.Errorf("shipped configuration: %v", err)
	}
}
