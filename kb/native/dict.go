package native

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/maphash"
	"slices"
	"strings"
	"sync"

	"github.com/cockroachdb/pebble/v2"

	"github.com/perfkb/perfkb/kb"
)

// dictionary maps terms to IDs both ways.
//
// Terms interned since the store was opened ("fresh" terms, IDs base,
// base+1, …) are kept encoded (appendTerm) in chunked byte arenas and
// found through open-addressing hash tables of their indexes, both split
// into shards by hash so that loads intern on every core (dictarena.go):
// about 70 bytes per term and no pointers for the collector to scan, where
// a map[kb.Term]kb.ID costs twice that. Terms stored before the store was
// opened live on disk and are cached in maps when read. IDs are allocated
// densely from 1, so the next ID after a restart is one past the largest on
// disk.
type dictionary struct {
	mu        sync.RWMutex
	seed      maphash.Seed
	base      kb.ID // ID of fresh term 0
	persisted kb.ID // IDs below this are on disk

	refs   termRefs // the fresh terms' refs (dictarena.go)
	shards [dictShards]dictShard

	oldIDs   map[kb.Term]kb.ID // cache of terms read from disk
	oldTerms map[kb.ID]kb.Term

	// Fresh terms reach the disk only with the first committed quad that
	// references them (dictsave.go): savedBits[i] says whether ID
	// savedFrom+i is stored; stored counts the terms on disk.
	savedFrom kb.ID
	savedBits []uint64
	stored    int64
}

// termRef locates an encoded term in the arena.
type termRef struct {
	chunk, off, len uint32
}

const arenaChunk = 1 << 20

// oldCacheMax bounds the cache of terms read back from disk; when it is
// full it starts over (cheap, and hot terms come back at once).
const oldCacheMax = 1 << 20

// cacheOld remembers a term read from disk. The caller holds d.mu for
// writing.
func (d *dictionary) cacheOld(id kb.ID, t kb.Term) {
	if len(d.oldTerms) >= oldCacheMax {
		d.oldIDs = make(map[kb.Term]kb.ID)
		d.oldTerms = make(map[kb.ID]kb.Term)
	}
	d.oldIDs[t] = id
	d.oldTerms[id] = t
}

func (d *dictionary) init(next kb.ID) {
	d.seed = maphash.MakeSeed()
	d.base, d.persisted = next, next
	d.savedFrom, d.savedBits, d.stored = next, nil, int64(next-1)
	d.refs = termRefs{}
	d.shards = [dictShards]dictShard{}
	d.oldIDs = make(map[kb.Term]kb.ID)
	d.oldTerms = make(map[kb.ID]kb.Term)
}

// complete reports whether every term of the store is fresh, so a term not
// found in memory is new.
func (d *dictionary) complete() bool { return d.base == 1 }

// limit returns one past the largest allocated ID.
func (d *dictionary) limit() kb.ID {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.limitLocked()
}

// fresh returns how many fresh IDs (terms and holes) are allocated. The
// caller holds d.mu.
func (d *dictionary) fresh() int { return d.refs.len() }

// find returns the fresh index of an encoded term with hash h, or -1. The
// caller holds d.mu.
func (d *dictionary) find(enc []byte, h uint64) int {
	return d.findIn(d.shardOf(h), enc, h)
}

// findOrAdd returns the ID of an encoded term with hash h, adding it when
// it is not there. The caller holds d.mu, for reading at least: Interns
// add terms side by side, one shard's lock keeping a term from being added
// twice.
func (d *dictionary) findOrAdd(enc []byte, h uint64) kb.ID {
	k := h >> (64 - dictShardBits)
	sh := &d.shards[k]
	sh.mu.Lock()
	defer sh.mu.Unlock()
	if i := d.findIn(sh, enc, h); i >= 0 {
		return d.base + kb.ID(i)
	}
	i := d.refs.append(sh.storeLocked(int(k), enc))
	sh.insertLocked(h, i)
	return d.base + kb.ID(i)
}

// add appends a fresh term that is not in the dictionary and returns its
// ID. The caller holds d.mu for writing.
func (d *dictionary) add(enc []byte, h uint64) kb.ID {
	k := h >> (64 - dictShardBits)
	sh := &d.shards[k]
	sh.mu.Lock()
	i := d.refs.append(sh.storeLocked(int(k), enc))
	sh.insertLocked(h, i)
	sh.mu.Unlock()
	return d.base + kb.ID(i)
}

// addHole allocates an ID that has no term (one issued and never stored,
// met when the dictionary is read back from disk): it is never found by a
// term, and TermOf and Resolve report it unknown. The caller holds d.mu
// for writing.
func (d *dictionary) addHole() { d.refs.append(termRef{}) }

// limitLocked is limit for a caller that holds d.mu.
func (d *dictionary) limitLocked() kb.ID { return d.base + kb.ID(d.fresh()) }

// insertSlot puts entry e (hash bits above index + 1) into table.
func insertSlot(table []uint64, e uint64) {
	mask := uint64(len(table) - 1)
	slot := (e >> 32) & mask
	for table[slot] != 0 {
		slot = (slot + 1) & mask
	}
	table[slot] = e
}

// lookupBatch fills out with the IDs of the fresh terms among terms and
// returns the indexes of the others. The caller holds d.mu for reading;
// large batches are split over two goroutines.
func (d *dictionary) lookupBatch(terms []kb.Term, out []kb.ID) []int {
	lookup := func(lo, hi int) (missing []int) {
		var enc []byte
		for i := lo; i < hi; i++ {
			// Batches from kb.InternQuads hold S, P, O, G per quad, and
			// consecutive quads often share a subject, predicate or graph:
			// comparing with the term four back is cheaper than hashing.
			if i >= lo+4 && out[i-4] != 0 && terms[i] == terms[i-4] {
				out[i] = out[i-4]
				continue
			}
			var err error
			enc, err = appendTerm(enc[:0], terms[i])
			if err == nil {
				if j := d.find(enc, maphash.Bytes(d.seed, enc)); j >= 0 {
					out[i] = d.base + kb.ID(j)
					continue
				}
			}
			if id, ok := d.oldIDs[terms[i]]; ok {
				out[i] = id
				continue
			}
			missing = append(missing, i)
		}
		return missing
	}
	if len(terms) < parallelLookupMin {
		return lookup(0, len(terms))
	}
	half := len(terms) / 2
	var second []int
	wait := fork(func() { second = lookup(half, len(terms)) })
	first := lookup(0, half)
	wait()
	return append(first, second...)
}

// parallelLookupMin is the batch size from which Intern looks terms up on
// two goroutines.
const parallelLookupMin = 8192

// pending calls fn with every dictionary entry allocated but not yet on
// disk, in ID order, and returns the ID to pass to markPersisted once they
// are written.
func (d *dictionary) pending(fn func(id kb.ID, enc []byte) error) (kb.ID, error) {
	d.mu.RLock()
	from, upTo := d.persisted, d.limitLocked()
	encs := make([][]byte, 0, upTo-from)
	for id := from; id < upTo; id++ {
		encs = append(encs, d.encoded(int(id-d.base)))
	}
	d.mu.RUnlock()
	// The arena is append-only: the slices stay valid without the lock.
	for i, enc := range encs {
		if err := fn(from+kb.ID(i), enc); err != nil {
			return 0, err
		}
	}
	return upTo, nil
}

// dictView is a consistent view of the fresh terms of a dictionary that
// stays valid without the lock: the arena is append-only, and its chunks
// and refs never change once published (dictarena.go).
type dictView struct {
	base   kb.ID
	n      int
	segs   []*[refSegSize]termRef
	chunks [dictShards][][]byte
}

// encoded returns the encoding of the term with the given ID, which must
// lie in the view; nil for a hole.
func (v *dictView) encoded(id kb.ID) []byte {
	i := int(id - v.base)
	r := v.segs[i/refSegSize][i%refSegSize]
	if r.len == 0 {
		return nil
	}
	c := v.chunks[r.chunk>>refChunkBits][r.chunk&(1<<refChunkBits-1)]
	return c[r.off : r.off+r.len : r.off+r.len]
}

// pendingView returns the IDs from and upTo between which entries are
// allocated but not yet on disk, and a view to read them through.
func (d *dictionary) pendingView() (from, upTo kb.ID, v dictView) {
	d.mu.RLock()
	defer d.mu.RUnlock()
	v = d.view()
	return d.persisted, d.base + kb.ID(v.n), v
}

// appendPending writes the pending dictionary entries to b and returns the
// ID to pass to markPersisted once b is committed.
func (d *dictionary) appendPending(b *pebble.Batch) (kb.ID, error) {
	return d.pending(func(id kb.ID, enc []byte) error {
		var idv [8]byte
		binary.BigEndian.PutUint64(idv[:], uint64(id))
		if err := b.Set(termKey(enc), idv[:], nil); err != nil {
			return err
		}
		return b.Set(idKey(id), enc, nil)
	})
}

func (d *dictionary) markPersisted(upTo kb.ID) {
	d.mu.Lock()
	if upTo > d.persisted {
		d.persisted = upTo
	}
	d.mu.Unlock()
}

// InternsConcurrently implements kb.ConcurrentInterner: Intern is safe on
// several goroutines and copies the terms it keeps (into the arena, or
// cloned into the cache of stored terms), so rdfio.Load interns on all cores
// from its read buffers.
func (s *Store) InternsConcurrently() bool { return true }

// InternsConcurrently implements kb.ConcurrentInterner, as for Store: the
// in-memory store keeps terms only encoded in its dictionary's arena.
func (m *MemStore) InternsConcurrently() bool { return true }

// cloneTerm returns t with strings of its own, so that a cached term keeps
// no caller's buffer alive.
func cloneTerm(t kb.Term) kb.Term {
	t.Value = strings.Clone(t.Value)
	t.Datatype = strings.Clone(t.Datatype)
	t.Lang = strings.Clone(t.Lang)
	return t
}

// Intern implements kb.Dataset.
func (s *Store) Intern(ctx context.Context, terms []kb.Term) ([]kb.ID, error) {
	if err := s.checkOpen(); err != nil {
		return nil, err
	}
	out := make([]kb.ID, len(terms))
	for lo := 0; lo < len(terms); lo += internChunk {
		hi := min(lo+internChunk, len(terms))
		if err := s.intern(terms[lo:hi], out[lo:hi]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// internChunk is how many terms Intern looks up under one hold of the
// dictionary's read lock. A hold blocks a writer that asks for the lock
// (an Intern caching terms read from disk, a commit marking terms saved),
// and every reader behind that writer, such as a query looking up its
// constants: a sensor message of a million terms held it for some 100
// ms, and light queries arriving meanwhile waited as long.
const internChunk = 1 << 14

// intern is Intern for one chunk of terms, their IDs into out. New terms
// are added under the read lock, each under its shard's lock (findOrAdd);
// the write lock is taken only to cache terms found on disk, briefly.
func (s *Store) intern(terms []kb.Term, out []kb.ID) error {
	d := &s.dict
	d.mu.RLock()
	missing := d.lookupBatch(terms, out)
	complete := d.complete()
	if len(missing) == 0 {
		d.mu.RUnlock()
		return nil
	}
	for _, i := range missing {
		if terms[i].IsZero() {
			d.mu.RUnlock()
			return errZeroTerm
		}
	}
	if complete {
		// Every term of the store is fresh, so a term not found is new:
		// add it beside the other Interns, under its shard's lock.
		var enc []byte
		for _, i := range missing {
			// A new subject repeats in the quads after it (see
			// lookupBatch): take the ID just given to it.
			if i >= 4 && out[i-4] != 0 && terms[i] == terms[i-4] {
				out[i] = out[i-4]
				continue
			}
			enc, _ = appendTerm(enc[:0], terms[i])
			out[i] = d.findOrAdd(enc, maphash.Bytes(d.seed, enc))
		}
		d.mu.RUnlock()
		return nil
	}
	d.mu.RUnlock()
	// Terms stored before this process opened the store are on disk only.
	var found map[int]kb.ID
	if s.side != nil {
		var enc []byte
		for _, i := range missing {
			enc, _ = appendTerm(enc[:0], terms[i])
			if id, ok := s.side.lookup(enc); ok {
				if found == nil {
					found = make(map[int]kb.ID)
				}
				found[i] = id
			}
		}
	} else {
		var err error
		if found, err = s.findStoredTerms(terms, missing); err != nil {
			return err
		}
	}
	d.mu.RLock()
	var enc []byte
	for _, i := range missing {
		if id, ok := found[i]; ok {
			out[i] = id
			continue
		}
		// Another Intern may have added it since the lookup.
		enc, _ = appendTerm(enc[:0], terms[i])
		out[i] = d.findOrAdd(enc, maphash.Bytes(d.seed, enc))
	}
	d.mu.RUnlock()
	if len(found) > 0 {
		d.mu.Lock()
		for i, id := range found {
			d.cacheOld(id, cloneTerm(terms[i]))
		}
		d.mu.Unlock()
	}
	return nil
}

// findStoredTerms looks the terms[i], i in missing, up on disk: encoded,
// sorted and probed in key order with one iterator, which is several times
// cheaper than a Get each. It returns the IDs found by index.
func (s *Store) findStoredTerms(terms []kb.Term, missing []int) (map[int]kb.ID, error) {
	type probe struct {
		key []byte
		i   int
	}
	probes := make([]probe, len(missing))
	var arena []byte
	for n, i := range missing {
		start := len(arena)
		arena = append(arena, prefixTerm)
		arena, _ = appendTerm(arena, terms[i])
		probes[n] = probe{key: arena[start:len(arena):len(arena)], i: i}
	}
	// The arena may have moved while growing: re-slice from the offsets.
	off := 0
	for n := range probes {
		l := len(probes[n].key)
		probes[n].key = arena[off : off+l : off+l]
		off += l
	}
	slices.SortFunc(probes, func(a, b probe) int { return bytes.Compare(a.key, b.key) })
	it, err := s.newIter([]byte{prefixTerm}, []byte{prefixTerm + 1})
	if err != nil {
		return nil, err
	}
	var found map[int]kb.ID
	var prev []byte
	var prevID kb.ID
	for _, p := range probes {
		id := prevID
		if !bytes.Equal(p.key, prev) {
			id = 0
			if it.SeekGE(p.key) && bytes.Equal(it.Key(), p.key) {
				v := it.Value()
				if len(v) != 8 {
					s.release(it)
					return nil, errCorruptKey
				}
				id = kb.ID(binary.BigEndian.Uint64(v))
			}
			prev, prevID = p.key, id
		}
		if id != 0 {
			if found == nil {
				found = make(map[int]kb.ID)
			}
			found[p.i] = id
		}
	}
	if err := it.Error(); err != nil {
		s.release(it)
		return nil, fmt.Errorf("native: %w", err)
	}
	return found, s.release(it)
}

func (s *Store) getTermID(enc []byte) (kb.ID, bool, error) {
	v, closer, err := s.db.Get(termKey(enc))
	if errors.Is(err, pebble.ErrNotFound) {
		return 0, false, nil
	}
	if err != nil {
		return 0, false, fmt.Errorf("native: %w", err)
	}
	defer closer.Close()
	if len(v) != 8 {
		return 0, false, errCorruptKey
	}
	return kb.ID(binary.BigEndian.Uint64(v)), true, nil
}

// Lookup implements kb.Dataset.
func (s *Store) Lookup(ctx context.Context, t kb.Term) (kb.ID, bool, error) {
	if err := s.checkOpen(); err != nil {
		return 0, false, err
	}
	enc, err := appendTerm(nil, t)
	if err != nil {
		return 0, false, nil // the zero term is never stored
	}
	d := &s.dict
	h := maphash.Bytes(d.seed, enc)
	d.mu.RLock()
	if j := d.find(enc, h); j >= 0 {
		id := d.base + kb.ID(j)
		d.mu.RUnlock()
		return id, true, nil
	}
	id, ok := d.oldIDs[t]
	complete := d.complete()
	d.mu.RUnlock()
	if ok || complete {
		return id, ok, nil
	}
	if s.side != nil {
		// Every term stored before open is in the mapped dictionary, and
		// every one stored since is fresh (found above).
		id, ok = s.side.lookup(enc)
		return id, ok, nil
	}
	id, ok, err = s.getTermID(enc)
	if err != nil || !ok {
		return 0, false, err
	}
	d.mu.Lock()
	d.cacheOld(id, cloneTerm(t))
	d.mu.Unlock()
	return id, true, nil
}

// Resolve implements kb.Dataset.
func (s *Store) Resolve(ctx context.Context, id kb.ID) (kb.Term, error) {
	if err := s.checkOpen(); err != nil {
		return kb.Term{}, err
	}
	d := &s.dict
	d.mu.RLock()
	if id >= d.base {
		if i := uint64(id - d.base); i < uint64(d.fresh()) {
			enc := d.encoded(int(i))
			d.mu.RUnlock()
			if len(enc) == 0 {
				return kb.Term{}, kb.ErrUnknownID // a hole: see addHole
			}
			return decodeTerm(enc)
		}
		d.mu.RUnlock()
		return kb.Term{}, kb.ErrUnknownID
	}
	t, ok := d.oldTerms[id]
	d.mu.RUnlock()
	if ok {
		return t, nil
	}
	if id == 0 {
		return kb.Term{}, kb.ErrUnknownID
	}
	if enc := s.side.encoded(id); enc != nil {
		return decodeTerm(enc)
	}
	v, closer, err := s.db.Get(idKey(id))
	if errors.Is(err, pebble.ErrNotFound) {
		return kb.Term{}, kb.ErrUnknownID
	}
	if err != nil {
		return kb.Term{}, fmt.Errorf("native: %w", err)
	}
	t, err = decodeTerm(v)
	closer.Close()
	if err != nil {
		return kb.Term{}, err
	}
	d.mu.Lock()
	d.cacheOld(id, t)
	d.mu.Unlock()
	return t, nil
}
