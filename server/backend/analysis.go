package backend

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/server"
)

// Analysis implements server.AnalysisService with package analysis. The
// scaling table and the data the differences are computed from are kept
// per write generation when the server attaches one to the request
// (server.GenerationOf), so the workbench's views read them once per
// change of the data.
type Analysis struct {
	DS kb.Dataset
	// Options are the analysis options of POST /analysis/run.
	Options analysis.Options

	scaling server.GenCache[*analysis.Result]
	data    server.GenCache[*analysis.Data]
	// compare keeps Compare apart: it resolves metric values into the
	// shared Data as it goes.
	compare sync.Mutex
}

var _ server.AnalysisWarmer = (*Analysis)(nil)

// Warm computes what Scaling and Diff read, for the context's generation.
func (a *Analysis) Warm(ctx context.Context) error {
	if _, err := a.scalingResult(ctx); err != nil {
		return err
	}
	_, err := a.readData(ctx)
	return err
}

// scalingResult runs the analyses the scaling table needs (no models, no
// rules, nothing written) over the data the differences read.
func (a *Analysis) scalingResult(ctx context.Context) (*analysis.Result, error) {
	return a.scaling.Get(ctx, "scaling", func(ctx context.Context) (*analysis.Result, error) {
		opts := a.Options
		opts.DryRun, opts.NoModels, opts.NoRules, opts.Diffs = true, true, true, nil
		if _, kept := server.GenerationOf(ctx); !kept {
			// Nothing is kept: read only the metrics the table needs.
			return analysis.Run(ctx, a.DS, opts)
		}
		// The differences read the same data, and it is kept: one read
		// serves both. Read resolves every value, so neither view writes
		// into it.
		d, err := a.readData(ctx)
		if err != nil {
			return nil, err
		}
		return analysis.RunData(ctx, a.DS, d, opts)
	})
}

func (a *Analysis) readData(ctx context.Context) (*analysis.Data, error) {
	return a.data.Get(ctx, "data", func(ctx context.Context) (*analysis.Data, error) {
		return analysis.Read(ctx, a.DS)
	})
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
	res, err := a.scalingResult(ctx)
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
	d, err := a.readData(ctx)
	if err != nil {
		return nil, err
	}
	a.compare.Lock()
	defer a.compare.Unlock()
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
