package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner"
)

// liveStore returns ds with reasoning on write when --rules names rule
// files: the rules are run to their closure once, at start, and every
// write after that (SPARQL updates, Graph Store writes, rule runs) derives
// what follows from it or withdraws what no longer does, in the same
// store change, and tells the findings streams at once.
func (f *serveRulesFlags) liveStore(ctx context.Context, app *App, ds kb.Dataset, logger *slog.Logger) (kb.Dataset, error) {
	if len(f.live) == 0 {
		if len(f.defines) > 0 {
			return nil, usageError(fmt.Errorf("--define sets constants of --rules files; give --rules too"))
		}
		return ds, nil
	}
	prog, err := loadRuleProgram(f.live, f.defines)
	if err != nil {
		return nil, err
	}
	opts := f.opts
	// The engine lives as long as the server, its working memory with it,
	// and the heap grows with the server's other work: the per-run bounds
	// of POST /rules/run do not apply.
	opts.MaxDerived, opts.MemoryBudget = 0, -1
	live, sum, err := reasoner.NewLive(ctx, ds, prog, opts, nil)
	if err != nil {
		return nil, fmt.Errorf("serve --rules: %w", err)
	}
	logger.Info("rules kept in step with writes", "rules", sum.Rules, "loaded", sum.Loaded, "derived_at_start", sum.Derived)
	fmt.Fprintf(app.Stderr, "rules: %d rules over %d triples, %d derived at start; writes keep them in step\n", sum.Rules, sum.Loaded, sum.Derived)
	return live, nil
}
