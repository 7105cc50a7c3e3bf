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
