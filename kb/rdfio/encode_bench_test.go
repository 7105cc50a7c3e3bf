package rdfio

import (
	"fmt"
	"io"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// BenchmarkEncoders writes 10,000 PERFONTO-like statements (a typed
// subject with an IRI, a string and a double each) in every format to
// io.Discard.
func BenchmarkEncoders(b *testing.B) {
	const ns = "http://www.par.univie.ac.at/project/scalea/perfonto#"
	iri := func(s string) kb.Term { return kb.Term{Kind: kb.KindIRI, Value: s} }
	var in []kb.TermQuad
	for i := range 2500 {
		s := iri(fmt.Sprintf("http://perfkb.example/site/x/rs%d", i))
		in = append(in,
			kb.TermQuad{S: s, P: iri(ontology.RDFType), O: iri(ns + "RegionSummary")},
			kb.TermQuad{S: s, P: iri(ns + "hasRegion"), O: iri(fmt.Sprintf("http://perfkb.example/site/x/r%d", i%97))},
			kb.TermQuad{S: s, P: iri(ns + "hasMetricName"), O: kb.Term{Kind: kb.KindLiteral, Value: "wtime", Datatype: ontology.XSDString}},
			kb.TermQuad{S: s, P: iri(ns + "hasMetricValue"), O: kb.Term{Kind: kb.KindLiteral, Value: fmt.Sprintf("%d.5E3", i), Datatype: ontology.XSDDouble}})
	}
	for _, f := range Formats() {
		b.Run(f.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				enc := f.NewEncoder(io.Discard, EncoderOptions{})
				for _, q := range in {
					if err := enc.Encode(q); err != nil {
						b.Fatal(err)
					}
				}
				if err := enc.Close(); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
