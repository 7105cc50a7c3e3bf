package main

import (
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

func init() { register(newLoadCmd) }

func newLoadCmd(app *App) *cobra.Command {
	var graph, format, base, validate, shapesFile string
	var profile queryProfileFlag
	cmd := &cobra.Command{
		Use:   "load [flags] FILE...",
		Short: "Load RDF files (N-Triples, N-Quads, Turtle, TriG, RDF/XML) into the store",
		Long: `load reads RDF files into the store. The format comes from the file extension
(.nt, .nq, .ttl, .rdf/.owl/.xml, each optionally .gz) or from --format; "-"
reads standard input (and then needs --format).

Each file's triples go into a named graph of their own, the file's file://
IRI, unless --graph names one graph for all of them; N-Quads keep the graphs
written in the file (their triples without a graph go to --graph, or to the
default graph). Blank nodes are never shared between files.

Each file is loaded atomically: a file with a syntax error is reported as
FILE:LINE:COLUMN and none of it is stored (files before it stay loaded).
A progress line is drawn on a terminal; a summary is printed at the end.

--validate checks the files first against SHACL shapes (--shapes FILE, or
the shipped PERFONTO shapes; see 'perfkb validate'), each file as it would
be stored, beside PERFONTO's class hierarchy: when they do not conform, the
validation report is printed, nothing is loaded and the exit status is 1.
--validate=warn prints the report on standard error and loads anyway.`,
		Example: `  perfkb load sample.nq
  perfkb load --graph http://perfkb.example/site/vienna vienna.nt
  perfkb sample --format ntriples | perfkb load --format ntriples -
  perfkb load --validate converted.nt`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return usageError(errors.New("load needs at least one FILE (or - for standard input)"))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error {
			ctx := cmd.Context()
			// "--validate warn" as two words: pflag gives the optional
			// value only after '=', so take a first argument that is a mode
			// and not a file.
			if validate == "reject" && len(args) > 1 && args[0] == "warn" {
				if _, err := os.Stat("warn"); err != nil {
					validate, args = "warn", args[1:]
				}
			}
			switch validate {
			case "", "reject", "warn":
			default:
				return usageError(fmt.Errorf("--validate=%s: want reject (the default) or warn", validate))
			}
			var opts rdfio.LoadOptions
			if format != "" {
				f, err := rdfio.ParseFormat(format)
				if err != nil {
					return usageError(err)
				}
				opts.Format = f
			}
			if graph != "" {
				g, err := parseGraphIRI(graph)
				if err != nil {
					return usageError(err)
				}
				opts.Graph = g
			}
			opts.BaseIRI = base
			// Check every argument before loading anything.
			for _, name := range args {
				if name == "-" {
					if opts.Format == "" {
						return usageError(errors.New("reading standard input (-) needs --format (ntriples, nquads, turtle or rdfxml)"))
					}
					continue
				}
				if fi, err := os.Stat(name); err != nil {
					return usageError(fmt.Errorf("cannot read %s: %w", name, errors.Unwrap(err)))
				} else if fi.IsDir() {
					return usageError(fmt.Errorf("%s is a directory; want an RDF file", name))
				}
				if _, ok := rdfio.ByFileName(name); !ok && opts.Format == "" {
					return usageError(fmt.Errorf("cannot tell the RDF format of %s from its name: give --format (ntriples, nquads, turtle or rdfxml)", name))
				}
			}
			if validate != "" {
				rep, err := validateLoad(ctx, app, shapesFile, args, opts)
				if err != nil {
					return err
				}
				if !rep.Conforms {
					out := app.Stdout
					if validate == "warn" {
						out = app.Stderr
					}
					if err := rep.WriteTurtle(out); err != nil {
						return err
					}
					if validate == "reject" {
						return nonConforming(rep, "load refused, the store is unchanged: the data does not conform to the shapes")
					}
					fmt.Fprintf(app.Stderr, "perfkb: warning: the data does not conform to the shapes (%d results); loading anyway\n", len(rep.Results))
				}
			}
			stopProfile, err := profile.start()
			if err != nil {
				return err
			}
			defer stopProfile()
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()

			// The store's size before and after tells how many of the
			// triples read were new: a reload stores nothing.
			before, err := ds.Count(ctx, kb.Pattern{}, true)
			if err != nil {
				return err
			}
			start := time.Now()
			var total int64
			graphs := make(map[kb.Term]bool)
			for _, name := range args {
				fileOpts := opts
				if fileOpts.Graph.IsZero() && name != "-" {
					fileOpts.Graph = fileGraph(name)
				}
				progressDone := loadProgress(app, displayName(name), &fileOpts)
				var sum rdfio.LoadSummary
				if name == "-" {
					fileOpts.SourceName = "<stdin>"
					sum, err = rdfio.Load(ctx, ds, app.Stdin, fileOpts)
				} else {
					sum, err = rdfio.LoadFile(ctx, ds, name, fileOpts)
				}
				progressDone()
				if err != nil {
					if errors.Is(err, fs.ErrNotExist) {
						return usageError(err)
					}
					if total > 0 {
						fmt.Fprintf(app.Stderr, "perfkb: %s triples from the files before %s stay loaded\n", humanCount(total), displayName(name))
					}
					return err
				}
				total += sum.Triples
				for _, g := range sum.GraphNames {
					graphs[g] = true
				}
			}
			after, err := ds.Count(ctx, kb.Pattern{}, true)
			if err != nil {
				return err
			}
			closing := app.NewProgress("writing the dictionary and flushing the store to disk", "")
			err = ds.Close()
			closing.Done()
			if err != nil {
				return err
			}
			secs := time.Since(start).Seconds()
			graphWord := "graphs"
			if len(graphs) == 1 {
				graphWord = "graph"
			}
			added := after - before
			fmt.Fprintf(app.Stdout, "loaded %s triples into %d %s in %.2f s (%s triples/s): %s new, %s already present\n",
				humanCount(total), len(graphs), graphWord, secs, humanCount(int64(float64(total)/maxSeconds(secs))),
				humanCount(added), humanCount(max(total-added, 0)))
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&graph, "graph", "", "load every triple into this named graph (an absolute IRI)")
	f.StringVar(&format, "format", "", "input format: ntriples, nquads, turtle or rdfxml (default: from the file extension)")
	f.StringVar(&base, "base", "", "base IRI for relative IRIs in Turtle and RDF/XML (default: the file's file:// IRI)")
	f.StringVar(&validate, "validate", "", "validate the files against SHACL shapes first: reject (refuse a non-conforming load) or warn")
	f.Lookup("validate").NoOptDefVal = "reject"
	profile.bind(f)
	f.StringVar(&shapesFile, "shapes", "", "SHACL shapes file for --validate (default: the shipped PERFONTO shapes)")
	return cmd
}

// loadProgress sets the progress callbacks of opts to draw "reading …"
// while parsing and "writing …" while a store commits; call the returned
// function when the load ends.
func loadProgress(app *App, name string, opts *rdfio.LoadOptions) (done func()) {
	reading := app.NewProgress("reading "+name, "triples")
	// The native store reports nothing while it sorts and writes its
	// indexes after the last batch; say so instead of "reading".
	reading.SetIdle("sorting and writing the indexes of " + name)
	var writing *Progress
	opts.Progress = reading.Set
	opts.InputProgress = reading.SetInput
	opts.CommitProgress = func(done, total int64) {
		if writing == nil {
			reading.Done()
			writing = app.NewProgress(fmt.Sprintf("writing %s to the store (sorting, indexes):", name), "quads")
		}
		writing.SetTotal(total)
		writing.Set(done)
	}
	return func() {
		reading.Done()
		if writing != nil {
			writing.Done()
		}
	}
}

func displayName(name string) string {
	if name == "-" {
		return "<stdin>"
	}
	return name
}

// fileGraph names the graph of a loaded file: its absolute file:// IRI.
func fileGraph(name string) kb.Term {
	abs, err := filepath.Abs(name)
	if err != nil {
		abs = name
	}
	return kb.IRI((&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String())
}

// parseGraphIRI checks a graph name given on the command line.
func parseGraphIRI(s string) (kb.Term, error) {
	if len(s) > 1 && s[0] == '<' && s[len(s)-1] == '>' {
		s = s[1 : len(s)-1]
	}
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return kb.Term{}, fmt.Errorf("graph name %q is not an absolute IRI (want e.g. http://perfkb.example/site/vienna or urn:x:name)", s)
	}
	return kb.IRI(s), nil
}
