package kb

import (
	"sync"
	"sync/atomic"
	"unsafe"
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
	// kept supplies pages kept outside the heap (SetKept); keptLimit is
	// the last ID it may answer for, and fresh counts the values Put at
	// or below it since.
	kept      IDColumnKept
	keptLimit ID
	fresh     atomic.Int64
}

// IDColumnPageWords is one page of a column as stored outside the heap:
// for each of its IDColumnPage IDs the word, then the tag (0: no value).
type IDColumnPageWords = [IDColumnPage][2]uint64

// IDColumnKept supplies a column's pages from outside the heap, such as a
// file a store kept from an earlier process.
type IDColumnKept interface {
	// Page returns page pi (the IDs pi*IDColumnPage onwards), or nil
	// where there is none. The column reads it and Puts into its empty
	// slots, so the page must be writable and private to this process;
	// it must hold no value for an ID past the limit given to SetKept.
	Page(pi int) *IDColumnPageWords
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
		if p = c.fromKept(pi); p == nil {
			return 0, 0, false
		}
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
	if c.kept != nil && id <= c.keptLimit {
		c.fresh.Add(1)
	}
	p := c.dir[pi].Load()
	if p == nil {
		p = c.fromKept(pi)
	}
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

// SetKept makes the column read the pages kept supplies for IDs up to
// limit, before any Get or Put: a page it supplies takes the place of an
// empty heap page and does not count against the page limit.
func (c *IDColumn) SetKept(kept IDColumnKept, limit ID) {
	c.kept, c.keptLimit = kept, limit
}

// fromKept installs and returns kept page pi, or nil where there is none.
func (c *IDColumn) fromKept(pi uint64) *idPage {
	if c.kept == nil || pi > uint64(c.keptLimit)>>idPageBits {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if p := c.dir[pi].Load(); p != nil {
		return p
	}
	w := c.kept.Page(int(pi))
	if w == nil {
		return nil
	}
	// idSlot is two uint64 words, word then tag, as a kept page holds them.
	p := (*idPage)(unsafe.Pointer(w))
	c.dir[pi].Store(p)
	return p
}

// Fresh returns how many values Put stored for IDs up to the kept limit
// since SetKept: values a new copy of the kept pages would add.
func (c *IDColumn) Fresh() int64 { return c.fresh.Load() }

// CopyPages calls fn with a copy of every page that holds a value for an
// ID up to limit, in page order, leaving out the values of IDs past limit.
// It may run beside Get and Put; a value Put meanwhile may be left out.
func (c *IDColumn) CopyPages(limit ID, fn func(pi int, page *IDColumnPageWords) error) error {
	var buf IDColumnPageWords
	for pi := uint64(0); pi < uint64(len(c.dir)) && pi <= uint64(limit)>>idPageBits; pi++ {
		p := c.dir[pi].Load()
		if p == nil {
			if p = c.fromKept(pi); p == nil {
				continue
			}
		}
		any := false
		for i := range p {
			id := pi<<idPageBits | uint64(i)
			tag := p[i].tag.Load()
			if tag == 0 || id > uint64(limit) {
				buf[i] = [2]uint64{}
				continue
			}
			buf[i] = [2]uint64{p[i].word.Load(), tag}
			any = true
		}
		if !any {
			continue
		}
		if err := fn(int(pi), &buf); err != nil {
			return err
		}
	}
	return nil
}
