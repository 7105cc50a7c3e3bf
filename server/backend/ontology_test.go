package backend

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/kb/store"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// TestOntologyInTheStore checks the ontology part of the codecs issue: a
// store holding PERFONTO answers the class-hierarchy path query, and
// GET /ontology serves it in Turtle and RDF/XML.
func TestOntologyInTheStore(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	if _, err := store.EnsureOntology(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if _, err := rdfio.Load(ctx, ds, strings.NewReader(`<http://e/cr1> <`+ontology.RDFType+`> <`+ontology.MPISendRegion+`> .`+"\n"),
		rdfio.LoadOptions{Format: rdfio.NTriples, Graph: kb.IRI("http://e/site")}); err != nil {
		t.Fatal(err)
	}
	res, err := query.Run(ctx, ds, `PREFIX perfonto: <`+ontology.Namespace+`>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?cr WHERE { ?cr a/rdfs:subClassOf* perfonto:SpecificCodeRegion }`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var rows int
	for {
		if _, ok := res.Next(); !ok {
			break
		}
		rows++
	}
	res.Close()
	if rows != 1 {
		t.Fatalf("?cr a/rdfs:subClassOf* perfonto:SpecificCodeRegion: %d rows, want 1", rows)
	}

	srv := server.New(server.Options{Graphs: graphstore.New(ds)})
	for accept, want := range map[string]string{"text/turtle": "owl:Class", "application/rdf+xml": "rdf:RDF"} {
		req := httptest.NewRequest(http.MethodGet, "/ontology", nil)
		req.Header.Set("Accept", accept)
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, req)
		if rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), want) || !strings.Contains(rec.Body.String(), "MPCodeRegion") {
			t.Errorf("GET /ontology as %s: %d, %d bytes, want %s and MPCodeRegion", accept, rec.Code, rec.Body.Len(), want)
		}
	}
}
