package backend

import (
	"context"
	"fmt"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/server"
)

// Models returns the performance model tables of a version's experiments
// (all versions when version is ""), computed without writing.
func (a *Analysis) Models(ctx context.Context, version string) (any, error) {
	opts := a.Options
	opts.DryRun = true
	res, err := analysis.Run(ctx, a.DS, opts)
	if err != nil {
		return nil, err
	}
	var exps []string
	for _, e := range res.Experiments {
		if version != "" && e.Exp.Version == version {
			exps = append(exps, e.Exp.IRI)
		}
	}
	if version != "" && len(exps) == 0 {
		return nil, fmt.Errorf("no experiments of version <%s>: %w", version, server.ErrNotFound)
	}
	return res.Tables(analysis.KindModels, exps)
}

var _ server.ModelService = (*Analysis)(nil)
