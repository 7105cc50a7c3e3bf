package reasoner

import (
	"math/bits"

	"github.com/perfkb/perfkb/kb"
)

// pairIndex finds the live row of a (subject, object) pair in a table. It
// is an open-addressing hash table with linear probing whose slots hold
// only 32 bits of the pair's hash and the row number: the pair itself is
// read from the table's columns when the hash bits agree. That is 8 bytes
// a slot (at most 16 a triple) against about 30 for a Go map keyed by the
// pair, and a probe hashes two words instead of running the generic map
// code, where the joins spent most of their time (every head check and
// every pattern with subject and object bound probes it).
//
// The slot's hash bits also choose its place, so growing and deleting
// never read the columns. Reads may run concurrently (the workers of a
// round); writes happen between rounds.
type pairIndex struct {
	slots []uint64 // 0: empty; else hash<<32 | row+1
	n     int
	mask  uint64
}

// pairHash mixes a pair into the 32 bits a slot keeps.
func pairHash(s, o kb.ID) uint64 {
	h := uint64(s)*0x9e3779b97f4a7c15 ^ bits.RotateLeft64(uint64(o)*0xc2b2ae3d27d4eb4f, 31)
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	return (h ^ h>>32) >> 32
}

func (x *pairIndex) home(h uint64) uint64 { return h & x.mask }

// find returns the row of (s, o) in columns sc, oc, or -1.
func (x *pairIndex) find(s, o kb.ID, sc, oc []kb.ID) int32 {
	if x.n == 0 {
		return -1
	}
	h := pairHash(s, o)
	for i := x.home(h); ; i = (i + 1) & x.mask {
		v := x.slots[i]
		if v == 0 {
			return -1
		}
		if v>>32 == h {
			r := int32(uint32(v)) - 1
			if sc[r] == s && oc[r] == o {
				return r
			}
		}
	}
}

// add records row r for (s, o), which must not be there yet.
// findOrSlot is find, made room for one more pair first: when (s, o) is
// not there it returns -1 and the slot where add would put it, so that an
// insert probes the table once.
func (x *pairIndex) findOrSlot(s, o kb.ID, sc, oc []kb.ID) (row int32, slot uint64, h uint64) {
	if 2*(x.n+1) > len(x.slots) {
		x.resize(max(64, 2*len(x.slots)))
	}
	h = pairHash(s, o)
	for i := x.home(h); ; i = (i + 1) & x.mask {
		v := x.slots[i]
		if v == 0 {
			return -1, i, h
		}
		if v>>32 == h {
			r := int32(uint32(v)) - 1
			if sc[r] == s && oc[r] == o {
				return r, 0, h
			}
		}
	}
}

// fill puts row r of hash h into the empty slot findOrSlot returned.
func (x *pairIndex) fill(slot, h uint64, r int32) {
	x.slots[slot] = h<<32 | uint64(uint32(r)+1)
	x.n++
}

func (x *pairIndex) add(s, o kb.ID, r int32) {
	if 2*(x.n+1) > len(x.slots) {
		x.resize(max(64, 2*len(x.slots)))
	}
	x.put(pairHash(s, o)<<32 | uint64(uint32(r)+1))
	x.n++
}

func (x *pairIndex) put(v uint64) {
	for i := x.home(v >> 32); ; i = (i + 1) & x.mask {
		if x.slots[i] == 0 {
			x.slots[i] = v
			return
		}
	}
}

// resize rehashes into size slots, a power of two.
func (x *pairIndex) resize(size int) {
	old := x.slots
	x.slots = make([]uint64, size)
	x.mask = uint64(size - 1)
	for _, v := range old {
		if v != 0 {
			x.put(v)
		}
	}
}

// del removes (s, o), which has row r, shifting later slots of its probe
// run back so that no lookup stops early at the hole.
func (x *pairIndex) del(s, o kb.ID, r int32) {
	h := pairHash(s, o)
	want := h<<32 | uint64(uint32(r)+1)
	i := x.home(h)
	for x.slots[i] != want {
		if x.slots[i] == 0 {
			return
		}
		i = (i + 1) & x.mask
	}
	x.n--
	for j := (i + 1) & x.mask; ; j = (j + 1) & x.mask {
		v := x.slots[j]
		if v == 0 {
			break
		}
		// v may fill the hole at i unless its home lies cyclically in (i, j].
		k := x.home(v >> 32)
		if (j > i && (k <= i || k > j)) || (j < i && k <= i && k > j) {
			x.slots[i] = v
			i = j
		}
	}
	x.slots[i] = 0
}

// reset empties the index, sized for n pairs.
func (x *pairIndex) reset(n int) {
	size := 64
	for size < 2*n {
		size *= 2
	}
	x.slots = make([]uint64, size)
	x.mask = uint64(size - 1)
	x.n = 0
}

// tripleSet is a set of triples with no zero IDs (kb.Any): the triples a
// join or a round has derived so far. Open addressing with linear
// probing; it is cleared between rounds and keeps its slots.
type tripleSet struct {
	slots [][3]kb.ID // s == kb.Any: empty
	n     int
	mask  uint64
}

func tripleHash(t [3]kb.ID) uint64 {
	h := uint64(t[0])*0x9e3779b97f4a7c15 ^ bits.RotateLeft64(uint64(t[1])*0xc2b2ae3d27d4eb4f, 21) ^ bits.RotateLeft64(uint64(t[2])*0x165667b19e3779f9, 42)
	h ^= h >> 31
	h *= 0xbf58476d1ce4e5b9
	return h ^ h>>29
}

func (x *tripleSet) has(t [3]kb.ID) bool {
	if x.n == 0 {
		return false
	}
	for i := tripleHash(t) & x.mask; ; i = (i + 1) & x.mask {
		switch x.slots[i] {
		case t:
			return true
		case [3]kb.ID{}:
			return false
		}
	}
}

// add inserts t; it reports false when t was there.
func (x *tripleSet) add(t [3]kb.ID) bool {
	if 2*(x.n+1) > len(x.slots) {
		old := x.slots
		x.slots = make([][3]kb.ID, max(64, 2*len(old)))
		x.mask = uint64(len(x.slots) - 1)
		x.n = 0
		for _, v := range old {
			if v[0] != kb.Any {
				x.add(v)
			}
		}
	}
	for i := tripleHash(t) & x.mask; ; i = (i + 1) & x.mask {
		switch x.slots[i] {
		case t:
			return false
		case [3]kb.ID{}:
			x.slots[i] = t
			x.n++
			return true
		}
	}
}

func (x *tripleSet) len() int { return x.n }

// clear empties the set; a set that grew very large gives its slots back.
func (x *tripleSet) clear() {
	if len(x.slots) > 1<<20 {
		x.slots, x.n, x.mask = nil, 0, 0
		return
	}
	clear(x.slots)
	x.n = 0
}
