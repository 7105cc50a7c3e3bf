package server

import (
	"mime"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Format is a serialization the server reads or writes.
type Format uint8

// The formats the server knows.
const (
	FormatJSON     Format = iota + 1 // SPARQL 1.1 Query Results JSON
	FormatXML                        // SPARQL Query Results XML
	FormatCSV                        // SPARQL 1.1 Query Results CSV
	FormatTSV                        // SPARQL 1.1 Query Results TSV
	FormatNTriples                   // RDF 1.1 N-Triples
	FormatTurtle                     // RDF 1.1 Turtle
	FormatNQuads                     // RDF 1.1 N-Quads
	FormatRDFXML                     // RDF 1.1 XML syntax
	FormatJSONLD                     // JSON-LD 1.1 (written expanded; read through kb/rdfio)
)

type formatInfo struct {
	name       string
	mediaType  string
	aliases    []string // other media types that select the format
	shortNames []string // values of the ?format= parameter
}

var formats = map[Format]formatInfo{
	FormatJSON:     {"json", "application/sparql-results+json", []string{"application/json"}, []string{"json", "srj"}},
	FormatXML:      {"xml", "application/sparql-results+xml", []string{"application/xml", "text/xml"}, []string{"xml", "srx"}},
	FormatCSV:      {"csv", "text/csv", nil, []string{"csv"}},
	FormatTSV:      {"tsv", "text/tab-separated-values", nil, []string{"tsv"}},
	FormatNTriples: {"ntriples", "application/n-triples", []string{"text/plain"}, []string{"nt", "ntriples", "n-triples"}},
	FormatTurtle:   {"turtle", "text/turtle", []string{"application/x-turtle"}, []string{"ttl", "turtle"}},
	FormatNQuads:   {"nquads", "application/n-quads", []string{"text/x-nquads"}, []string{"nq", "nquads", "n-quads"}},
	FormatRDFXML:   {"rdfxml", "application/rdf+xml", nil, []string{"rdf", "rdfxml", "rdf/xml", "owl"}},
	FormatJSONLD:   {"jsonld", "application/ld+json", nil, []string{"jsonld", "json-ld"}},
}

// String returns the format's short name.
func (f Format) String() string {
	if info, ok := formats[f]; ok {
		return info.name
	}
	return "unknown format"
}

// MediaType returns the format's registered media type.
func (f Format) MediaType() string { return formats[f].mediaType }

// contentType returns the Content-Type header value for f.
func (f Format) contentType() string {
	switch f {
	case FormatJSON, FormatXML, FormatCSV, FormatTSV, FormatNTriples, FormatTurtle, FormatNQuads, FormatRDFXML, FormatJSONLD:
		return f.MediaType() + "; charset=utf-8"
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
		info := formats[f]
		if name == info.mediaType {
			return f, true
		}
		for _, s := range info.shortNames {
			if s == name {
				return f, true
			}
		}
		for _, a := range info.aliases {
			if a == name {
				return f, true
			}
		}
	}
	// SPARQLWrapper and Fuseki read the results-format names as their RDF
	// counterparts when the result is a graph: xml is RDF/XML, json is
	// JSON-LD; n3 asks for Turtle, which is N3.
	if f, ok := graphNames[name]; ok && slices.Contains(offers, f) && !slices.Contains(offers, FormatXML) {
		return f, true
	}
	return 0, false
}

var graphNames = map[string]Format{"xml": FormatRDFXML, "rdf+xml": FormatRDFXML, "json": FormatJSONLD, "n3": FormatTurtle}

// formatByMediaType finds the format a Content-Type names among offers.
func formatByMediaType(contentType string, offers []Format) (Format, bool) {
	mt, _, err := mime.ParseMediaType(contentType)
	if err != nil {
		return 0, false
	}
	for _, f := range offers {
		info := formats[f]
		if mt == info.mediaType {
			return f, true
		}
		for _, a := range info.aliases {
			if mt == a {
				return f, true
			}
		}
	}
	return 0, false
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
		info := formats[f]
		mediaTypes := append([]string{info.mediaType}, info.aliases...)
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
		return 0, false
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
