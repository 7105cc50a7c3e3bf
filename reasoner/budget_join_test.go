package reasoner

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestCrossProductRuleIsBounded reproduces the hardening issue's item 9:
// a two-pattern rule whose patterns share no variable derives the cross
// product of the store (1,500 subjects: 2.25 million triples, hundreds of
// MB of pending derivations within one round), and the memory budget was
// only checked between rounds. The run must stop with ErrMemoryBudget
// while the heap has grown by a small multiple of the 16 MiB budget, not
// by the whole round.
func TestCrossProductRuleIsBounded(t *testing.T) {
	var b strings.Builder
	for i := range 1500 {
		fmt.Fprintf(&b, "ex:s%d ex:v %d .\n", i, i)
	}
	ds := loadTurtle(t, b.String())

	const budget = 16 << 20
	start := heapBytes()
	var peak atomic.Int64
	done := make(chan struct{})
	sampled := make(chan struct{})
	go func() {
		defer close(sampled)
		for {
			if g := int64(heapBytes()) - int64(start); g > peak.Load() {
				peak.Store(g)
			}
			select {
			case <-done:
				return
			case <-time.After(2 * time.Millisecond):
			}
		}
	}()
	_, err := Run(context.Background(), ds, mustProgram(t, `[pair: (?a ex:v ?x) (?b ex:v ?y) -> (?a ex:pair ?b)]`), Options{MemoryBudget: budget, NoDerivations: true})
	close(done)
	<-sampled

	if !errors.Is(err, ErrMemoryBudget) {
		t.Fatalf("err = %v, want ErrMemoryBudget", err)
	}
	if p := peak.Load(); p > 8*budget {
		t.Errorf("the heap grew by %d MiB before the %d MiB budget stopped the run", p>>20, budget>>20)
	}
}
