package main

import (
	"context"
	"fmt"
	"time"

	"github.com/spf13/pflag"

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
