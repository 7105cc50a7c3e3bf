package server

import (
	"bytes"
	"encoding/json"
	"mime/multipart"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// dataOf decodes the success envelope's data into v.
func dataOf(t *testing.T, rec *httptest.ResponseRecorder, v any) {
	t.Helper()
	var env struct {
		Status string          `json:"status"`
		Data   json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &env); err != nil || env.Status != "success" {
		t.Fatalf("not a success envelope (%v): %s", err, rec.Body)
	}
	if err := json.Unmarshal(env.Data, v); err != nil {
		t.Fatalf("data: %v", err)
	}
}

func multipartRules(t *testing.T, field, name, text string) (string, string) {
	t.Helper()
	var buf bytes.Buffer
	w := multipart.NewWriter(&buf)
	fw, err := w.CreateFormFile(field, name)
	if err != nil {
		t.Fatal(err)
	}
	fw.Write([]byte(text))
	w.Close()
	return w.FormDataContentType(), buf.String()
}

const goodRules = "@prefix p: <" + PerfontoNS + ">.\n[r1: (?a p:x ?b) -> (?a p:y ?b)]\n"

func TestRulesRun(t *testing.T) {
	srv, _, _ := newTestServer(t, nil)
	rules := srv.opts.Rules.(*fakeRules)
	mpType, mpBody := multipartRules(t, "rules", "mine.rules", goodRules)
	tests := []struct {
		name, target, ctype, body string
		wantSets                  []string
		wantName, wantText        string
	}{
		{"shipped sets by parameter", "/rules/run?sets=rdfs,perfonto", "", "", []string{"rdfs", "perfonto"}, "", ""},
		{"JSON", "/rules/run", "application/json", `{"sets":["owl-rl"],"rules":"` + "[r: (?a ?b ?c) -> (?a ?b ?c)]" + `","name":"x.rules"}`, []string{"owl-rl"}, "x.rules", "[r: (?a ?b ?c) -> (?a ?b ?c)]"},
		{"raw rule file", "/rules/run?name=mine.rules", "text/plain", goodRules, nil, "mine.rules", goodRules},
		{"multipart upload", "/rules/run", mpType, mpBody, nil, "mine.rules", goodRules},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(srv, "POST", tc.target, tc.ctype, tc.body, bearer...)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			var report RuleRunReport
			dataOf(t, rec, &report)
			if report.Summary.Findings != 2 || report.Summary.Derived != 10 || len(report.Findings) != 2 {
				t.Errorf("report %+v", report)
			}
			got := rules.runs[len(rules.runs)-1]
			if len(got.Sets) != len(tc.wantSets) || got.RuleName != tc.wantName || got.RuleText != tc.wantText {
				t.Errorf("run request %+v", got)
			}
		})
	}
}

func TestRulesErrors(t *testing.T) {
	srv, _, _ := newTestServer(t, nil)
	noRules, _, _ := newTestServer(t, func(o *Options) { o.Rules = nil })
	tests := []struct {
		name                        string
		h                           http.Handler
		method, target, ctype, body string
		headers                     []string
		wantStatus                  int
		wantLine                    int
	}{
		{"run without token", srv, "POST", "/rules/run", "", "", nil, 401, 0},
		{"run with bad rule file", srv, "POST", "/rules/run", "text/plain", "[r: BAD", bearer, 400, 3},
		{"run with bad JSON", srv, "POST", "/rules/run", "application/json", "{sets", bearer, 400, 0},
		{"run with unknown JSON field", srv, "POST", "/rules/run", "application/json", `{"set":["x"]}`, bearer, 400, 0},
		{"check empty body", srv, "POST", "/rules/check", "text/plain", "", nil, 400, 0},
		{"multipart without file", srv, "POST", "/rules/check", "multipart/form-data; boundary=x", "--x--\r\n", nil, 400, 0},
		{"explain without iri", srv, "GET", "/explain", "", "", nil, 400, 0},
		{"explain unknown iri", srv, "GET", "/explain?iri=http://x/none", "", "", nil, 404, 0},
		{"findings bad limit", srv, "GET", "/findings?limit=-1", "", "", nil, 400, 0},
		{"run without reasoner", noRules, "POST", "/rules/run", "", "", bearer, 501, 0},
		{"check without reasoner", noRules, "POST", "/rules/check", "text/plain", goodRules, nil, 501, 0},
		{"findings without reasoner", noRules, "GET", "/findings", "", "", nil, 501, 0},
		{"explain without reasoner", noRules, "GET", "/explain?iri=x", "", "", nil, 501, 0},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(tc.h, tc.method, tc.target, tc.ctype, tc.body, tc.headers...)
			if rec.Code != tc.wantStatus {
				t.Fatalf("status %d, want %d: %s", rec.Code, tc.wantStatus, rec.Body)
			}
			if e := errorBody(t, rec); e.Line != tc.wantLine {
				t.Errorf("line %d, want %d", e.Line, tc.wantLine)
			}
		})
	}
}

func TestRulesCheck(t *testing.T) {
	srv, _, _ := newTestServer(t, nil)
	mpType, mpBody := multipartRules(t, "file", "bad.rules", "[r1: BAD")
	tests := []struct {
		name, target, ctype, body string
		wantValid                 bool
		wantFile                  string
	}{
		{"valid raw", "/rules/check", "text/plain", goodRules, true, ""},
		{"invalid raw named", "/rules/check?name=x.rules", "text/plain", "[r1: BAD", false, "x.rules"},
		{"invalid upload", "/rules/check", mpType, mpBody, false, "bad.rules"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rec := do(srv, "POST", tc.target, tc.ctype, tc.body)
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			var report RuleCheckReport
			dataOf(t, rec, &report)
			if report.Valid != tc.wantValid {
				t.Errorf("valid = %v", report.Valid)
			}
			if !tc.wantValid && (len(report.Diagnostics) != 1 || report.Diagnostics[0].File != tc.wantFile || report.Diagnostics[0].Line != 3) {
				t.Errorf("diagnostics %+v", report.Diagnostics)
			}
		})
	}
}

func TestFindings(t *testing.T) {
	srv, _, _ := newTestServer(t, nil)
	tests := []struct {
		query    string
		wantSubj []string
	}{
		{"", []string{"rs1", "rs2"}},
		{"?problem=BigMessage", []string{"rs1"}},
		{"?experiment=exp2", []string{"rs2"}},
		{"?problem=BigMessage&experiment=exp2", nil},
		{"?limit=1", []string{"rs1"}},
	}
	for _, tc := range tests {
		t.Run(tc.query, func(t *testing.T) {
			rec := do(srv, "GET", "/findings"+tc.query, "", "")
			if rec.Code != http.StatusOK {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
			var list []Finding
			dataOf(t, rec, &list)
			if list == nil {
				t.Fatal("findings must be a JSON array, even when empty")
			}
			if len(list) != len(tc.wantSubj) {
				t.Fatalf("%d findings, want %d", len(list), len(tc.wantSubj))
			}
			for i, f := range list {
				if f.Subject != kb.IRI(PerfontoNS+tc.wantSubj[i]) {
					t.Errorf("finding %d is %s", i, f.Subject)
				}
			}
		})
	}
}

func TestExplain(t *testing.T) {
	srv, _, _ := newTestServer(t, nil)
	rec := do(srv, "GET", "/explain?iri="+PerfontoNS+"rs1", "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("status %d: %s", rec.Code, rec.Body)
	}
	var exp Explanation
	dataOf(t, rec, &exp)
	if len(exp.Derivations) != 1 || exp.Derivations[0].Rule != "rule_detect_bigmessages" || !exp.Derivations[0].Premises[0].Asserted {
		t.Errorf("explanation %+v", exp)
	}
}

func TestRuleRunTimeout(t *testing.T) {
	tests := []struct {
		name        string
		ruleTimeout time.Duration
		wantStatus  int
	}{
		{"rule runs get their own, longer limit", 5 * time.Second, http.StatusOK},
		{"and are stopped by it", 20 * time.Millisecond, http.StatusServiceUnavailable},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _, _ := newTestServer(t, func(o *Options) { o.Timeout = 20 * time.Millisecond; o.RuleTimeout = tc.ruleTimeout })
			rec := do(srv, "POST", "/rules/run", "text/plain", "SLEEP", bearer...)
			if rec.Code != tc.wantStatus {
				t.Fatalf("status %d: %s", rec.Code, rec.Body)
			}
		})
	}
}
