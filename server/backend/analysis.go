package backend

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/server"
)

// Analysis implements server.AnalysisService with package analysis.
type Analysis struct {
	DS kb.Dataset
	// Options are the analysis options of POST /analysis/run.
	Options analysis.Options
}

// Run analyses the store and replaces the analysis graph.
func (a *Analysis) Run(ctx context.Context) (server.AnalysisReport, error) {
	res, err := analysis.Run(ctx, a.DS, a.Options)
	if err != nil {
		return server.AnalysisReport{}, err
	}
	rep := server.AnalysisReport{Experiments: len(res.Experiments), Groups: len(res.Groups), Findings: len(res.Findings),
		Quads: res.Quads, Graph: analysis.GraphIRI, Issues: []string{}, Seconds: res.Duration.Seconds()}
	for _, i := range res.Issues {
		rep.Issues = append(rep.Issues, i.String())
	}
	return rep, nil
}

// Scaling returns the scaling table of a version's experiments, computed
// without writing.
func (a *Analysis) Scaling(ctx context.Context, version string) (any, error) {
	opts := a.Options
	opts.DryRun = true
	res, err := analysis.Run(ctx, a.DS, opts)
	if err != nil {
		return nil, err
	}
	var exps []string
	for _, e := range res.Experiments {
		if version == "" || e.Exp.Version == version {
			exps = append(exps, e.Exp.IRI)
		}
	}
	if version != "" && len(exps) == 0 {
		return nil, fmt.Errorf("no experiments of version <%s>: %w", version, server.ErrNotFound)
	}
	if version == "" {
		exps = nil // program rows only
	}
	return res.Tables(analysis.KindScaling, exps)
}

// Diff compares two experiments without writing.
func (a *Analysis) Diff(ctx context.Context, base, trial string) (any, error) {
	d, err := analysis.Read(ctx, a.DS)
	if err != nil {
		return nil, err
	}
	for _, e := range []string{base, trial} {
		if d.Experiment(e) == nil {
			return nil, fmt.Errorf("no experiment <%s> in the store: %w", e, server.ErrNotFound)
		}
	}
	return analysis.Compare(ctx, d, base, trial)
}

// Tree returns an experiment's call tree (analysis.BuildCallTree).
func (a *Analysis) Tree(ctx context.Context, experiment string, p server.TreeParams) (any, error) {
	t, err := analysis.BuildCallTree(ctx, a.DS, experiment, analysis.TreeOptions{PU: p.PU, Agg: p.Agg, Metric: p.Metric, Depth: p.Depth})
	var terr *analysis.TreeError
	if errors.As(err, &terr) && terr.NotFound {
		return nil, fmt.Errorf("%w (%w)", err, server.ErrNotFound)
	}
	return t, err
}
