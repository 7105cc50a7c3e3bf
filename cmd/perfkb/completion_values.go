package main

import (
	"context"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/store"
	"github.com/perfkb/perfkb/rules"
)

// knownFormats are the format names any subcommand's --format may take;
// each command completes the ones its flag's help text names, so new
// subcommands get value completion without registering anything.
var knownFormats = []string{"json", "xml", "csv", "tsv", "table", "ntriples", "nquads", "turtle", "rdfxml", "text", "trig", "jsonld"}

// addValueCompletions registers shell completion of flag values on every
// command below root: --format (the values its help names), --rules (the
// shipped rule sets, then files) and --graph (the store's graphs).
func addValueCompletions(app *App, root *cobra.Command) {
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if f := c.Flags().Lookup("format"); f != nil {
			var values []string
			words := strings.FieldsFunc(strings.ToLower(f.Usage), func(r rune) bool {
				return !(r >= 'a' && r <= 'z')
			})
			for _, w := range knownFormats {
				if slices.Contains(words, w) {
					values = append(values, w)
				}
			}
			if len(values) > 0 {
				_ = c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(values, cobra.ShellCompDirectiveNoFileComp))
			}
		}
		if c.Flags().Lookup("rules") != nil {
			_ = c.RegisterFlagCompletionFunc("rules", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return rules.Names(), cobra.ShellCompDirectiveDefault // and files
			})
		}
		if c.Flags().Lookup("graph") != nil {
			_ = c.RegisterFlagCompletionFunc("graph", func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
				return storeGraphs(app), cobra.ShellCompDirectiveNoFileComp
			})
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// storeGraphs lists the graph IRIs of an existing store for completion;
// any error (no store, store in use) yields no suggestions.
func storeGraphs(app *App) []string {
	ctx := context.Background()
	ds, err := store.Open(ctx, app.StoreSpec, store.Options{MustExist: true, ReadOnly: true})
	if err != nil {
		return nil
	}
	defer ds.Close()
	ids, err := ds.Graphs(ctx)
	if err != nil {
		return nil
	}
	var out []string
	for _, id := range ids {
		if t, err := ds.Resolve(ctx, id); err == nil && t.Kind == kb.KindIRI {
			out = append(out, t.Value)
		}
	}
	return out
}
