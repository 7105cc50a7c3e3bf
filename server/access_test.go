package server

import (
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
)

// TestQueriesOfFullReadersSeeTheStore: a scope that reads every graph (an
// anonymous reader when reads are open) gets the store itself for a query,
// so evaluation keeps the store's fast paths; its updates still go through
// the write-checking view, and a reader of some graphs gets the view.
func TestQueriesOfFullReadersSeeTheStore(t *testing.T) {
	ds := kbtest.NewMemory()
	reader := readOnlyScope()
	if got := RestrictReads(ds, reader); got != kb.Dataset(ds) {
		t.Errorf("a query of a reader of every graph got %T, want the store itself", got)
	}
	if got := RestrictDataset(ds, reader); got == kb.Dataset(ds) {
		t.Errorf("an update of a read-only scope got the store itself, want the write-checking view")
	}
	some := &Scope{User: "vienna", read: []string{"http://perfkb.example/site/vienna/"}}
	if got := RestrictReads(ds, some); got == kb.Dataset(ds) {
		t.Errorf("a query of a reader of some graphs got the store itself, want the restricted view")
	}
}
