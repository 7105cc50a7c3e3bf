package native

import "sort"

// keyUnion is the union of two sorted, disjoint key lists, read in order
// without first copying both into one list: a bulk load over a small store
// (the ontology) writes each order's table and side file from the stored
// keys and the new ones, and a merged copy per order costs a large
// allocation and a pass over the keys for nothing.
type keyUnion struct{ a, b []key32 }

// len is the number of keys.
func (u keyUnion) len() int { return len(u.a) + len(u.b) }

// last is the greatest key; u must not be empty.
func (u keyUnion) last() key32 {
	switch {
	case len(u.a) == 0:
		return u.b[len(u.b)-1]
	case len(u.b) == 0:
		return u.a[len(u.a)-1]
	}
	x, y := u.a[len(u.a)-1], u.b[len(u.b)-1]
	if lessKey(x, y) {
		return y
	}
	return x
}

// runs calls fn with consecutive runs of the keys in ascending order (the
// runs are subslices of a and b), stopping at fn's first error.
func (u keyUnion) runs(fn func(run []key32) error) error {
	a, b := u.a, u.b
	for len(a) > 0 && len(b) > 0 {
		if lessKey(b[0], a[0]) {
			a, b = b, a
		}
		// a[0] is the smaller head: emit a's keys below b[0].
		n := sort.Search(len(a), func(i int) bool { return !lessKey(a[i], b[0]) })
		n = max(n, 1) // equal heads (never in a union of disjoint lists): progress
		if err := fn(a[:n]); err != nil {
			return err
		}
		a = a[n:]
	}
	for _, rest := range [2][]key32{a, b} {
		if len(rest) > 0 {
			if err := fn(rest); err != nil {
				return err
			}
		}
	}
	return nil
}

// firstIndex is firstIndex of the union.
func (u keyUnion) firstIndex() []uint32 {
	if u.len() == 0 {
		return nil
	}
	off := make([]uint32, uint64(u.last()[0])+2)
	id, p := 0, 0
	_ = u.runs(func(run []key32) error {
		for _, k := range run {
			for uint64(id) <= uint64(k[0]) {
				off[id] = uint32(p)
				id++
			}
			p++
		}
		return nil
	})
	for ; id < len(off); id++ {
		off[id] = uint32(p)
	}
	return off
}

// keys returns the union as one new list.
func (u keyUnion) keys() []key32 {
	out := make([]key32, 0, u.len())
	_ = u.runs(func(run []key32) error {
		out = append(out, run...)
		return nil
	})
	return out
}
