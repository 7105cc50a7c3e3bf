package main

import (
	"fmt"
	"os"

	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/spf13/cobra"
)

func init() { register(newExportCmd) }

func newExportCmd(app *App) *cobra.Command {
	var graphs []string
	var format, output string
	cmd := &cobra.Command{
		Use:   "export [--graph IRI]... [--format F] [-o FILE]",
		Short: "Write the store (or some graphs) as N-Quads, TriG, N-Triples, Turtle or RDF/XML",
		Long: `export writes quads from the store to standard output or a file. N-Quads (the
default) keeps each quad's graph; N-Triples and Turtle write the triples of
the chosen graphs merged, each once. Literals keep their datatype and
language tag exactly. --graph may be repeated; without it every graph is
written (perfkb graphs lists them).`,
		Example: `  perfkb export > all.nq
  perfkb export --graph urn:x-perfkb:inferred --format turtle -o inferred.ttl`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			f, err := rdfio.ParseFormat(format)
			if err != nil {
				return usageError(err)
			}
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			opts := rdfio.ExportOptions{Format: f}
			for _, g := range graphs {
				term, err := parseGraphIRI(g)
				if err != nil {
					return usageError(err)
				}
				id, ok, err := ds.Lookup(ctx, term)
				if err != nil {
					return err
				}
				if !ok {
					return usageError(fmt.Errorf("no graph %s in the store (perfkb graphs lists the graphs)", term))
				}
				opts.Graphs = append(opts.Graphs, id)
			}
			out := app.Stdout
			var file *os.File
			if output != "" && output != "-" {
				if file, err = os.Create(output); err != nil {
					return err
				}
				out = file
			}
			err = rdfio.Export(ctx, ds, out, opts)
			if file != nil {
				if cerr := file.Close(); err == nil {
					err = cerr
				}
				if err != nil {
					_ = os.Remove(output)
				}
			}
			return err
		},
	}
	fl := cmd.Flags()
	fl.StringArrayVar(&graphs, "graph", nil, "export only this graph (an IRI; repeatable)")
	fl.StringVar(&format, "format", "nquads", "output format: nquads, trig, ntriples, turtle or rdfxml (the formats without graphs merge the exported graphs)")
	fl.StringVarP(&output, "output", "o", "", "write to FILE instead of stdout")
	return cmd
}
