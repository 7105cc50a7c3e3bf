package backend

import (
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// federationReport converts the report of a query the request's sites
// parameter fanned out (nil when it did not). It waits for every site's
// answer or deadline: headers go out before the rows.
func federationReport(res *query.Result) *server.FederationReport {
	rep, _, ok := res.Federation()
	if !ok {
		return nil
	}
	out := &server.FederationReport{Complete: rep.Complete}
	for _, s := range rep.Sites {
		out.Sites = append(out.Sites, server.FederationSiteRun{Site: s.Site, Outcome: s.Outcome, Rows: s.Rows, Bytes: s.Bytes, Millis: s.Millis, Error: s.Error})
	}
	return out
}
