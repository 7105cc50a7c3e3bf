package main

import (
	"fmt"
	"sort"

	"github.com/spf13/cobra"
)

func init() { register(newGraphsCmd) }

func newGraphsCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "graphs",
		Short: "List the named graphs in the store with their quad counts",
		Long: `graphs prints one line per graph that holds quads: the number of quads, a tab,
and the graph IRI, sorted by IRI. <urn:x-arq:DefaultGraph> holds triples
loaded without a graph and <urn:x-perfkb:inferred> the reasoner's output.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			st, err := ds.Stats(ctx)
			if err != nil {
				return err
			}
			type row struct {
				name string
				n    int64
			}
			var rows []row
			for id, n := range st.ByGraph {
				if n == 0 {
					continue
				}
				t, err := ds.Resolve(ctx, id)
				if err != nil {
					return err
				}
				rows = append(rows, row{t.String(), n})
			}
			sort.Slice(rows, func(i, j int) bool { return rows[i].name < rows[j].name })
			for _, r := range rows {
				fmt.Fprintf(app.Stdout, "%d\t%s\n", r.n, r.name)
			}
			return nil
		},
	}
}
