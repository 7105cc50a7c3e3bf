package server

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/rules"
)

const adviceMy = "http://example.org/my-problems#SlowStartup"

// adviceByClass asks GET /rules/advice and indexes the answer.
func adviceByClass(t *testing.T, srv *Server) map[string]rules.Advice {
	t.Helper()
	rec := do(srv, "GET", "/rules/advice", "", "")
	if rec.Code != http.StatusOK {
		t.Fatalf("GET /rules/advice: %d %s", rec.Code, rec.Body)
	}
	var got AdviceList
	dataOf(t, rec, &got)
	out := map[string]rules.Advice{}
	for _, a := range got.Advice {
		out[a.Class] = a
	}
	return out
}

// The page's advice comes from the #@advice comments of the rule files:
// the shipped sets, the files the server starts with, and uploads.
func TestRuleAdvice(t *testing.T) {
	mine, err := os.ReadFile(filepath.Join("testdata", "advice", "mine.rules"))
	if err != nil {
		t.Fatal(err)
	}
	notext, err := os.ReadFile(filepath.Join("testdata", "advice", "notext.rules"))
	if err != nil {
		t.Fatal(err)
	}
	shipped, err := rules.ShippedAdvice()
	if err != nil {
		t.Fatal(err)
	}
	lateSender := PerfontoNS + "LateSender"

	t.Run("shipped", func(t *testing.T) {
		srv, _, _ := newTestServer(t, nil)
		got := adviceByClass(t, srv)
		if len(got) != len(shipped) {
			t.Errorf("got %d classes, the shipped rule sets have %d", len(got), len(shipped))
		}
		a := got[lateSender]
		if a.File != "rules/perfonto.rules" || !strings.Contains(a.Text, "sender") {
			t.Errorf("LateSender advice: %+v", a)
		}
	})
	t.Run("serve --advice", func(t *testing.T) {
		extra, err := rules.ParseAdvice("mine.rules", mine)
		if err != nil {
			t.Fatal(err)
		}
		srv, _, _ := newTestServer(t, func(o *Options) { o.Advice = extra })
		got := adviceByClass(t, srv)
		if got[adviceMy].Text != "Read the input once on one rank and broadcast it." {
			t.Errorf("own class: %+v", got[adviceMy])
		}
		if !strings.Contains(got[lateSender].Text, "pin the sender ranks") {
			t.Errorf("a site's advice should replace the shipped one: %+v", got[lateSender])
		}
	})
	t.Run("uploaded with a rule run", func(t *testing.T) {
		srv, _, _ := newTestServer(t, nil)
		if _, ok := adviceByClass(t, srv)[adviceMy]; ok {
			t.Fatal("advice for my:SlowStartup before any upload")
		}
		rec := do(srv, "POST", "/rules/run?name=mine.rules", "text/plain", string(mine), bearer...)
		if rec.Code != http.StatusOK {
			t.Fatalf("run: %d %s", rec.Code, rec.Body)
		}
		a := adviceByClass(t, srv)[adviceMy]
		if a.File != "mine.rules" || a.Line != 4 {
			t.Errorf("uploaded advice: %+v", a)
		}
	})
	t.Run("malformed advice rejects the upload", func(t *testing.T) {
		srv, _, _ := newTestServer(t, nil)
		fake := srv.opts.Rules.(*fakeRules)
		rec := do(srv, "POST", "/rules/run?name=notext.rules", "text/plain", string(notext), bearer...)
		if rec.Code != http.StatusBadRequest || !strings.Contains(rec.Body.String(), "notext.rules:4:1: #@advice: no text for http://example.org/my#Thing") {
			t.Fatalf("run: %d %s", rec.Code, rec.Body)
		}
		if len(fake.runs) != 0 {
			t.Error("the rules ran although the upload was rejected")
		}
		rec = do(srv, "POST", "/rules/check?name=notext.rules", "text/plain", string(notext))
		var report RuleCheckReport
		dataOf(t, rec, &report)
		if report.Valid || len(report.Diagnostics) != 1 || report.Diagnostics[0].Line != 4 || !strings.HasPrefix(report.Diagnostics[0].Message, "#@advice: no text") {
			t.Errorf("check: %+v", report)
		}
	})
}
