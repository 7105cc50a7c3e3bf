package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/results"
)

// federationFlags are the federation options of perfkb query.
type federationFlags struct {
	sites        string
	siteColumn   string
	allowPartial bool
	siteTimeout  time.Duration
	serviceBatch int
}

func (f *federationFlags) bind(fl *pflag.FlagSet) {
	fl.StringVar(&f.sites, "sites", "", "run the query at registered sites and merge the answers: all, or NAME,…[,local] (see perfkb sites)")
	fl.StringVar(&f.siteColumn, "site-column", "", "with --sites, add a column of this name naming the site each row came from")
	fl.BoolVar(&f.allowPartial, "allow-partial", false, "with --sites, exit 0 even when some sites did not answer (the report is still printed)")
	fl.DurationVar(&f.siteTimeout, "site-timeout", query.DefaultSiteTimeout, "time limit of each remote site call (SERVICE and --sites)")
	fl.IntVar(&f.serviceBatch, "service-batch", query.DefaultServiceBatch, "rows per request when a SERVICE pattern is fed the values of the preceding patterns (bind join)")
}

// client returns the SERVICE handler of the CLI: any http(s) endpoint is
// allowed; the sites registered in ds are known by name and token.
func (f *federationFlags) client(ds kb.Dataset, maxRows int64) *query.SiteClient {
	c := query.NewSiteClient(nil)
	c.Registered = (&query.SiteRegistry{DS: ds}).Sites
	c.Timeout = f.siteTimeout
	c.MaxRows = maxRows
	return c
}

// apply sets the SERVICE options of opts.
func (f *federationFlags) apply(opts *query.Options, c *query.SiteClient) {
	opts.Service = c
	opts.ServiceBatch = f.serviceBatch
}

// runFederated runs a prepared query over the chosen sites (perfkb query
// --sites): the WHERE pattern runs at each site, the rest locally; a
// per-site report goes to stderr.
func runFederated(ctx context.Context, app *App, f *queryFlags, prepared *query.Prepared, opts query.Options, format results.Format) error {
	if len(f.data) > 0 || len(f.named) > 0 {
		return usageError(errors.New("--sites cannot be combined with --data or --named"))
	}
	if f.update {
		return usageError(errors.New("--sites runs queries, not updates"))
	}
	ds, err := app.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer ds.Close()
	opts.Sites, opts.SiteColumn = f.fed.sites, f.fed.siteColumn
	f.fed.apply(&opts, f.fed.client(ds, f.maxRows))
	res, err := query.Exec(ctx, ds, prepared, opts)
	var sitesErr *query.SitesError
	if errors.As(err, &sitesErr) {
		return usageError(err)
	}
	if err != nil {
		return err
	}
	if format == "" {
		format = results.JSON
		if app.IsTerminal(app.Stdout) {
			format = results.Table
		}
	}
	werr := res.Write(app.Stdout, format)
	rep, local, _ := res.Federation()
	printSiteReport(app.Stderr, rep, local)
	if werr != nil {
		return werr
	}
	if !rep.Complete && !f.fed.allowPartial {
		var names []string
		for _, s := range rep.Failed() {
			names = append(names, s.Site)
		}
		return &exitError{code: exitOther, err: fmt.Errorf("partial answer: %s did not answer (--allow-partial accepts a partial answer)", strings.Join(names, ", "))}
	}
	return nil
}

// printSiteReport writes the per-site report: site, outcome, rows, time, reason.
func printSiteReport(w io.Writer, rep query.FederationReport, local bool) {
	if local {
		fmt.Fprintln(w, "site local: answered (local store)")
	}
	for _, s := range rep.Sites {
		line := fmt.Sprintf("site %s: %s, %d rows, %d bytes, %d ms", s.Site, s.Outcome, s.Rows, s.Bytes, s.Millis)
		if s.Error != "" {
			line += ": " + s.Error
		}
		fmt.Fprintln(w, line)
	}
	if rep.Complete {
		fmt.Fprintf(w, "federation: complete (%d sites)\n", len(rep.Sites))
	} else {
		fmt.Fprintf(w, "federation: partial (%d of %d sites failed)\n", len(rep.Failed()), len(rep.Sites))
	}
}
