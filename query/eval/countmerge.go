package eval

import (
	"fmt"
	"math/bits"

	"github.com/perfkb/perfkb/kb"
)

// probeCounts is mergeCounts for ⋈, ⟕, EXISTS, NOT EXISTS and MINUS,
// whose answer holds only keys of one side: that side (a, or for ⋈ and
// EXISTS the shorter list) is walked and each of its keys looked up in
// the other by galloping forward. A 30,000-key side against a
// 1,000,000-key list then reads a few entries of the long list per key
// instead of all of it, and equal lengths cost what a linear merge does.
func probeCounts(kind cjKind, a, b keyCounts) (keyCounts, error) {
	drive, other := a, b
	swapped := false
	if (kind == cjJoin || kind == cjSemi) && len(b.ids) < len(a.ids) {
		drive, other, swapped = b, a, true
	}
	var out keyCounts
	out.ids = make([]kb.ID, 0, len(drive.ids))
	out.n = make([]int64, 0, len(drive.ids))
	j := 0
	for i, id := range drive.ids {
		j = gallop(other.ids, j, id)
		var co int64
		if j < len(other.ids) && other.ids[j] == id {
			co = other.n[j]
		}
		ca, cb := drive.n[i], co
		if swapped {
			ca, cb = co, drive.n[i]
		}
		var c int64
		switch kind {
		case cjJoin, cjLeft:
			if kind == cjLeft {
				cb = max(cb, 1)
			}
			hi, lo := bits.Mul64(uint64(ca), uint64(cb))
			if hi != 0 || lo>>63 != 0 {
				return out, fmt.Errorf("eval: a counted join's count overflows 64 bits")
			}
			c = int64(lo)
		case cjSemi:
			if cb > 0 {
				c = ca
			}
		case cjAnti:
			if cb == 0 {
				c = ca
			}
		}
		if c > 0 {
			out.ids = append(out.ids, id)
			out.n = append(out.n, c)
		}
		if j == len(other.ids) && kind != cjLeft && kind != cjAnti {
			break // no later key of drive is in other
		}
	}
	return out, nil
}
