package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
)

func init() { register(newDropGraphCmd) }

func newDropGraphCmd(app *App) *cobra.Command {
	var silent bool
	cmd := &cobra.Command{
		Use:   "drop-graph IRI",
		Short: "Delete every quad of one named graph",
		Long: `drop-graph removes all quads of the named graph, in one atomic change, e.g. a
site's data before reloading it, or the inferred graph before a fresh
reasoner run. Naming a graph that holds nothing is an error unless --silent
is given (as SPARQL's DROP SILENT).`,
		Example: `  perfkb drop-graph http://perfkb.example/site/vienna
  perfkb drop-graph urn:x-perfkb:inferred`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) != 1 {
				return usageError(errors.New("drop-graph needs exactly one graph IRI (perfkb graphs lists them)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			graph, err := parseGraphIRI(args[0])
			if err != nil {
				return usageError(err)
			}
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			id, ok, err := ds.Lookup(ctx, graph)
			if err != nil {
				return err
			}
			var quads []kb.Quad
			if ok {
				if quads, err = kb.Collect(ds.Match(ctx, kb.Pattern{G: id})); err != nil {
					return err
				}
			}
			if len(quads) == 0 {
				if silent {
					return nil
				}
				return usageError(fmt.Errorf("no graph %s in the store (perfkb graphs lists the graphs)", graph))
			}
			if err := ds.Apply(ctx, kb.Delta{Remove: quads}); err != nil {
				return err
			}
			if err := ds.Close(); err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "dropped %s quads from graph %s\n", humanCount(int64(len(quads))), graph)
			return nil
		},
	}
	cmd.Flags().BoolVar(&silent, "silent", false, "succeed quietly when the graph holds nothing")
	return cmd
}
