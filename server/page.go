package server

import (
	"embed"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"sort"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/rules"
)

// webFiles is the query page: plain HTML, JavaScript and CSS, plus the
// vendored YASGUI build (server/web/vendor, fetched by server/web/vendor.sh
// and committed), so no build step is needed.
//
//go:embed web/index.html web/*.js web/style.css web/*.json web/vendor
var webFiles embed.FS

// page serves the query page.
func (s *Server) page(c *gin.Context) {
	b, err := webFiles.ReadFile("web/index.html")
	if err != nil {
		respondError(c, err)
		return
	}
	c.Header("Cache-Control", "no-cache")
	c.Data(http.StatusOK, "text/html; charset=utf-8", b)
}

// termsFile is the generated file the page's editor completes PERFONTO
// terms from (it is not on disk: it is built from the embedded ontology).
const termsFile = "perfonto-terms.json"

// static serves the page's scripts, styles, vendored files and the
// ontology term list.
func (s *Server) static(c *gin.Context) {
	name := strings.TrimPrefix(path.Clean(c.Param("file")), "/")
	if set, ok := strings.CutPrefix(name, "rules/"); ok {
		// The shipped rule sets as text, so that an explanation can show
		// the rule that fired in the words it was written in.
		if set == "index.json" {
			b, _ := json.Marshal(rules.Names())
			c.Data(http.StatusOK, "application/json", b)
			return
		}
		if _, src, found := rules.Lookup(set); found {
			c.Header("Cache-Control", "max-age=3600")
			c.Data(http.StatusOK, "text/plain; charset=utf-8", src)
			return
		}
		respondError(c, newAPIError(ErrorNotFound, "no shipped rule set %q", set))
		return
	}
	if name == termsFile {
		b, err := ontologyTermsJSON()
		if err != nil {
			respondError(c, err)
			return
		}
		c.Header("Cache-Control", "max-age=3600")
		c.Data(http.StatusOK, "application/json", b)
		return
	}
	b, err := fs.ReadFile(webFiles, "web/"+name)
	if err != nil || name == "index.html" {
		respondError(c, newAPIError(ErrorNotFound, "no such file: %s", name))
		return
	}
	contentType := mime.TypeByExtension(path.Ext(name))
	switch path.Ext(name) {
	case ".js":
		contentType = "text/javascript; charset=utf-8"
	case ".css":
		contentType = "text/css; charset=utf-8"
	case ".json":
		contentType = "application/json"
	case "":
		contentType = "text/plain; charset=utf-8" // LICENSE, VERSION
	}
	if contentType == "" {
		contentType = "application/octet-stream"
	}
	c.Header("Cache-Control", "no-cache")
	c.Data(http.StatusOK, contentType, b)
}

// OntologyTerms is what the query page completes and labels with: the
// prefixes it declares, the PERFONTO classes, properties and individuals
// (prefixed names with their labels), and the metric catalog with units.
type OntologyTerms struct {
	Prefixes    map[string]string `json:"prefixes"`
	Classes     []Term            `json:"classes"`
	Properties  []Term            `json:"properties"`
	Individuals []Term            `json:"individuals"`
	Metrics     []MetricTerm      `json:"metrics"`
}

// Term is one ontology term for completion.
type Term struct {
	Name  string `json:"name"` // prefixed name, e.g. perfonto:LateSender
	Label string `json:"label,omitempty"`
}

// MetricTerm is one metric of the catalog with its unit.
type MetricTerm struct {
	Name        string `json:"name"`
	Unit        string `json:"unit"`
	Description string `json:"description"`
}

var (
	termsOnce sync.Once
	termsJSON []byte
	termsErr  error
)

// ontologyTermsJSON builds the term list from the embedded perfonto.ttl
// once.
func ontologyTermsJSON() ([]byte, error) {
	termsOnce.Do(func() {
		var t OntologyTerms
		t, termsErr = buildOntologyTerms()
		if termsErr == nil {
			termsJSON, termsErr = json.Marshal(t)
		}
	})
	return termsJSON, termsErr
}

func buildOntologyTerms() (OntologyTerms, error) {
	types := map[string]map[string]bool{}
	labels := map[string]string{}
	dec := rdfio.NewTurtleDecoder(ontology.TurtleReader(), rdfio.Options{Source: "perfonto.ttl"})
	for {
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return OntologyTerms{}, err
		}
		if q.S.Kind != kb.KindIRI || !strings.HasPrefix(q.S.Value, ontology.Namespace) {
			continue
		}
		switch q.P.Value {
		case ontology.RDFType:
			if types[q.S.Value] == nil {
				types[q.S.Value] = map[string]bool{}
			}
			types[q.S.Value][q.O.Value] = true
		case ontology.RDFSLabel:
			labels[q.S.Value] = q.O.Value
		}
	}
	t := OntologyTerms{Prefixes: ontology.CommonPrefixMap()}
	for iri, ty := range types {
		term := Term{Name: "perfonto:" + strings.TrimPrefix(iri, ontology.Namespace), Label: labels[iri]}
		switch {
		case ty[ontology.OWLClass] || ty[ontology.RDFSClass]:
			t.Classes = append(t.Classes, term)
		case ty[ontology.OWLObjectProperty] || ty[ontology.OWLDatatypeProperty] || ty[ontology.RDFProperty] || ty[ontology.OWLAnnotationProperty]:
			t.Properties = append(t.Properties, term)
		default:
			t.Individuals = append(t.Individuals, term)
		}
	}
	for _, list := range [][]Term{t.Classes, t.Properties, t.Individuals} {
		sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	}
	for _, m := range ontology.Metrics() {
		t.Metrics = append(t.Metrics, MetricTerm{Name: m.Name, Unit: m.Unit, Description: m.Description})
	}
	return t, nil
}
