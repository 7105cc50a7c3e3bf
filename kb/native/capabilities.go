package native

import "github.com/perfkb/perfkb/kb"

// The optional kb capabilities the native stores declare; kb/kbtest checks
// each contract (native_test.go, mem_test.go, readside_test.go).
var (
	_ kb.TermTable          = (*Store)(nil)
	_ kb.QuadScanner        = (*Store)(nil)
	_ kb.MemoryLookups      = (*Store)(nil)
	_ kb.PredicateStats     = (*Store)(nil)
	_ kb.GraphLast          = (*Store)(nil)
	_ kb.ConcurrentInterner = (*Store)(nil)

	_ kb.TermTable          = (*MemStore)(nil)
	_ kb.QuadScanner        = (*MemStore)(nil)
	_ kb.MemoryLookups      = (*MemStore)(nil)
	_ kb.PredicateStats     = (*MemStore)(nil)
	_ kb.GraphLast          = (*MemStore)(nil)
	_ kb.ConcurrentInterner = (*MemStore)(nil)
)
