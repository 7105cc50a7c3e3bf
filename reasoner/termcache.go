package reasoner

import "github.com/perfkb/perfkb/kb"

// termCache maps IDs to terms in pages of consecutive IDs. Store IDs are
// dense (the native store numbers terms from 1) and a join resolves
// hundreds of thousands of them for its builtins (every object a
// notLiteral test sees): indexing a page found through a small map costs
// one cache miss where a Go map of that many terms costs two or three.
type termCache struct {
	pages map[kb.ID]*termPage
}

// termPageBits sizes a page (256 terms, 14 KiB): small enough that the
// scattered IDs of one predicate's objects waste little.
const termPageBits = 8

type termPage [1 << termPageBits]kb.Term

func newTermCache() termCache { return termCache{pages: map[kb.ID]*termPage{}} }

// get returns the term of id, if cached (a cached term is never zero).
func (c *termCache) get(id kb.ID) (kb.Term, bool) {
	p := c.pages[id>>termPageBits]
	if p == nil {
		return kb.Term{}, false
	}
	t := p[id&(1<<termPageBits-1)]
	return t, t.Kind != 0
}

func (c *termCache) set(id kb.ID, t kb.Term) {
	k := id >> termPageBits
	p := c.pages[k]
	if p == nil {
		p = new(termPage)
		c.pages[k] = p
	}
	p[id&(1<<termPageBits-1)] = t
}
