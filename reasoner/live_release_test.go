package reasoner

import (
	"context"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
)

// releaseCounter is a store that counts its ReleaseMapped calls.
type releaseCounter struct {
	kb.Dataset
	calls int
}

func (r *releaseCounter) ReleaseMapped() int64 { r.calls++; return 4096 }

// TestLiveReleaseMapped: a Live store offers ReleaseMapped (the interface
// an idle server looks for) and passes each call to the store beneath.
func TestLiveReleaseMapped(t *testing.T) {
	ctx := context.Background()
	type releaser interface{ ReleaseMapped() int64 }
	for _, tc := range []struct {
		name      string
		inner     *releaseCounter // nil: a store without ReleaseMapped
		wantBytes int64
	}{
		{"store that releases", &releaseCounter{Dataset: native.OpenMemory()}, 4096},
		{"store without it", nil, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var ds kb.Dataset = native.OpenMemory()
			if tc.inner != nil {
				ds = tc.inner
			}
			defer ds.Close()
			live, _, err := NewLive(ctx, ds, mustProgram(t, retractBaseRules), Options{}, nil)
			if err != nil {
				t.Fatal(err)
			}
			var wrapped kb.Dataset = live
			r, ok := wrapped.(releaser)
			if !ok {
				t.Fatal("reasoner.Live hides ReleaseMapped")
			}
			if n := r.ReleaseMapped(); n != tc.wantBytes {
				t.Fatalf("ReleaseMapped() = %d, want %d", n, tc.wantBytes)
			}
			if tc.inner != nil && tc.inner.calls != 1 {
				t.Fatalf("store's ReleaseMapped called %d times, want 1", tc.inner.calls)
			}
		})
	}
}
