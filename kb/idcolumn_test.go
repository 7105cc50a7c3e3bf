package kb

import (
	"sync"
	"testing"
)

// TestIDColumn checks that a column answers what Put stored and nothing
// else, keeps no more pages than its limit, and drops IDs past its
// directory.
func TestIDColumn(t *testing.T) {
	c := NewIDColumn(2)
	if _, _, ok := c.Get(5); ok {
		t.Fatal("an empty column answered ID 5")
	}
	steps := []struct {
		id        ID
		word, tag uint64
		kept      bool
	}{
		{5, 42, 1, true},
		{6, 0, 3, true},                 // a zero word is a value
		{7, 9, 0, false},                // tag 0 marks an empty slot
		{IDColumnPage + 1, 7, 2, true},  // the second page
		{3 * IDColumnPage, 8, 2, false}, // a third page: past the limit
		{1 << 40, 1, 1, false},          // past the directory
	}
	for _, s := range steps {
		if got := c.Put(s.id, s.word, s.tag); got != s.kept {
			t.Errorf("Put(%d): kept %v, want %v", s.id, got, s.kept)
		}
	}
	for _, s := range steps {
		w, tag, ok := c.Get(s.id)
		if ok != s.kept || (ok && (w != s.word || tag != s.tag)) {
			t.Errorf("Get(%d) = %d, %d, %v; want %d, %d, %v", s.id, w, tag, ok, s.word, s.tag, s.kept)
		}
	}
	if _, _, ok := c.Get(4); ok {
		t.Error("ID 4, on a page with values, answered without a Put")
	}
	if c.Pages() != 2 {
		t.Errorf("%d pages, want 2", c.Pages())
	}
}

// TestIDColumnConcurrent fills one column from several goroutines while
// others read it (run with -race): a reader sees either nothing or the
// value, never a tag without its word.
func TestIDColumnConcurrent(t *testing.T) {
	c := NewIDColumn(64)
	const n = 4 * IDColumnPage
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(2)
		go func() {
			defer wg.Done()
			for id := ID(w); id < n; id += 4 {
				c.Put(id, uint64(id)*3, 2)
			}
		}()
		go func() {
			defer wg.Done()
			for id := ID(0); id < n; id++ {
				if word, tag, ok := c.Get(id); ok && (word != uint64(id)*3 || tag != 2) {
					t.Errorf("Get(%d) = %d, %d", id, word, tag)
					return
				}
			}
		}()
	}
	wg.Wait()
	for id := ID(0); id < n; id++ {
		if word, _, ok := c.Get(id); !ok || word != uint64(id)*3 {
			t.Fatalf("after the writers: Get(%d) = %d, %v", id, word, ok)
		}
	}
}

// testKept supplies page 0 with a value for ID 3 and nothing else.
type testKept struct{ calls int }

func (k *testKept) Page(pi int) *IDColumnPageWords {
	k.calls++
	if pi != 0 {
		return nil
	}
	p := new(IDColumnPageWords)
	p[3] = [2]uint64{33, 1}
	return p
}

// TestIDColumnKept checks that a column reads kept pages once, Puts
// into them without using its page limit, counts fresh values only up
// to the kept limit, and copies out only values up to a limit.
func TestIDColumnKept(t *testing.T) {
	c := NewIDColumn(1)
	k := &testKept{}
	c.SetKept(k, IDColumnPage+10)
	if w, _, ok := c.Get(3); !ok || w != 33 {
		t.Fatalf("Get(3) = %d, %v; want the kept 33", w, ok)
	}
	if !c.Put(4, 44, 1) || c.Pages() != 0 {
		t.Fatalf("Put(4) into the kept page: %d heap pages, want 0", c.Pages())
	}
	if !c.Put(IDColumnPage+20, 5, 1) { // past the kept limit: a heap page
		t.Fatal("Put past the kept limit kept nothing")
	}
	if c.Fresh() != 1 {
		t.Fatalf("Fresh() = %d, want 1 (ID 4; the other is past the kept limit)", c.Fresh())
	}
	if k.calls != 2 { // page 0, then page 1 for the Put
		t.Fatalf("kept pages asked %d times, want 2", k.calls)
	}
	got := map[ID]uint64{}
	if err := c.CopyPages(IDColumnPage+10, func(pi int, p *IDColumnPageWords) error {
		for i, v := range p {
			if v[1] != 0 {
				got[ID(pi*IDColumnPage+i)] = v[0]
			}
		}
		return nil
	}); err != nil {
		t.Fatal(err)
	}
	want := map[ID]uint64{3: 33, 4: 44}
	if len(got) != len(want) || got[3] != 33 || got[4] != 44 {
		t.Fatalf("CopyPages gave %v, want %v", got, want)
	}
}
