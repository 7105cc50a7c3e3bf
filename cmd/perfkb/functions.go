package main

import (
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
)

func init() { register(newFunctionsCmd) }

func newFunctionsCmd(app *App) *cobra.Command {
	return &cobra.Command{
		Use:   "functions",
		Short: "List the functions SPARQL queries may call",
		Long: `functions lists every function a query may call, from the one table the
parser and the evaluator read (query/function): the SPARQL 1.1 built-in
calls by keyword, the XSD casts and perfkb's extension functions by IRI,
with the number of arguments each takes. perfkb's own functions are in
the namespace ` + query.FunctionNamespace + ` (written pf: here, and the
XSD namespace xsd:):

  PREFIX pf: <` + query.FunctionNamespace + `>
  SELECT ?m ?mu { ?m perfonto:hasMetricValue ?v
    BIND (pf:fuzzyShoulderRight(?v, 1E8, 3E8) AS ?mu) FILTER (?mu > 0.5) }

A call with the wrong number of arguments, or of a pf: or xsd: function
that does not exist, is a syntax error at its position.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "FUNCTION\tARGUMENTS\tDESCRIPTION")
			for _, d := range query.DefaultFunctions().Defs() {
				name := d.Name
				switch {
				case strings.HasPrefix(name, query.FunctionNamespace):
					name = "pf:" + strings.TrimPrefix(name, query.FunctionNamespace)
				case strings.HasPrefix(name, ontology.XSDNamespace):
					name = "xsd:" + strings.TrimPrefix(name, ontology.XSDNamespace)
				case d.IsIRI():
					name = "<" + name + ">"
				}
				if len(d.Aliases) > 0 {
					name += " (" + strings.Join(d.Aliases, ", ") + ")"
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", name, d.ArityText(), d.Doc)
			}
			return w.Flush()
		},
	}
}
