package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb/store"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
)

// TestReasonCLIAndHTTPSameShape runs the shipped rules over the same data
// twice — through `perfkb reason --format json` in process and through the
// real POST /rules/run handler — and requires the same report bytes but
// for the "timing" member, which holds everything that depends on the
// clock. GET /findings must list the same findings, and the explanation
// of a finding must be the same from --explain and GET /explain.
func TestReasonCLIAndHTTPSameShape(t *testing.T) {
	gin.SetMode(gin.ReleaseMode)
	ctx := context.Background()
	dir := t.TempDir()
	data := filepath.Join(dir, "sample.nq")
	var buf bytes.Buffer
	if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 2, Triples: 4000, Seed: 3}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(data, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	cliStore, httpStore := "native:"+filepath.Join(dir, "cli"), "native:"+filepath.Join(dir, "http")
	for _, spec := range []string{cliStore, httpStore} {
		if code, _, stderr := runCLI(t, "", "--store="+spec, "load", data); code != 0 {
			t.Fatalf("load into %s: exit %d: %s", spec, code, stderr)
		}
	}

	// The CLI face.
	code, cliOut, stderr := runCLI(t, "", "--store="+cliStore, "reason", "--format", "json")
	if code != 0 {
		t.Fatalf("reason: exit %d: %s", code, stderr)
	}
	cli := members(t, "perfkb reason --format json", []byte(cliOut))

	// The HTTP face, over the other store with the same data.
	ds, err := store.Open(ctx, httpStore, store.Options{MustExist: true})
	if err != nil {
		t.Fatal(err)
	}
	defer ds.Close()
	srv := server.New(server.Options{Rules: &backend.Reasoner{DS: ds}, Token: "tok"})
	rec := serve(srv, "POST", "/rules/run", "Bearer tok")
	if rec.Code != http.StatusOK {
		t.Fatalf("POST /rules/run: %d %s", rec.Code, rec.Body)
	}
	web := members(t, "POST /rules/run", envelopeData(t, rec.Body.Bytes()))

	for _, m := range []string{"summary", "findings"} {
		if !bytes.Equal(cli[m], web[m]) {
			t.Errorf("%q differs between the CLI and HTTP:\nCLI:  %.600s\nHTTP: %.600s", m, cli[m], web[m])
		}
	}
	var findings []map[string]any
	if err := json.Unmarshal(cli["findings"], &findings); err != nil || len(findings) == 0 {
		t.Fatalf("the run found nothing to compare (%v): %s", err, cli["findings"])
	}
	if findings[0]["rule"] == nil || findings[0]["experiment"] == nil {
		t.Errorf("a finding lacks its rule or experiment: %v", findings[0])
	}
	var timing struct{ Seconds *float64 }
	if err := json.Unmarshal(web["timing"], &timing); err != nil || timing.Seconds == nil {
		t.Errorf("timing of the HTTP report: %s (%v)", web["timing"], err)
	}

	// GET /findings lists the same findings as the run reported.
	rec = serve(srv, "GET", "/findings?limit=0", "")
	if listed := compact(t, envelopeData(t, rec.Body.Bytes())); !bytes.Equal(listed, cli["findings"]) {
		t.Errorf("GET /findings differs from the run's findings:\n%.600s\n%.600s", listed, cli["findings"])
	}

	// One explanation shape: --explain and GET /explain.
	subject := findings[0]["subject"].(string)
	code, cliExp, stderr := runCLI(t, "", "--store="+cliStore, "reason", "--explain", subject, "--format", "json")
	if code != 0 {
		t.Fatalf("reason --explain: exit %d: %s", code, stderr)
	}
	rec = serve(srv, "GET", "/explain?iri="+url.QueryEscape(subject), "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /explain: %d %s", rec.Code, rec.Body)
	}
	webExp := compact(t, envelopeData(t, rec.Body.Bytes()))
	if got := compact(t, []byte(cliExp)); !bytes.Equal(got, webExp) {
		t.Errorf("explanations differ:\nCLI:  %.600s\nHTTP: %.600s", got, webExp)
	}
	if !strings.Contains(string(webExp), `"rule":"`+findings[0]["rule"].(string)+`"`) {
		t.Errorf("the explanation does not name the finding's rule %v: %.300s", findings[0]["rule"], webExp)
	}
}

func serve(h http.Handler, method, target, auth string) *httptest.ResponseRecorder {
	req := httptest.NewRequest(method, target, nil)
	if auth != "" {
		req.Header.Set("Authorization", auth)
	}
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, req)
	return rec
}

// envelopeData returns the data member of the server's success envelope.
func envelopeData(t *testing.T, body []byte) []byte {
	t.Helper()
	var env struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &env); err != nil || env.Status != "success" {
		t.Fatalf("not a success envelope (%v): %.300s", err, body)
	}
	return env.Data
}

// members splits a report into its members, each compacted; a report has
// exactly summary, findings and timing.
func members(t *testing.T, what string, b []byte) map[string][]byte {
	t.Helper()
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		t.Fatalf("%s: %v: %.300s", what, err, b)
	}
	out := map[string][]byte{}
	var keys []string
	for k, v := range raw {
		keys = append(keys, k)
		out[k] = compact(t, v)
	}
	slices.Sort(keys)
	if !slices.Equal(keys, []string{"findings", "summary", "timing"}) {
		t.Errorf("%s: members %v, want findings, summary, timing", what, keys)
	}
	return out
}

func compact(t *testing.T, b []byte) []byte {
	t.Helper()
	var out bytes.Buffer
	if err := json.Compact(&out, b); err != nil {
		t.Fatalf("%v: %.300s", err, b)
	}
	return out.Bytes()
}
