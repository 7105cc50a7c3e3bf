package query_test

import (
	"context"
	"testing"

	"github.com/perfkb/perfkb/query"
)

// funcBenchQueries spend their time in function calls: each calls
// built-in or cast functions once or more per metric (every metric of the
// sample data passes through the FILTER or BIND), so they show what
// dispatching a function costs per row.
var funcBenchQueries = []struct{ name, text string }{
	{"StrFilter", perfonto + `SELECT ?m WHERE { ?m perfonto:hasMetricName ?n
  FILTER (STRSTARTS(?n, "L2") || STRLEN(?n) > 6 || CONTAINS(LCASE(?n), "time")) }`},
	{"NumericFilter", perfonto + `SELECT ?m WHERE { ?m perfonto:hasMetricValue ?v
  FILTER (ABS(?v) > 1000 && ROUND(?v) >= CEIL(?v) && ISNUMERIC(?v)) }`},
	{"CastFilter", perfonto + `PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
SELECT ?m WHERE { ?m perfonto:hasMetricValue ?v FILTER (xsd:double(?v) >= 3E8) }`},
	{"RegexFilter", perfonto + `SELECT ?m WHERE { ?m perfonto:hasMetricName ?n FILTER REGEX(?n, "^L2_", "i") }`},
	{"BindConcat", perfonto + `SELECT ?u WHERE { ?m perfonto:hasMetricName ?n BIND (UCASE(CONCAT(?n, "-", STR(?m))) AS ?u) }`},
	{"IfCoalesce", perfonto + `SELECT ?x WHERE { ?m perfonto:hasMetricValue ?v
  BIND (IF(?v > 100, COALESCE(?nope, ?v), 0) AS ?x) }`},
}

// BenchmarkFunctions measures FILTERs and BINDs dominated by function
// calls (the SPARQL function registry dispatches them).
func BenchmarkFunctions(b *testing.B) {
	ds := benchDataset(b)
	ctx := context.Background()
	for _, bq := range funcBenchQueries {
		p, err := query.Prepare(bq.text, query.Options{})
		if err != nil {
			b.Fatalf("%s: %v", bq.name, err)
		}
		b.Run(bq.name, func(b *testing.B) {
			rows := 0
			cpu := processCPU()
			defer func() { reportCPU(b, cpu) }()
			for i := 0; i < b.N; i++ {
				res, err := query.Exec(ctx, ds, p, query.Options{})
				if err != nil {
					b.Fatal(err)
				}
				all, err := res.Rows()
				if err != nil {
					b.Fatal(err)
				}
				rows = len(all)
			}
			b.ReportMetric(float64(rows), "rows")
		})
	}
}
