package backend

import (
	"context"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/federation"
	"github.com/perfkb/perfkb/server"
)

// fanOut rewrites a prepared query to run at the sites named by the
// request's sites parameter (see federation.FanOut). The query's WHERE
// pattern goes only to registered sites, so the SSRF guard holds.
func (e *QueryEngine) fanOut(ctx context.Context, p *query.Prepared, spec string) ([]federation.Site, error) {
	registered, err := (&federation.Registry{DS: e.DS}).Sites(ctx)
	if err != nil {
		return nil, err
	}
	sites, local, err := federation.SelectSites(spec, registered)
	if err != nil {
		return nil, invalidRequest{err}
	}
	if err := federation.FanOut(p.Query, sites, federation.FanOutOptions{Local: local}); err != nil {
		return nil, invalidRequest{err}
	}
	return sites, nil
}

// federationReport waits for every site's answer or deadline (headers go
// out before the rows) and converts the report.
func federationReport(res *query.Result, sites []federation.Site) *server.FederationReport {
	rep := federation.MakeReport(res.Services(), sites)
	out := &server.FederationReport{Complete: rep.Complete}
	for _, s := range rep.Sites {
		out.Sites = append(out.Sites, server.FederationSiteRun{Site: s.Site, Outcome: s.Outcome, Rows: s.Rows, Bytes: s.Bytes, Millis: s.Millis, Error: s.Error})
	}
	return out
}

// invalidRequest marks a bad sites parameter (400).
type invalidRequest struct{ error }

func (invalidRequest) InvalidInput() bool { return true }
func (e invalidRequest) Unwrap() error    { return e.error }
