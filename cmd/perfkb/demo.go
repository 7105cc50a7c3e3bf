package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
	"github.com/perfkb/perfkb/server/graphstore"
)

func init() { register(newDemoCmd) }

// demoFig629 is the dissertation's Fig. 6.29 search in SPARQL.
const demoFig629 = "PREFIX perfonto: <" + ontology.Namespace + ">\n" + `SELECT ?regionsummary ?value WHERE {
  ?regionsummary perfonto:inProcessingUnit ?pu .
  ?pu perfonto:inNode "gsr410" .
  ?regionsummary perfonto:hasMetric ?metric .
  ?metric perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?value .
  FILTER (?value >= 3E8)
} ORDER BY DESC(?value)`

func newDemoCmd(app *App) *cobra.Command {
	var (
		flags   serveFlags
		sites   int
		triples int64
		seed    uint64
		reload  bool
		noServe bool
	)
	cmd := &cobra.Command{
		Use:   "demo",
		Short: "Load sample data for three grid sites, run the shipped rules and serve it",
		Long: `demo is perfkb's main job in one command. On the store (--store, by default
the embedded native:./perfkb.db) it

  1. generates realistic PERFONTO sample data for three grid sites and loads
     each site into its own named graph (http://perfkb.example/site/NAME),
  2. runs the shipped rule sets (RDFS, OWL RL, PERFONTO analysis rules), so
     the store holds findings with explanations,
  3. starts the HTTP server (see 'perfkb serve --help') and prints its URL
     and three example curl commands.

Running it again is safe: site graphs that are already loaded are kept (use
--reload to generate and replace them), and the rules run again only when
the data changed. Without --token or $PERFKB_TOKEN a random write token is
made up and printed. Stop the server with Ctrl-C.`,
		Example: `  perfkb demo
  perfkb demo --store memory: --triples 100000 --addr 127.0.0.1:0`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			flags.resolveToken()
			if err := flags.applyMemoryLimit(cmd.Flags()); err != nil {
				return err
			}
			if err := flags.validate(); err != nil {
				return err
			}
			if sites < 1 {
				return usageError(fmt.Errorf("--sites must be at least 1"))
			}
			logger, err := flags.logger(app.Stderr)
			if err != nil {
				return err
			}
			flags.memoryPlan.log(logger)
			ctx := cmd.Context()
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()

			changed, err := loadDemoSites(ctx, app, ds, sites, triples, seed, reload)
			if err != nil {
				return err
			}
			// The analyses and the rules read the whole store and write
			// what they derive: from and to the read side (the server
			// turns it on anyway), not Pebble's indexes.
			if err := useReadSide(ctx, ds); err != nil {
				return err
			}
			// The analyses first: the rules read what they write (overhead
			// and scaling findings), so after both the store is at the
			// rules' fixpoint.
			if err := runDemoAnalysis(ctx, app, ds, changed); err != nil {
				return err
			}
			if err := runDemoRules(ctx, app, ds, changed); err != nil {
				return err
			}
			if flags.token == "" {
				flags.token = randomToken()
				fmt.Fprintf(app.Stdout, "write token for this run: %s (set $%s to choose one)\n", flags.token, tokenEnv)
			}
			if noServe {
				fmt.Fprintln(app.Stdout, "demo data ready; start the server with: perfkb serve --store "+app.StoreSpec)
				return nil
			}
			return serveUntilDone(ctx, app, ds, flags, logger, func(base string) {
				printDemoCurls(app.Stdout, base, flags.token)
			})
		},
	}
	flags.bind(cmd.Flags())
	cmd.Flags().IntVar(&sites, "sites", 3, "number of grid sites")
	cmd.Flags().Int64Var(&triples, "triples", 600000, "approximate number of sample triples over all sites (at 600000 and more the clusters have node gsr410 of Fig. 6.29)")
	cmd.Flags().Uint64Var(&seed, "seed", 1, "random seed of the sample data")
	cmd.Flags().BoolVar(&reload, "reload", false, "regenerate and replace site graphs that are already loaded")
	cmd.Flags().BoolVar(&noServe, "no-serve", false, "prepare the data and exit without serving")
	return cmd
}

// loadDemoSites loads each site into its graph, atomically replacing what
// the graph held. Graphs that hold data are kept unless reload is set. It
// reports whether any graph changed.
func loadDemoSites(ctx context.Context, app *App, ds kb.Dataset, sites int, triples int64, seed uint64, reload bool) (bool, error) {
	store := graphstore.New(ds)
	changed := false
	for _, name := range sample.SiteNames(sites) {
		graph := kb.IRI(sample.GraphIRI(sample.DefaultGraphBase, name))
		size, err := store.Size(ctx, graph)
		if err != nil {
			return changed, err
		}
		if size > 0 && !reload {
			fmt.Fprintf(app.Stdout, "site %-10s %9d triples already in <%s> (--reload regenerates)\n", name, size, graph.Value)
			continue
		}
		start := time.Now()
		progress := app.NewProgress("generating and loading "+name, "triples")
		pr, pw := io.Pipe()
		go func() {
			_, err := sample.Generate(ctx, &countingWriter{w: pw, progress: progress}, sample.Options{
				Sites: sites, Site: name, Triples: triples / int64(sites), Seed: seed, Format: sample.NQuads,
				Scaling: true, // scaling series for perfkb analyze
			})
			pw.CloseWithError(err)
		}()
		change, err := store.Replace(ctx, graph, graphstore.RDFSource{Body: pr, Format: rdfio.NQuads, Name: "sample data for " + name})
		pr.CloseWithError(io.ErrClosedPipe) // stop the generator if loading failed
		progress.Done()
		if err != nil {
			return changed, fmt.Errorf("load site %s: %w", name, err)
		}
		changed = true
		fmt.Fprintf(app.Stdout, "site %-10s %9d triples loaded into <%s> in %.1fs\n", name, change.Added, graph.Value, time.Since(start).Seconds())
	}
	return changed, nil
}

// countingWriter reports generated lines to a progress line.
type countingWriter struct {
	w        io.Writer
	progress *Progress
}

func (c *countingWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.progress.Add(int64(strings.Count(string(p[:n]), "\n")))
	return n, err
}

// runDemoRules materializes the shipped rules from scratch when the data
// changed or nothing was inferred yet.
func runDemoRules(ctx context.Context, app *App, ds kb.Dataset, changed bool) error {
	if !changed {
		inferred, err := graphstore.New(ds).Size(ctx, kb.InferredGraph)
		if err != nil {
			return err
		}
		if inferred > 0 {
			fmt.Fprintf(app.Stdout, "rules      %9d inferred triples already in <%s>\n", inferred, kb.InferredGraphIRI)
			return nil
		}
	}
	progress := app.NewProgress("rules: reading the store", "triples")
	cpu := processCPU()
	rs := &backend.Reasoner{DS: ds, Options: reasoner.Options{Reset: true, Progress: reasonProgress(progress)}}
	report, err := rs.Run(ctx, server.RuleRunRequest{})
	progress.Done()
	if err != nil {
		return fmt.Errorf("run the shipped rules: %w", err)
	}
	// The CPU time too: on a busy machine the wall time says little.
	fmt.Fprintf(app.Stdout, "rules      %9d triples inferred by %d rules in %d rounds, %d findings, %.1fs (%.1f CPU-s)\n",
		report.Summary.Derived, report.Summary.Rules, report.Summary.Rounds, report.Summary.Findings, report.Timing.Seconds, (processCPU() - cpu).Seconds())
	return nil
}

// runDemoAnalysis runs perfkb analyze's analyses (into
// urn:x-perfkb:analysis) when the data changed or none were stored yet.
func runDemoAnalysis(ctx context.Context, app *App, ds kb.Dataset, changed bool) error {
	if !changed {
		n, err := graphstore.New(ds).Size(ctx, analysis.Graph)
		if err != nil {
			return err
		}
		if n > 0 {
			fmt.Fprintf(app.Stdout, "analysis   %9d triples already in <%s>\n", n, analysis.GraphIRI)
			return nil
		}
	}
	res, err := analysis.Run(ctx, ds, analysis.Options{})
	if err != nil {
		return fmt.Errorf("analyze: %w", err)
	}
	fmt.Fprintf(app.Stdout, "analysis   %9d triples for %d experiments in %d scaling groups, %d PoorScalability findings, %.1fs (perfkb analyze)\n",
		res.Quads, len(res.Experiments), len(res.Groups), len(res.Findings), res.Duration.Seconds())
	return nil
}

func randomToken() string {
	var b [12]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// printDemoCurls prints three commands to try against the running server.
func printDemoCurls(w io.Writer, base, token string) {
	oneLine := strings.Join(strings.Fields(demoFig629), " ")
	graph := sample.DefaultGraphBase + "mine"
	fmt.Fprintf(w, `
Try it:

  # 1. The dissertation's Fig. 6.29 search, as CSV
  curl -s -H 'Accept: text/csv' --data-urlencode 'query=%s' %s/sparql

  # 2. Big-message findings, then why the first one was flagged
  curl -s '%s/findings?problem=BigMessage&limit=3'
  curl -s "%s/explain?iri=$(curl -s '%s/findings?problem=BigMessage&limit=1' | sed -E 's/.*"subject":"([^"]*)".*/\1/')"

  # 3. Push triples into a named graph (Graph Store Protocol; needs the token)
  curl -s -X POST -H 'Authorization: Bearer %s' -H 'Content-Type: application/n-triples' \
    --data-binary '<%s/hello> <%s> "hello" .' \
    '%s/data?graph=%s'

Open %s/ in a browser for the query page. Ctrl-C stops the server.
`, oneLine, base, base, base, base, token, graph, ontology.RDFSLabel, base, url.QueryEscape(graph), base)
}
