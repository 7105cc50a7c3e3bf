package native

import (
	"context"
	"strings"
	"testing"
)

// TestOpenInUseSaysSo checks that a second open of a store that is already
// open (as when perfkb serve holds it and a CLI command tries to open it)
// explains the problem instead of only "resource temporarily unavailable".
func TestOpenInUseSaysSo(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	first, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer first.Close()
	second, err := Open(ctx, dir, Options{})
	if err == nil {
		second.Close()
		t.Fatal("a second Open of a store that is open succeeded")
	}
	if !strings.Contains(err.Error(), "in use by another perfkb process") {
		t.Errorf("error does not say the store is in use: %v", err)
	}
}
