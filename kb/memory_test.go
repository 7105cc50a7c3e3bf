package kb_test

import (
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
)

func TestMemoryDataset(t *testing.T) {
	kbtest.TestDataset(t, func(t *testing.T) kb.Dataset { return kb.NewMemory() })
}
