//go:build !otf2

package otf2

import (
	"errors"
	"testing"
)

func TestOpenWithoutTag(t *testing.T) {
	if _, err := Open("x.otf2"); !errors.Is(err, ErrNotBuilt) {
		t.Fatalf("Open without the otf2 tag: %v", err)
	}
}
