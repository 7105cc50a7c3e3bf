package native

import ()

// Sorting a bulk load into the six orders. IDs are dense (the dictionary
// issues 1, 2, 3, …), so one counting-sort pass per field orders keys by
// that field: SPOG takes at most four passes (fields that are the same in
// every key are skipped), and every other order is one stable pass over an
// order already sorted:
//
//	OSPG = SPOG stably sorted by O      POSG = OSPG stably sorted by P
//	GSPO = SPOG stably sorted by G      GPOS = POSG stably sorted by G
//	GOSP = OSPG stably sorted by G
//
// (a stable sort by X of keys sorted by (A, B, C, X) orders them by
// (X, A, B, C)), each pass writing the keys permuted for its order.

// countingMaxRange is the widest range of field values sorted in one pass
// (a count per value); wider ranges take two passes of 16-bit digits.
const countingMaxRange = 1 << 22

// sortScratch is a worker's reusable count array.
type sortScratch struct {
	counts []uint32
}

func (s *sortScratch) zeroed(n int) []uint32 {
	if cap(s.counts) < n {
		s.counts = make([]uint32, n)
		return s.counts
	}
	c := s.counts[:n]
	clear(c)
	return c
}

// fieldRange returns the smallest and largest value of field f.
func fieldRange(keys []key32, f int) (lo, hi uint32) {
	lo, hi = ^uint32(0), 0
	for i := range keys {
		v := keys[i][f]
		lo = min(lo, v)
		hi = max(hi, v)
	}
	return lo, hi
}

// permBetween returns perm such that a key of order from rewritten as
// key32{k[perm[0]], …, k[perm[3]]} is the same quad in order to.
func permBetween(from, to int) [4]uint8 {
	var perm [4]uint8
	for j, pos := range orders[to] {
		perm[j] = inverses[from][pos]
	}
	return perm
}

// sortInto writes src (keys of order from) into dst (as long) permuted for
// order to and stably sorted by field f of src. tmp is scratch of the same
// length, used only for a field wider than countingMaxRange (nil then
// allocates).
func sortInto(dst, src, tmp []key32, f int, perm [4]uint8, sc *sortScratch) {
	if len(src) == 0 {
		return
	}
	lo, hi := fieldRange(src, f)
	if hi-lo < countingMaxRange {
		c := sc.zeroed(int(hi-lo) + 1)
		for i := range src {
			c[src[i][f]-lo]++
		}
		var sum uint32
		for i, n := range c {
			c[i] = sum
			sum += n
		}
		p0, p1, p2, p3 := perm[0], perm[1], perm[2], perm[3]
		for _, k := range src {
			v := k[f] - lo
			dst[c[v]] = key32{k[p0], k[p1], k[p2], k[p3]}
			c[v]++
		}
		return
	}
	// Two passes of 16-bit digits, low then high: src → tmp (permuting),
	// tmp → dst.
	if tmp == nil {
		tmp = make([]key32, len(src))
	}
	c := sc.zeroed(1 << 16)
	for i := range src {
		c[src[i][f]&0xffff]++
	}
	var sum uint32
	for i, n := range c {
		c[i] = sum
		sum += n
	}
	p0, p1, p2, p3 := perm[0], perm[1], perm[2], perm[3]
	for _, k := range src {
		v := k[f] & 0xffff
		tmp[c[v]] = key32{k[p0], k[p1], k[p2], k[p3]}
		c[v]++
	}
	nf := 0 // the field's index after permuting
	for j, p := range perm {
		if int(p) == f {
			nf = j
		}
	}
	c = sc.zeroed(1 << 16)
	for i := range tmp {
		c[tmp[i][nf]>>16]++
	}
	sum = 0
	for i, n := range c {
		c[i] = sum
		sum += n
	}
	for _, k := range tmp {
		v := k[nf] >> 16
		dst[c[v]] = k
		c[v]++
	}
}

var identityPerm = [4]uint8{0, 1, 2, 3}

// sortSPOG sorts SPOG keys with one stable pass per field, last field
// first, using tmp (as long) as the other buffer. It returns the sorted
// keys, which are in keys or in tmp; the other is free scratch.
func sortSPOG(keys, tmp []key32, sc *sortScratch) (sorted, free []key32) {
	src, dst := keys, tmp
	for f := 3; f >= 0; f-- {
		if lo, hi := fieldRange(src, f); lo == hi {
			continue
		}
		sortInto(dst, src, nil, f, identityPerm, sc)
		src, dst = dst, src
	}
	return src, dst
}

// sortOrders returns the keys of a bulk load in every order, given them
// sorted in SPOG order (spog, which becomes order 0) and a free buffer of
// the same length (reused for OSPG). Two goroutines share the passes.
func sortOrders(spog, free []key32) [numOrders][]key32 {
	var out [numOrders][]key32
	out[0] = spog
	n := len(spog)
	pass := func(to, from int, dst []key32, sc *sortScratch) {
		if dst == nil {
			dst = make([]key32, n)
		}
		f := int(inverses[from][orders[to][0]])
		sortInto(dst, out[from], nil, f, permBetween(from, to), sc)
		out[to] = dst
	}
	const (
		spogOrder, posg, ospg, gspo, gpos, gosp = 0, 1, 2, 3, 4, 5
	)
	ospgDone := make(chan struct{})
	wait := fork(func() {
		var sc sortScratch
		pass(ospg, spogOrder, free[:n:n], &sc)
		close(ospgDone)
		pass(posg, ospg, nil, &sc)
		pass(gpos, posg, nil, &sc)
	})
	var sc sortScratch
	pass(gspo, spogOrder, nil, &sc)
	<-ospgDone
	pass(gosp, ospg, nil, &sc)
	wait()
	return out
}
