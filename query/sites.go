package query

import (
	"context"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/federation"
)

// Federation: the registry of remote sites kept in a store, the client that
// calls them for SERVICE, and the fan-out of a query to several sites
// (Options.Sites). The names are query/federation's, re-exported so that
// the CLI and the server configure federation through this package.

// Site is a registered remote SPARQL endpoint.
type Site = federation.Site

// SiteInfo is a registered site with what its last refresh learned.
type SiteInfo = federation.SiteInfo

// SiteEntry is one row of a server's site listing, local or remote (see
// federation.SiteEntry).
type SiteEntry = federation.SiteEntry

// SiteRegistry keeps the sites in the store's registry graph:
// &SiteRegistry{DS: ds}.
type SiteRegistry = federation.Registry

// SiteRefresh is the outcome of refreshing one site (SiteRegistry.Refresh).
type SiteRefresh = federation.RefreshResult

// SiteCheck is the outcome of checking one site (CheckSites).
type SiteCheck = federation.CheckResult

// SiteClient calls remote sites; it is the ServiceHandler of a federated
// store.
type SiteClient = federation.Client

// FederationReport is the per-site outcome of a fanned-out query.
type FederationReport = federation.Report

// SiteReport is one site's line of a FederationReport.
type SiteReport = federation.SiteReport

// DefaultSiteTimeout bounds each call to a site unless the client says
// otherwise.
const DefaultSiteTimeout = federation.DefaultSiteTimeout

// RegistryGraph is the named graph holding the site registry (see
// federation.RegistryGraph).
const RegistryGraph = federation.RegistryGraph

// Registry errors, for errors.Is.
var (
	ErrUnknownSite = federation.ErrUnknownSite
	ErrSiteExists  = federation.ErrSiteExists
)

// NewSiteClient returns a client that knows sites by name and token (nil:
// none yet; set Registered to read them from a registry).
func NewSiteClient(sites []Site) *SiteClient { return federation.NewClient(sites) }

// CheckSiteName reports whether name may name a site.
func CheckSiteName(name string) error { return federation.CheckName(name) }

// CheckSiteEndpoint reports whether endpoint may be called (http or https,
// no credentials in the URL).
func CheckSiteEndpoint(endpoint string) error { return federation.CheckEndpoint(endpoint) }

// CheckSites asks each named site (all when names is empty) whether it
// answers, through c.
func CheckSites(ctx context.Context, c *SiteClient, all []Site, names []string) ([]SiteCheck, error) {
	return federation.CheckSites(ctx, c, all, names)
}

// fanOut rewrites a fresh parse of p to run at the sites opts.Sites
// selects from the registry in ds; q is the query Exec would run (p's, or a
// copy whose FROM the protocol's dataset replaced). p itself is left as it
// was, so a Prepared stays reusable. It returns the rewritten query, the
// sites and whether the local store takes part.
func fanOut(ctx context.Context, ds kb.Dataset, p *Prepared, q *algebra.Query, opts Options) (*algebra.Query, []Site, bool, error) {
	registered, err := (&federation.Registry{DS: ds}).Sites(ctx)
	if err != nil {
		return nil, nil, false, err
	}
	sites, local, err := federation.SelectSites(opts.Sites, registered)
	if err != nil {
		return nil, nil, false, &SitesError{err}
	}
	fresh, err := PrepareContext(ctx, p.Text, opts)
	if err != nil {
		return nil, nil, false, err
	}
	if q.Dataset == nil {
		fresh.Query.Dataset = nil
	}
	if err := federation.FanOut(fresh.Query, sites, federation.FanOutOptions{Local: local, SiteColumn: opts.SiteColumn}); err != nil {
		return nil, nil, false, &SitesError{err}
	}
	return fresh.Query, sites, local, nil
}

// Federation reports the sites a query with Options.Sites ran at: the
// per-site outcome and whether the local store took part. ok is false for
// a query that was not fanned out. The report is complete once the rows
// have been read (or Write returned); before, it waits for every site's
// answer or deadline.
func (r *Result) Federation() (report FederationReport, local, ok bool) {
	if !r.fanned {
		return FederationReport{}, false, false
	}
	return federation.MakeReport(r.Services(), r.sites), r.local, true
}

// SiteError is a remote site's failure (an error status, a malformed
// answer, its own time limit), with the site named.
type SiteError = federation.SiteError

// HopsHeader carries how many perfkb servers a SERVICE call has passed
// through, so recursion through self or mutual registrations ends.
const HopsHeader = federation.HopsHeader

// MaxHops is how many servers a query may pass through.
const MaxHops = federation.MaxHops

// ErrTooManyHops is the error of a call past MaxHops.
var ErrTooManyHops = federation.ErrTooManyHops

// WithHops records in ctx that the query has passed through n servers.
func WithHops(ctx context.Context, n int) context.Context { return federation.WithHops(ctx, n) }

// ParseHops reads a HopsHeader value ("" is 0).
func ParseHops(v string) (int, error) { return federation.ParseHops(v) }
