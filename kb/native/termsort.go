package native

import (
	"bytes"
	"cmp"
	"encoding/binary"
	"slices"
)

// sortByBytes sorts order (indices of entries) by the bytes key returns for
// each, lexicographically. A bulk load's term table is sorted by encoding,
// and IRIs share long prefixes, so comparing whole encodings costs a
// memory read and a long compare per step. This sorts by the next eight
// bytes, cached beside the index, and sorts each run that shares them by
// the eight after that; a run in which some key ends within the bytes
// compared so far is finished by comparing whole keys.
func sortByBytes(order []uint32, key func(uint32) []byte) {
	ents := make([]prefixEntry, len(order))
	for j, i := range order {
		ents[j].i = i
	}
	sortPrefixRun(ents, 0, key)
	for j := range ents {
		order[j] = ents[j].i
	}
}

type prefixEntry struct {
	pre uint64 // bytes depth..depth+8 of the key, big-endian, zero-padded
	i   uint32
}

func sortPrefixRun(ents []prefixEntry, depth int, key func(uint32) []byte) {
	for j := range ents {
		k := key(ents[j].i)
		var b [8]byte
		if depth < len(k) {
			copy(b[:], k[depth:])
		}
		ents[j].pre = binary.BigEndian.Uint64(b[:])
	}
	slices.SortFunc(ents, func(a, b prefixEntry) int { return cmp.Compare(a.pre, b.pre) })
	for lo := 0; lo < len(ents); {
		hi := lo + 1
		for hi < len(ents) && ents[hi].pre == ents[lo].pre {
			hi++
		}
		if hi-lo > 1 {
			run := ents[lo:hi]
			short := false
			for _, e := range run {
				if len(key(e.i)) <= depth+8 {
					short = true
					break
				}
			}
			if short || len(run) < 8 {
				slices.SortFunc(run, func(a, b prefixEntry) int { return bytes.Compare(key(a.i), key(b.i)) })
			} else {
				sortPrefixRun(run, depth+8, key)
			}
		}
		lo = hi
	}
}
