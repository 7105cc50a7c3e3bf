package main

import (
	"context"
	"fmt"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner"
)

// updateRulesFlags choose whether `query --update` keeps a store's
// derivations in step with its writes, as `serve --rules` does for the
// server's updates: a DELETE must withdraw the derived triples and
// findings that no longer follow, an INSERT derive what newly does.
type updateRulesFlags struct {
	files   []string
	defines []string
	off     bool
}

func (f *updateRulesFlags) bind(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.files, "rules", nil, "with --update: rule file or shipped set the store's inferred graph was made with (default RDFS, OWL, PERFONTO when the store holds derivations); repeatable")
	fs.StringArrayVar(&f.defines, "define", nil, "with --update: override a named constant of the rules, NAME=VALUE (repeatable), as given to reason")
	fs.BoolVar(&f.off, "no-rules", false, "with --update: write only what the update says, leaving derived triples and findings as they are")
}

// check rejects rule flags that cannot apply.
func (f *updateRulesFlags) check(update bool) error {
	if (len(f.files) > 0 || len(f.defines) > 0 || f.off) && !update {
		return usageError(fmt.Errorf("--rules, --define and --no-rules apply to --update only"))
	}
	if f.off && (len(f.files) > 0 || len(f.defines) > 0) {
		return usageError(fmt.Errorf("--no-rules and --rules/--define exclude each other"))
	}
	if len(f.defines) > 0 && len(f.files) == 0 {
		return usageError(fmt.Errorf("--define sets constants of --rules files; give --rules too"))
	}
	return checkRuleSources(f.files)
}

// liveForUpdate returns ds with reasoning on write when the update should
// keep derivations in step: --rules was given, or the store's inferred
// graph holds triples (a store `perfkb reason` has run on) and --no-rules
// was not. It returns ds itself otherwise.
func (f *updateRulesFlags) liveForUpdate(ctx context.Context, ds kb.Dataset) (kb.Dataset, *reasoner.Live, error) {
	if f.off {
		return ds, nil, nil
	}
	if len(f.files) == 0 {
		// The shipped sets, on a store they have run on.
		held, err := holdsDerivations(ctx, ds)
		if err != nil || !held {
			return ds, nil, err
		}
	}
	prog, err := loadRuleProgram(f.files, f.defines)
	if err != nil {
		return nil, nil, err
	}
	live, _, err := reasoner.NewLive(ctx, ds, prog, reasoner.Options{}, nil)
	if err != nil {
		return nil, nil, fmt.Errorf("query --update with rules (--no-rules writes without them): %w", err)
	}
	return live, live, nil
}

// holdsDerivations reports whether the store's inferred graph has a quad.
func holdsDerivations(ctx context.Context, ds kb.Dataset) (bool, error) {
	id, ok, err := ds.Lookup(ctx, kb.InferredGraph)
	if err != nil || !ok {
		return false, err
	}
	it := ds.Match(ctx, kb.Pattern{G: id})
	held := it.Next()
	if err := it.Err(); err != nil {
		it.Close()
		return false, err
	}
	return held, it.Close()
}
