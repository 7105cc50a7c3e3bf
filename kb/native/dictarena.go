package native

import (
	"bytes"
	"sync"
	"sync/atomic"
)

// A bulk load interns on every core (rdfio.loadLines), and most terms of
// a fresh load are new: one lock over the dictionary made the load's
// reading phase run at one core's speed however many there were (5M
// triples: 3.9 s of 5.3 on 16 cores, with Intern's lock waits the largest
// delay in an execution trace). So the fresh terms' index is split into
// shards, each with its own lock, chosen by the hash's top bits, and the
// arena that holds the terms' bytes takes appends under a short lock of its
// own while Interns holding d.mu for reading read it: an Intern holds
// d.mu shared, finds terms with no lock at all, and takes one shard's lock
// only to add a term, and the arena's lock only while it copies the term
// in. Whatever takes d.mu
// exclusively (reopening, reloading the dictionary, the saved marks) still
// excludes every Intern.

// dictShardBits is how many top bits of a term's hash choose its shard.
const dictShardBits = 6

// dictShards is the number of shards of the fresh terms' index.
const dictShards = 1 << dictShardBits

// dictShard is one shard of the index of fresh terms: an open-addressing
// table whose slots hold 0 when empty, else the low 32 bits of the term's
// hash (which also choose its slot, so growing needs no rehash) above its
// fresh index + 1; a probe compares the hash bits before touching the
// arena.
//
// Finding takes no lock: slots are read and written atomically, and a
// grown table is filled before it is published. A finder holding a table
// that has since grown may miss a term added after the growth; that is
// why an add finds again under mu before it adds (findOrAdd), and a miss
// is otherwise only ever followed by such an add. An entry, once in a
// table, is in every later one.
type dictShard struct {
	mu    sync.Mutex // adders
	table atomic.Pointer[[]uint64]
	n     int      // entries; under mu
	_     [48]byte // keeps neighbouring shards off one cache line
}

// shardOf returns the shard that holds terms of hash h.
func (d *dictionary) shardOf(h uint64) *dictShard {
	return &d.shards[h>>(64-dictShardBits)]
}

// find returns the fresh index of an encoded term with hash h in the
// shard, or -1.
func (sh *dictShard) find(a *termArena, enc []byte, h uint64) int {
	p := sh.table.Load()
	if p == nil {
		return -1
	}
	table := *p
	mask := uint64(len(table) - 1)
	tag := h << 32
	for slot := h & mask; ; slot = (slot + 1) & mask {
		e := atomic.LoadUint64(&table[slot])
		if e == 0 {
			return -1
		}
		if e&^(1<<32-1) == tag {
			if i := int(uint32(e) - 1); bytes.Equal(a.encoded(i), enc) {
				return i
			}
		}
	}
}

// insertLocked indexes fresh index i under hash h. The caller holds sh.mu.
func (sh *dictShard) insertLocked(h uint64, i int) {
	sh.n++
	var table []uint64
	if p := sh.table.Load(); p != nil {
		table = *p
	}
	if 2*sh.n > len(table) {
		grown := make([]uint64, max(64, 2*len(table)))
		for _, e := range table {
			if e != 0 {
				insertSlot(grown, e)
			}
		}
		sh.table.Store(&grown)
		table = grown
	}
	e := h<<32 | uint64(i+1)
	mask := uint64(len(table) - 1)
	slot := (e >> 32) & mask
	for table[slot] != 0 {
		slot = (slot + 1) & mask
	}
	atomic.StoreUint64(&table[slot], e)
}

// termArena holds the fresh terms' encodings and their refs. Appends take
// mu; readers take no lock of the arena's: a reader learns a fresh index
// only after the append that made it has returned (through a shard's
// lock, d.mu, or len's atomic load), and the bytes and the ref of an index
// never change after it is published. The chunk and segment directories
// are replaced, never changed in place, when they grow, and a reader loads
// them after it has its index.
type termArena struct {
	mu     sync.Mutex
	n      atomic.Int64 // refs published
	fill   int          // bytes used in the last chunk; under mu
	chunks atomic.Pointer[[][]byte]
	segs   atomic.Pointer[[]*[refSegSize]termRef]
}

// refSegSize is how many refs one segment of the arena holds.
const refSegSize = 1 << 14

// len returns the number of refs published.
func (a *termArena) len() int { return int(a.n.Load()) }

// ref returns ref i, which must be published.
func (a *termArena) ref(i int) termRef {
	return (*a.segs.Load())[i/refSegSize][i%refSegSize]
}

// encoded returns the bytes of fresh index i, which must be published;
// nil for a hole.
func (a *termArena) encoded(i int) []byte {
	r := a.ref(i)
	if r.len == 0 {
		return nil
	}
	c := (*a.chunks.Load())[r.chunk]
	return c[r.off : r.off+r.len : r.off+r.len]
}

// append copies enc (nil for a hole) into the arena and returns its fresh
// index.
func (a *termArena) append(enc []byte) int {
	a.mu.Lock()
	defer a.mu.Unlock()
	var r termRef
	if len(enc) > 0 {
		var chunks [][]byte
		if p := a.chunks.Load(); p != nil {
			chunks = *p
		}
		n := len(chunks)
		if n == 0 || a.fill+len(enc) > len(chunks[n-1]) {
			grown := make([][]byte, n+1, n+1+n/2)
			copy(grown, chunks)
			grown[n] = make([]byte, max(arenaChunk, len(enc)))
			a.chunks.Store(&grown)
			chunks, n, a.fill = grown, n+1, 0
		}
		copy(chunks[n-1][a.fill:], enc)
		r = termRef{chunk: uint32(n - 1), off: uint32(a.fill), len: uint32(len(enc))}
		a.fill += len(enc)
	}
	i := int(a.n.Load())
	var segs []*[refSegSize]termRef
	if p := a.segs.Load(); p != nil {
		segs = *p
	}
	if i/refSegSize == len(segs) {
		grown := make([]*[refSegSize]termRef, len(segs)+1, len(segs)+1+len(segs)/2)
		copy(grown, segs)
		grown[len(segs)] = new([refSegSize]termRef)
		a.segs.Store(&grown)
		segs = grown
	}
	segs[i/refSegSize][i%refSegSize] = r
	a.n.Store(int64(i + 1))
	return i
}

// view returns the chunks and refs published so far, for a reader that
// holds no lock (dictView).
func (a *termArena) view() (chunks [][]byte, segs []*[refSegSize]termRef, n int) {
	n = a.len()
	if p := a.chunks.Load(); p != nil {
		chunks = *p
	}
	if p := a.segs.Load(); p != nil {
		segs = *p
	}
	return chunks, segs, n
}
