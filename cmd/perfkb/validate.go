package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/shacl"
)

func init() { register(newValidateCmd) }

func newValidateCmd(app *App) *cobra.Command {
	var shapesFile string
	var graphs []string
	cmd := &cobra.Command{
		Use:   "validate [--shapes FILE] [--graph IRI]...",
		Short: "Validate the store against SHACL shapes (the shipped PERFONTO shapes by default)",
		Long: `validate checks the store's data against SHACL Core shapes and prints the
validation report (an sh:ValidationReport, Turtle) on standard output.
Without --shapes it uses the shapes perfkb ships (ontology/perfonto-shapes.ttl:
what converters must produce for the rules and analyses to work). --graph
limits the data to named graphs (PERFONTO's own graph is added, so shapes
targeting a class find the instances of its subclasses); without it, every
graph is validated as one.

The exit status is 0 when the data conforms and 1 when it does not.`,
		Example: `  perfkb validate
  perfkb validate --graph http://perfkb.example/site/vienna
  perfkb validate --shapes my-shapes.ttl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			var opts shacl.Options
			for _, g := range graphs {
				t, err := parseGraphIRI(g)
				if err != nil {
					return usageError(err)
				}
				opts.Graphs = append(opts.Graphs, t)
			}
			if len(opts.Graphs) > 0 {
				opts.Graphs = append(opts.Graphs, kb.OntologyGraph)
			}
			shapes, err := loadShapes(ctx, shapesFile)
			if err != nil {
				return err
			}
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			if ns, ok := ds.(*native.Store); ok {
				// Validation probes every focus node's values: from the
				// in-memory read side (one scan of the store to build) a
				// probe is a binary search, from Pebble a seek, and a
				// million-triple store validates in a third of the CPU time.
				if err := ns.SetMemoryBudget(ctx, 0); err != nil {
					return err
				}
			}
			rep, err := shacl.Validate(ctx, ds, shapes, opts)
			if err != nil {
				return err
			}
			if err := rep.WriteTurtle(app.Stdout); err != nil {
				return err
			}
			return nonConforming(rep, "the data does not conform to the shapes")
		},
	}
	cmd.Flags().StringVar(&shapesFile, "shapes", "", "SHACL shapes file (any RDF format; default: the shipped PERFONTO shapes)")
	cmd.Flags().StringArrayVar(&graphs, "graph", nil, "validate only this named graph (repeatable)")
	return cmd
}

// loadShapes reads the shapes file named, or the shipped shapes when the
// name is empty.
func loadShapes(ctx context.Context, name string) (*shacl.Shapes, error) {
	if name == "" {
		return shacl.Default(ctx)
	}
	f, err := os.Open(name)
	if err != nil {
		return nil, usageError(fmt.Errorf("--shapes: %w", err))
	}
	defer f.Close()
	format, ok := rdfio.ByFileName(name)
	if !ok {
		return nil, usageError(fmt.Errorf("--shapes %s: cannot tell the RDF format from the name", name))
	}
	shapes, err := shacl.LoadShapes(ctx, f, name, format.Name)
	if err != nil {
		return nil, &exitError{code: exitInvalidInput, err: err}
	}
	return shapes, nil
}

// nonConforming is the exit-1 error for a report that does not conform.
func nonConforming(rep *shacl.Report, what string) error {
	if rep.Conforms {
		return nil
	}
	return &exitError{code: exitInvalidInput, err: fmt.Errorf("%s: %d results (%d violations)", what, len(rep.Results), rep.Violations())}
}

// validateLoad validates the files a load would add, on their own beside
// PERFONTO, before anything is written: each is read into memory as the
// load will read it. Standard input is read whole and put back in
// app.Stdin for the load.
func validateLoad(ctx context.Context, app *App, shapesFile string, args []string, opts rdfio.LoadOptions) (*shacl.Report, error) {
	shapes, err := loadShapes(ctx, shapesFile)
	if err != nil {
		return nil, err
	}
	mem := native.OpenMemory()
	defer mem.Close()
	for _, name := range args {
		fileOpts := opts
		if fileOpts.Graph.IsZero() && name != "-" {
			fileOpts.Graph = fileGraph(name)
		}
		if name == "-" {
			data, err := io.ReadAll(app.Stdin)
			if err != nil {
				return nil, err
			}
			app.Stdin = bytes.NewReader(data)
			fileOpts.SourceName = "<stdin>"
			_, err = rdfio.Load(ctx, mem, bytes.NewReader(data), fileOpts)
		} else {
			_, err = rdfio.LoadFile(ctx, mem, name, fileOpts)
		}
		if err != nil {
			if errors.Is(err, os.ErrNotExist) {
				return nil, usageError(err)
			}
			return nil, err
		}
	}
	if err := shacl.AddOntology(ctx, mem); err != nil {
		return nil, err
	}
	return shacl.Validate(ctx, mem, shapes, shacl.Options{})
}
