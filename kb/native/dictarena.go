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
// delay in an execution trace). So the fresh terms are kept in shards
// chosen by the hash's top bits, each with its index, its own arena of
// term bytes and its own lock, and one short lock is left only for handing
// out IDs in order: an Intern holds d.mu shared, finds terms with no lock
// at all, takes one shard's lock to add a term (copying its bytes into
// that shard's arena), and the IDs' lock only while it writes the new
// ID's ref. Whatever takes d.mu exclusively (reopening, reloading the
// dictionary, the saved marks) still excludes every Intern.
//
// What adders write and what finders only read sit on separate cache
// lines: with them on one line, the finders on 16 cores spent more time
// waiting for that line than the lock had cost.

// dictShardBits is how many top bits of a term's hash choose its shard.
const dictShardBits = 6

// dictShards is the number of shards of the fresh terms.
const dictShards = 1 << dictShardBits

// cacheLine is the size the shards' fields are padded to.
const cacheLine = 64

// shardChunkMin and shardChunkMax bound the chunks of a shard's arena:
// they start small, so that a small store does not hold a megabyte per
// shard, and double up to the larger size.
const (
	shardChunkMin = 4 << 10
	shardChunkMax = 1 << 20
)

// dictShard is one shard of the fresh terms: an open-addressing table whose
// slots hold 0 when empty, else the low 32 bits of the term's hash (which
// also choose its slot, so growing needs no rehash) above its fresh index
// + 1 (a probe compares the hash bits before touching the arena), and the
// arena of the shard's terms' bytes.
//
// Finding takes no lock: slots are read and written atomically, and a
// grown table or chunk list is filled before it is published. A finder
// holding a table that has since grown may miss a term added after the
// growth; that is why an add finds again under mu before it adds
// (findOrAdd), and a miss is otherwise only ever followed by such an add.
// An entry, once in a table, is in every later one.
type dictShard struct {
	mu   sync.Mutex // adders
	n    int        // entries; under mu
	fill int        // bytes used in the last chunk; under mu
	_    [cacheLine - 24]byte

	table  atomic.Pointer[[]uint64]
	chunks atomic.Pointer[[][]byte] // never changed in place once published
	_      [cacheLine - 16]byte
}

// refChunkBits is how many low bits of termRef.chunk number a chunk within
// its shard; the bits above name the shard.
const refChunkBits = 24

// shardOf returns the shard that holds terms of hash h.
func (d *dictionary) shardOf(h uint64) *dictShard {
	return &d.shards[h>>(64-dictShardBits)]
}

// findIn returns the fresh index of an encoded term with hash h in shard
// sh, or -1.
func (d *dictionary) findIn(sh *dictShard, enc []byte, h uint64) int {
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
			if i := int(uint32(e) - 1); bytes.Equal(d.encoded(i), enc) {
				return i
			}
		}
	}
}

// storeLocked copies enc into shard number k's arena and returns its ref.
// The caller holds the shard's mu.
func (sh *dictShard) storeLocked(k int, enc []byte) termRef {
	var chunks [][]byte
	if p := sh.chunks.Load(); p != nil {
		chunks = *p
	}
	n := len(chunks)
	if n == 0 || sh.fill+len(enc) > len(chunks[n-1]) {
		size := shardChunkMin
		if n > 0 {
			size = min(shardChunkMax, 2*len(chunks[n-1]))
		}
		grown := make([][]byte, n+1, n+1+n/2)
		copy(grown, chunks)
		grown[n] = make([]byte, max(size, len(enc)))
		sh.chunks.Store(&grown)
		chunks, n, sh.fill = grown, n+1, 0
	}
	copy(chunks[n-1][sh.fill:], enc)
	r := termRef{chunk: uint32(k)<<refChunkBits | uint32(n-1), off: uint32(sh.fill), len: uint32(len(enc))}
	sh.fill += len(enc)
	return r
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

// termRefs hands out fresh indexes in order and keeps each one's ref.
// Appends take mu; readers take no lock of its: a reader learns a fresh
// index only after the append that made it has returned (through a
// shard's table, d.mu, or len's atomic load), and a ref never changes
// after it is published. The segment directory is replaced, never changed
// in place, when it grows, and a reader loads it after it has its index.
type termRefs struct {
	mu sync.Mutex
	n  atomic.Int64 // refs published
	_  [cacheLine - 16]byte

	segs atomic.Pointer[[]*[refSegSize]termRef]
	_    [cacheLine - 8]byte
}

// refSegSize is how many refs one segment holds.
const refSegSize = 1 << 14

// len returns the number of refs published.
func (a *termRefs) len() int { return int(a.n.Load()) }

// ref returns ref i, which must be published.
func (a *termRefs) ref(i int) termRef {
	return (*a.segs.Load())[i/refSegSize][i%refSegSize]
}

// append publishes r as the next fresh index and returns it.
func (a *termRefs) append(r termRef) int {
	a.mu.Lock()
	defer a.mu.Unlock()
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

// encoded returns the bytes of fresh index i, which must be published;
// nil for a hole.
func (d *dictionary) encoded(i int) []byte {
	r := d.refs.ref(i)
	if r.len == 0 {
		return nil
	}
	c := (*d.shards[r.chunk>>refChunkBits].chunks.Load())[r.chunk&(1<<refChunkBits-1)]
	return c[r.off : r.off+r.len : r.off+r.len]
}

// view returns what a reader that holds no lock needs to read the fresh
// terms published so far (dictView).
func (d *dictionary) view() dictView {
	n := d.refs.len()
	v := dictView{base: d.base, n: n}
	if p := d.refs.segs.Load(); p != nil {
		v.segs = *p
	}
	for k := range d.shards {
		if p := d.shards[k].chunks.Load(); p != nil {
			v.chunks[k] = *p
		}
	}
	return v
}
