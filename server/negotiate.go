package server

import (
	"mime"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/results"
)

// Format is a serialization the server reads or writes, by its canonical
// name in one of perfkb's two format registries: the SPARQL results
// formats of query/results and the RDF syntaxes of kb/rdfio. Names,
// media types and aliases come from those registries; the server keeps
// none of its own.
type Format string

// The formats the server knows.
const (
	FormatJSON     = Format(results.JSON) // SPARQL 1.1 Query Results JSON
	FormatXML      = Format(results.XML)  // SPARQL Query Results XML
	FormatCSV      = Format(results.CSV)  // SPARQL 1.1 Query Results CSV
	FormatTSV      = Format(results.TSV)  // SPARQL 1.1 Query Results TSV
	FormatNTriples = Format(rdfio.NTriples)
	FormatTurtle   = Format(rdfio.Turtle)
	FormatNQuads   = Format(rdfio.NQuads)
	FormatRDFXML   = Format(rdfio.RDFXML)
	FormatJSONLD   = Format(rdfio.JSONLD) // JSON-LD 1.1 (written expanded)
)

// String returns the format's canonical name.
func (f Format) String() string {
	if f == "" {
		return "unknown format"
	}
	return string(f)
}

// resultsSpec is f's entry in the results registry.
func (f Format) resultsSpec() (*results.Spec, bool) {
	s, ok := results.Lookup(string(f))
	return s, ok && string(s.Format) == string(f) && len(s.MediaTypes) > 0
}

// rdfFormat is f's entry in the RDF registry.
func (f Format) rdfFormat() (*rdfio.Format, bool) {
	rf, ok := rdfio.Lookup(string(f))
	return rf, ok && rf.Name == string(f)
}

// mediaTypes lists the media types that select f, the registered one
// first.
func (f Format) mediaTypes() []string {
	if s, ok := f.resultsSpec(); ok {
		return s.MediaTypes
	}
	if rf, ok := f.rdfFormat(); ok {
		return rf.MediaTypes
	}
	return nil
}

// names lists the ?format= values that select f besides its media types.
func (f Format) names() []string {
	if s, ok := f.resultsSpec(); ok {
		return append([]string{string(s.Format)}, s.Names...)
	}
	if rf, ok := f.rdfFormat(); ok {
		return append([]string{rf.Name, strings.ToLower(rf.Label)}, rf.Aliases...)
	}
	return nil
}

// MediaType returns the format's registered media type.
func (f Format) MediaType() string {
	if mt := f.mediaTypes(); len(mt) > 0 {
		return mt[0]
	}
	return ""
}

// contentType returns the Content-Type header value for f.
func (f Format) contentType() string {
	if mt := f.MediaType(); mt != "" {
		return mt + "; charset=utf-8"
	}
	return "application/octet-stream"
}

// Offers lists the formats a response can be written in, most preferred
// first.
var (
	bindingsFormats = []Format{FormatJSON, FormatXML, FormatCSV, FormatTSV}
	booleanFormats  = []Format{FormatJSON, FormatXML, FormatCSV, FormatTSV}
	graphFormats    = []Format{FormatTurtle, FormatNTriples, FormatNQuads, FormatRDFXML, FormatJSONLD}
	// rdfInputFormats are the formats the Graph Store Protocol reads.
	rdfInputFormats = []Format{FormatTurtle, FormatNTriples, FormatNQuads, FormatRDFXML, FormatJSONLD}
)

// formatByName finds a format by a ?format= value among offers.
func formatByName(name string, offers []Format) (Format, bool) {
	name = strings.ToLower(strings.TrimSpace(name))
	for _, f := range offers {
		if slices.Contains(f.mediaTypes(), name) || slices.Contains(f.names(), name) {
			return f, true
		}
	}
	// SPARQLWrapper and Fuseki read the results-format names as their RDF
	// counterparts when the result is a graph: xml is RDF/XML, json is
	// JSON-LD; n3 asks for Turtle, which is N3.
	if f, ok := graphNames[name]; ok && slices.Contains(offers, f) && !slices.Contains(offers, FormatXML) {
		return f, true
	}
	return "", false
}

// knownFormatName reports whether name selects a format of some kind of
// result (bindings or graph).
func knownFormatName(name string) bool {
	_, b := formatByName(name, bindingsFormats)
	_, g := formatByName(name, graphFormats)
	return b || g
}

var graphNames = map[string]Format{"xml": FormatRDFXML, "rdf+xml": FormatRDFXML, "json": FormatJSONLD, "n3": FormatTurtle}

// formatByMediaType finds the format a Content-Type names among offers.
func formatByMediaType(contentType string, offers []Format) (Format, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return "", false
	}
	for _, f := range offers {
		if slices.Contains(f.mediaTypes(), mt) {
			return f, true
		}
	}
	return "", false
}

// acceptRange is one entry of an Accept header.
type acceptRange struct {
	typ, subtype string
	q            float64
}

func parseAccept(header string) []acceptRange {
	var out []acceptRange
	for _, part := range strings.Split(header, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		mediaRange, params, _ := strings.Cut(part, ";")
		typ, subtype, ok := strings.Cut(strings.ToLower(strings.TrimSpace(mediaRange)), "/")
		if !ok {
			continue
		}
		r := acceptRange{typ: typ, subtype: subtype, q: 1}
		for _, p := range strings.Split(params, ";") {
			k, v, ok := strings.Cut(strings.TrimSpace(p), "=")
			if ok && strings.EqualFold(k, "q") {
				if q, err := strconv.ParseFloat(v, 64); err == nil {
					r.q = q
				}
			}
		}
		out = append(out, r)
	}
	return out
}

// specificity ranks how closely a range matches a media type: 3 exact,
// 2 type/*, 1 */*, 0 no match.
func (r acceptRange) specificity(mediaType string) int {
	typ, subtype, _ := strings.Cut(mediaType, "/")
	switch {
	case r.typ == typ && r.subtype == subtype:
		return 3
	case r.typ == typ && r.subtype == "*":
		return 2
	case r.typ == "*" && r.subtype == "*":
		return 1
	}
	return 0
}

// negotiate picks the offered format the Accept header prefers. An empty
// header selects offers[0]. It returns false when nothing offered is
// acceptable.
func negotiate(accept string, offers []Format) (Format, bool) {
	ranges := parseAccept(accept)
	if len(ranges) == 0 {
		return offers[0], true
	}
	type scored struct {
		f     Format
		q     float64
		order int
	}
	var cands []scored
	for i, f := range offers {
		mediaTypes := f.mediaTypes()
		bestSpec, bestQ := 0, 0.0
		for j, mt := range mediaTypes {
			spec, q := 0, 0.0
			for _, r := range ranges {
				// The most specific range that matches decides the
				// quality of a media type. Aliases only match exactly,
				// so text/* means CSV or TSV, not text/xml.
				s := r.specificity(mt)
				if j > 0 && s < 3 {
					continue
				}
				if s > spec || (s == spec && s > 0 && r.q > q) {
					spec, q = s, r.q
				}
			}
			if spec > 0 && q > bestQ {
				bestSpec, bestQ = spec, q
			}
		}
		if bestSpec > 0 && bestQ > 0 {
			cands = append(cands, scored{f, bestQ, i})
		}
	}
	if len(cands) == 0 {
		return "", false
	}
	sort.SliceStable(cands, func(a, b int) bool {
		if cands[a].q != cands[b].q {
			return cands[a].q > cands[b].q
		}
		return cands[a].order < cands[b].order
	})
	return cands[0].f, true
}

func offeredMediaTypes(offers []Format) string {
	names := make([]string, len(offers))
	for i, f := range offers {
		names[i] = f.MediaType()
	}
	return strings.Join(names, ", ")
}
