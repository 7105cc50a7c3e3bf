package native

import (
	"bytes"
	"encoding/binary"
	"fmt"

	"github.com/cockroachdb/pebble/v2"
)

// A bulk load (or large Apply) at least as large as the store it goes into
// rewrites the whole store: each index table holds the stored quads and
// the new ones, the dictionary and counter tables every entry, and one
// IngestAndExcise replaces everything with them. Pebble puts a table that
// lies inside the excised span in the bottom level, so nothing is left in
// L0 and nothing is compacted afterwards. A plain ingest of tables that
// overlap what is stored (the ontology's few thousand quads written just
// before a load are enough, and they are still in the memtable) lands in
// L0, and compacting it rewrote every key of the load a second time: 40 %
// of a 1M-triple load's CPU time. Rewriting the stored part costs at most
// as much as the load itself, and less than the compaction it replaces.

// wholeStore is the excised span of a rewrite: every key the store writes
// (canRewrite checks that no other key exists).
var wholeStore = pebble.KeyRange{Start: []byte{0x00}, End: []byte{0xff}}

// canRewrite says whether this store can be rewritten in one
// IngestAndExcise: it is writable, its format supports an excise that waits
// for the memtable, and every stored key has a prefix the rewrite copies.
func (s *Store) canRewrite() bool {
	if s.readOnly || s.db.FormatMajorVersion() < pebble.FormatFlushableIngestExcises {
		return false
	}
	it, err := s.db.NewIter(nil)
	if err != nil {
		return false
	}
	defer it.Close()
	for ok := it.First(); ok; {
		p := it.Key()[0]
		switch {
		case p >= prefixIndex && p < prefixIndex+numOrders:
			ok = it.SeekGE([]byte{prefixIndex + numOrders})
		case p == prefixCounter || p == prefixID || p == prefixLog || p == prefixMeta || p == prefixTerm:
			ok = it.SeekGE([]byte{p + 1})
		default:
			return false
		}
	}
	return it.Error() == nil
}

// writeMerged writes one table of the keys with prefix: those next yields
// (in ascending order), and with whole also the stored ones, a yielded key
// replacing a stored one that is equal. each, when not nil, is given every
// entry written, in order. It returns "" when there is nothing to write.
func (s *Store) writeMerged(prefix byte, whole bool, next func() (k, v []byte, ok bool), each func(k, v []byte) error) (string, error) {
	return s.writeMergedRange(prefix, []byte{prefix}, []byte{prefix + 1}, whole, next, each)
}

// writeMergedRange is writeMerged for the keys in [lower, upper) only: next
// yields keys in that range, and with whole the stored keys in it are
// merged in. Tables of ranges that do not overlap are written side by side.
func (s *Store) writeMergedRange(prefix byte, lower, upper []byte, whole bool, next func() (k, v []byte, ok bool), each func(k, v []byte) error) (string, error) {
	var old *pebble.Iterator
	oldOK := false
	if whole {
		var err error
		old, err = s.db.NewIter(&pebble.IterOptions{LowerBound: lower, UpperBound: upper})
		if err != nil {
			return "", fmt.Errorf("native: %w", err)
		}
		defer old.Close()
		oldOK = old.First()
	}
	k, v, ok := next()
	if !ok && !oldOK {
		if old != nil {
			if err := old.Error(); err != nil {
				return "", fmt.Errorf("native: %w", err)
			}
		}
		return "", nil
	}
	w, path, err := s.newTable(prefix == prefixTerm)
	if err != nil {
		return "", err
	}
	fail := func(err error) (string, error) {
		w.Close()
		return path, fmt.Errorf("native: %w", err)
	}
	for ok || oldOK {
		if oldOK && (!ok || bytes.Compare(old.Key(), k) < 0) {
			if each != nil {
				if err := each(old.Key(), old.Value()); err != nil {
					return fail(err)
				}
			}
			if err := w.Set(old.Key(), old.Value()); err != nil {
				return fail(err)
			}
			oldOK = old.Next()
			continue
		}
		if oldOK && bytes.Equal(old.Key(), k) {
			oldOK = old.Next()
		}
		if each != nil {
			if err := each(k, v); err != nil {
				return fail(err)
			}
		}
		if err := w.Set(k, v); err != nil {
			return fail(err)
		}
		k, v, ok = next()
	}
	if old != nil {
		if err := old.Error(); err != nil {
			return fail(err)
		}
	}
	if err := w.Close(); err != nil {
		return path, fmt.Errorf("native: %w", err)
	}
	return path, nil
}

// writeMetaTable copies the stored meta keys (the format version) into a
// table of a rewrite: with partial, the version says that Pebble holds
// only the SPOG index (partial.go); without, a partial store's version
// goes back to formatVersionLog, since the rewrite writes every index.
func (s *Store) writeMetaTable(partial bool) (string, error) {
	version := uint64(0)
	switch {
	case partial:
		version = formatVersionPartial
	case s.partial.Load():
		version = formatVersionLog
	}
	done := version == 0
	return s.writeMerged(prefixMeta, true, func() ([]byte, []byte, bool) {
		if done {
			return nil, nil, false
		}
		done = true
		return metaVersionKey, binary.AppendUvarint(nil, version), true
	}, nil)
}
