package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/shacl"
)

func init() { register(newConvertCmd) }

// convertConstructors holds the `perfkb convert <kind>` subcommands; each
// converter's file registers its own with registerConvert in init.
var convertConstructors []func(*App) *cobra.Command

// registerConvert adds a `perfkb convert <kind>` subcommand. Its RunE
// should call runConversion with the flags from addConvertFlags.
func registerConvert(newCommand func(*App) *cobra.Command) {
	convertConstructors = append(convertConstructors, newCommand)
}

func newConvertCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "convert KIND [flags]",
		Short: "Convert performance tools' own data (SCALEA, sensors, traces, profiles) to PERFONTO triples",
		Long: `convert reads the data of a performance tool and writes PERFONTO triples of the
same shape the shipped analysis rules read.

Every converter takes the same output flags:
  --base IRI     (required) base of every IRI minted; absolute, ending in / or #.
                 IRIs come from source keys only, so converting twice gives the
                 same triples and two bases never collide.
  --out FILE     write N-Triples to FILE ("-" for standard output; --sorted
                 sorts them and drops duplicates), instead of the store;
  --push URL     send them to a perfkb server as one Graph Store Protocol
                 request (token from $PERFKB_TOKEN), instead of the store;
  otherwise they are loaded into --store, into --graph (default: the base
  without its trailing / or #), as one atomic bulk load.
  --validate     check the output against SHACL shapes (--shapes FILE, or the
                 shipped PERFONTO shapes) before writing it: the report goes
                 to standard error and output that does not conform is
                 discarded (exit 1); --validate=warn writes it anyway.
A failed conversion leaves the store (or the remote graph, or --out FILE)
unchanged. Exit status: 0 ok, 1 invalid input, 2 usage, 3 other errors.`,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) > 0 {
				return usageError(fmt.Errorf("unknown converter %q (see perfkb convert --help)", args[0]))
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, _ []string) error {
			return usageError(errors.New("convert needs a KIND: " + convertKinds(cmd)))
		},
	}
	for _, newCommand := range convertConstructors {
		cmd.AddCommand(newCommand(app))
	}
	return cmd
}

func convertKinds(cmd *cobra.Command) string {
	s := ""
	for i, c := range cmd.Commands() {
		if i > 0 {
			s += ", "
		}
		s += c.Name()
	}
	return s
}

// convertFlags are the output flags every converter shares.
type convertFlags struct {
	base, out, graph, push, report string
	sorted                         bool
	validate, shapes               string
}

// addConvertFlags adds --base, --out, --sorted, --graph, --push and
// --report to a `convert <kind>` command.
func addConvertFlags(cmd *cobra.Command) *convertFlags {
	cf := &convertFlags{}
	f := cmd.Flags()
	f.StringVar(&cf.base, "base", "", "base IRI of the converted data (required; absolute, ending in / or #)")
	f.StringVarP(&cf.out, "out", "o", "", "write N-Triples to FILE (- for standard output) instead of the store")
	f.BoolVar(&cf.sorted, "sorted", false, "with --out: sort the N-Triples and drop duplicates (sorted runs spill to temporary files beyond 32 MB)")
	f.StringVar(&cf.graph, "graph", "", "target graph in the store or on the --push server (default: --base without its trailing / or #)")
	f.StringVar(&cf.push, "push", "", "send the triples to the perfkb server at URL (one GSP POST; token from $PERFKB_TOKEN)")
	f.StringVar(&cf.report, "report", "", "print the conversion report as json (default: a summary line)")
	f.StringVar(&cf.validate, "validate", "", "validate the output against SHACL shapes before writing it: reject (discard non-conforming output, exit 1) or warn")
	f.Lookup("validate").NoOptDefVal = "reject"
	f.StringVar(&cf.shapes, "shapes", "", "SHACL shapes file for --validate (default: the shipped PERFONTO shapes)")
	return cf
}

// conversionFunc runs one conversion into sink; base is the parsed --base.
type conversionFunc func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error)

// parseBase checks --base; converters that need it before running (to
// build their options) call it, runConversion calls it again.
func (cf *convertFlags) parseBase() (convert.Base, error) {
	if cf.base == "" {
		return convert.Base{}, usageError(errors.New("--base is required: the base IRI of the converted data, e.g. --base http://perfkb.example/site/vienna/"))
	}
	b, err := convert.ParseBase(cf.base)
	if err != nil {
		return convert.Base{}, usageError(err)
	}
	return b, nil
}

// runConversion checks the shared flags, opens the sink they name, runs fn
// with a progress line on a terminal, commits or discards the output, and
// prints the report. name labels progress and messages ("scalea").
func runConversion(ctx context.Context, app *App, cf *convertFlags, name string, fn conversionFunc) error {
	base, err := cf.parseBase()
	if err != nil {
		return err
	}
	switch cf.report {
	case "", "json", "text":
	default:
		return usageError(fmt.Errorf("--report %q: want json or text", cf.report))
	}
	if cf.out != "" && cf.push != "" {
		return usageError(errors.New("--out and --push exclude each other"))
	}
	if cf.out != "" && cf.graph != "" {
		return usageError(errors.New("--graph names a store or server graph; N-Triples (--out) have none"))
	}
	if cf.sorted && cf.out == "" {
		return usageError(errors.New("--sorted applies to --out only"))
	}
	switch cf.validate {
	case "", "reject", "warn":
	default:
		return usageError(fmt.Errorf("--validate=%s: want reject (the default) or warn", cf.validate))
	}
	var shapes *shacl.Shapes
	if cf.validate != "" {
		if shapes, err = loadShapes(ctx, cf.shapes); err != nil {
			return err
		}
	}
	graph := base.Graph()
	if cf.graph != "" {
		if graph, err = parseGraphIRI(cf.graph); err != nil {
			return usageError(err)
		}
	}

	var sink convert.Sink
	var store *convert.StoreSink
	var ds kb.Dataset
	var target string
	reportOut := app.Stdout
	switch {
	case cf.out == "-":
		sink = convert.NewNTriplesSink(app.Stdout, cf.sorted)
		reportOut, target = app.Stderr, "standard output"
	case cf.out != "":
		s, err := convert.CreateNTriplesFile(cf.out, cf.sorted)
		if err != nil {
			return usageError(fmt.Errorf("cannot write %s: %w", cf.out, err))
		}
		sink, target = s, cf.out
	case cf.push != "":
		s, err := convert.NewPushSink(ctx, nil, cf.push, graph, os.Getenv("PERFKB_TOKEN"))
		if err != nil {
			return usageError(err)
		}
		sink, target = s, fmt.Sprintf("graph <%s> on %s", graph.Value, cf.push)
	default:
		if ds, err = app.OpenStore(ctx); err != nil {
			return err
		}
		defer ds.Close()
		opts := rdfio.LoadOptions{Graph: graph, SourceName: name}
		done := loadProgress(app, name+" output", &opts)
		defer done()
		opts.Progress = nil // the converter's own progress line counts
		store = convert.NewStoreSink(ctx, ds, opts)
		sink, target = store, fmt.Sprintf("graph <%s>", graph.Value)
	}

	if store == nil {
		// Format and write the output while the converter reads.
		sink = convert.Pipelined(sink)
	}
	if shapes != nil {
		sink = &validatingSink{Sink: sink, shapes: shapes, warn: cf.validate == "warn", report: app.Stderr, graph: graph}
	}
	progress := app.NewProgress("converting "+name, "triples")
	counting := &convert.CountingSink{Sink: sink, OnAdd: func(n int64) {
		if n&1023 == 0 {
			progress.Set(n)
		}
	}}
	rep, err := convert.Run(ctx, convert.ConverterFunc(func(ctx context.Context, sink convert.Sink) (convert.Report, error) {
		return fn(ctx, base, sink)
	}), counting)
	progress.Done()
	if err != nil {
		if cf.out != "-" {
			return fmt.Errorf("%w (%s unchanged)", err, target)
		}
		return err
	}
	if ds != nil {
		if err := ds.Close(); err != nil {
			return err
		}
	}
	return printReport(reportOut, app.Stderr, cf.report, rep, target)
}

// printReport prints the JSON report or a summary line and the first
// warnings.
func printReport(out, errOut io.Writer, format string, rep convert.Report, target string) error {
	if format == "json" {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	const shown = 20
	for i, w := range rep.Warnings {
		if i == shown {
			fmt.Fprintf(errOut, "perfkb: warning: … and %d more (--report json lists up to %d)\n", rep.WarningCount-shown, convert.MaxWarnings)
			break
		}
		fmt.Fprintf(errOut, "perfkb: warning: %s\n", w)
	}
	// The report's tables are a database's tables or a file's record
	// kinds: name them with their counts rather than count "tables".
	const kinds = 6
	var per []string
	for i, tr := range rep.Tables {
		if i == kinds {
			per = append(per, fmt.Sprintf("… %d more", len(rep.Tables)-kinds))
			break
		}
		per = append(per, tr.Name+" "+humanCount(tr.Rows))
	}
	fmt.Fprintf(out, "converted %s records (%s) into %s triples (%s) in %.2f s (%s records/s, %s triples/s), %d warnings\n",
		humanCount(rep.Rows), strings.Join(per, ", "), humanCount(rep.Triples), target, rep.DurationSeconds,
		humanCount(int64(rep.RowsPerSecond)), humanCount(int64(rep.TriplesPerSecond)), rep.WarningCount)
	return nil
}
