package backend

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// Sites serves /sites: the store's graphs (local sites) and the remote
// sites of the registry kept in the store, which it adds, removes and
// refreshes (server.SiteRegistry).
type Sites struct {
	Local    *graphstore.Store
	Registry *query.SiteRegistry
	// Client asks remote sites for their experiments on a refresh.
	Client *query.SiteClient
}

var _ server.SiteRegistry = (*Sites)(nil)

// NewSites returns the site service over the store ds (served through
// local), whose refresh calls give each site timeout.
func NewSites(local *graphstore.Store, ds kb.Dataset, timeout time.Duration) *Sites {
	reg := &query.SiteRegistry{DS: ds}
	c := query.NewSiteClient(nil)
	c.Timeout = timeout
	c.Registered = reg.Sites
	return &Sites{Local: local, Registry: reg, Client: c}
}

// Sites lists local graphs then remote sites.
func (r *Sites) Sites(ctx context.Context) ([]query.SiteEntry, error) {
	out, err := r.Local.Sites(ctx)
	if err != nil {
		return nil, err
	}
	remote, err := r.Registry.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range remote {
		out = append(out, query.SiteEntry{Name: s.Name, Endpoint: s.Endpoint, Kind: "remote", Status: s.Status,
			LastRefreshed: s.LastRefreshed, ExperimentCount: s.Experiments, TokenEnv: s.TokenEnv})
	}
	return out, nil
}

// AddSite registers a remote site; a bad name or endpoint is invalid
// input (400), a name in use query.ErrSiteExists (409).
func (r *Sites) AddSite(ctx context.Context, site query.Site) error {
	if err := query.CheckSiteName(site.Name); err != nil {
		return &invalidInputError{err: err}
	}
	if err := query.CheckSiteEndpoint(site.Endpoint); err != nil {
		return &invalidInputError{err: err}
	}
	err := r.Registry.Add(ctx, site)
	if err != nil && !errors.Is(err, query.ErrSiteExists) && !errors.Is(err, context.Canceled) {
		return &invalidInputError{err: err}
	}
	return err
}

// RemoveSite unregisters a remote site.
func (r *Sites) RemoveSite(ctx context.Context, name string) error {
	err := r.Registry.Remove(ctx, name)
	if errors.Is(err, query.ErrUnknownSite) {
		return fmt.Errorf("%w: site %q", server.ErrNotFound, name)
	}
	return err
}

// RefreshSites asks the named remote sites (all when empty) for their
// experiments.
func (r *Sites) RefreshSites(ctx context.Context, names []string) ([]query.SiteRefresh, error) {
	res, err := r.Registry.Refresh(ctx, r.Client, names)
	if errors.Is(err, query.ErrUnknownSite) {
		return nil, fmt.Errorf("%w: %v", server.ErrNotFound, err)
	}
	return res, err
}
