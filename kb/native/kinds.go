package native

import (
	"sync"

	"github.com/perfkb/perfkb/kb"
)

// kindSummary records which term kinds a dictionary holds, from the tag
// byte of each encoded term, for the IDs below upTo. IDs are never reused
// and a term never changes, so the summary only grows: a later call reads
// the IDs issued since.
type kindSummary struct {
	mu   sync.Mutex
	upTo kb.ID
	has  [tagDirLang + 1]bool // by tag
}

// kindTags are the encoding tags of each kind's terms.
var kindTags = map[kb.TermKind][]byte{
	kb.KindIRI:     {tagIRI},
	kb.KindBlank:   {tagBlank},
	kb.KindTriple:  {tagTriple},
	kb.KindLiteral: {tagString, tagLang, tagKnownType, tagOtherTyped, tagDirLang},
}

// holds answers HoldsKind from encoded(id), which returns an ID's
// encoding or nil (an ID never stored), for the IDs below limit.
func (k *kindSummary) holds(kind kb.TermKind, limit kb.ID, encoded func(kb.ID) []byte) bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id := max(k.upTo, 1); id < limit; id++ {
		if enc := encoded(id); len(enc) > 0 && int(enc[0]) < len(k.has) {
			k.has[enc[0]] = true
		}
	}
	k.upTo = max(k.upTo, limit)
	for _, tag := range kindTags[kind] {
		if k.has[tag] {
			return true
		}
	}
	return false
}

// HoldsKind reports whether the dictionary may hold a term of the kind
// (a term no quad uses any more counts), and known false when it cannot
// tell without reading the dictionary from disk. The query evaluator
// answers FILTER isBlank(?s) over a store without blank nodes with no
// scan at all. The first call reads each term's tag byte once; later
// calls read only the terms interned since.
func (s *Store) HoldsKind(kind kb.TermKind) (holds, known bool) {
	if s.closed.Load() {
		return false, false
	}
	d := &s.dict
	d.mu.RLock()
	base, complete := d.base, d.complete()
	d.mu.RUnlock()
	if !complete && s.side == nil {
		return false, false // stored terms not in memory
	}
	s.seedKinds(base) // statsfile.go: the mapped dictionary's summary, read or computed once
	return s.kinds.holds(kind, d.limit(), func(id kb.ID) []byte {
		if id < base {
			return s.side.encoded(id)
		}
		return dictEncoded(d, id)
	}), true
}

// HoldsKind is Store.HoldsKind: an in-memory store holds every term.
func (m *MemStore) HoldsKind(kind kb.TermKind) (holds, known bool) {
	if m.closed.Load() {
		return false, false
	}
	return m.kinds.holds(kind, m.dict.limit(), func(id kb.ID) []byte { return dictEncoded(&m.dict, id) }), true
}

// dictEncoded returns the arena encoding of a fresh term, or nil.
func dictEncoded(d *dictionary, id kb.ID) []byte {
	d.mu.RLock()
	defer d.mu.RUnlock()
	if id < d.base {
		return nil
	}
	i := uint64(id - d.base)
	if i >= uint64(d.fresh()) {
		return nil
	}
	return d.encoded(int(i))
}
