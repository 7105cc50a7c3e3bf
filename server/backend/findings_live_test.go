package backend

import (
	"bufio"
	"context"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// TestFindingsStreamLiveRules runs a server over a store that reasons on
// write (reasoner.Live, as `perfkb serve --rules` sets up) and checks,
// for each kind of write, that the finding a rule derives from the
// written data reaches a /findings/stream client within a second of the
// write's answer, and that its withdrawal does within a second of the
// write that takes the data away: SPARQL DELETE DATA, DELETE WHERE, DROP
// and CLEAR, a Graph Store DELETE, and a Graph Store PUT that replaces
// the graph.
func TestFindingsStreamLiveRules(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	prog, err := reasoner.LoadSources(ctx, []reasoner.Source{{Name: "slow.rules", Text: []byte(`@prefix ex: <http://example.org/>.
@prefix perfonto: <` + ontology.Namespace + `>.
[slow: (?x ex:wtime ?w), greaterThan(?w, 10), makeSkolem(?p, ?x) -> (?x perfonto:hasProblem ?p), (?p rdf:type perfonto:LoadImbalance)]
`)}}, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	live, _, err := reasoner.NewLive(ctx, ds, prog, reasoner.Options{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	store := graphstore.New(live)
	srv := server.New(server.Options{
		Query: &QueryEngine{DS: live}, Rules: &Reasoner{DS: live}, Graphs: store, Sites: store, Store: store, Token: token,
	})
	live.SetOnChange(func(reasoner.Summary) { srv.FindingsChanged() })
	ts := httptest.NewServer(srv)
	defer ts.Close()
	sctx, cancel := context.WithCancel(ctx)
	defer cancel()
	req, _ := http.NewRequestWithContext(sctx, "GET", ts.URL+"/findings/stream", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	events := make(chan sseEvent, 1000)
	go readEvents(t, bufio.NewScanner(resp.Body), events)

	const prefixes = "PREFIX ex: <http://example.org/>\n"
	update := func(text string) time.Time {
		t.Helper()
		rec := post(t, srv, "/sparql", "application/sparql-update", prefixes+text, "Authorization", "Bearer "+token)
		if rec.Code != http.StatusOK && rec.Code != http.StatusNoContent {
			t.Fatalf("update %q: %d %s", text, rec.Code, rec.Body)
		}
		return time.Now()
	}
	gsp := func(method, graph, body string) time.Time {
		t.Helper()
		r := httptest.NewRequest(method, "/data?graph="+graph, strings.NewReader(body))
		r.Header.Set("Authorization", "Bearer "+token)
		if body != "" {
			r.Header.Set("Content-Type", "application/n-triples")
		}
		rec := httptest.NewRecorder()
		srv.ServeHTTP(rec, r)
		if rec.Code >= 300 {
			t.Fatalf("%s %s: %d %s", method, graph, rec.Code, rec.Body)
		}
		return time.Now()
	}
	await := func(kind, subject string, since time.Time) {
		t.Helper()
		timeout := time.After(10 * time.Second)
		for {
			select {
			case ev, ok := <-events:
				if !ok {
					t.Fatalf("stream ended before %s %s", kind, subject)
				}
				if ev.event != kind || ev.finding.Subject.Value != subject {
					continue
				}
				lag := ev.at.Sub(since)
				t.Logf("%s %s: %v after the write", kind, subject, lag)
				if lag > time.Second {
					t.Errorf("%s %s reached the client %v after the write, want ≤ 1s", kind, subject, lag)
				}
				return
			case <-timeout:
				t.Fatalf("no %s event for %s within 10s", kind, subject)
			}
		}
	}
	nt := func(subject string, wtime int) string {
		return "<http://example.org/" + subject + "> <http://example.org/wtime> \"" + strconv.Itoa(wtime) + "\"^^<http://www.w3.org/2001/XMLSchema#integer> .\n"
	}
	cases := []struct {
		name, subject    string
		insert, withdraw func(subject string) time.Time
	}{
		{"delete data", "rs1",
			func(s string) time.Time { return update("INSERT DATA { GRAPH ex:g1 { ex:" + s + " ex:wtime 12 } }") },
			func(s string) time.Time { return update("DELETE DATA { GRAPH ex:g1 { ex:" + s + " ex:wtime 12 } }") }},
		{"delete where", "rs2",
			func(s string) time.Time { return update("INSERT DATA { GRAPH ex:g2 { ex:" + s + " ex:wtime 30 } }") },
			func(s string) time.Time { return update("DELETE WHERE { GRAPH ?g { ex:" + s + " ex:wtime ?w } }") }},
		{"drop", "rs3",
			func(s string) time.Time { return update("INSERT DATA { GRAPH ex:g3 { ex:" + s + " ex:wtime 11 } }") },
			func(s string) time.Time { return update("DROP GRAPH ex:g3") }},
		{"clear", "rs4",
			func(s string) time.Time { return update("INSERT DATA { GRAPH ex:g4 { ex:" + s + " ex:wtime 11 } }") },
			func(s string) time.Time { return update("CLEAR GRAPH ex:g4") }},
		{"graph store delete", "rs5",
			func(s string) time.Time { return gsp("PUT", "http://example.org/g5", nt(s, 50)) },
			func(s string) time.Time { return gsp("DELETE", "http://example.org/g5", "") }},
		// A replace that keeps the subject but brings its wtime under the
		// threshold.
		{"graph store put", "rs6",
			func(s string) time.Time { return gsp("POST", "http://example.org/g6", nt(s, 50)) },
			func(s string) time.Time { return gsp("PUT", "http://example.org/g6", nt(s, 5)) }},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			subject := "http://example.org/" + c.subject
			await("finding", subject, c.insert(c.subject))
			await("withdrawn", subject, c.withdraw(c.subject))
		})
	}
	// Nothing derived is left behind.
	rec := post(t, srv, "/sparql", "application/sparql-query", "SELECT (COUNT(*) AS ?n) WHERE { GRAPH <"+kb.InferredGraphIRI+"> { ?s ?p ?o } }")
	if got := column(decode(t, rec), "n"); len(got) != 1 || got[0] != "0" {
		t.Errorf("inferred triples left after every withdrawal: %v, want 0", got)
	}
}
