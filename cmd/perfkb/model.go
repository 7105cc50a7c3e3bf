package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/analysis"
)

func init() { register(newModelCmd) }

func newModelCmd(app *App) *cobra.Command {
	f := &analyzeFlags{}
	var sel string
	cmd := &cobra.Command{
		Use:   "model",
		Short: "Extra-P-style scaling models (PMNF) per experiment series, call path and metric",
		Long: `model runs perfkb analyze and prints its performance models: for each
experiment series (experiments of one version and machine differing in the
number of processing units p and/or a numeric problem size n; repeated runs
are repetitions) and each call path and metric, the function

  f(p) = c0 + c * p^i * log2(p)^j

that Extra-P 4.2's modeler selects: every exponent pair of its search space
is fitted by least squares, and the hypothesis with the smallest
leave-one-out cross-validated SMAPE wins (the constant model unless a term
beats it). Two-parameter series combine the best single-parameter terms
additively and multiplicatively, as Extra-P does. Series over p alone at a
fixed problem size (strong scaling) also search falling terms (p^-1 ...).
A series needs 5 distinct values per parameter (Extra-P's minimum); shorter
ones are listed.

--select repetitions chooses by the repetitions' spread instead (series
whose every point was measured at least twice): each hypothesis, for two
parameters every exponent pair in all four combinations, is fitted to all
points by least squares weighted by the inverse variance of each point's
mean, and the smallest BIC (chi-square + k ln n) wins. It recovers the
generating exponents of synthetic series more often than Extra-P's
selection (docs/analysis.md), but its models are not Extra-P's.

Models are written to urn:x-perfkb:analysis (perfonto:PerformanceModel with
its terms, SMAPE, RSS, adjusted R², growth exponent and predictions), where
SPARQL reads them and pf:predict(?formula, p) extrapolates; the MODELS rules
flag PoorScalingModel and ExtrapolatedHotspot.`,
		Example: `  perfkb model
  perfkb model --format csv > models.csv
  perfkb model --define TARGET_PROCESSES=1024 --define HOTSPOT_SHARE=0.2
  perfkb model --select repetitions`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			switch sel {
			case "extrap":
			case "repetitions":
				f.models.Repetitions = true
			default:
				return usageError(fmt.Errorf("--select %q: want extrap or repetitions", sel))
			}
			return f.run(cmd, app, analysis.KindModels, nil)
		},
	}
	f.bind(cmd)
	cmd.Flags().StringVar(&sel, "select", "extrap", "model selection: extrap (Extra-P 4.2's) or repetitions (weighted by the repetitions' spread, BIC)")
	return cmd
}
