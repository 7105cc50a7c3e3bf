package rdfio_test

import (
	"context"
	"fmt"
	"log"
	"os"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// Load decodes an RDF document into a store in one atomic bulk write (a
// syntax error leaves the store as it was); Export writes the store back
// in any format with an encoder.
func ExampleLoad() {
	ctx := context.Background()
	ds := native.OpenMemory()
	doc := `@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#> .
<http://example.org/m1> perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue 12.5 .`
	sum, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "m1.ttl"})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(sum.Triples, "triples")
	if err := rdfio.Export(ctx, ds, os.Stdout, rdfio.ExportOptions{Format: rdfio.NTriples}); err != nil {
		log.Fatal(err)
	}
	// A bad document is refused with its position and nothing is stored.
	_, err = rdfio.Load(ctx, ds, strings.NewReader("<http://example.org/a> <http://example.org/p> ."), rdfio.LoadOptions{Format: rdfio.NTriples, SourceName: "bad.nt"})
	fmt.Println(err != nil)
	// Output:
	// 2 triples
	// <http://example.org/m1> <http://www.par.univie.ac.at/project/scalea/perfonto#hasMetricName> "wtime" .
	// <http://example.org/m1> <http://www.par.univie.ac.at/project/scalea/perfonto#hasMetricValue> "12.5"^^<http://www.w3.org/2001/XMLSchema#decimal> .
	// true
}

// ParseTerm decodes one term in N-Triples syntax.
func ExampleParseTerm() {
	t, err := rdfio.ParseTerm(`"Grüße"@de`)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(t.Kind == kb.KindLiteral, t.Value, t.Lang)
	// Output: true Grüße de
}
