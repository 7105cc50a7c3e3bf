package results

import "testing"

// TestFormatRegistry checks the results registry against the media types
// the SPARQL 1.1 results specifications register, and that a name of the
// RDF registry is not taken for a results format.
func TestFormatRegistry(t *testing.T) {
	tests := []struct {
		name string
		want Format // "" when no results format has the name
	}{
		{"json", JSON}, {"srj", JSON}, {"application/sparql-results+json", JSON}, {"application/json; charset=utf-8", JSON},
		{"XML", XML}, {"srx", XML}, {"application/sparql-results+xml", XML}, {"text/xml", XML},
		{"csv", CSV}, {"text/csv", CSV},
		{"tsv", TSV}, {"text/tab-separated-values", TSV},
		{"table", Table},
		{"turtle", ""}, {"text/turtle", ""}, {"rdfxml", ""}, {"text/plain", ""},
	}
	for _, tc := range tests {
		var got Format
		if s, ok := Lookup(tc.name); ok {
			got = s.Format
		}
		if got != tc.want {
			t.Errorf("Lookup(%q) = %q, want %q", tc.name, got, tc.want)
		}
	}
	for _, tc := range []struct {
		f    Format
		want string
	}{
		{JSON, "application/sparql-results+json"},
		{XML, "application/sparql-results+xml"},
		{CSV, "text/csv; charset=utf-8"},
		{TSV, "text/tab-separated-values; charset=utf-8"},
		{Table, "text/plain; charset=utf-8"},
		{NTriples, "application/n-triples"},
		{RDFXML, "application/rdf+xml"},
		{Turtle, "text/turtle; charset=utf-8"},
	} {
		if got := tc.f.ContentType(); got != tc.want {
			t.Errorf("%s.ContentType() = %q, want %q", tc.f, got, tc.want)
		}
	}
	if _, ok := ByMediaType("json"); ok {
		t.Error(`ByMediaType("json") found a format; only media types should`)
	}
	for _, s := range Formats() {
		if (s.Read == nil) != (s.Format == Table) {
			t.Errorf("%s: has a reader %v; want one for every standard format", s.Format, s.Read != nil)
		}
	}
}
