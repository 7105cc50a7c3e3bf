package query_test

import (
	"context"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
)

// TestRelativeIRIsResolveAlike resolves one relative reference, x, against
// a base with a non-ASCII character in every place perfkb resolves IRIs:
// the SPARQL text (<x>), the SPARQL IRI function, and the Turtle, TriG and
// RDF/XML decoders. RFC 3987 resolves IRIs on characters, so the answer is
// written out by hand and is the same everywhere (no percent-encoding).
func TestRelativeIRIsResolveAlike(t *testing.T) {
	const base = "http://ex.org/café/"
	for _, tc := range []struct{ ref, want string }{
		{"x", "http://ex.org/café/x"},
		{"../y/z", "http://ex.org/y/z"},
		{"é?q#f", "http://ex.org/café/é?q#f"},
		{"//other/ü", "http://other/ü"},
	} {
		t.Run(tc.ref, func(t *testing.T) {
			ctx := context.Background()
			res, err := query.Run(ctx, kbtest.NewMemory(), `BASE <`+base+`> SELECT ?a ?b WHERE { BIND(<`+tc.ref+`> AS ?a) BIND(IRI("`+tc.ref+`") AS ?b) }`, query.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rows, err := res.Rows()
			if err != nil {
				t.Fatal(err)
			}
			if len(rows) != 1 {
				t.Fatalf("%d rows; want 1", len(rows))
			}
			if got := rows[0][0]; got != kb.IRI(tc.want) {
				t.Errorf("SPARQL <%s> = %v; want <%s>", tc.ref, got, tc.want)
			}
			if got := rows[0][1]; got != kb.IRI(tc.want) {
				t.Errorf(`SPARQL IRI("%s") = %v; want <%s>`, tc.ref, got, tc.want)
			}
			for format, doc := range map[string]string{
				rdfio.Turtle: `@base <` + base + `> . <` + tc.ref + `> <http://e/p> "o" .`,
				rdfio.TriG:   `BASE <` + base + `> { <` + tc.ref + `> <http://e/p> "o" . }`,
				rdfio.RDFXML: `<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#" xmlns:e="http://e/" xml:base="` + base + `">` +
					`<rdf:Description rdf:about="` + strings.ReplaceAll(tc.ref, "&", "&amp;") + `"><e:p>o</e:p></rdf:Description></rdf:RDF>`,
			} {
				f, _ := rdfio.Lookup(format)
				q, err := f.NewDecoder(strings.NewReader(doc), rdfio.Options{Source: "doc"}).Next()
				if err != nil {
					t.Errorf("%s: %v", format, err)
					continue
				}
				if q.S != kb.IRI(tc.want) {
					t.Errorf("%s: <%s> resolves to %v; want <%s>", format, tc.ref, q.S, tc.want)
				}
			}
		})
	}
}
