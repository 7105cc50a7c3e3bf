package native

import (
	"maps"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestCountPG checks the per-(predicate, graph) counts taken from runs of
// GPOS-sorted keys against counts written out by hand.
func TestCountPG(t *testing.T) {
	tests := []struct {
		name string
		gpos []key32 // G, P, O, S; sorted
		prev map[[2]kb.ID]int64
		want map[[2]kb.ID]int64
	}{
		{name: "empty", want: map[[2]kb.ID]int64{}},
		{name: "one", gpos: []key32{{9, 2, 3, 1}}, want: map[[2]kb.ID]int64{{2, 9}: 1}},
		{
			name: "runs across graphs",
			gpos: []key32{
				{1, 5, 1, 1}, {1, 5, 2, 1}, {1, 5, 2, 3}, // P5 G1: 3
				{1, 6, 1, 1},               // P6 G1: 1
				{2, 5, 7, 4}, {2, 5, 8, 4}, // P5 G2: 2
				{3, 6, 1, 2}, // P6 G3: 1
			},
			want: map[[2]kb.ID]int64{{5, 1}: 3, {6, 1}: 1, {5, 2}: 2, {6, 3}: 1},
		},
		{
			// The same predicate in the last key of one graph and the
			// first of the next is two pairs, not one run.
			name: "predicate continues into next graph",
			gpos: []key32{{1, 4, 1, 1}, {2, 4, 1, 1}, {2, 4, 2, 1}},
			want: map[[2]kb.ID]int64{{4, 1}: 1, {4, 2}: 2},
		},
		{
			name: "adds to what is there",
			gpos: []key32{{1, 4, 1, 1}, {1, 4, 2, 1}},
			prev: map[[2]kb.ID]int64{{4, 1}: 10, {7, 7}: 1},
			want: map[[2]kb.ID]int64{{4, 1}: 12, {7, 7}: 1},
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := make(map[[2]kb.ID]int64)
			maps.Copy(got, tc.prev)
			countPG(got, tc.gpos)
			if !maps.Equal(got, tc.want) {
				t.Errorf("countPG = %v, want %v", got, tc.want)
			}
		})
	}
}
