package main

import (
	"fmt"
	"sort"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
)

func init() { register(newStatsCmd) }

func newStatsCmd(app *App) *cobra.Command {
	var top int
	cmd := &cobra.Command{
		Use:   "stats",
		Short: "Show how many quads, terms and graphs the store holds, and the top predicates",
		Long: `stats prints the number of quads, stored terms and graphs, and the predicates
with the most quads (--top of them), with their counts.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if top < 0 {
				return usageError(fmt.Errorf("--top must be 0 or more, got %d", top))
			}
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
			approx := ""
			if st.Approximate {
				approx = " (approximate)"
			}
			w := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', tabwriter.AlignRight)
			fmt.Fprintf(w, "quads:\t%s\t%s\n", humanCount(st.Quads), approx)
			fmt.Fprintf(w, "terms:\t%s\t\n", humanCount(st.Terms))
			fmt.Fprintf(w, "graphs:\t%s\t\n", humanCount(int64(len(st.ByGraph))))
			fmt.Fprintf(w, "predicates:\t%s\t\n", humanCount(int64(len(st.ByPredicate))))
			if err := w.Flush(); err != nil {
				return err
			}
			preds := sortedCounts(st.ByPredicate)
			if len(preds) > top {
				preds = preds[:top]
			}
			if len(preds) == 0 {
				return nil
			}
			fmt.Fprintf(app.Stdout, "\ntop predicates:\n")
			w = tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
			for _, pc := range preds {
				t, err := ds.Resolve(ctx, pc.id)
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%12s\t%s\n", humanCount(pc.n), t)
			}
			return w.Flush()
		},
	}
	cmd.Flags().IntVar(&top, "top", 10, "number of predicates to list")
	return cmd
}

type idCount struct {
	id kb.ID
	n  int64
}

// sortedCounts orders counts largest first (ties by ID).
func sortedCounts(m map[kb.ID]int64) []idCount {
	out := make([]idCount, 0, len(m))
	for id, n := range m {
		if n > 0 {
			out = append(out, idCount{id, n})
		}
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].n != out[j].n {
			return out[i].n > out[j].n
		}
		return out[i].id < out[j].id
	})
	return out
}
