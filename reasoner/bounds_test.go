package reasoner

import (
	"context"
	"errors"
	"strings"
	"testing"
)

// TestRunawayTermsAndMemoryAreBounded reproduces the hardening issue's
// item 8: a two-line strConcat rule that doubles a string every round ran
// the process out of memory.
func TestRunawayTermsAndMemoryAreBounded(t *testing.T) {
	ctx := context.Background()
	doubling := `[double: (?s ex:text ?t) strConcat(?t, ?t, ?u) -> (?s ex:text ?u)]`
	t.Run("term size", func(t *testing.T) {
		ds := loadTurtle(t, `ex:a ex:text "ab" .`)
		_, err := Run(ctx, ds, mustProgram(t, doubling), Options{MaxTermBytes: 4096})
		if !errors.Is(err, ErrTermTooLarge) {
			t.Fatalf("err = %v, want ErrTermTooLarge", err)
		}
	})
	t.Run("default term size", func(t *testing.T) {
		ds := loadTurtle(t, `ex:a ex:text "ab" .`)
		_, err := Run(ctx, ds, mustProgram(t, doubling), Options{})
		if !errors.Is(err, ErrTermTooLarge) {
			t.Fatalf("err = %v, want ErrTermTooLarge under the default limit", err)
		}
	})
	t.Run("memory budget", func(t *testing.T) {
		// Many distinct medium-sized terms: each is under the term limit,
		// together they pass a small budget.
		ds := loadTurtle(t, `ex:a ex:next ex:b .`)
		grow := `[grow: (?x ex:next ?y) makeTemp(?z) -> (?y ex:next ?z)]
[pad: (?x ex:next ?y) strConcat(?y, "` + strings.Repeat("x", 30000) + `", ?p) -> (?y ex:pad ?p)]`
		_, err := Run(ctx, ds, mustProgram(t, grow), Options{MemoryBudget: 8 << 20, NoDerivations: true})
		if !errors.Is(err, ErrMemoryBudget) {
			t.Fatalf("err = %v, want ErrMemoryBudget", err)
		}
	})
}

// TestFunctorWithVariablesInBodyIsAnError reproduces item 11: a functor
// with a variable in a body pattern panicked the compiler.
func TestFunctorWithVariablesInBodyIsAnError(t *testing.T) {
	_, err := ParseProgram("f.rules", []byte("[r: (?s <http://e/p> f(?o)), (?s <http://e/q> ?o) -> (?s <http://e/r> ?o)]"), ParseOptions{})
	if err == nil || !strings.Contains(err.Error(), "f.rules:1:22") || !strings.Contains(err.Error(), "functor") {
		t.Fatalf("err = %v, want a positioned functor error", err)
	}
}
