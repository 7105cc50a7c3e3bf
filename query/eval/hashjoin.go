package eval

import (
	"encoding/binary"
	"fmt"
	"math"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/opt"
)

// Hash semi-, anti- and left joins over IDs.
//
// A basic graph pattern fed a row's bindings yields exactly its solutions
// compatible with the row, so an EXISTS pattern, a MINUS right side (opt
// rewrites MINUS { BGP } as FILTER NOT EXISTS) or an OPTIONAL right side
// that is a BGP can be evaluated either way: fed each row (an index
// lookup per row, cheap for few rows) or once, alone, hashed on the
// variables it shares with the rows (a scan, cheap per row once built).
// The right side of an inner join that is a BGP is handled the same way.
// opt plans both forms (opt.Plan.Alone); the operators below start with
// the fed form and switch to the hashed one after threshold rows, so
// neither a handful of rows pays for a large scan nor a large input pays
// an index lookup per row (on a store whose lookups are in memory only
// small patterns are hashed: see smallHashRows). Keys are the shared variables' IDs, so nothing
// is decoded. A row that leaves a key variable unbound, or binds a
// pattern variable the hash does not key on, takes the fed form.

// hashThreshold is how many rows an operator feeds its pattern one at a
// time before it hashes the pattern evaluated alone (est rows): a lookup
// per row costs about what scanning and hashing 8 rows does.
func hashThreshold(est float64) int64 {
	if hashAfter >= 0 {
		return hashAfter
	}
	if est < 0 {
		est = 0
	}
	return 32 + int64(est/8)
}

// hashAfter, when not negative, replaces hashThreshold's estimate (the
// tests run every query both ways with it).
var hashAfter int64 = -1

// hashKey appends the IDs at slots of r to buf.
func hashKey(buf []byte, r row, slots []int) []byte {
	for _, s := range slots {
		buf = binary.LittleEndian.AppendUint64(buf, uint64(r[s]))
	}
	return buf
}

// hashable reports whether r binds every key slot and none of the
// pattern's other slots (which the hashed form leaves free).
func hashable(r row, keys, free []int) bool {
	for _, s := range keys {
		if r[s] == 0 {
			return false
		}
	}
	for _, s := range free {
		if r[s] != 0 {
			return false
		}
	}
	return true
}

// hashPlan is what the hashed form of a pattern needs: the pattern
// compiled alone, the slots it is keyed on and the slots it leaves free.
type hashPlan struct {
	build     node
	keys      []int // shared slots (bound by the rows), sorted
	free      []int // the pattern's other slots
	threshold int64
	fed       int64   // rows fed so far
	est       float64 // estimated rows of the alone form; <0 unknown
	asked     bool    // the store's lookups have been looked at
	text      string
	// anyFree: a row may bind the pattern's free slots too (a left join
	// tests each candidate for compatibility; a key set cannot).
	anyFree bool
}

// compileHashPlan compiles the alone form of a pattern (opt.Plan.Alone)
// whose rows may bind the slots in bound; keys are restricted to keyable
// (nil: any slot in bound).
func (ex *executor) compileHashPlan(alone *algebra.BGP, sc scope, bound, keyable varSet) (*hashPlan, error) {
	build, err := ex.compile(alone, scope{seed: varSet{}, graph: sc.graph})
	if err != nil {
		return nil, err
	}
	est := -1.0
	if bp := ex.plan.BGP(alone); bp != nil {
		est = bp.Rows
	}
	h := &hashPlan{build: build, threshold: hashThreshold(est), est: est}
	var names []string
	vars := ex.maybe(alone)
	for s := 0; s < ex.vars.n(); s++ {
		if !vars[s] || ex.vars.hidden[s] {
			continue
		}
		if bound[s] && (keyable == nil || keyable[s]) {
			h.keys = append(h.keys, s)
			names = append(names, ex.vars.names[s].String())
		} else {
			h.free = append(h.free, s)
		}
	}
	h.text = strings.Join(names, " ")
	return h, nil
}

// hashRight returns the hashed form of right, the right side of a join or
// an OPTIONAL over left, when opt planned one (nil otherwise): keyed on
// the variables every left row binds, each candidate then tested for
// compatibility on the others.
func (ex *executor) hashRight(left, right algebra.Op, sc scope) (*hashRight, error) {
	alone := ex.plan.Alone(right)
	if alone == nil {
		return nil, nil
	}
	h, err := ex.compileHashPlan(alone, sc, sc.seed.union(ex.maybe(left)), ex.slots(opt.Certain(left)))
	if err != nil || len(h.keys) == 0 {
		return nil, err
	}
	h.anyFree = true
	return &hashRight{hashPlan: h}, nil
}

// smallHashRows bounds the alone form hashed over a store with cheap
// lookups (kb.MemoryLookups: an in-memory read side): there a lookup per
// row costs less than building a large hash table of fresh rows (measured
// on the Sparqloscope OPTIONAL and EXISTS queries: up to 2-6 times
// slower hashed), while a table this small stays in cache and beats the
// lookups.
const smallHashRows = 1 << 14

// use reports whether row r takes the hashed form: the threshold has been
// passed and r binds exactly the key slots of the pattern.
func (h *hashPlan) use(ex *executor, r row) bool {
	if !h.asked {
		// Asked at the first row, when the store has started reading
		// (a native store builds its read side then).
		h.asked = true
		if hashAfter < 0 && (h.est < 0 || h.est > smallHashRows) && ex.cheapLookups() {
			h.threshold = math.MaxInt64
		}
		if hashAfter < 0 && ex.roundTrips() {
			h.threshold = roundTripThreshold(h.est)
		}
	}
	if h.fed < h.threshold {
		h.fed++
		return false
	}
	if h.anyFree {
		return hashable(r, h.keys, nil)
	}
	return hashable(r, h.keys, h.free)
}

// cheapLookups reports whether the store answers bound lookups from
// memory: an in-memory read side (kb.MemoryLookups) or a kb.QuadSource.
func (ex *executor) cheapLookups() bool {
	if ex.source != nil {
		return true
	}
	m, ok := ex.ds.(kb.MemoryLookups)
	return ok && m.MemoryLookups()
}

// describe names the hashed form for explain.
func (h *hashPlan) describe() string {
	if h.threshold == math.MaxInt64 {
		return "fed each row (store lookups are cheaper than hashing it)"
	}
	if len(h.keys) == 0 {
		return fmt.Sprintf("hashed alone after %d rows, no shared variable", h.threshold)
	}
	return fmt.Sprintf("hashed alone on %s after %d rows", h.text, h.threshold)
}

// keySet is the set of a pattern's keys, one per active graph.
type keySet struct {
	one  map[kb.ID]struct{} // one key slot
	many map[string]struct{}
}

func (k *keySet) has(ex *executor, r row, keys []int) bool {
	if k.one != nil {
		_, ok := k.one[r[keys[0]]]
		return ok
	}
	ex.keyBuf = hashKey(ex.keyBuf[:0], r, keys)
	_, ok := k.many[string(ex.keyBuf)]
	return ok
}

// semiJoin decides [NOT] EXISTS { BGP } by a hash semi-join once the
// pattern has been fed threshold rows.
type semiJoin struct {
	*hashPlan
	sets map[string]*keySet // by active graph (hidden slots)
}

// test reports whether the pattern has a solution compatible with r,
// and false for decided when r must take the fed form.
func (j *semiJoin) test(ex *executor, r row) (found, decided bool, err error) {
	if !j.use(ex, r) {
		return false, false, nil
	}
	seed, gkey := hiddenSeed(ex, r)
	set, ok := j.sets[gkey]
	if !ok {
		if set, err = j.buildSet(ex, seed); err != nil {
			return false, false, err
		}
		if j.sets == nil {
			j.sets = map[string]*keySet{}
		}
		j.sets[gkey] = set
	}
	return set.has(ex, r, j.keys), true, nil
}

func (j *semiJoin) buildSet(ex *executor, seed row) (*keySet, error) {
	set := &keySet{}
	one := len(j.keys) == 1
	if one {
		set.one = map[kb.ID]struct{}{}
	} else {
		set.many = map[string]struct{}{}
	}
	var buf []byte
	err := runInner(ex, j.build, seed, func(r row) error {
		if one {
			if _, dup := set.one[r[j.keys[0]]]; !dup {
				// Kept until the query ends (the set is cached).
				if err := ex.mem.charge(idSetBytes(8, 0), "EXISTS, NOT EXISTS or MINUS"); err != nil {
					return err
				}
				set.one[r[j.keys[0]]] = struct{}{}
			}
		} else {
			buf = hashKey(buf[:0], r, j.keys)
			if _, dup := set.many[string(buf)]; !dup {
				if err := ex.mem.charge(keyBytes(len(j.keys), 0), "EXISTS, NOT EXISTS or MINUS"); err != nil {
					return err
				}
				set.many[string(buf)] = struct{}{}
			}
		}
		return ex.check()
	})
	if err != nil {
		return nil, err
	}
	return set, ctxErr(ex.ctx)
}

// rowTable is a pattern's rows hashed on its key slots, one per active
// graph.
type rowTable struct {
	one  map[kb.ID][]row
	many map[string][]row
}

func (t *rowTable) lookup(ex *executor, r row, keys []int) []row {
	if t.one != nil {
		return t.one[r[keys[0]]]
	}
	ex.keyBuf = hashKey(ex.keyBuf[:0], r, keys)
	return t.many[string(ex.keyBuf)]
}

// hashRight is the hashed form of the right side of a join or an
// OPTIONAL.
type hashRight struct {
	*hashPlan
	tables map[string]*rowTable
}

// table returns the hashed right side for left row l, or nil when l must
// take the fed form.
func (h *hashRight) table(ex *executor, l row) (*rowTable, error) {
	if !h.use(ex, l) {
		return nil, nil
	}
	seed, gkey := hiddenSeed(ex, l)
	if t, ok := h.tables[gkey]; ok {
		return t, nil
	}
	t := &rowTable{}
	one := len(h.keys) == 1
	if one {
		t.one = map[kb.ID][]row{}
	} else {
		t.many = map[string][]row{}
	}
	var buf []byte
	err := runInner(ex, h.build, seed, func(r row) error {
		// Kept until the query ends (the table is cached).
		if err := ex.mem.charge(rowBytes(len(r))+idSetBytes(8, sliceHeader), "a hash join's right side (join or OPTIONAL)"); err != nil {
			return err
		}
		if one {
			t.one[r[h.keys[0]]] = append(t.one[r[h.keys[0]]], r)
		} else {
			buf = hashKey(buf[:0], r, h.keys)
			t.many[string(buf)] = append(t.many[string(buf)], r)
		}
		return ex.check()
	})
	if err != nil {
		return nil, err
	}
	if err := ctxErr(ex.ctx); err != nil {
		return nil, err
	}
	if h.tables == nil {
		h.tables = map[string]*rowTable{}
	}
	h.tables[gkey] = t
	return t, nil
}
