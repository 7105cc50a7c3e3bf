package main

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner"
)

func init() { register(newDropGraphCmd) }

func newDropGraphCmd(app *App) *cobra.Command {
	var (
		silent    bool
		retract   bool
		ruleFiles []string
		defines   []string
		profile   queryProfileFlag
	)
	cmd := &cobra.Command{
		Use:   "drop-graph IRI",
		Short: "Delete every quad of one named graph",
		Long: `drop-graph removes all quads of the named graph, in one atomic change, e.g. a
site's data before reloading it, or the inferred graph before a fresh
reasoner run. Naming a graph that holds nothing is an error unless --silent
is given (as SPARQL's DROP SILENT).

--retract (or --rules) also withdraws what the rules derived from the
graph's triples and no longer follows: the derived triples, their
derivation records and so the findings they made (delete and rederive,
see docs/reasoning.md). Give the rule files and --define values that the
inferred graph was made with (default: the shipped sets RDFS, OWL and
PERFONTO). The drop and the withdrawals are one atomic change.`,
		Example: `  perfkb drop-graph http://perfkb.example/site/vienna
  perfkb drop-graph --retract http://perfkb.example/site/vienna
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
			stopProfile, err := profile.start()
			if err != nil {
				return err
			}
			defer stopProfile()
			var prog *reasoner.Program
			if retract || len(ruleFiles) > 0 {
				if prog, err = loadRuleProgram(ruleFiles, defines); err != nil {
					return err
				}
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
			var sum reasoner.Summary
			if prog != nil {
				eng, err := reasoner.NewEngine(ctx, ds, prog, reasoner.Options{LoadOnDemand: true})
				if err != nil {
					return err
				}
				if sum, err = eng.Remove(ctx, quads); err != nil {
					return err
				}
			} else if err := ds.Apply(ctx, kb.Delta{Remove: quads}); err != nil {
				return err
			}
			if err := ds.Close(); err != nil {
				return err
			}
			fmt.Fprintf(app.Stdout, "dropped %s quads from graph %s\n", humanCount(int64(len(quads))), graph)
			if prog != nil {
				fmt.Fprintf(app.Stdout, "withdrew %s derived triples that no longer follow\n", humanCount(sum.Retracted))
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&silent, "silent", false, "succeed quietly when the graph holds nothing")
	cmd.Flags().BoolVar(&retract, "retract", false, "also withdraw the derived triples and findings that no longer follow (rules: --rules, default RDFS, OWL, PERFONTO)")
	cmd.Flags().StringArrayVar(&ruleFiles, "rules", nil, "rule file or shipped set the inferred graph was made with; repeatable (implies --retract)")
	cmd.Flags().StringArrayVar(&defines, "define", nil, "override a named constant, NAME=VALUE (repeatable), as given to reason")
	profile.bind(cmd.Flags())
	return cmd
}
