package backend

import (
	"github.com/perfkb/perfkb/query"
)

// federationReport is the report of a query the request's sites
// parameter fanned out (nil when it did not). It waits for every site's
// answer or deadline: headers go out before the rows.
func federationReport(res *query.Result) *query.FederationReport {
	rep, _, ok := res.Federation()
	if !ok {
		return nil
	}
	return &rep
}
