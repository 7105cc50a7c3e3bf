package server

import (
	"net/http"
	"strconv"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// Vocabularies used by the service description.
const (
	sdNS      = "http://www.w3.org/ns/sparql-service-description#"
	formatsNS = "http://www.w3.org/ns/formats/"
	voidNS    = "http://rdfs.org/ns/void#"
	rdfType   = ontology.RDFType
	xsdInt    = ontology.XSDInteger
)

var defaultGraphTerm = kb.DefaultGraph

// serviceDescription answers GET /sparql without a query with a SPARQL 1.1
// Service Description of this endpoint (Turtle unless Accept asks for
// another RDF syntax). A browser asking for HTML is sent to the query page.
func (s *Server) serviceDescription(c *gin.Context) {
	if !s.authorize(c, false) {
		return
	}
	if prefersHTML(c.GetHeader("Accept")) {
		c.Redirect(http.StatusSeeOther, "/")
		return
	}
	format, ok := chooseFormat(c, graphFormats)
	if !ok {
		return
	}
	endpoint := kb.IRI(s.endpointIRI(c))
	sd := func(local string) kb.Term { return kb.IRI(sdNS + local) }
	typ := kb.IRI(rdfType)
	triples := []kb.Triple{
		{S: endpoint, P: typ, O: sd("Service")},
		{S: endpoint, P: sd("endpoint"), O: endpoint},
		{S: endpoint, P: sd("supportedLanguage"), O: sd("SPARQL11Query")},
		{S: endpoint, P: sd("supportedLanguage"), O: sd("SPARQL11Update")},
		{S: endpoint, P: sd("feature"), O: sd("BasicFederatedQuery")},
	}
	for _, f := range []string{"SPARQL_Results_JSON", "SPARQL_Results_XML", "SPARQL_Results_CSV", "SPARQL_Results_TSV", "Turtle", "N-Triples", "N-Quads", "RDF_XML", "JSON-LD"} {
		triples = append(triples, kb.Triple{S: endpoint, P: sd("resultFormat"), O: kb.IRI(formatsNS + f)})
	}
	for _, f := range []string{"Turtle", "N-Triples", "N-Quads", "RDF_XML", "JSON-LD"} {
		triples = append(triples, kb.Triple{S: endpoint, P: sd("inputFormat"), O: kb.IRI(formatsNS + f)})
	}
	dataset := kb.Blank("dataset")
	triples = append(triples,
		kb.Triple{S: endpoint, P: sd("defaultDataset"), O: dataset},
		kb.Triple{S: dataset, P: typ, O: sd("Dataset")},
	)
	if s.opts.Graphs != nil {
		graphs, err := s.opts.Graphs.Graphs(c.Request.Context())
		if err != nil {
			respondError(c, err)
			return
		}
		for i, g := range graphs {
			size := kb.Literal(strconv.FormatInt(g.Triples, 10), xsdInt)
			graph := kb.Blank("g" + strconv.Itoa(i))
			if g.IRI == kb.DefaultGraphIRI {
				triples = append(triples,
					kb.Triple{S: dataset, P: sd("defaultGraph"), O: graph},
					kb.Triple{S: graph, P: typ, O: sd("Graph")},
					kb.Triple{S: graph, P: kb.IRI(voidNS + "triples"), O: size})
				continue
			}
			named := kb.Blank("n" + strconv.Itoa(i))
			triples = append(triples,
				kb.Triple{S: dataset, P: sd("namedGraph"), O: named},
				kb.Triple{S: named, P: typ, O: sd("NamedGraph")},
				kb.Triple{S: named, P: sd("name"), O: kb.IRI(g.IRI)},
				kb.Triple{S: named, P: sd("graph"), O: graph},
				kb.Triple{S: graph, P: typ, O: sd("Graph")},
				kb.Triple{S: graph, P: kb.IRI(voidNS + "triples"), O: size})
		}
	}
	out := s.newResponseStream(c, format.contentType())
	tw := newTripleWriter(format, out.w, rdfio.Prefix{Prefix: "sd", Namespace: sdNS}, rdfio.Prefix{Prefix: "fmt", Namespace: formatsNS}, rdfio.Prefix{Prefix: "void", Namespace: voidNS})
	if err := tw.begin(); err != nil {
		out.fail(err)
		return
	}
	for _, t := range triples {
		if err := tw.quad(t, defaultGraphTerm); err != nil {
			out.fail(err)
			return
		}
	}
	if err := tw.end(); err != nil {
		out.fail(err)
		return
	}
	if err := out.finish(); err != nil {
		_ = c.Error(err)
	}
}

// prefersHTML reports whether an Accept header ranks text/html above every
// RDF syntax (what a browser sends).
func prefersHTML(accept string) bool {
	html := 0.0
	rdf := 0.0
	for _, r := range parseAccept(accept) {
		switch {
		case r.typ == "text" && r.subtype == "html":
			html = max(html, r.q)
		case r.specificity("text/turtle") == 3, r.specificity("application/n-triples") == 3, r.specificity("application/rdf+xml") == 3:
			rdf = max(rdf, r.q)
		}
	}
	return html > 0 && html > rdf
}
