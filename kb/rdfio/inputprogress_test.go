package rdfio_test

import (
	"context"
	"os"
	"testing"

	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestLoadFileInputProgress: LoadFile reports the bytes it has read of the
// file, never going back, and ends at the file's size from os.Stat.
func TestLoadFileInputProgress(t *testing.T) {
	const path = "testdata/sample.nt"
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	var last, size int64
	calls := 0
	opts := rdfio.LoadOptions{InputProgress: func(read, total int64) {
		calls++
		if read < last {
			t.Errorf("read went back from %d to %d", last, read)
		}
		last, size = read, total
	}}
	if _, err := rdfio.LoadFile(context.Background(), kbtest.NewMemory(), path, opts); err != nil {
		t.Fatal(err)
	}
	if calls == 0 || last != fi.Size() || size != fi.Size() {
		t.Errorf("%d reports, last %d of %d; want the file's %d bytes", calls, last, size, fi.Size())
	}
}
