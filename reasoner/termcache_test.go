package reasoner

import (
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestTermCache checks the paged cache against what was put in it, for
// dense IDs, IDs far apart (engine-local ones) and page boundaries.
func TestTermCache(t *testing.T) {
	c := newTermCache()
	want := map[kb.ID]kb.Term{}
	for _, id := range []kb.ID{1, 2, 255, 256, 257, 1000, localBase, localBase + 255, localBase + 256, 1<<40 + 3} {
		tm := kb.Literal("v"+strconv.FormatUint(uint64(id), 10), "")
		c.set(id, tm)
		want[id] = tm
	}
	c.set(2, kb.IRI("urn:x:replaced"))
	want[2] = kb.IRI("urn:x:replaced")
	for _, id := range []kb.ID{0, 1, 2, 3, 254, 255, 256, 257, 258, 999, 1000, 1001, localBase - 1, localBase, localBase + 1, localBase + 255, localBase + 256, 1<<40 + 3} {
		got, ok := c.get(id)
		w, has := want[id]
		if ok != has || got != w {
			t.Errorf("get(%d) = %v, %v; want %v, %v", id, got, ok, w, has)
		}
	}
}
