package eval

import (
	"context"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/opt"
)

// Plan returns the optimizer's plan of q's pattern over ds, with the
// statistics and dataset Query would use, without evaluating it (the
// plan tests and explain tools use it).
func Plan(ctx context.Context, ds kb.Dataset, q *algebra.Query, opts Options) (*opt.Plan, error) {
	if opts.Timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
		defer cancel()
	}
	ex, err := newExecutor(ctx, ds, opts, q.BaseIRI, q.Dataset)
	if err != nil {
		return nil, err
	}
	defer ex.mem.close()
	if _, err := ex.optimize(q.Pattern); err != nil {
		return nil, err
	}
	return ex.plan, nil
}
