package main

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// serveFederationFlags are the federation settings of perfkb serve.
type serveFederationFlags struct {
	serviceAllow string
	siteTimeout  time.Duration
}

func (f *serveFederationFlags) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.serviceAllow, "service-allow", "registered", "endpoints a query's SERVICE may call: registered (the sites of 'perfkb sites') or any")
	fs.DurationVar(&f.siteTimeout, "site-timeout", query.DefaultSiteTimeout, "time limit of each call to a remote site (SERVICE, ?sites=, refresh)")
}

func (f *serveFederationFlags) validate() error {
	if f.serviceAllow != "registered" && f.serviceAllow != "any" {
		return usageError(fmt.Errorf("--service-allow %q: want registered or any", f.serviceAllow))
	}
	return nil
}

// serviceClient is the SERVICE handler of the server. Unless --service-allow
// any, it only calls registered sites: a query sent over HTTP must not make
// the server reach arbitrary hosts (SSRF).
func (f *serveFederationFlags) serviceClient(reg *query.SiteRegistry, maxRows int64) *query.SiteClient {
	c := query.NewSiteClient(nil)
	c.Timeout = f.siteTimeout
	c.MaxRows = maxRows
	c.Registered = reg.Sites
	if f.serviceAllow != "any" {
		c.Allow = func(endpoint string) error {
			sites, err := reg.Sites(context.Background())
			if err != nil {
				return err
			}
			for _, s := range sites {
				if s.Endpoint == endpoint {
					return nil
				}
			}
			return fmt.Errorf("SERVICE <%s> refused: not a registered site (perfkb sites add, or serve --service-allow any): %w", endpoint, server.ErrForbidden)
		}
	}
	return c
}

// siteRegistry serves /sites: the store's graphs (local sites) and the
// registered remote sites, which it can add, remove and refresh.
type siteRegistry struct {
	local  *server.DatasetStore
	reg    *query.SiteRegistry
	client *query.SiteClient
}

var _ server.SiteRegistry = (*siteRegistry)(nil)

func newSiteRegistry(store *server.DatasetStore, ds kb.Dataset, f serveFederationFlags) *siteRegistry {
	reg := &query.SiteRegistry{DS: ds}
	c := query.NewSiteClient(nil)
	c.Timeout = f.siteTimeout
	c.Registered = reg.Sites
	return &siteRegistry{local: store, reg: reg, client: c}
}

// Sites lists local graphs then remote sites.
func (r *siteRegistry) Sites(ctx context.Context) ([]server.Site, error) {
	out, err := r.local.Sites(ctx)
	if err != nil {
		return nil, err
	}
	remote, err := r.reg.List(ctx)
	if err != nil {
		return nil, err
	}
	for _, s := range remote {
		out = append(out, server.Site{Name: s.Name, Endpoint: s.Endpoint, Kind: "remote", Status: s.Status,
			LastRefreshed: s.LastRefreshed, ExperimentCount: s.Experiments, TokenEnv: s.TokenEnv})
	}
	return out, nil
}

// invalidInput marks a bad request (400).
type invalidInput struct{ error }

func (invalidInput) InvalidInput() bool { return true }
func (e invalidInput) Unwrap() error    { return e.error }

func (r *siteRegistry) AddSite(ctx context.Context, site query.Site) error {
	if err := query.CheckSiteName(site.Name); err != nil {
		return invalidInput{err}
	}
	if err := query.CheckSiteEndpoint(site.Endpoint); err != nil {
		return invalidInput{err}
	}
	err := r.reg.Add(ctx, site)
	if err != nil && !errors.Is(err, query.ErrSiteExists) && !errors.Is(err, context.Canceled) {
		return invalidInput{err}
	}
	return err
}

func (r *siteRegistry) RemoveSite(ctx context.Context, name string) error {
	err := r.reg.Remove(ctx, name)
	if errors.Is(err, query.ErrUnknownSite) {
		return fmt.Errorf("%w: site %q", server.ErrNotFound, name)
	}
	return err
}

func (r *siteRegistry) RefreshSites(ctx context.Context, names []string) ([]query.SiteRefresh, error) {
	res, err := r.reg.Refresh(ctx, r.client, names)
	if errors.Is(err, query.ErrUnknownSite) {
		return nil, fmt.Errorf("%w: %v", server.ErrNotFound, err)
	}
	return res, err
}
