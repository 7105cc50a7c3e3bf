package kbtest_test

import (
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
)

// The reference store passes the suite it is the reference for.
func TestMemoryDataset(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return kbtest.NewMemory() })
}
