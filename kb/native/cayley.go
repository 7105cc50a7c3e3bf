package native

import (
	"context"
	"fmt"
	"math"
	"strings"

	"github.com/cayleygraph/cayley/graph"
	"github.com/cockroachdb/pebble/v2"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/cayleyqs"
)

// CayleyBackend is the name the native store is registered under with
// Cayley: cayley.NewGraph(CayleyBackend, path, nil) opens a native store
// directory ("" opens an empty in-memory store).
const CayleyBackend = "perfkb"

func init() {
	graph.RegisterQuadStore(CayleyBackend, graph.QuadStoreRegistration{
		NewFunc: func(path string, opts graph.Options) (graph.QuadStore, error) {
			if path == "" {
				return cayleyqs.New(OpenPebbleMemory(), cayleyqs.Options{Owned: true}), nil
			}
			ro, err := opts.BoolKey("read_only", false)
			if err != nil {
				return nil, err
			}
			noSync, err := opts.BoolKey("nosync", false)
			if err != nil {
				return nil, err
			}
			s, err := Open(context.Background(), path, Options{ReadOnly: ro, NoSync: noSync})
			if err != nil {
				return nil, err
			}
			if err := s.completeForCayley(context.Background()); err != nil {
				s.Close()
				return nil, err
			}
			return cayleyqs.New(s, cayleyqs.Options{Owned: true}), nil
		},
		InitFunc: func(path string, opts graph.Options) error {
			if path == "" {
				return nil
			}
			s, err := Open(context.Background(), path, Options{})
			if err != nil {
				return err
			}
			return s.Close()
		},
		IsPersistent: true,
	})
}

// Cayley returns a graph.QuadStore over s. Closing it does not close s.
func (s *Store) Cayley() *cayleyqs.QuadStore { return cayleyqs.New(s, cayleyqs.Options{}) }

var (
	_ cayleyqs.CheckedApplier = (*Store)(nil)
	_ cayleyqs.QuadChecker    = (*Store)(nil)
	_ cayleyqs.NodeLister     = (*Store)(nil)
)

// HasQuad implements cayleyqs.QuadChecker.
func (s *Store) HasQuad(ctx context.Context, q kb.Quad) (bool, error) { return s.has(q) }

// ApplyChecked implements cayleyqs.CheckedApplier: the writer lock is held
// across plan's reads and the write.
func (s *Store) ApplyChecked(ctx context.Context, plan func(has func(kb.Quad) (bool, error)) (kb.Delta, error)) error {
	if err := s.wmu.LockCtx(ctx); err != nil {
		return err
	}
	defer s.wmu.Unlock()
	if err := s.checkOpen(); err != nil {
		return err
	}
	d, err := plan(s.has)
	if err != nil || len(d.Add)+len(d.Remove) == 0 {
		return err
	}
	return s.applyLocked(ctx, d)
}

// used reports whether a quad mentions id in any position.
func (s *Store) used(it *pebble.Iterator, id kb.ID) bool {
	if m := s.readSide(); m != nil {
		// Pebble's indexes hold only the base under a delta log.
		for _, p := range []kb.Pattern{{S: id}, {P: id}, {O: id}, {G: id}} {
			var r memRange
			m.ranges(p, &r)
			if r.next() {
				return true
			}
		}
		return false
	}
	for _, k := range []int{0, 1, 2, 3} { // SPOG, POSG, OSPG, GSPO: each position first
		prefix := appendID([]byte{prefixIndex + byte(k)}, id)
		if it.SeekGE(prefix) && strings.HasPrefix(string(it.Key()), string(prefix)) {
			return true
		}
	}
	return false
}

func (s *Store) indexIter() (*pebble.Iterator, error) {
	it, err := s.db.NewIter(&pebble.IterOptions{LowerBound: []byte{prefixIndex}, UpperBound: []byte{prefixIndex + numOrders}})
	if err != nil {
		return nil, fmt.Errorf("native: %w", err)
	}
	return it, nil
}

// HasNode implements cayleyqs.NodeLister.
func (s *Store) HasNode(ctx context.Context, id kb.ID) (bool, error) {
	it, err := s.indexIter()
	if err != nil {
		return false, err
	}
	used := s.used(it, id)
	if err := it.Close(); err != nil {
		return false, fmt.Errorf("native: %w", err)
	}
	return used, nil
}

// Nodes implements cayleyqs.NodeLister: each ID the dictionary issued,
// probed in the indexes.
func (s *Store) Nodes(ctx context.Context) cayleyqs.NodeIterator {
	return &usedNodes{ctx: ctx, s: s}
}

type usedNodes struct {
	ctx   context.Context
	s     *Store
	it    *pebble.Iterator
	next  kb.ID
	limit kb.ID
	cur   kb.ID
	err   error
}

func (u *usedNodes) Next() bool {
	if u.err != nil {
		return false
	}
	if u.it == nil {
		if u.next != 0 {
			return false // closed
		}
		u.it, u.err = u.s.indexIter()
		if u.err != nil {
			return false
		}
		u.next, u.limit = 1, u.s.dict.limit()
	}
	for ; u.next < u.limit; u.next++ {
		if u.next&1023 == 0 {
			if u.err = u.ctx.Err(); u.err != nil {
				return false
			}
		}
		if id := u.next; u.s.used(u.it, id) {
			u.next++
			u.cur = id
			return true
		}
	}
	return false
}

func (u *usedNodes) ID() kb.ID  { return u.cur }
func (u *usedNodes) Err() error { return u.err }
func (u *usedNodes) Close() error {
	if u.it != nil {
		err := u.it.Close()
		u.it = nil
		u.next = math.MaxUint64
		if err != nil {
			return fmt.Errorf("native: %w", err)
		}
	}
	return nil
}
