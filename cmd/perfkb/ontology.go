package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb/store"
	"github.com/perfkb/perfkb/ontology"
)

func init() { register(newOntologyCmd) }

func newOntologyCmd(app *App) *cobra.Command {
	var check, upgrade bool
	cmd := &cobra.Command{
		Use:   "ontology",
		Short: "Print PERFONTO, or check or upgrade the copy a store holds",
		Long: `ontology prints the built-in PERFONTO ontology (Turtle).

Every store that perfkb writes to (load, demo, serve, convert, reason …)
holds PERFONTO in the graph <urn:x-perfkb:ontology>, replaced when this
binary's ontology differs from the stored one. --check says whether the
store's copy is current (exit 0) or not (exit 3); --upgrade replaces it.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !check && !upgrade {
				_, err := fmt.Fprint(app.Stdout, ontology.Turtle())
				return err
			}
			ctx := cmd.Context()
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			if upgrade {
				wrote, err := store.EnsureOntology(ctx, ds)
				if err != nil {
					return err
				}
				if !wrote {
					fmt.Fprintln(app.Stdout, "the stored ontology is already current")
				}
			}
			st, err := store.CheckOntology(ctx, ds)
			if err != nil {
				return err
			}
			switch {
			case st.Current():
				fmt.Fprintf(app.Stdout, "the stored ontology is current (%d triples, sha256 %.12s)\n", st.Triples, st.Digest)
				return nil
			case st.Stored == "":
				return &exitError{code: exitOther, err: fmt.Errorf("the store holds no ontology; run 'perfkb ontology --upgrade' (or any command that writes)")}
			}
			return &exitError{code: exitOther, err: fmt.Errorf("the stored ontology (sha256 %.12s) differs from this binary's (%.12s); run 'perfkb ontology --upgrade'", st.Stored, st.Digest)}
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "say whether the store holds this binary's ontology")
	cmd.Flags().BoolVar(&upgrade, "upgrade", false, "store this binary's ontology, replacing an older one")
	return cmd
}
