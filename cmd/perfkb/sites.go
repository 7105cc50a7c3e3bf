package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/query"
)

func init() { register(newSitesCmd) }

// sitesFlags are the options shared by the sites subcommands.
type sitesFlags struct {
	server      string
	siteTimeout time.Duration
}

func newSitesCmd(app *App) *cobra.Command {
	var f sitesFlags
	cmd := &cobra.Command{
		Use:   "sites",
		Short: "Manage the site registry (GEM): remote perfkb or SPARQL endpoints to query with --sites",
		Long: `sites manages the registry of grid sites (Truong §6.5.5, the Global Experiment
Metadata): each site is a SPARQL 1.1 endpoint (another 'perfkb serve', or any
SPARQL engine) known by name, kept as triples in the graph urn:x-perfkb:sites
of the store. 'refresh' records which experiments each site holds
(perfonto:heldBy), so that a query can find the site of an experiment and
send a SERVICE there. 'perfkb query --sites all' runs a query at every site.

With --server URL the operations go to a running 'perfkb serve' (which holds
its store); writes then need its token in $PERFKB_TOKEN.`,
		Example: `  perfkb sites add vienna http://vienna.example:8080/sparql
  perfkb sites add linz https://linz.example/sparql --token-env PERFKB_SITE_LINZ
  perfkb sites refresh
  perfkb sites list
  perfkb query --sites all -e 'SELECT (COUNT(*) AS ?n) { ?e a perfonto:Experiment }'
  perfkb sites --server http://127.0.0.1:8080 list`,
	}
	cmd.PersistentFlags().StringVar(&f.server, "server", "", "manage the registry of a running perfkb serve at this base URL instead of --store")
	cmd.PersistentFlags().DurationVar(&f.siteTimeout, "site-timeout", query.DefaultSiteTimeout, "time limit of each call to a site (refresh, check)")

	var tokenEnv string
	add := &cobra.Command{
		Use:   "add NAME URL",
		Short: "Register a site: NAME and the URL of its SPARQL endpoint (…/sparql)",
		Args:  cobra.ExactArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			s := query.Site{Name: args[0], Endpoint: args[1], TokenEnv: tokenEnv}
			if err := query.CheckSiteName(s.Name); err != nil {
				return usageError(err)
			}
			if err := query.CheckSiteEndpoint(s.Endpoint); err != nil {
				return usageError(err)
			}
			if f.server != "" {
				return f.call(cmd.Context(), http.MethodPost, "/sites", s, nil)
			}
			return withRegistry(cmd.Context(), app, func(reg *query.SiteRegistry) error {
				if err := reg.Add(cmd.Context(), s); err != nil {
					return err
				}
				fmt.Fprintf(app.Stderr, "site %s registered: %s\n", s.Name, s.Endpoint)
				return nil
			})
		},
	}
	add.Flags().StringVar(&tokenEnv, "token-env", "", "environment variable holding the bearer token for the site, named PERFKB_SITE_… (only its name is stored)")

	var format string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the registered sites with their status and experiment counts",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var infos []query.SiteInfo
			if f.server != "" {
				var all []query.SiteEntry
				if err := f.call(cmd.Context(), http.MethodGet, "/sites", nil, &all); err != nil {
					return err
				}
				for _, s := range all {
					if s.Kind == "remote" {
						infos = append(infos, query.SiteInfo{Site: query.Site{Name: s.Name, Endpoint: s.Endpoint, TokenEnv: s.TokenEnv},
							LastRefreshed: s.LastRefreshed, Status: s.Status, Experiments: s.ExperimentCount})
					}
				}
			} else if err := withRegistry(cmd.Context(), app, func(reg *query.SiteRegistry) (err error) {
				infos, err = reg.List(cmd.Context())
				return err
			}); err != nil {
				return err
			}
			return writeSites(app.Stdout, infos, format)
		},
	}
	list.Flags().StringVar(&format, "format", "table", "table or json")

	remove := &cobra.Command{
		Use:   "remove NAME",
		Short: "Unregister a site and drop its experiment records",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if f.server != "" {
				return f.call(cmd.Context(), http.MethodDelete, "/sites/"+url.PathEscape(args[0]), nil, nil)
			}
			return withRegistry(cmd.Context(), app, func(reg *query.SiteRegistry) error {
				if err := reg.Remove(cmd.Context(), args[0]); err != nil {
					return err
				}
				fmt.Fprintf(app.Stderr, "site %s removed\n", args[0])
				return nil
			})
		},
	}

	refresh := &cobra.Command{
		Use:   "refresh [NAME…]",
		Short: "Ask sites for their experiments and replace their records (all sites without names)",
		RunE: func(cmd *cobra.Command, args []string) error {
			var out []query.SiteRefresh
			if f.server != "" {
				if err := f.call(cmd.Context(), http.MethodPost, "/sites/refresh", map[string][]string{"sites": args}, &out); err != nil {
					return err
				}
			} else if err := withRegistry(cmd.Context(), app, func(reg *query.SiteRegistry) (err error) {
				sites, err := reg.Sites(cmd.Context())
				if err != nil {
					return err
				}
				c := query.NewSiteClient(sites) // names and tokens of the sites
				c.Timeout = f.siteTimeout
				out, err = reg.Refresh(cmd.Context(), c, args)
				return err
			}); err != nil {
				return err
			}
			failed := 0
			for _, r := range out {
				if r.Error != "" {
					failed++
					fmt.Fprintf(app.Stderr, "site %s: failed after %d ms: %s (old records kept)\n", r.Site, r.Millis, r.Error)
				} else {
					fmt.Fprintf(app.Stderr, "site %s: %d experiments (%d ms)\n", r.Site, r.Experiments, r.Millis)
				}
			}
			if failed > 0 {
				return &exitError{code: exitOther, err: fmt.Errorf("%d of %d sites could not be refreshed", failed, len(out))}
			}
			return nil
		},
	}

	check := &cobra.Command{
		Use:   "check [NAME…]",
		Short: "Ping sites with ASK {} and show their latency",
		RunE: func(cmd *cobra.Command, args []string) error {
			var sites []query.Site
			if f.server != "" {
				var all []query.SiteEntry
				if err := f.call(cmd.Context(), http.MethodGet, "/sites", nil, &all); err != nil {
					return err
				}
				for _, s := range all {
					if s.Kind == "remote" {
						sites = append(sites, query.Site{Name: s.Name, Endpoint: s.Endpoint, TokenEnv: s.TokenEnv})
					}
				}
			} else if err := withRegistry(cmd.Context(), app, func(reg *query.SiteRegistry) (err error) {
				sites, err = reg.Sites(cmd.Context())
				return err
			}); err != nil {
				return err
			}
			c := query.NewSiteClient(sites)
			c.Timeout = f.siteTimeout
			results, err := query.CheckSites(cmd.Context(), c, sites, args)
			if err != nil {
				return usageError(err)
			}
			failed := 0
			for _, r := range results {
				if r.OK {
					fmt.Fprintf(app.Stdout, "%s\tok\t%d ms\n", r.Site, r.Millis)
				} else {
					failed++
					fmt.Fprintf(app.Stdout, "%s\tfailed\t%d ms\t%s\n", r.Site, r.Millis, r.Error)
				}
			}
			if failed > 0 {
				return &exitError{code: exitOther, err: fmt.Errorf("%d of %d sites did not answer", failed, len(results))}
			}
			return nil
		},
	}
	cmd.AddCommand(add, list, remove, refresh, check)
	return cmd
}

// withRegistry opens --store and runs fn on its registry.
func withRegistry(ctx context.Context, app *App, fn func(*query.SiteRegistry) error) error {
	ds, err := app.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer ds.Close()
	return fn(&query.SiteRegistry{DS: ds})
}

func writeSites(w io.Writer, infos []query.SiteInfo, format string) error {
	switch strings.ToLower(format) {
	case "json":
		if infos == nil {
			infos = []query.SiteInfo{}
		}
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(infos)
	case "table", "":
		tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tENDPOINT\tEXPERIMENTS\tSTATUS\tREFRESHED\tTOKEN")
		for _, s := range infos {
			refreshed, status := "never", s.Status
			if !s.LastRefreshed.IsZero() {
				refreshed = s.LastRefreshed.Format(time.RFC3339)
			}
			if status == "" {
				status = "-"
			}
			tok := "-"
			if s.TokenEnv != "" {
				tok = "$" + s.TokenEnv
			}
			fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", s.Name, s.Endpoint, s.Experiments, status, refreshed, tok)
		}
		return tw.Flush()
	}
	return usageError(fmt.Errorf("--format %q: want table or json", format))
}

// call sends a registry request to a running server. Writes carry the
// token from $PERFKB_TOKEN.
func (f *sitesFlags) call(ctx context.Context, method, path string, in, out any) error {
	base, err := url.Parse(strings.TrimRight(f.server, "/"))
	if err != nil || (base.Scheme != "http" && base.Scheme != "https") {
		return usageError(fmt.Errorf("--server %q: want an http(s) base URL such as http://127.0.0.1:8080", f.server))
	}
	var body io.Reader
	if in != nil {
		b, err := json.Marshal(in)
		if err != nil {
			return err
		}
		body = bytes.NewReader(b)
	}
	timeout := f.siteTimeout*4 + 10*time.Second
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, base.String()+path, body)
	if err != nil {
		return err
	}
	req.Header.Set("Accept", "application/json")
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if tok := os.Getenv(tokenEnv); tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	resp, err := (&http.Client{}).Do(req)
	if err != nil {
		return fmt.Errorf("perfkb server %s: %w", f.server, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		msg := strings.TrimSpace(string(data))
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			msg = e.Error
		}
		err := fmt.Errorf("perfkb server %s: %s %s: %s: %s", f.server, method, path, resp.Status, msg)
		if resp.StatusCode == http.StatusBadRequest || resp.StatusCode == http.StatusConflict || resp.StatusCode == http.StatusNotFound {
			return usageError(err)
		}
		return err
	}
	if out != nil {
		// Some endpoints wrap their answer: {"status": "success", "data": …}.
		var env struct {
			Data json.RawMessage `json:"data"`
		}
		if json.Unmarshal(data, &env) == nil && len(env.Data) > 0 {
			data = env.Data
		}
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("perfkb server %s: reading the answer to %s %s: %w", f.server, method, path, err)
		}
	}
	return nil
}
