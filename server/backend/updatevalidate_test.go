package backend

import (
	"context"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// TestUpdateValidation: with serve --validate (server.ValidateReject), a
// SPARQL update whose added quads violate the shipped shapes (a thread
// unit in no experiment: perfonto-shapes.ttl gives inExperiment
// sh:minCount 1) is refused with 422 and the report, and the store keeps
// exactly the quads it had, whether the quads come from INSERT DATA or
// from a template; a conforming update is stored; with ValidateWarn the
// violating update is stored and flagged.
func TestUpdateValidation(t *testing.T) {
	const prefix = "PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>\n"
	good := prefix + `INSERT DATA { GRAPH <http://e/g> { <http://e/pu> a perfonto:ThreadUnit ; perfonto:inExperiment <http://e/exp> } }`
	bad := []string{
		prefix + `INSERT DATA { GRAPH <http://e/g> { <http://e/pu2> a perfonto:ThreadUnit } }`,
		prefix + `DELETE { GRAPH <http://e/g> { ?pu perfonto:inExperiment ?e } } INSERT { GRAPH <http://e/g> { <http://e/pu3> a perfonto:ThreadUnit } } WHERE { GRAPH <http://e/g> { ?pu perfonto:inExperiment ?e } }`,
	}
	for _, mode := range []server.ValidationMode{server.ValidateReject, server.ValidateWarn} {
		ds := native.OpenMemory()
		defer ds.Close()
		store := graphstore.New(ds)
		srv := server.New(server.Options{
			Query: &QueryEngine{DS: ds}, Graphs: store, Sites: store, Store: store, Token: token,
			ValidatePushes: server.PushValidation{Mode: mode},
		})
		auth := []string{"Authorization", "Bearer " + token}
		rec := post(t, srv, "/sparql", "application/sparql-update", good, auth...)
		if rec.Code != http.StatusOK || rec.Header().Get("X-Conforms") != "true" {
			t.Fatalf("conforming update: %d, X-Conforms %q: %s", rec.Code, rec.Header().Get("X-Conforms"), rec.Body)
		}
		before := sortedQuads(t, ds)
		if len(before) != 2 {
			t.Fatalf("store holds %d quads after the conforming update, want 2", len(before))
		}
		for i, u := range bad {
			rec := post(t, srv, "/sparql", "application/sparql-update", u, append([]string{"Accept", "text/turtle"}, auth...)...)
			after := sortedQuads(t, ds)
			if mode == server.ValidateWarn {
				if rec.Code != http.StatusOK || rec.Header().Get("X-Conforms") != "false" || slices.Equal(before, after) {
					t.Errorf("warn, update %d: %d, X-Conforms %q, store changed %v, want 200, false, changed", i, rec.Code, rec.Header().Get("X-Conforms"), !slices.Equal(before, after))
				}
				before = after
				continue
			}
			body := rec.Body.String()
			if rec.Code != http.StatusUnprocessableEntity || rec.Header().Get("X-Conforms") != "false" {
				t.Errorf("update %d: %d, X-Conforms %q, want 422 and false: %.500s", i, rec.Code, rec.Header().Get("X-Conforms"), body)
			}
			if !strings.Contains(body, "ValidationResult") || !strings.Contains(body, "inExperiment") {
				t.Errorf("update %d: the report does not name the missing perfonto:inExperiment:\n%s", i, body)
			}
			if !slices.Equal(before, after) {
				t.Errorf("update %d changed the store: %d quads, had %d", i, len(after), len(before))
			}
		}
	}
}

func sortedQuads(t *testing.T, ds kb.Dataset) []kb.Quad {
	t.Helper()
	qs, err := kb.Collect(ds.Match(context.Background(), kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	slices.SortFunc(qs, func(a, b kb.Quad) int {
		return slices.Compare([]kb.ID{a.S, a.P, a.O, a.G}, []kb.ID{b.S, b.P, b.O, b.G})
	})
	return qs
}
