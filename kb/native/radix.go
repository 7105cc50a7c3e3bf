package native

import (
	"github.com/perfkb/perfkb/kb"
)

// key32 is a quad whose IDs fit in 32 bits, its fields in the order of
// some index (a permuted quad). Bulk loads sort these: half the memory of
// kb.Quad, and a radix sort instead of comparisons.
type key32 [4]uint32

// fitsKey32 reports whether every ID the dictionary has issued fits key32.
func fitsKey32(limit kb.ID) bool { return limit <= 1<<32 }

func toKey32(dst []key32, quads []kb.Quad) []key32 {
	for _, q := range quads {
		dst = append(dst, key32{uint32(q.S), uint32(q.P), uint32(q.O), uint32(q.G)})
	}
	return dst
}

func (k key32) quad() kb.Quad {
	return kb.Quad{S: kb.ID(k[0]), P: kb.ID(k[1]), O: kb.ID(k[2]), G: kb.ID(k[3])}
}

// repermute32 rewrites keys permuted for index from into the permutation
// of index to.
func repermute32(keys []key32, from, to int) {
	if from == to {
		return
	}
	of, ot := &orders[from], &orders[to]
	// perm[j] is the position in the old key of the field that goes to j.
	var inv [4]int
	for j, pos := range of {
		inv[pos] = j
	}
	var perm [4]int
	for j, pos := range ot {
		perm[j] = inv[pos]
	}
	for i := range keys {
		k := keys[i]
		keys[i] = key32{k[perm[0]], k[perm[1]], k[perm[2]], k[perm[3]]}
	}
}

// radixSort32 sorts keys lexicographically with an LSD radix sort on
// 16-bit digits, using tmp (len(keys) long) as scratch. Digits that are the
// same in every key are skipped, so small IDs and few graphs sort in fewer
// passes.
func radixSort32(keys, tmp []key32) {
	if len(keys) < 2 {
		return
	}
	const digits = 8 // 4 fields × 2 halves
	var counts [digits][1 << 16]uint32
	for _, k := range keys {
		for f := 0; f < 4; f++ {
			counts[2*f][k[f]>>16]++
			counts[2*f+1][k[f]&0xffff]++
		}
	}
	src, dst := keys, tmp
	n := uint32(len(keys))
	// Least significant digit first: field 3 low, field 3 high, … field 0 high.
	for d := digits - 1; d >= 0; d-- {
		c := &counts[d]
		f, high := d/2, d%2 == 0
		var first uint32
		if high {
			first = src[0][f] >> 16
		} else {
			first = src[0][f] & 0xffff
		}
		if c[first] == n {
			continue // every key has this digit
		}
		var sum uint32
		for i := range c {
			v := c[i]
			c[i] = sum
			sum += v
		}
		if high {
			for _, k := range src {
				b := k[f] >> 16
				dst[c[b]] = k
				c[b]++
			}
		} else {
			for _, k := range src {
				b := k[f] & 0xffff
				dst[c[b]] = k
				c[b]++
			}
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// radixSort8 is radixSort32 with 8-bit digits: 16 KiB of digit counts
// instead of 2 MiB, so from a few hundred keys it undercuts a comparison
// sort (a store write of a few thousand quads sorts its keys once per
// order), and the digits every key shares (the high bytes of small IDs, a
// graph or predicate column with few values) are skipped.
func radixSort8(keys, tmp []key32) {
	if len(keys) < 2 {
		return
	}
	const digits = 16 // 4 fields × 4 bytes
	var counts [digits][256]uint32
	for _, k := range keys {
		for f := 0; f < 4; f++ {
			v := k[f]
			counts[4*f][v>>24]++
			counts[4*f+1][v>>16&0xff]++
			counts[4*f+2][v>>8&0xff]++
			counts[4*f+3][v&0xff]++
		}
	}
	src, dst := keys, tmp
	n := uint32(len(keys))
	// Least significant digit first: field 3's low byte … field 0's high.
	for d := digits - 1; d >= 0; d-- {
		c := &counts[d]
		f, shift := d/4, uint(24-8*(d%4))
		if c[src[0][f]>>shift&0xff] == n {
			continue // every key has this digit
		}
		var sum uint32
		for i := range c {
			v := c[i]
			c[i] = sum
			sum += v
		}
		for _, k := range src {
			b := k[f] >> shift & 0xff
			dst[c[b]] = k
			c[b]++
		}
		src, dst = dst, src
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
	}
}

// compactKeys drops adjacent duplicates from sorted keys.
func compactKeys(keys []key32) []key32 {
	if len(keys) < 2 {
		return keys
	}
	out := keys[:1]
	for _, k := range keys[1:] {
		if k != out[len(out)-1] {
			out = append(out, k)
		}
	}
	return out
}

// parallelSortMin is the length from which radixSortParallel sorts two
// halves at once: below it the merge and the goroutine cost more than the
// second core saves.
const parallelSortMin = 1 << 17

// radixSortParallel sorts keys lexicographically as radixSort32 does, the
// two halves on two goroutines and then merged, using tmp (as long) as
// scratch. It returns the sorted keys, which are in keys or in tmp.
func radixSortParallel(keys, tmp []key32) []key32 {
	if len(keys) < parallelSortMin {
		radixSort32(keys, tmp)
		return keys
	}
	h := len(keys) / 2
	wait := fork(func() { radixSort32(keys[h:], tmp[h:]) })
	radixSort32(keys[:h], tmp[:h])
	wait()
	mergeKeys(tmp, keys[:h], keys[h:])
	return tmp
}

// mergeKeys writes the sorted keys a and b, merged, into dst (len(a) +
// len(b) long); a key in both comes from a first.
func mergeKeys(dst, a, b []key32) {
	i, j, n := 0, 0, 0
	for i < len(a) && j < len(b) {
		if cmpKey(b[j], a[i]) < 0 {
			dst[n] = b[j]
			j++
		} else {
			dst[n] = a[i]
			i++
		}
		n++
	}
	n += copy(dst[n:], a[i:])
	copy(dst[n:], b[j:])
}
