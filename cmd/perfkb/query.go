package main

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/results"
	"github.com/perfkb/perfkb/reasoner"
)

func init() { register(newQueryCmd) }

// queryFlags are the options of perfkb query.
type queryFlags struct {
	base      string
	data      []string
	named     []string
	queryFile string
	text      string
	format    string
	parseOnly bool
	update    bool
	explain   bool
	noOpt     bool
	timeout   time.Duration
	maxRows   int64
	fed       federationFlags  // --sites, --site-timeout, … (query_sites.go)
	memory    queryMemoryFlag  // --query-memory (query_budget.go)
	profile   queryProfileFlag // --cpuprofile (query_profile.go)
	rules     updateRulesFlags // --rules, --no-rules (query_update_rules.go)
}

func newQueryCmd(app *App) *cobra.Command {
	var f queryFlags
	cmd := &cobra.Command{
		Use:   "query",
		Short: "Run a SPARQL 1.1 (or RDQL) query or update",
		Long: `query runs a SPARQL 1.1 query (or a legacy RDQL query) against the store, or
against files loaded into a fresh in-memory dataset with --data (default
graph, RDF merge of the files) and --named IRI=FILE (named graphs).

SELECT and ASK results are SPARQL 1.1 JSON unless --format says otherwise (a
table when stdout is a terminal); CONSTRUCT and DESCRIBE print N-Triples
unless --format turtle. --update runs a SPARQL 1.1 Update request; with
--data/--named the resulting dataset is printed as N-Quads.

Exit status: 0 success, 1 invalid query (syntax or static error, with
line:column), 2 usage error (also a --format the query form cannot be
written in, or a named file that does not exist), 3 any other error (no
store, evaluation error, timeout, row limit, --query-memory).`,
		Example: `  perfkb query -e 'SELECT * { ?s ?p ?o } LIMIT 10'
  perfkb query 'SELECT (COUNT(*) AS ?n) { ?s ?p ?o }'
  perfkb query q.rq
  perfkb query --data data.ttl --query q.rq --format tsv
  perfkb query --named http://ex/g=g.ttl --query q.rq --explain`,
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 1 {
				// As arq and sqlite3 take it: the query text, or a query
				// file by its extension.
				if f.queryFile != "" || f.text != "" {
					return usageError(errors.New("give the query once: as an argument, --query FILE or -e TEXT"))
				}
				if ext := strings.ToLower(filepath.Ext(args[0])); !strings.ContainsAny(args[0], "{ \n") && (ext == ".rq" || ext == ".ru" || ext == ".sparql") {
					f.queryFile = args[0]
				} else {
					f.text = args[0]
				}
			}
			stop, err := f.profile.start()
			if err != nil {
				return err
			}
			return errors.Join(runQuery(cmd.Context(), app, &f), stop())
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.base, "base", "", "base IRI of the query (default: the file:// IRI of the query file)")
	fl.StringArrayVar(&f.data, "data", nil, "load an RDF file into the default graph of a fresh in-memory dataset (repeatable)")
	fl.StringArrayVar(&f.named, "named", nil, "load FILE as the named graph IRI: IRI=FILE (repeatable)")
	fl.StringVar(&f.queryFile, "query", "", "file holding the query or update")
	fl.StringVarP(&f.text, "expr", "e", "", "query or update text")
	fl.StringVar(&f.format, "format", "", "json|xml|csv|tsv|table for SELECT/ASK, ntriples|turtle|nquads|rdfxml|jsonld for CONSTRUCT/DESCRIBE")
	fl.BoolVar(&f.parseOnly, "parse-only", false, "only parse and check the query")
	fl.BoolVar(&f.update, "update", false, "the text is a SPARQL 1.1 Update request")
	fl.BoolVar(&f.explain, "explain", false, "print the optimizer's plan, then the executed plan with estimated and actual row counts, on stderr")
	fl.BoolVar(&f.noOpt, "no-optimize", false, "run the query as written: patterns in syntactic order, filters at the end of their group (for checking the optimizer)")
	fl.DurationVar(&f.timeout, "timeout", 0, "stop the query after this long (e.g. 30s; 0: no limit)")
	fl.Int64Var(&f.maxRows, "max-rows", 0, "fail when the result has more rows (0: no limit)")
	f.fed.bind(fl)
	f.memory.bind(fl)
	f.profile.bind(fl)
	f.rules.bind(fl)
	return cmd
}

func fileIRI(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		abs = path
	}
	return (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
}

// namedGraph is one --named IRI=FILE.
type namedGraph struct{ iri, file string }

func parseNamed(specs []string) ([]namedGraph, error) {
	var out []namedGraph
	for _, s := range specs {
		i := strings.LastIndex(s, "=")
		if i <= 0 || i == len(s)-1 {
			return nil, fmt.Errorf("--named %q: want IRI=FILE", s)
		}
		out = append(out, namedGraph{iri: s[:i], file: s[i+1:]})
	}
	return out, nil
}

func runQuery(ctx context.Context, app *App, f *queryFlags) error {
	if (f.queryFile == "") == (f.text == "") {
		return usageError(errors.New("give exactly one of --query FILE, -e TEXT or the query as an argument"))
	}
	named, err := parseNamed(f.named)
	if err != nil {
		return usageError(err)
	}
	if err := f.rules.check(f.update); err != nil {
		return err
	}
	format := results.Format(strings.ToLower(f.format))
	switch format {
	case "", results.JSON, results.XML, results.CSV, results.TSV, results.Table, results.NTriples, results.Turtle, results.NQuads, results.RDFXML, results.JSONLD:
	case "nt", "n-triples":
		format = results.NTriples
	case "ttl":
		format = results.Turtle
	case "nq", "n-quads":
		format = results.NQuads
	case "rdf/xml", "rdf":
		format = results.RDFXML
	case "json-ld":
		format = results.JSONLD
	default:
		return usageError(fmt.Errorf("unknown --format %q (want json, xml, csv, tsv, table, ntriples, turtle, nquads, rdfxml or jsonld)", f.format))
	}
	text, source := f.text, "<expression>"
	base := f.base
	if f.queryFile != "" {
		b, err := os.ReadFile(f.queryFile)
		if err != nil {
			return err
		}
		text, source = string(b), f.queryFile
		if base == "" {
			base = fileIRI(f.queryFile)
		}
	}
	if err := f.memory.parse(); err != nil {
		return err
	}
	opts := query.Options{Base: base, Source: source, Timeout: f.timeout, MaxRows: f.maxRows, Explain: f.explain, QueryMemory: f.memory.bytes, NoOptimize: f.noOpt, OneShot: true}

	if f.update {
		u, err := query.PrepareUpdate(text, opts)
		if err != nil {
			return err
		}
		if f.parseOnly {
			return nil
		}
		ds, spec, err := openDataset(ctx, app, f.data, named)
		if err != nil {
			return err
		}
		defer ds.Close()
		memory := spec != nil
		if memory {
			opts.Dataset = *spec
			opts.Dataset.Named, opts.Dataset.NamedNone = nil, false
		}
		target := kb.Dataset(ds)
		var live *reasoner.Live
		if !memory {
			if target, live, err = f.rules.liveForUpdate(ctx, ds); err != nil {
				return err
			}
		}
		var ruled reasoner.Summary
		if live != nil {
			live.SetOnChange(func(s reasoner.Summary) {
				ruled.Derived += s.Derived
				ruled.Retracted += s.Retracted
			})
		}
		sum, err := query.ExecUpdate(ctx, target, u, query.Options{Timeout: opts.Timeout, Dataset: opts.Dataset, Base: base})
		if err != nil {
			return err
		}
		if memory {
			return dumpDataset(ctx, app, ds)
		}
		fmt.Fprintf(app.Stderr, "%d operation(s): %d quad(s) added, %d removed\n", sum.Operations, sum.Added, sum.Removed)
		if live != nil {
			fmt.Fprintf(app.Stderr, "rules: %d derived triple(s) added, %d withdrawn that no longer follow\n", ruled.Derived, ruled.Retracted)
		}
		return nil
	}

	pctx := ctx
	if f.timeout > 0 { // the time limit covers reading the query text too
		var cancel context.CancelFunc
		pctx, cancel = context.WithTimeout(ctx, f.timeout)
		defer cancel()
	}
	prepared, err := query.PrepareContext(pctx, text, opts)
	if err != nil {
		if _, uerr := query.PrepareUpdate(text, opts); uerr == nil {
			// Updates write, so they need the flag rather than being
			// run on a guess (arq and Fuseki keep them apart too).
			return usageError(&hintedError{err: err, hint: "this is a SPARQL Update request: run it with perfkb query --update"})
		}
		return err
	}
	if err := checkFormatForForm(prepared.Form(), format); err != nil {
		return usageError(err)
	}
	if f.parseOnly {
		return nil
	}
	if f.fed.sites != "" {
		return runFederated(ctx, app, f, prepared, opts, format)
	}
	data := f.data
	if qd := prepared.Query.Dataset; qd != nil && len(data) == 0 && len(named) == 0 {
		// FROM / FROM NAMED naming files: read them into a fresh dataset.
		for _, iri := range append(append([]string{}, qd.Default...), qd.Named...) {
			if strings.HasPrefix(iri, "file:") {
				named = append(named, namedGraph{iri: iri, file: iriPath(iri)})
			}
		}
	} else if qd != nil {
		have := map[string]bool{}
		for _, n := range named {
			have[n.iri] = true
		}
		for _, iri := range append(append([]string{}, qd.Default...), qd.Named...) {
			if !have[iri] && strings.HasPrefix(iri, "file:") {
				named = append(named, namedGraph{iri: iri, file: iriPath(iri)})
				have[iri] = true
			}
		}
	}
	app.readOnly = true // a query reads: other readers may share the store
	ds, spec, err := openDataset(ctx, app, data, named)
	if err != nil {
		return err
	}
	defer ds.Close()
	if spec != nil {
		opts.Dataset = *spec
	}
	f.fed.apply(&opts, f.fed.client(ds, f.maxRows)) // SERVICE: any endpoint from the CLI
	res, err := query.Exec(ctx, ds, prepared, opts)
	if err != nil {
		return err
	}
	defer res.Close()
	if format == "" {
		format = results.JSON
		if app.IsTerminal(app.Stdout) {
			format = results.Table
		}
	}
	if err := res.Write(app.Stdout, format); err != nil {
		return err
	}
	if f.explain {
		fmt.Fprintf(app.Stderr, "plan (%s):\n%s", prepared.Language, res.Explain())
	}
	return nil
}

func iriPath(iri string) string {
	u, err := url.Parse(iri)
	if err != nil {
		return iri
	}
	return u.Path
}

// openDataset loads --data and --named files into a fresh in-memory store
// and returns the dataset they define: the --data files form the default
// graph (N-Quads files keep their graphs, which join the default graph and
// are also named graphs) and the --named graphs are named graphs. Without
// files it opens --store and returns a nil spec (the store's default
// dataset).
func openDataset(ctx context.Context, app *App, data []string, named []namedGraph) (kb.Dataset, *query.DatasetSpec, error) {
	if len(data) == 0 && len(named) == 0 {
		ds, err := app.OpenStore(ctx)
		return ds, nil, err
	}
	ds := native.OpenMemory()
	fail := func(err error) (kb.Dataset, *query.DatasetSpec, error) {
		ds.Close()
		return nil, nil, err
	}
	for _, file := range data {
		if _, err := rdfio.LoadFile(ctx, ds, file, rdfio.LoadOptions{}); err != nil {
			return fail(err)
		}
	}
	spec := &query.DatasetSpec{Default: []kb.Term{kb.DefaultGraph}, NamedNone: true}
	graphs, err := ds.Graphs(ctx)
	if err != nil {
		return fail(err)
	}
	for _, g := range graphs {
		t, err := ds.Resolve(ctx, g)
		if err != nil {
			return fail(err)
		}
		if t != kb.DefaultGraph {
			spec.Default = append(spec.Default, t)
			spec.Named = append(spec.Named, t)
		}
	}
	for _, n := range named {
		if _, err := rdfio.LoadFile(ctx, ds, n.file, rdfio.LoadOptions{Graph: kb.IRI(n.iri)}); err != nil {
			return fail(err)
		}
		spec.Named = append(spec.Named, kb.IRI(n.iri))
	}
	return ds, spec, nil
}

// dumpDataset prints every quad as N-Quads, sorted (default graph without
// a graph label).
func dumpDataset(ctx context.Context, app *App, ds kb.Dataset) error {
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		return err
	}
	lines := make([]string, 0, len(quads))
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			return err
		}
		lines = append(lines, tq.String())
	}
	sort.Strings(lines)
	for _, l := range lines {
		if _, err := fmt.Fprintln(app.Stdout, l); err != nil {
			return err
		}
	}
	return nil
}

// checkFormatForForm rejects a --format the query's result cannot be written
// in (CSV for a CONSTRUCT, Turtle for a SELECT) instead of silently writing
// another format.
func checkFormatForForm(form query.Form, format results.Format) error {
	if format == "" {
		return nil
	}
	graph := form == query.FormConstruct || form == query.FormDescribe
	isGraphFormat := results.IsGraphFormat(format)
	switch {
	case graph && !isGraphFormat:
		return fmt.Errorf("--format %s cannot hold the triples of a %s query (want ntriples, turtle, nquads, rdfxml or jsonld)", format, form)
	case !graph && isGraphFormat:
		return fmt.Errorf("--format %s cannot hold the result of a %s query (want json, xml, csv, tsv or table)", format, form)
	}
	return nil
}
