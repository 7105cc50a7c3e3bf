package backend

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/query"
)

// webDriver is a minimal W3C WebDriver client for chromedriver: enough to
// drive the query page without a Go browser-automation dependency.
type webDriver struct {
	t       *testing.T
	base    string // http://127.0.0.1:PORT/session/ID
	client  *http.Client
	session string
}

const elementKey = "element-6066-11e4-a52e-4f735466cecf"

func (wd *webDriver) call(method, path string, body any) json.RawMessage {
	wd.t.Helper()
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, _ := http.NewRequest(method, wd.base+path, rd)
	req.Header.Set("Content-Type", "application/json")
	resp, err := wd.client.Do(req)
	if err != nil {
		wd.t.Fatalf("webdriver %s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	var out struct {
		Value json.RawMessage `json:"value"`
	}
	raw, _ := io.ReadAll(resp.Body)
	if err := json.Unmarshal(raw, &out); err != nil || resp.StatusCode != http.StatusOK {
		wd.t.Fatalf("webdriver %s %s: %d %s", method, path, resp.StatusCode, raw)
	}
	return out.Value
}

func (wd *webDriver) find(css string) string {
	wd.t.Helper()
	var el map[string]string
	json.Unmarshal(wd.call("POST", "/element", map[string]string{"using": "css selector", "value": css}), &el)
	return el[elementKey]
}

func (wd *webDriver) click(css string) {
	wd.call("POST", "/element/"+wd.find(css)+"/click", map[string]any{})
}

func (wd *webDriver) script(js string, result any) {
	wd.t.Helper()
	raw := wd.call("POST", "/execute/sync", map[string]any{"script": js, "args": []any{}})
	if result != nil {
		if err := json.Unmarshal(raw, result); err != nil {
			wd.t.Fatalf("script result %s: %v", raw, err)
		}
	}
}

// waitFor polls a JavaScript condition until it is true.
func (wd *webDriver) waitFor(what, js string) {
	wd.t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for time.Now().Before(deadline) {
		var ok bool
		wd.script("return !!("+js+")", &ok)
		if ok {
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
	var status string
	wd.script(`return document.getElementById("status").textContent + " | " + document.getElementById("findings-status").textContent`, &status)
	wd.t.Fatalf("timed out waiting for %s (status: %s)", what, status)
}

// startChromium starts chromedriver and a headless Chromium session, or
// skips the test when they are not installed.
func startChromium(t *testing.T) *webDriver {
	t.Helper()
	driver, err := exec.LookPath("chromedriver")
	if err != nil {
		t.Skip("chromedriver not found; install the Debian packages chromium and chromium-driver to run the browser test")
	}
	browser := ""
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			browser = p
			break
		}
	}
	if browser == "" {
		t.Skip("no Chromium binary found; install the Debian package chromium to run the browser test")
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	cmd := exec.Command(driver, "--port="+strconv.Itoa(port))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	wd := &webDriver{t: t, base: fmt.Sprintf("http://127.0.0.1:%d", port), client: &http.Client{Timeout: 30 * time.Second}}
	for start := time.Now(); ; time.Sleep(50 * time.Millisecond) {
		resp, err := wd.client.Get(wd.base + "/status")
		if err == nil {
			resp.Body.Close()
			break
		}
		if time.Since(start) > 10*time.Second {
			t.Fatalf("chromedriver did not start: %v", err)
		}
	}
	var session struct {
		SessionID string `json:"sessionId"`
	}
	caps := map[string]any{"capabilities": map[string]any{"alwaysMatch": map[string]any{
		"browserName": "chrome",
		"goog:chromeOptions": map[string]any{
			"binary": browser,
			"args":   []string{"--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=1280,1000"},
		},
	}}}
	json.Unmarshal(wd.call("POST", "/session", caps), &session)
	if session.SessionID == "" {
		t.Fatal("no WebDriver session")
	}
	wd.base += "/session/" + session.SessionID
	t.Cleanup(func() { wd.call("DELETE", "", nil) })
	return wd
}

// TestQueryPageInChromium drives the query page in headless Chromium: it
// types the Fig. 6.29 search, runs it, and checks the table against the
// engine's own answer (what perfkb query prints); then it sorts, charts,
// and opens a finding's explanation. PERFKB_SCREENSHOT=path.png keeps a
// screenshot.
func TestQueryPageInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test takes a few seconds; skipped with -short")
	}
	wd := startChromium(t)
	srv, ds, _ := newFixture(t)
	ts := httptest.NewServer(srv)
	defer ts.Close()

	// The same threshold adjustment as TestQueryEngineThroughHTTP.
	longest, err := query.Run(context.Background(), ds, `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT (MAX(?v) AS ?max) WHERE { ?rs perfonto:inProcessingUnit ?pu . ?pu perfonto:inNode "gsr410" .
  ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v }`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	maxRows, err := longest.Rows()
	longest.Close()
	if err != nil || len(maxRows) != 1 || maxRows[0][0].IsZero() {
		t.Fatalf("no wtime on gsr410: %v %v", maxRows, err)
	}
	maxWtime, _ := strconv.ParseFloat(maxRows[0][0].Value, 64)
	threshold := strconv.FormatFloat(maxWtime/4, 'E', 6, 64)
	text := `PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>
SELECT ?regionsummary ?value
WHERE {
  ?regionsummary perfonto:inProcessingUnit ?processingunit .
  ?processingunit perfonto:inNode "gsr410" .
  ?regionsummary perfonto:hasMetric ?metric .
  ?metric perfonto:hasMetricName "wtime" .
  ?metric perfonto:hasMetricValue ?value .
  FILTER (?value >= ` + threshold + `)
}`
	res, err := query.Run(context.Background(), ds, text, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := res.Rows()
	res.Close()
	if err != nil || len(rows) < 2 {
		t.Fatalf("want at least two answers to compare, got %d (%v)", len(rows), err)
	}
	var want []string
	for _, r := range rows {
		want = append(want, r[0].Value+" "+r[1].Value)
	}
	sort.Strings(want)

	wd.call("POST", "/url", map[string]string{"url": ts.URL + "/"})
	wd.waitFor("the page", `document.getElementById("editor") && document.getElementById("editor").value.includes("perfonto")`)
	editor := wd.find("#editor")
	wd.call("POST", "/element/"+editor+"/clear", map[string]any{})
	wd.call("POST", "/element/"+editor+"/value", map[string]string{"text": text})
	wd.click("#run")
	wd.waitFor("the results", `/rows? in/.test(document.getElementById("status").textContent)`)

	var table [][]string
	wd.script(`return Array.from(document.querySelectorAll("#result-table tbody tr")).map(
		tr => Array.from(tr.cells).map(td => td.title || td.textContent))`, &table)
	var got []string
	for _, r := range table {
		got = append(got, strings.Join(r, " "))
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Fatalf("page table:\n%s\nengine answer:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}

	// Sorting by ?value descending (two clicks) orders the rows.
	wd.click(`th[data-var="value"]`)
	wd.click(`th[data-var="value"]`)
	var values []float64
	wd.script(`return Array.from(document.querySelectorAll("#result-table tbody tr td:nth-child(2)")).map(td => Number(td.textContent))`, &values)
	if !sort.SliceIsSorted(values, func(i, j int) bool { return values[i] > values[j] }) || len(values) != len(want) {
		t.Errorf("after sorting by ?value descending: %v", values)
	}
	// The bar chart has one bar per row.
	var bars int
	wd.script(`return document.querySelectorAll("#chart svg rect").length`, &bars)
	if bars != min(len(want), 40) {
		t.Errorf("chart has %d bars for %d rows", bars, len(want))
	}

	if path := os.Getenv("PERFKB_SCREENSHOT"); path != "" {
		var b64 string
		json.Unmarshal(wd.call("GET", "/screenshot", nil), &b64)
		png, err := base64.StdEncoding.DecodeString(b64)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Clean(path), png, 0o644); err != nil {
			t.Fatal(err)
		}
		t.Logf("screenshot written to %s", path)
	}

	// A syntax error is shown with its position.
	wd.call("POST", "/element/"+editor+"/clear", map[string]any{})
	wd.call("POST", "/element/"+editor+"/value", map[string]string{"text": "SELECT ?x\nWHERE { ?x ?y }"})
	wd.click("#run")
	wd.waitFor("the error", `/bad_data/.test(document.getElementById("status").textContent)`)
	var status string
	wd.script(`return document.getElementById("status").textContent`, &status)
	if !strings.Contains(status, "line 2") {
		t.Errorf("error status %q does not give the line", status)
	}

	// Findings view: run the rules with the token, pick a finding, read
	// its explanation.
	wd.call("POST", "/element/"+wd.find("#token")+"/value", map[string]string{"text": token})
	wd.click(`button[data-tab="findings"]`)
	wd.click("#run-rules")
	wd.waitFor("the findings", `document.querySelectorAll("#findings tbody tr").length > 0 && /^\d+ findings?$/.test(document.getElementById("findings-status").textContent)`)
	wd.click("#findings tbody tr")
	wd.waitFor("the explanation", `document.querySelector("#explanation .tree .rule")`)
	var rule string
	wd.script(`return document.querySelector("#explanation .tree .rule").textContent`, &rule)
	if !strings.Contains(rule, "←") {
		t.Errorf("explanation rule label %q", rule)
	}
	// Sites view: one row per site graph.
	wd.click(`button[data-tab="sites"]`)
	wd.waitFor("the sites", `document.querySelectorAll("#sites tbody tr").length >= 3`)

	if path := os.Getenv("PERFKB_SCREENSHOT"); path != "" {
		wd.click(`button[data-tab="findings"]`)
		var b64 string
		json.Unmarshal(wd.call("GET", "/screenshot", nil), &b64)
		png, _ := base64.StdEncoding.DecodeString(b64)
		findingsPath := strings.TrimSuffix(path, ".png") + "-findings.png"
		os.WriteFile(findingsPath, png, 0o644)
		t.Logf("screenshot written to %s", findingsPath)
	}
}
