package syntax

import (
	"fmt"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/query/algebra"
)

// TestServiceText checks that a SERVICE keeps the source text of its pattern.
func TestServiceText(t *testing.T) {
	src := "PREFIX : <http://e/>\nSELECT * { ?s :p ?o SERVICE <http://remote/sparql> { ?o :q ?z FILTER(?z > 1) } }"
	q, err := ParseQuery(src, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var svc *algebra.Service
	algebra.Walk(q.Pattern, func(op algebra.Op) bool {
		if s, ok := op.(*algebra.Service); ok {
			svc = s
		}
		return true
	})
	if svc == nil {
		t.Fatalf("no Service in %s", q)
	}
	if want := "{ ?o :q ?z FILTER(?z > 1) }"; svc.Text != want {
		t.Errorf("Service.Text = %q, want %q", svc.Text, want)
	}
	if svc.Endpoint.Term.Value != "http://remote/sparql" || svc.Silent {
		t.Errorf("Service endpoint/silent = %v/%v", svc.Endpoint, svc.Silent)
	}
}

// TestIRIResolution checks RFC 3986 resolution (section 5.4 examples).
func TestIRIResolution(t *testing.T) {
	base := "http://a/b/c/d;p?q"
	tests := map[string]string{
		"g:h": "g:h", "g": "http://a/b/c/g", "./g": "http://a/b/c/g", "g/": "http://a/b/c/g/",
		"/g": "http://a/g", "//g": "http://g", "?y": "http://a/b/c/d;p?y", "g?y": "http://a/b/c/g?y",
		"#s": "http://a/b/c/d;p?q#s", "g#s": "http://a/b/c/g#s", ";x": "http://a/b/c/;x",
		"": "http://a/b/c/d;p?q", ".": "http://a/b/c/", "./": "http://a/b/c/", "..": "http://a/b/",
		"../": "http://a/b/", "../g": "http://a/b/g", "../..": "http://a/", "../../g": "http://a/g",
		"../../../g": "http://a/g", "/./g": "http://a/g", "/../g": "http://a/g", "g.": "http://a/b/c/g.",
		".g": "http://a/b/c/.g", "g..": "http://a/b/c/g..", "..g": "http://a/b/c/..g",
		"./../g": "http://a/b/g", "./g/.": "http://a/b/c/g/", "g/./h": "http://a/b/c/g/h",
		"g/../h": "http://a/b/c/h", "g;x=1/./y": "http://a/b/c/g;x=1/y", "g;x=1/../y": "http://a/b/c/y",
	}
	for ref, want := range tests {
		if got := resolveIRI(base, ref); got != want {
			t.Errorf("resolve(%q) = %q, want %q", ref, got, want)
		}
	}
}

// BenchmarkParseQuery measures parsing a mid-sized query with aggregates,
// paths and OPTIONAL.
func BenchmarkParseQuery(b *testing.B) {
	src := `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?region (COUNT(*) AS ?n) (AVG(?v) AS ?avg)
WHERE {
  ?rs perfonto:inProcessingUnit ?pu ; perfonto:hasMetric ?m ; perfonto:ofCodeRegion ?region .
  ?pu perfonto:inNode "gsr410" .
  ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v .
  ?rs perfonto:hasParent+ ?root .
  OPTIONAL { ?rs perfonto:hasMetric [ perfonto:hasMetricName "L2_DCM" ; perfonto:hasMetricValue ?l2 ] }
  FILTER (?v >= 3E8 && !BOUND(?l2))
}
GROUP BY ?region HAVING (COUNT(*) > 1) ORDER BY DESC(?avg) LIMIT 10`
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseQuery(src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkParseInsertData measures parsing a 10,000-triple INSERT DATA.
func BenchmarkParseInsertData(b *testing.B) {
	var sb strings.Builder
	sb.WriteString("PREFIX : <http://example.org/>\nINSERT DATA {\n")
	for i := range 10000 {
		fmt.Fprintf(&sb, "  :s%d :p \"value %d\" ; :q %d .\n", i, i, i)
	}
	sb.WriteString("}\n")
	src := sb.String()
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := ParseUpdate(src, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
