package eval

import (
	"context"

	"github.com/perfkb/perfkb/kb"
)

// tempBit marks IDs issued by the per-query side dictionary for computed
// terms the store does not know. Store IDs never have it set.
const tempBit kb.ID = 1 << 63

func isTemp(id kb.ID) bool { return id&tempBit != 0 }

// dictionary maps terms to IDs for one query: store IDs for terms the store
// knows (looked up, never interned, so a read leaves the store unchanged)
// and temporary IDs for the others. Each term has exactly one ID within a
// query, so joins and DISTINCT can compare IDs. It caches decoded terms.
type dictionary struct {
	ctx   context.Context
	ds    kb.Dataset
	table kb.TermTable      // ds as a kb.TermTable, or nil
	terms map[kb.ID]kb.Term // decode cache and temp terms
	ids   map[kb.Term]kb.ID // encode cache
	next  kb.ID
	// mem is the query's memory budget: temporary terms and the encode
	// cache are charged (rows hold their IDs, so they cannot be dropped);
	// the decode cache only grows while the budget has room (tryCharge).
	mem *memBudget
	// lastID and lastTerm are the last term TermOf decoded.
	lastID   kb.ID
	lastTerm kb.Term
}

func newDictionary(ctx context.Context, ds kb.Dataset) *dictionary {
	table, _ := ds.(kb.TermTable)
	return &dictionary{ctx: ctx, ds: ds, table: table, terms: map[kb.ID]kb.Term{}, ids: map[kb.Term]kb.ID{}, next: tempBit}
}

// term decodes an ID (0 gives the zero Term).
func (d *dictionary) term(id kb.ID) (kb.Term, error) {
	if id == 0 {
		return kb.Term{}, nil
	}
	if d.table != nil && !isTemp(id) {
		if id == d.lastID {
			return d.lastTerm, nil // AVG(?v) and MAX(?v) decode ?v twice a row
		}
		if t, ok := d.table.TermOf(id); ok {
			d.lastID, d.lastTerm = id, t
			return t, nil
		}
	}
	if t, ok := d.terms[id]; ok {
		return t, nil
	}
	t, err := d.ds.Resolve(d.ctx, id)
	if err != nil {
		return kb.Term{}, err
	}
	if len(d.terms) < 1<<20 && d.mem.tryCharge(idSetBytes(8, termBytes(t))) {
		d.terms[id] = t
	}
	return t, nil
}

// id encodes a term, issuing a temporary ID when the store does not know it.
func (d *dictionary) id(t kb.Term) (kb.ID, error) {
	if t.IsZero() {
		return 0, nil
	}
	if id, ok := d.ids[t]; ok {
		return id, nil
	}
	id, ok, err := d.ds.Lookup(d.ctx, t)
	if err != nil {
		return 0, err
	}
	cost := idSetBytes(termSize, 8) + int64(len(t.Value)+len(t.Lang))
	if !ok {
		cost += idSetBytes(8, termSize)
	}
	if err := d.mem.charge(cost, "terms not in the store (VALUES, BIND, expressions)"); err != nil {
		return 0, err
	}
	if !ok {
		d.next++
		id = d.next
		d.terms[id] = t
	}
	d.ids[t] = id
	return id, nil
}

// lookup returns the store ID of t, or false when the store lacks it.
func (d *dictionary) lookup(t kb.Term) (kb.ID, bool, error) {
	id, err := d.id(t)
	if err != nil || isTemp(id) {
		return 0, false, err
	}
	return id, true, nil
}
