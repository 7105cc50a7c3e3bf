package backend

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner"
)

// TestBookkeepingOutOfTheDefaultGraph checks the workbench issue's item:
// after a rule run, a query over the default graph about a region summary
// returns neither derivation records nor rule-internal helper triples,
// while naming their graphs still shows them.
func TestBookkeepingOutOfTheDefaultGraph(t *testing.T) {
	srv, _, _ := newFixture(t)
	if rec := post(t, srv, "/rules/run", "application/json", `{}`, "Authorization", "Bearer "+token); rec.Code != http.StatusOK {
		t.Fatalf("rule run: %d %s", rec.Code, rec.Body)
	}
	rec := get(t, srv, "/findings?problem=LoadImbalance")
	var findings struct{ Data []struct{ Subject string } }
	if err := json.Unmarshal(rec.Body.Bytes(), &findings); err != nil || len(findings.Data) == 0 {
		t.Fatalf("no LoadImbalance findings to look at: %d %s", rec.Code, rec.Body)
	}
	rs := findings.Data[0].Subject

	ask := func(q string) string {
		t.Helper()
		rec := get(t, srv, "/sparql?query="+url.QueryEscape(q)+"&format=tsv")
		if rec.Code != http.StatusOK {
			t.Fatalf("%s: %d %s", q, rec.Code, rec.Body)
		}
		return rec.Body.String()
	}
	plain := ask("SELECT ?p ?o WHERE { <" + rs + "> ?p ?o }")
	if !strings.Contains(plain, "hasProblem") {
		t.Fatalf("the flagged region summary shows no hasProblem:\n%s", plain)
	}
	for _, hidden := range []string{kb.RulesInternalNamespace, kb.DerivationsGraphIRI, "derivation"} {
		if strings.Contains(plain, hidden) {
			t.Errorf("the default graph shows %q:\n%s", hidden, plain)
		}
	}
	named := ask("SELECT ?p ?o WHERE { GRAPH <" + kb.RulesInternalGraphIRI + "> { <" + rs + "> ?p ?o } }")
	if strings.Count(named, "\n") < 2 {
		t.Errorf("GRAPH <%s> shows nothing about the flagged summary:\n%s", kb.RulesInternalGraphIRI, named)
	}
	// Derivation records are batches keyed by the lowest and highest
	// subject of each (reasoner/derivation.go): which summaries name a
	// batch depends on how the rounds fell, so the named graph is checked
	// for batches, and the flagged summary's own record through /explain,
	// which finds it by those keys.
	batches := ask("SELECT ?first ?batch WHERE { GRAPH <" + kb.DerivationsGraphIRI + "> { ?first <" + reasoner.DerivationFirstPredicateIRI + "> ?batch } }")
	if strings.Count(batches, "\n") < 2 {
		t.Errorf("GRAPH <%s> shows no derivation batch:\n%s", kb.DerivationsGraphIRI, batches)
	}
	if rec := get(t, srv, "/explain?iri="+url.QueryEscape(rs)); rec.Code != http.StatusOK || !strings.Contains(rec.Body.String(), "hasProblem") {
		t.Errorf("/explain of the flagged summary: %d %s", rec.Code, rec.Body)
	}
}
