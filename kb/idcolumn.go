package kb

import (
	"sync"
	"sync/atomic"
)

// IDColumn is a table of one value per term ID, filled lazily by its user:
// Get misses until Put stores the ID's value, and from then on answers
// without decoding the term. A store whose IDs are never reissued and
// whose terms never change (the native stores) keeps one column per name
// for its lifetime, so a value computed from a term once serves every later
// query. The query evaluator keeps each term's numeric value in one, so an
// AVG over 30,000 metric values parses no number it parsed before.
//
// A value is two words: a word the user chooses (the bits of a number) and
// a tag, which must not be 0 (0 marks an empty slot). Values live in pages
// of IDColumnPage IDs allocated on first Put; a column allocates at most
// its page limit, and Put past it keeps nothing, so memory stays bounded
// whatever the store's size. IDs at or past IDColumnPage times the
// directory size are never kept. Get and Put are safe for concurrent use;
// two Puts of one ID must store the same value (a function of the term).
type IDColumn struct {
	maxPages int
	mu       sync.Mutex // serialises page allocation
	pages    int        // allocated, under mu
	dir      []atomic.Pointer[idPage]
}

// IDColumnPage is how many IDs one page of an IDColumn holds.
const IDColumnPage = 1 << idPageBits

const (
	idPageBits = 12
	idDirSize  = 1 << 15 // IDs below 2^27
)

type idPage [IDColumnPage]idSlot

// idSlot holds a value: word first, then the tag that publishes it.
type idSlot struct {
	word atomic.Uint64
	tag  atomic.Uint64
}

// NewIDColumn returns an empty column that allocates at most maxPages
// pages of IDColumnPage values (16 bytes each).
func NewIDColumn(maxPages int) *IDColumn {
	return &IDColumn{maxPages: maxPages, dir: make([]atomic.Pointer[idPage], idDirSize)}
}

// Get returns the value Put stored for id; ok is false when there is none.
func (c *IDColumn) Get(id ID) (word, tag uint64, ok bool) {
	pi := uint64(id) >> idPageBits
	if pi >= uint64(len(c.dir)) {
		return 0, 0, false
	}
	p := c.dir[pi].Load()
	if p == nil {
		return 0, 0, false
	}
	s := &p[id&(IDColumnPage-1)]
	// The tag is stored after the word, so a tag seen means its word is.
	if tag = s.tag.Load(); tag == 0 {
		return 0, 0, false
	}
	return s.word.Load(), tag, true
}

// Put stores id's value (tag must not be 0) where the column has room,
// and reports whether it did.
func (c *IDColumn) Put(id ID, word, tag uint64) bool {
	pi := uint64(id) >> idPageBits
	if tag == 0 || pi >= uint64(len(c.dir)) {
		return false
	}
	p := c.dir[pi].Load()
	if p == nil {
		c.mu.Lock()
		if p = c.dir[pi].Load(); p == nil {
			if c.pages >= c.maxPages {
				c.mu.Unlock()
				return false
			}
			p = new(idPage)
			c.pages++
			c.dir[pi].Store(p)
		}
		c.mu.Unlock()
	}
	s := &p[id&(IDColumnPage-1)]
	s.word.Store(word)
	s.tag.Store(tag)
	return true
}

// Pages returns how many pages the column has allocated.
func (c *IDColumn) Pages() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pages
}
