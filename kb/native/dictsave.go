package native

import (
	"encoding/binary"
	mbits "math/bits"

	"github.com/cockroachdb/pebble/v2"

	"github.com/perfkb/perfkb/kb"
)

// Which fresh terms are on disk. A term is written with the first
// committed write whose quads reference it, in the same Pebble batch or
// ingest, and never on its own (not at Close either). So a load or update
// that fails after interning its terms leaves none behind on disk, and
// Stats counts only stored terms: a failed 1M-triple load used to add
// 400,000 terms, and every retry with blank nodes 72,000 more. Terms so
// dropped keep their IDs in this process (a retry of the same file finds
// them again); after a reopen those IDs are holes (see addHole).

// isSavedLocked reports whether id is on disk. The caller holds d.mu.
func (d *dictionary) isSavedLocked(id kb.ID) bool {
	if id < d.savedFrom {
		return true
	}
	i := uint64(id - d.savedFrom)
	w := i / 64
	return w < uint64(len(d.savedBits)) && d.savedBits[w]&(1<<(i%64)) != 0
}

// unsavedIDs returns, ascending and each once, the IDs that each yields
// which are not on disk yet.
func (d *dictionary) unsavedIDs(each func(yield func(kb.ID))) []kb.ID {
	d.mu.RLock()
	defer d.mu.RUnlock()
	limit := d.limitLocked()
	if limit <= d.savedFrom {
		return nil
	}
	need := make([]uint64, (uint64(limit-d.savedFrom)+63)/64)
	any := false
	each(func(id kb.ID) {
		if id >= d.savedFrom && id < limit && !d.isSavedLocked(id) {
			i := uint64(id - d.savedFrom)
			need[i/64] |= 1 << (i % 64)
			any = true
		}
	})
	if !any {
		return nil
	}
	var out []kb.ID
	for w, bits := range need {
		for bits != 0 {
			b := uint64(mbits.TrailingZeros64(bits))
			bits &^= 1 << b
			out = append(out, d.savedFrom+kb.ID(uint64(w)*64+b))
		}
	}
	return out
}

// quadIDs yields the IDs of quads.
func quadIDs(quads []kb.Quad) func(func(kb.ID)) {
	return func(yield func(kb.ID)) {
		for _, q := range quads {
			yield(q.S)
			yield(q.P)
			yield(q.O)
			yield(q.G)
		}
	}
}

// keyIDs32 yields the IDs of keys.
func keyIDs32(keys []key32) func(func(kb.ID)) {
	return func(yield func(kb.ID)) {
		for _, k := range keys {
			yield(kb.ID(k[0]))
			yield(kb.ID(k[1]))
			yield(kb.ID(k[2]))
			yield(kb.ID(k[3]))
		}
	}
}

// markSaved records that ids (from unsavedIDs) were committed.
func (d *dictionary) markSaved(ids []kb.ID) {
	if len(ids) == 0 {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	for _, id := range ids {
		if d.isSavedLocked(id) {
			continue
		}
		i := uint64(id - d.savedFrom)
		for uint64(len(d.savedBits)) <= i/64 {
			d.savedBits = append(d.savedBits, 0)
		}
		d.savedBits[i/64] |= 1 << (i % 64)
		d.stored++
	}
}

// storedTerms returns the number of terms on disk.
func (d *dictionary) storedTerms() int64 {
	d.mu.RLock()
	defer d.mu.RUnlock()
	return d.stored
}

// appendTerms writes the dictionary entries of ids to b.
func (d *dictionary) appendTerms(b *pebble.Batch, ids []kb.ID) error {
	if len(ids) == 0 {
		return nil
	}
	d.mu.RLock()
	encs := make([][]byte, len(ids))
	for i, id := range ids {
		encs[i] = d.encoded(int(id - d.base))
	}
	d.mu.RUnlock()
	// The arena is append-only: the slices stay valid without the lock.
	for i, enc := range encs {
		var idv [8]byte
		binary.BigEndian.PutUint64(idv[:], uint64(ids[i]))
		if err := b.Set(termKey(enc), idv[:], nil); err != nil {
			return err
		}
		if err := b.Set(idKey(ids[i]), enc, nil); err != nil {
			return err
		}
	}
	return nil
}

// termCount is Stats.Terms: the stored terms, or for a store without a
// disk (OpenPebbleMemory) every interned one.
func (s *Store) termCount() int64 {
	if s.memory {
		return int64(s.dict.limit() - 1)
	}
	return s.dict.storedTerms()
}
