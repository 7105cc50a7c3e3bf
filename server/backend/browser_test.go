package backend

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/analysis"
	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/server"
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
	wd.script(`return ["status", "findings-status", "tree-status", "scal-status"].map(id => document.getElementById(id).textContent).join(" | ")`, &status)
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

// scriptAsync runs JavaScript that calls its last argument (the WebDriver
// callback) with the result.
func (wd *webDriver) scriptAsync(js string, result any) {
	wd.t.Helper()
	raw := wd.call("POST", "/execute/async", map[string]any{"script": js, "args": []any{}})
	if result != nil {
		if err := json.Unmarshal(raw, result); err != nil {
			wd.t.Fatalf("script result %s: %v", raw, err)
		}
	}
}

// screenshot saves the page as DIR/name.png when PERFKB_SCREENSHOT_DIR is set.
func (wd *webDriver) screenshot(name string) {
	dir := os.Getenv("PERFKB_SCREENSHOT_DIR")
	if dir == "" {
		return
	}
	var b64 string
	json.Unmarshal(wd.call("GET", "/screenshot", nil), &b64)
	png, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		wd.t.Fatal(err)
	}
	path := filepath.Join(dir, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		wd.t.Fatal(err)
	}
	wd.t.Logf("screenshot written to %s", path)
}

// sparqlRows runs a query on the fixture's dataset and returns the rows as
// lexical values.
func sparqlRows(t *testing.T, ds kb.Dataset, text string) [][]string {
	t.Helper()
	res, err := query.Run(context.Background(), ds, text, query.Options{})
	if err != nil {
		t.Fatalf("%v\n%s", err, text)
	}
	rows, err := res.Rows()
	res.Close()
	if err != nil {
		t.Fatal(err)
	}
	out := make([][]string, len(rows))
	for i, r := range rows {
		for _, term := range r {
			out[i] = append(out[i], term.Value)
		}
	}
	return out
}

// drawnChart is what a uPlot chart of the page (drawChart in views.js)
// holds: the values it was given (Series) and the columns uPlot draws
// (Data, one per series after x), its kind and axes.
type drawnChart struct {
	Kind, Log      string
	X              []any
	Series         []drawnSeries
	Data           [][]*float64
	DistrX, DistrY int
}

type drawnSeries struct {
	Label  string
	Ideal  bool
	Values []*float64
}

// readChart reads the chart in the element with the id (nil when none is drawn).
func readChart(wd *webDriver, id string) *drawnChart {
	var c *drawnChart
	wd.script(`const b = document.getElementById("`+id+`"); const u = b.plot; if (!u || !b.chart) return null;
		return {Kind: b.dataset.kind, Log: b.dataset.log, X: b.chart.x, Series: b.chart.series.map(s => ({Label: s.label, Ideal: !!s.ideal, Values: s.values})),
			Data: u.data.slice(1), DistrX: u.scales.x.distr, DistrY: u.scales.y.distr}`, &c)
	return c
}

// measured returns the chart's measured (not ideal) values, by series label and x.
func (c *drawnChart) measured() map[string]float64 {
	out := map[string]float64{}
	for _, s := range c.Series {
		if s.Ideal {
			continue
		}
		for i, v := range s.Values {
			if v != nil {
				out[fmt.Sprint(s.Label, "|", c.X[i])] = *v
			}
		}
	}
	return out
}

const pfx = "PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>\n"

// TestQueryPageInChromium drives the workbench in headless Chromium and
// checks each view against the engine's own answer to the same question:
// completion of a PERFONTO term, an error marked at its line, paging a
// 20,000-row result, downloads in two formats, a permalink, every shipped
// example, the call tree, a comparison, the scaling chart, and findings
// paged to the true total with one explanation. PERFKB_SCREENSHOT_DIR=dir
// keeps a screenshot of each view.
func TestQueryPageInChromium(t *testing.T) {
	if testing.Short() {
		t.Skip("the browser test takes several seconds; skipped with -short")
	}
	wd := startChromium(t)
	srv, ds, _ := newFixture(t)
	ts := httptest.NewServer(srv)
	defer ts.Close()

	open := func(url string) {
		wd.call("POST", "/url", map[string]string{"url": url})
		wd.waitFor("the page", `window.perfkb && window.perfkb.ready`)
	}
	open(ts.URL + "/")
	wd.script(`localStorage.clear(); return true`, nil)
	open(ts.URL + "/")
	yq := `window.perfkb.yasgui.getTab().getYasqe()`
	// run runs a subtest whose failures (also inside wd's helpers) belong to it.
	run := func(name string, f func(t *testing.T)) {
		parent := wd.t
		t.Run(name, func(t *testing.T) {
			wd.t = t
			defer func() { wd.t = parent }()
			f(t)
		})
	}
	runQuery := func(text string) {
		t.Helper()
		b, _ := json.Marshal(text)
		wd.script(`const y = `+yq+`; y.setValue(`+string(b)+`); document.getElementById("status").textContent = ""; y.query().catch(() => {}); return true`, nil)
	}

	run("completion", func(t *testing.T) {
		wd.script(`const y = `+yq+`; y.setValue("PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>\nSELECT * WHERE { ?a perfonto:hasChil"); y.focus(); y.setCursor({line: 1, ch: 100}); y.autocomplete(); return true`, nil)
		wd.waitFor("completion hints", `document.querySelector(".CodeMirror-hints")`)
		var hints []string
		wd.script(`return Array.from(document.querySelectorAll(".CodeMirror-hint")).map(h => h.textContent)`, &hints)
		if !slices.Contains(hints, "perfonto:hasChildRS") {
			t.Errorf("completion of perfonto:hasChil offers %v, want perfonto:hasChildRS", hints)
		}
		wd.screenshot("completion")
		wd.script(`document.querySelector(".CodeMirror-hint-active").dispatchEvent(new MouseEvent("click", {bubbles: true})); return true`, nil)
		// PREFIX declarations complete from the ontology's prefixes.
		wd.script(`const y = `+yq+`; y.setValue("PREFIX perf"); y.focus(); y.setCursor({line: 0, ch: 11}); y.autocomplete(); return true`, nil)
		wd.waitFor("prefix hints", `document.querySelector(".CodeMirror-hints")`)
		var prefixHints []string
		wd.script(`return Array.from(document.querySelectorAll(".CodeMirror-hint")).map(h => h.textContent)`, &prefixHints)
		if !slices.Contains(prefixHints, "perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>") {
			t.Errorf("PREFIX perf completes to %v", prefixHints)
		}
		wd.script(`document.querySelector(".CodeMirror-hint-active").dispatchEvent(new MouseEvent("click", {bubbles: true})); return true`, nil)
	})

	run("error marked at its line", func(t *testing.T) {
		runQuery("SELECT ?x\nWHERE { ?x ?y }")
		wd.waitFor("the error mark", `document.querySelector(".perfkb-error-line")`)
		var line int
		wd.script(`return `+yq+`.perfkbErrorLine`, &line)
		if line != 1 {
			t.Errorf("error marked on editor line %d, want 1 (the second line)", line)
		}
		var status string
		wd.script(`return document.getElementById("status").textContent`, &status)
		if !strings.Contains(status, "line 2") {
			t.Errorf("status %q does not give the line", status)
		}
		wd.screenshot("error")
	})

	run("paging 20,000 rows", func(t *testing.T) {
		runQuery("SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 20000")
		wd.waitFor("20,000 rows", `/^20000 rows/.test(document.getElementById("status").textContent)`)
		wd.waitFor("the table", `/of 20,000/.test((document.querySelector(".perfkb-page-info") || {}).textContent)`)
		var first struct {
			Info string
			Rows int
		}
		pageState := `return {Info: document.querySelector(".perfkb-page-info").textContent, Rows: document.querySelectorAll("#result-table tbody tr").length}`
		wd.script(pageState, &first)
		if !strings.HasPrefix(first.Info, "rows 1–50 of 20,000") || first.Rows != 50 {
			t.Errorf("first page: %q with %d rows", first.Info, first.Rows)
		}
		wd.click(".perfkb-pager .next")
		var num string
		wd.script(`return document.querySelector("#result-table tbody tr td.rownum").textContent`, &num)
		if num != "51" {
			t.Errorf("second page starts at row %s, want 51", num)
		}
		wd.click(".perfkb-pager .last")
		wd.script(pageState, &first)
		if !strings.Contains(first.Info, "rows 19,951–20000 of 20,000") && !strings.Contains(first.Info, "rows 19951–20000 of 20,000") || !strings.HasSuffix(first.Info, "page 400 of 400") {
			t.Errorf("last page: %q", first.Info)
		}
		// Filtering keeps the rows whose values contain the text.
		want := 0
		for _, r := range sparqlRows(t, ds, "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 20000") {
			if strings.Contains(strings.ToLower(strings.Join(r, " ")), "regionname") {
				want++
			}
		}
		wd.call("POST", "/element/"+wd.find(".perfkb-filter")+"/value", map[string]string{"text": "regionName"})
		wd.script(pageState, &first)
		if !strings.Contains(first.Info, fmt.Sprintf(" of %d (filtered from 20,000)", want)) {
			t.Errorf("filter regionName: %q, want %d rows", first.Info, want)
		}
		wd.screenshot("paging")
	})

	run("downloads", func(t *testing.T) {
		want := sparqlRows(t, ds, "SELECT ?s ?p ?o WHERE { ?s ?p ?o } LIMIT 20000")
		wd.script(`window.perfkb.noClickDownloads = true; return true`, nil)
		for _, f := range []struct{ button, header, ctype string }{
			{"csv", "s,p,o", "text/csv"},
			{"tsv", "?s\t?p\t?o", "text/tab-separated-values"},
		} {
			wd.script(`const a = document.getElementById("download-link"); a.removeAttribute("href"); a.hidden = true; return true`, nil)
			wd.click(`button.dl[data-format="` + f.button + `"]`)
			wd.waitFor(f.button+" download", `document.getElementById("download-link").download === "results.`+f.button+`"`)
			var got struct{ Text, Type string }
			wd.scriptAsync(`const done = arguments[arguments.length-1]; const a = document.getElementById("download-link");
				fetch(a.href).then(r => r.text()).then(t => done({Text: t, Type: a.dataset.type}))`, &got)
			lines := strings.Split(strings.TrimRight(got.Text, "\r\n"), "\n")
			if strings.TrimRight(lines[0], "\r") != f.header || !strings.HasPrefix(got.Type, f.ctype) {
				t.Errorf("%s download: header %q type %q", f.button, lines[0], got.Type)
			}
			if len(lines)-1 != len(want) {
				t.Errorf("%s download has %d rows, want %d", f.button, len(lines)-1, len(want))
			}
		}
	})

	run("permalink", func(t *testing.T) {
		text := pfx + `SELECT ?region ?name WHERE { ?region perfonto:regionName ?name } ORDER BY ?name`
		want := len(sparqlRows(t, ds, text))
		open(ts.URL + "/?query=" + url.QueryEscape(text))
		wd.waitFor("the permalink's results", `/^\d+ rows? in/.test(document.getElementById("status").textContent)`)
		var got struct {
			Value string
			Rows  int
		}
		wd.script(`return {Value: `+yq+`.getValue(), Rows: window.perfkb.last.rows.length}`, &got)
		if got.Value != text || got.Rows != want {
			t.Errorf("permalink reopened %q with %d rows; want the same query with %d rows", got.Value, got.Rows, want)
		}
	})

	run("examples", func(t *testing.T) {
		var examples []example
		b, _ := os.ReadFile("../web/examples.json")
		json.Unmarshal(b, &examples)
		for i, ex := range examples {
			want := len(sparqlRows(t, ds, ex.Query))
			wd.script(`window.perfkb.openExample(`+strconv.Itoa(i)+`); document.getElementById("status").textContent = ""; `+yq+`.query().catch(() => {}); return true`, nil)
			wd.waitFor(ex.Name, `/^\d+ rows? in/.test(document.getElementById("status").textContent) || document.getElementById("status").className === "error"`)
			var got struct {
				Rows   int
				Status string
				Label  string
			}
			wd.script(`return {Rows: window.perfkb.last ? window.perfkb.last.rows.length : -1, Status: document.getElementById("status").textContent, Label: document.getElementById("examples").selectedOptions[0].textContent}`, &got)
			if got.Rows != want {
				t.Errorf("example %q: page shows %d rows (%s), engine %d", ex.Name, got.Rows, got.Status, want)
			}
			if strings.HasPrefix(got.Label, ex.Name[:10]) {
				t.Errorf("example picker keeps the stale label %q", got.Label)
			}
			if strings.HasPrefix(ex.Name, "Top 20") {
				var bars []string
				// The chart is drawn after the rows (the status line comes
				// first); under load the test could read it before.
				wd.waitFor(ex.Name+"'s chart", `document.getElementById("chart").chart && document.querySelector("#chart canvas")`)
				chart := readChart(wd, "chart")
				for _, x := range chart.X {
					bars = append(bars, fmt.Sprint(x))
				}
				// Each bar's value is the engine's value of the charted column, row by row.
				var col int
				wd.script(`document.getElementById("chart").scrollIntoView(); return window.perfkb.last.vars.indexOf(document.getElementById("chart-column").value)`, &col)
				rows := sparqlRows(t, ds, ex.Query)
				if chart.Kind != "bar" || len(chart.Series) != 1 || len(chart.Series[0].Values) != len(rows) || col < 0 {
					t.Errorf("chart of %q: %s, %d series, column %d; want bars, one per row (%d)", ex.Name, chart.Kind, len(chart.Series), col, len(rows))
				} else {
					for i, r := range rows {
						want, err := strconv.ParseFloat(r[col], 64)
						if v := chart.Series[0].Values[i]; err != nil || v == nil || *v != want || chart.Data[0][i] == nil || *chart.Data[0][i] != want {
							t.Errorf("chart of %q, bar %d (%s): drawn %v, engine %s", ex.Name, i, bars[i], v, r[col])
						}
					}
				}
				if len(bars) != got.Rows || len(bars) == 0 || !slices.ContainsFunc(bars, func(b string) bool { return b == "main" || strings.HasPrefix(b, "main · ") }) {
					t.Errorf("chart of %q labels its %d bars %v; want one per row, by regionName (e.g. main)", ex.Name, len(bars), bars)
				}
				// A name that repeats (each site has a main) carries its site.
				if slices.Contains(bars, "main") && slices.ContainsFunc(bars, func(b string) bool { return strings.HasPrefix(b, "main · ") }) {
					t.Errorf("bars %v: a repeated name is sometimes bare", bars)
				}
				if n := len(slices.Compact(slices.Sorted(slices.Values(bars)))); n != len(bars) {
					t.Errorf("bars %v: only %d distinct labels for %d bars", bars, n, len(bars))
				}
				wd.screenshot("chart")
			}
			if strings.Contains(ex.Name, "(series)") {
				// It opens as a line chart: x = ?processes, one line per ?version.
				var opened struct{ Kind, X, Series string }
				wd.script(`return {Kind: document.getElementById("chart-kind").value, X: document.getElementById("label-column").value, Series: document.getElementById("series-column").value}`, &opened)
				if opened != (struct{ Kind, X, Series string }{"line", "processes", "version"}) {
					t.Errorf("%q opens as %+v, want a line chart of ?processes per ?version", ex.Name, opened)
				}
				// Line chart: x = ?processes, one line per ?version, log scale.
				wd.script(`const set = (id, v) => { const s = document.getElementById(id); s.value = v; s.dispatchEvent(new Event("change")); };
					set("chart-kind", "line"); set("label-column", "processes"); set("series-column", "version");
					const log = document.getElementById("chart-log"); log.checked = true; log.dispatchEvent(new Event("change")); return true`, nil)
				wd.waitFor("the line chart", `document.querySelector('#chart[data-kind="line"][data-log="true"] canvas')`)
				chart := readChart(wd, "chart")
				// Every row is a point (version, processes) → value, as the engine answers.
				var cols struct{ P, V int }
				wd.script(`const vs = window.perfkb.last.vars; return {P: vs.indexOf("processes"), V: vs.indexOf(document.getElementById("chart-column").value)}`, &cols)
				drawn := chart.measured()
				if chart.DistrY != 3 || len(drawn) != got.Rows {
					t.Errorf("line chart of %q: y distribution %d (want 3, log), %d points for %d rows", ex.Name, chart.DistrY, len(drawn), got.Rows)
				}
				// The drawn (processes, value) pairs are the engine's rows'.
				var gotPairs, wantPairs []string
				for _, s := range chart.Series {
					for i, v := range s.Values {
						if v != nil {
							gotPairs = append(gotPairs, fmt.Sprintf("%v|%g", chart.X[i], *v))
						}
					}
				}
				for _, r := range sparqlRows(t, ds, ex.Query) {
					p, _ := strconv.ParseFloat(r[cols.P], 64)
					v, _ := strconv.ParseFloat(r[cols.V], 64)
					wantPairs = append(wantPairs, fmt.Sprintf("%v|%g", p, v))
				}
				slices.Sort(gotPairs)
				slices.Sort(wantPairs)
				if !slices.Equal(gotPairs, wantPairs) {
					t.Errorf("line chart of %q draws %v; the engine answers %v", ex.Name, gotPairs, wantPairs)
				}
				wd.screenshot("series-chart")
			}
		}
		wd.screenshot("example-chart")
	})

	// The experiment with the most region summaries, and one of its PUs.
	exps := sparqlRows(t, ds, pfx+`SELECT ?exp (COUNT(?rs) AS ?n) WHERE { ?rs perfonto:inExperiment ?exp ; perfonto:inProcessingUnit ?pu } GROUP BY ?exp ORDER BY DESC(?n) ?exp LIMIT 2`)
	if len(exps) < 2 {
		t.Fatalf("fixture has %d experiments with region summaries", len(exps))
	}
	exp, exp2 := exps[0][0], exps[1][0]

	run("call tree", func(t *testing.T) {
		pu := sparqlRows(t, ds, pfx+`SELECT ?pu WHERE { ?rs perfonto:inExperiment <`+exp+`> ; perfonto:inProcessingUnit ?pu } ORDER BY ?pu LIMIT 1`)[0][0]
		count := sparqlRows(t, ds, pfx+`SELECT (COUNT(?rs) AS ?n) WHERE { ?rs perfonto:inExperiment <`+exp+`> ; perfonto:inProcessingUnit <`+pu+`> }`)[0][0]
		root := sparqlRows(t, ds, pfx+`SELECT ?v WHERE { ?rs perfonto:inExperiment <`+exp+`> ; perfonto:inProcessingUnit <`+pu+`> ; perfonto:hasMetric ?m .
			FILTER NOT EXISTS { ?p perfonto:hasChildRS ?rs } ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v }`)
		if len(root) != 1 {
			t.Fatalf("want one root wtime, got %v", root)
		}
		wd.click(`button[data-tab="tree"]`)
		wd.waitFor("experiments", `document.querySelectorAll("#tree-exp option").length > 0`)
		wd.script(`const s = document.getElementById("tree-exp"); s.value = "`+exp+`"; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.waitFor("the PU list", `window.perfkb.treeFor === "`+exp+`" && Array.from(document.querySelectorAll("#tree-pu option")).some(o => o.value === "`+pu+`")`)
		wd.script(`const s = document.getElementById("tree-pu"); s.value = "`+pu+`"; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.waitFor("the tree of the PU", `window.perfkb.tree && window.perfkb.tree.pu === "`+pu+`" && document.querySelector('#tree tbody tr[data-depth="0"]') && /call-tree nodes/.test(document.getElementById("tree-status").textContent)`)
		var got struct {
			Nodes int
			Root  float64
		}
		wd.script(`return {Nodes: window.perfkb.tree.nodes, Root: Number(document.querySelector('#tree tbody tr[data-depth="0"]').dataset.incl)}`, &got)
		wantRoot, _ := strconv.ParseFloat(root[0][0], 64)
		if strconv.Itoa(got.Nodes) != count || got.Root != wantRoot {
			t.Errorf("call tree of %s on %s: %d nodes, root wtime %v; SPARQL: %s nodes, root %v", exp, pu, got.Nodes, got.Root, count, wantRoot)
		}
		var rendered int
		wd.script(`return document.querySelectorAll("#tree tbody tr").length`, &rendered)
		if strconv.Itoa(rendered) != count {
			t.Errorf("%d tree rows rendered, want %s (all expanded)", rendered, count)
		}
		// % of total: each node's inclusive time over the root's (one PU:
		// one root, whose wtime SPARQL gave), printed to 0.1; the hot path:
		// from the root, the child with the largest inclusive time at each
		// level down to a leaf, found here from the rows in preorder.
		var rows []struct {
			Depth int
			Incl  float64
			Pct   string
			Hot   bool
		}
		wd.script(`return Array.from(document.querySelectorAll("#tree tbody tr")).map(r => ({Depth: Number(r.dataset.depth), Incl: Number(r.dataset.incl), Pct: r.dataset.pct, Hot: r.classList.contains("hot")}))`, &rows)
		for i, r := range rows {
			pct, err := strconv.ParseFloat(r.Pct, 64)
			if err != nil || math.Abs(pct-100*r.Incl/wantRoot) > 0.05+1e-9 {
				t.Errorf("row %d: %% of total %q, want %.1f (inclusive %v of the root's %v)", i, r.Pct, 100*r.Incl/wantRoot, r.Incl, wantRoot)
			}
		}
		// The page draws the tree package analysis builds, which GET
		// /analysis/tree serves and perfkb tree prints (TestTreeCLIAndHTTPAgree
		// in cmd/perfkb checks those two): node for node, by call path, the
		// same depth and inclusive time.
		ct, err := analysis.BuildCallTree(context.Background(), ds, exp, analysis.TreeOptions{PU: pu})
		if err != nil {
			t.Fatal(err)
		}
		type placed struct {
			Depth int
			Incl  float64
		}
		want := map[string]placed{}
		var walk func(n *analysis.TreeNode, depth int)
		walk = func(n *analysis.TreeNode, depth int) {
			v, _ := n.Value("wtime")
			want[n.Path] = placed{depth, v}
			for _, c := range n.Children {
				walk(c, depth+1)
			}
		}
		for _, r := range ct.Roots {
			walk(r, 0)
		}
		var drawn []struct {
			Path  string
			Depth int
			Incl  float64
		}
		wd.script(`return Array.from(document.querySelectorAll("#tree tbody tr")).map(r => ({Path: r.dataset.key, Depth: Number(r.dataset.depth), Incl: Number(r.dataset.incl)}))`, &drawn)
		if len(drawn) != len(want) {
			t.Errorf("the page draws %d nodes of %s on %s; analysis.BuildCallTree has %d", len(drawn), exp, pu, len(want))
		}
		for _, d := range drawn {
			if w, ok := want[d.Path]; !ok || w.Depth != d.Depth || w.Incl != d.Incl {
				t.Errorf("page node %q: depth %d, inclusive %v; analysis.BuildCallTree: %+v (found %v)", d.Path, d.Depth, d.Incl, w, ok)
			}
		}
		wantHot := map[int]bool{}
		for at := 0; at >= 0 && len(rows) > 0; {
			wantHot[at] = true
			best := -1
			for j := at + 1; j < len(rows) && rows[j].Depth > rows[at].Depth; j++ {
				if rows[j].Depth == rows[at].Depth+1 && (best < 0 || rows[j].Incl > rows[best].Incl) {
					best = j
				}
			}
			at = best
		}
		for i, r := range rows {
			if r.Hot != wantHot[i] {
				t.Errorf("row %d (depth %d, inclusive %v): hot %v, want %v", i, r.Depth, r.Incl, r.Hot, wantHot[i])
			}
		}
		wd.script(`const s = document.getElementById("tree-pu"); s.value = ""; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.screenshot("call-tree")
	})

	// Without the analysis service the comparison view sums per region
	// name with SPARQL: a server without it, then back to the fixture's.
	run("comparison", func(t *testing.T) {
		nts := httptest.NewServer(server.New(server.Options{Query: &QueryEngine{DS: ds}, Token: token}))
		defer nts.Close()
		open(nts.URL + "/")
		defer open(ts.URL + "/")
		sum := func(e string) map[string]float64 {
			out := map[string]float64{}
			for _, r := range sparqlRows(t, ds, pfx+`SELECT ?name (SUM(?v) AS ?s) WHERE { ?rs perfonto:inExperiment <`+e+`> ; perfonto:inProcessingUnit ?pu ; perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m .
				?cr perfonto:regionName ?name . ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v } GROUP BY ?name`) {
				out[r[0]], _ = strconv.ParseFloat(r[1], 64)
			}
			return out
		}
		a, b := sum(exp), sum(exp2)
		wd.click(`button[data-tab="compare"]`)
		wd.waitFor("experiments", `document.querySelectorAll("#cmp-a option").length > 1`)
		wd.script(`document.getElementById("cmp-a").value = "`+exp+`"; document.getElementById("cmp-b").value = "`+exp2+`"; document.getElementById("cmp-metric").value = "wtime"; return true`, nil)
		wd.click("#cmp-run")
		wd.waitFor("the comparison", `document.querySelectorAll("#compare tbody tr").length > 0`)
		var diff float64
		wd.script(`return Number(document.querySelector('#compare tbody tr[data-region="main"]').dataset.diff)`, &diff)
		if want := b["main"] - a["main"]; math.Abs(diff-want) > 1e-6*math.Abs(want) {
			t.Errorf("difference of region main: page %v, SPARQL %v", diff, want)
		}
		wd.screenshot("comparison")
	})

	run("scaling chart", func(t *testing.T) {
		wd.click(`button[data-tab="scaling"]`)
		wd.waitFor("the scaling chart", `document.querySelector("#scaling-chart canvas") || document.querySelector("#scaling-chart p")`)
		var version string
		wd.script(`return document.getElementById("scal-version").value`, &version)
		// Process counts of the version's runs that have a call-tree root with a wtime.
		counts := sparqlRows(t, ds, pfx+`SELECT DISTINCT ?size ?p WHERE { ?exp perfonto:ofVersion <`+version+`> ; perfonto:numberOfProcesses ?p . OPTIONAL { ?exp perfonto:problemSize ?size }
			?rs perfonto:inExperiment ?exp ; perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m . FILTER NOT EXISTS { ?x perfonto:hasChildRS ?rs }
			?m perfonto:hasMetricName "wtime" }`)
		chart := readChart(wd, "scaling-chart")
		if chart == nil {
			t.Fatal("no scaling chart")
		}
		if points := len(chart.measured()); points != len(counts) {
			t.Errorf("scaling chart of %s has %d points, want one per (problem size, process count) (%d)", version, points, len(counts))
		}
		// An ideal line per problem size; the x axis is logarithmic (3)
		// when the process counts span a factor of 4 or more.
		ideal, sizes := 0, map[string]bool{}
		for _, s := range chart.Series {
			if s.Ideal {
				ideal++
			}
		}
		lo, hi := math.Inf(1), 0.0
		for _, r := range counts {
			sizes[r[0]] = true
			p, _ := strconv.ParseFloat(r[1], 64)
			lo, hi = math.Min(lo, p), math.Max(hi, p)
		}
		wantDistr := 1
		if hi/lo >= 4 {
			wantDistr = 3
		}
		if ideal != len(sizes) || chart.DistrX != wantDistr {
			t.Errorf("scaling chart: %d ideal lines, x distribution %d; want %d (one per size), %d (counts %g … %g)", ideal, chart.DistrX, len(sizes), wantDistr, lo, hi)
		}
		// The exports: a PNG of the canvas, an SVG with a circle per
		// measured point, a CSV with a line per x and the drawn values.
		var exp struct {
			PNG, SVG, CSV string
			Buttons       int
		}
		wd.script(`const b = document.getElementById("scaling-chart");
			return {PNG: b.plot.ctx.canvas.toDataURL("image/png").slice(0, 22), SVG: window.perfkb.chartSVG(b.plot), CSV: window.perfkb.chartCSVOf(b), Buttons: b.querySelectorAll(".chart-export button").length}`, &exp)
		if exp.PNG != "data:image/png;base64," || exp.Buttons != 3 {
			t.Errorf("PNG export starts %q, %d export buttons; want a PNG data URL and 3 buttons", exp.PNG, exp.Buttons)
		}
		if n := strings.Count(exp.SVG, `<circle class="point"`); n != len(chart.measured()) || !strings.HasPrefix(exp.SVG, "<svg") {
			t.Errorf("SVG export has %d points, the chart %d", n, len(chart.measured()))
		}
		csvRows, err := csv.NewReader(strings.NewReader(exp.CSV)).ReadAll()
		if err != nil || len(csvRows) != len(chart.X)+1 || len(csvRows[0]) != len(chart.Series)+1 {
			t.Errorf("CSV export: %d rows, err %v; want a header and %d rows of %d columns", len(csvRows), err, len(chart.X), len(chart.Series)+1)
		} else {
			for i, row := range csvRows[1:] {
				for j, s := range chart.Series {
					got, perr := strconv.ParseFloat(row[j+1], 64)
					if v := s.Values[i]; (v == nil) != (row[j+1] == "") || (v != nil && (perr != nil || got != *v)) {
						t.Errorf("CSV export row %d, %s: %q, drawn %v", i+1, s.Label, row[j+1], v)
					}
				}
			}
		}
		wd.screenshot("scaling")
	})

	run("experiments in natural order", func(t *testing.T) {
		wd.click(`button[data-tab="compare"]`)
		wd.waitFor("experiments", `document.querySelectorAll("#tree-exp option").length > 0`)
		for _, sel := range []string{"tree-exp", "cmp-a", "scal-version"} {
			var values []string
			wd.script(`return Array.from(document.querySelectorAll("#`+sel+` option")).map(o => o.value)`, &values)
			for i := 1; i < len(values); i++ {
				if naturalLess(values[i], values[i-1]) {
					t.Errorf("#%s lists %s before %s", sel, values[i-1], values[i])
				}
			}
		}
		// The fixture's experiments stop at exp/8, so the page's ordering is
		// also checked on names where string and number order differ.
		names := []string{"s/exp/10", "s/exp/2", "s/exp/trace1", "s/exp/1", "s/v1-p16", "s/v1-p2", "s/v1-p128", "s/exp/9"}
		var got []string
		b, _ := json.Marshal(names)
		wd.script(`return `+string(b)+`.sort(window.perfkb.naturalCompare)`, &got)
		want := slices.Clone(names)
		slices.SortFunc(want, func(a, b string) int {
			if naturalLess(a, b) {
				return -1
			}
			if naturalLess(b, a) {
				return 1
			}
			return 0
		})
		if !slices.Equal(got, want) {
			t.Errorf("page sorts %v as %v, want %v", names, got, want)
		}
	})

	run("durations", func(t *testing.T) {
		// Hand-scaled: microseconds into the unit whose number lies in
		// [1, 1000), 4 significant digits, trailing zeros dropped.
		for _, tc := range []struct {
			us   float64
			want string
		}{
			{9.375e-5, "93.75 ps"},
			{0.5, "500 ns"},
			{0.0012346, "1.235 ns"},
			{1, "1 µs"},
			{999.4, "999.4 µs"},
			{1500, "1.5 ms"},
			{123456, "123.5 ms"},
			{7.7474057993029995e9, "7747 s"},
			{-2500, "-2.5 ms"},
			{0, "0 s"},
		} {
			var got string
			wd.script(`return window.perfkb.fmtDuration(`+strconv.FormatFloat(tc.us, 'g', -1, 64)+`)`, &got)
			if got != tc.want {
				t.Errorf("fmtDuration(%g µs) = %q, want %q", tc.us, got, tc.want)
			}
		}
	})

	run("rules without the token", func(t *testing.T) {
		wd.click(`button[data-tab="findings"]`)
		wd.script(`document.getElementById("token").value = ""; return true`, nil)
		wd.click("#run-rules")
		wd.waitFor("the missing-token message", `document.getElementById("findings-status").textContent.includes("needs the write token")`)
	})

	run("findings", func(t *testing.T) {
		wd.call("POST", "/element/"+wd.find("#token")+"/value", map[string]string{"text": token})
		wd.click(`button[data-tab="findings"]`)
		wd.click("#run-rules")
		wd.waitFor("the findings", `/^\d+ of \d+ findings$/.test(document.getElementById("findings-status").textContent) && document.querySelectorAll("#findings tbody tr").length > 0`)
		total := len(sparqlRows(t, ds, pfx+`SELECT DISTINCT ?s ?f WHERE { ?s perfonto:hasProblem ?f }`))
		var status string
		wd.script(`return document.getElementById("findings-status").textContent`, &status)
		if want := fmt.Sprintf("%d of %d findings", total, total); status != want {
			t.Errorf("findings status %q, want %q", status, want)
		}
		// Regions are named, with their site, not shown as IRIs.
		const codeRegionCell = `Array.from(document.querySelectorAll("#findings td.region")).find(td => td.dataset.region.includes("/cr/"))`
		wd.waitFor("region names", codeRegionCell+` && !`+codeRegionCell+`.textContent.startsWith("/")`)
		var cell struct{ Text, Region string }
		wd.script(`const td = `+codeRegionCell+`; return {Text: td.textContent, Region: td.dataset.region}`, &cell)
		names := sparqlRows(t, ds, pfx+`SELECT ?n WHERE { { <`+cell.Region+`> perfonto:regionName ?n } UNION { <`+cell.Region+`> perfonto:ofCodeRegion/perfonto:regionName ?n } } LIMIT 1`)
		site := strings.SplitN(strings.SplitN(cell.Region, "/site/", 2)[1], "/", 2)[0]
		if len(names) != 1 || cell.Text != names[0][0]+" · "+site {
			t.Errorf("region cell %q for %s, want its regionName %v and site %s", cell.Text, cell.Region, names, site)
		}
		// Page to the end: the rows seen add up to the true total.
		seen := 0
		for range 1000 {
			var n int
			wd.script(`return document.querySelectorAll("#findings tbody tr").length`, &n)
			seen += n
			var last bool
			wd.script(`const m = /page (\d+) of (\d+)/.exec(document.getElementById("f-page").textContent); return m[1] === m[2]`, &last)
			if last {
				break
			}
			wd.click("#f-next")
		}
		if seen != total {
			t.Errorf("paged through %d findings, want %d", seen, total)
		}
		wd.click("#f-prev")
		wd.click("#findings tbody tr")
		wd.waitFor("the explanation", `document.querySelector("#explanation .summary")`)
		var exp struct {
			Summary, Visible string
			Rules            int
		}
		wd.script(`const box = document.getElementById("explanation"); const clone = box.cloneNode(true); clone.querySelectorAll("details").forEach(d => d.remove());
			return {Summary: box.querySelector(".summary").textContent, Visible: clone.textContent, Rules: box.querySelectorAll(".tree .rule").length}`, &exp)
		if !strings.Contains(exp.Summary, "flagged") || exp.Rules == 0 {
			t.Errorf("explanation summary %q with %d rule labels", exp.Summary, exp.Rules)
		}
		wd.waitFor("the rule text", `document.querySelector("#explanation pre.rule-src")`)
		var src, ruleName string
		wd.script(`return document.querySelector("#explanation pre.rule-src").textContent`, &src)
		wd.script(`return document.querySelector("#explanation .tree .rule").textContent.replace("← ", "")`, &ruleName)
		if !strings.HasPrefix(src, "["+ruleName+":") || !strings.Contains(src, "->") {
			t.Errorf("rule text for %q:\n%s", ruleName, src)
		}
		if strings.Contains(exp.Visible, "urn:x-perfkb:rules#") {
			t.Errorf("explanation shows internal helper triples unfolded: %s", exp.Visible)
		}
		// The advice shown is the one written beside the rules (#@advice).
		var class, advice string
		wd.script(`return document.querySelector("#explanation h3").textContent.split(" at ")[0]`, &class)
		wd.script(`const a = document.querySelector("#explanation .advice"); return a ? a.textContent : ""`, &advice)
		shipped, err := rules.ShippedAdvice()
		if err != nil {
			t.Fatal(err)
		}
		want := ""
		for _, a := range shipped {
			if strings.HasSuffix(a.Class, "#"+class) {
				want = "What to try: " + a.Text
			}
		}
		if want == "" || advice != want {
			t.Errorf("advice for %s:\n got %q\nwant %q", class, advice, want)
		}
		wd.screenshot("findings")
	})

	run("sites", func(t *testing.T) {
		wd.click(`button[data-tab="sites"]`)
		wd.waitFor("the sites", `document.querySelectorAll("#sites tbody tr").length >= 3`)
		var names []string
		wd.script(`return Array.from(document.querySelectorAll("#sites tbody tr td:first-child")).map(td => td.textContent)`, &names)
		if slices.Contains(names, "derivations") {
			t.Errorf("sites tab lists the derivation records: %v", names)
		}
		wd.screenshot("sites")
		// An experiment link opens its call tree.
		var link string
		wd.script(`return document.querySelector("#sites tbody a").title`, &link)
		wd.click("#sites tbody a")
		wd.waitFor("the linked call tree", `document.getElementById("tree-exp").value === "`+link+`" && window.perfkb.treeFor === "`+link+`" && /call-tree nodes/.test(document.getElementById("tree-status").textContent)`)
	})

	// With the analysis service wired (as perfkb serve does), the same
	// comparison view shows /analysis/diff's call-path rows.
	run("comparison through the analysis service", func(t *testing.T) {
		asrv := server.New(server.Options{Query: &QueryEngine{DS: ds}, Rules: &Reasoner{DS: ds}, Analysis: &Analysis{DS: ds}, Token: token})
		ats := httptest.NewServer(asrv)
		defer ats.Close()
		resp, err := http.Get(ats.URL + "/analysis/diff?base=" + url.QueryEscape(exp) + "&trial=" + url.QueryEscape(exp2))
		if err != nil {
			t.Fatal(err)
		}
		var api struct {
			Data struct {
				Rows []struct {
					Region, Metric, OnlyIn string
					Difference             float64
				}
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&api)
		resp.Body.Close()
		if err != nil || len(api.Data.Rows) == 0 {
			t.Fatalf("/analysis/diff: %v, %d rows", err, len(api.Data.Rows))
		}
		want := map[string]float64{}
		for _, r := range api.Data.Rows {
			if r.Metric == "wtime" && r.OnlyIn == "" {
				want[r.Region] = r.Difference
			}
		}
		open(ats.URL + "/")
		wd.click(`button[data-tab="compare"]`)
		wd.waitFor("experiments", `document.querySelectorAll("#cmp-a option").length > 1`)
		wd.script(`document.getElementById("cmp-a").value = "`+exp+`"; document.getElementById("cmp-b").value = "`+exp2+`"; document.getElementById("cmp-metric").value = "wtime"; return true`, nil)
		wd.click("#cmp-run")
		wd.waitFor("the comparison", `document.querySelectorAll("#compare tbody tr").length > 0`)
		var got struct {
			Source string
			Rows   [][]string
		}
		wd.script(`return {Source: window.perfkb.compareSource, Rows: Array.from(document.querySelectorAll("#compare tbody tr")).map(tr => [tr.dataset.region, tr.dataset.diff])}`, &got)
		if !strings.Contains(got.Source, "analysis") {
			t.Fatalf("comparison computed by %q, want the analysis service", got.Source)
		}
		checked := 0
		for _, r := range got.Rows {
			w, ok := want[r[0]]
			if !ok {
				continue
			}
			d, _ := strconv.ParseFloat(r[1], 64)
			if math.Abs(d-w) > 1e-6*math.Abs(w)+1e-9 {
				t.Errorf("region %s: page difference %v, /analysis/diff %v", r[0], d, w)
			}
			checked++
		}
		if checked == 0 || checked != len(want) {
			t.Errorf("page shows %d of the %d call paths /analysis/diff compares", checked, len(want))
		}
		wd.screenshot("comparison-analysis")

		// The scaling view switches over the same way.
		wd.click(`button[data-tab="scaling"]`)
		wd.waitFor("the scaling chart", `/from the analysis service/.test(document.getElementById("scal-status").textContent) || document.getElementById("scal-status").className === "error"`)
		var version string
		wd.script(`return document.getElementById("scal-version").value`, &version)
		drawn := readChart(wd, "scaling-chart").measured()
		points := len(drawn)
		resp, err = http.Get(ats.URL + "/analysis/scaling?version=" + url.QueryEscape(version))
		if err != nil {
			t.Fatal(err)
		}
		var sc struct {
			Data []struct {
				Name    string
				Columns []string
				Rows    [][]any
			}
		}
		err = json.NewDecoder(resp.Body).Decode(&sc)
		resp.Body.Close()
		if err != nil || len(sc.Data) == 0 {
			t.Fatalf("/analysis/scaling: %v", err)
		}
		// Per (problem size, process count) the fastest run's time, as the
		// chart draws it ("size S" per series).
		procs := map[string]float64{}
		cols := sc.Data[0].Columns
		for _, r := range sc.Data[0].Rows {
			if r[slices.Index(cols, "region")] == "(program)" && r[slices.Index(cols, "time_us")] != "" {
				key := fmt.Sprint("size ", r[slices.Index(cols, "problem_size")], "|", r[slices.Index(cols, "processes")])
				tm, _ := strconv.ParseFloat(fmt.Sprint(r[slices.Index(cols, "time_us")]), 64)
				if old, ok := procs[key]; !ok || tm < old {
					procs[key] = tm
				}
			}
		}
		if points != len(procs) {
			t.Errorf("scaling chart from the analysis service has %d points, /analysis/scaling has %d process counts", points, len(procs))
		}
		for k, w := range procs {
			if v, ok := drawn[k]; !ok || math.Abs(v-w) > 1e-9*w {
				t.Errorf("scaling chart at %s: drawn %v (%v), /analysis/scaling %v", k, v, ok, w)
			}
		}
	})

	// Remote sites (registered with perfkb sites add) show their endpoint
	// and the freshness of the last refresh; local graphs are live.
	run("remote sites' freshness", func(t *testing.T) {
		refreshed := time.Now().Add(-3 * time.Minute)
		sites := fakeSites{
			{Name: "vienna", Graph: "http://perfkb.example/site/vienna", Kind: "local", Triples: 6188},
			{Name: "linz", Endpoint: "http://linz.example:7878/sparql", Kind: "remote", Status: "ok", LastRefreshed: refreshed, ExperimentCount: 9},
			{Name: "graz", Endpoint: "http://graz.example:7878/sparql", Kind: "remote", Status: "HTTP 503 Service Unavailable"},
		}
		rts := httptest.NewServer(server.New(server.Options{Query: &QueryEngine{DS: ds}, Sites: sites, Token: token}))
		defer rts.Close()
		open(rts.URL + "/")
		wd.click(`button[data-tab="sites"]`)
		wd.waitFor("the sites", `document.querySelectorAll("#sites tbody tr").length === 3`)
		var rows [][]string
		wd.script(`return Array.from(document.querySelectorAll("#sites tbody tr")).map(tr => Array.from(tr.cells).map(td => td.textContent.trim()))`, &rows)
		want := [][]string{
			{"vienna", "local", "http://perfkb.example/site/vienna", "6188", "live (this store)", ""},
			{"linz", "remote", "http://linz.example:7878/sparql", "—", "ok, 3 min ago", "9 experiments (site registry)"},
			{"graz", "remote", "http://graz.example:7878/sparql", "—", "HTTP 503 Service Unavailable", "0 experiments (site registry)"},
		}
		if fmt.Sprint(rows) != fmt.Sprint(want) {
			t.Errorf("sites table:\n got %q\nwant %q", rows, want)
		}
		wd.screenshot("sites-remote")
	})

	// A real scaling series (sample --scaling: p = 1 … 32 per problem
	// size): the chart's times are SPARQL's, its speedups the time of the
	// smallest run of the same size over each run's.
	run("scaling series", func(t *testing.T) {
		sds := native.OpenMemory()
		var buf bytes.Buffer
		if _, err := sample.Generate(context.Background(), &buf, sample.Options{Sites: 1, Triples: 4000, Seed: 3, Scaling: true}); err != nil {
			t.Fatal(err)
		}
		if _, err := rdfio.Load(context.Background(), sds, &buf, rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "scaling.nq"}); err != nil {
			t.Fatal(err)
		}
		sts := httptest.NewServer(server.New(server.Options{Query: &QueryEngine{DS: sds}, Token: token}))
		defer sts.Close()
		// The version with the most process counts.
		vs := sparqlRows(t, sds, pfx+`SELECT ?v (COUNT(DISTINCT ?p) AS ?n) WHERE { ?e perfonto:ofVersion ?v ; perfonto:numberOfProcesses ?p } GROUP BY ?v ORDER BY DESC(?n) ?v LIMIT 1`)
		if len(vs) == 0 || vs[0][1] == "1" {
			t.Fatalf("no version with several process counts in the scaling sample: %v", vs)
		}
		version := vs[0][0]
		// Per (size, processes) the fastest run, each run's time the
		// longest wtime of a call-tree root.
		runs := sparqlRows(t, sds, pfx+`SELECT ?size ?p (MAX(?v) AS ?t) ?exp WHERE { ?exp perfonto:ofVersion <`+version+`> ; perfonto:numberOfProcesses ?p . OPTIONAL { ?exp perfonto:problemSize ?size }
			?rs perfonto:inExperiment ?exp ; perfonto:hasMetric ?m . FILTER NOT EXISTS { ?x perfonto:hasChildRS ?rs }
			?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v } GROUP BY ?exp ?size ?p`)
		best := map[string]map[float64]float64{} // size -> processes -> time
		for _, r := range runs {
			p, _ := strconv.ParseFloat(r[1], 64)
			tm, _ := strconv.ParseFloat(r[2], 64)
			if best[r[0]] == nil {
				best[r[0]] = map[float64]float64{}
			}
			if old, ok := best[r[0]][p]; !ok || tm < old {
				best[r[0]][p] = tm
			}
		}
		want := map[string]float64{} // "size|p" -> speedup
		for size, byP := range best {
			base := math.Inf(1)
			for p := range byP {
				base = math.Min(base, p)
			}
			for p, tm := range byP {
				want[fmt.Sprintf("%s|%g", size, p)] = byP[base] / tm
			}
		}
		open(sts.URL + "/")
		wd.click(`button[data-tab="scaling"]`)
		wd.waitFor("versions", `Array.from(document.querySelectorAll("#scal-version option")).some(o => o.value === "`+version+`")`)
		wd.script(`const s = document.getElementById("scal-version"); s.value = "`+version+`"; document.getElementById("scal-kind").value = "speedup"; s.dispatchEvent(new Event("change")); return true`, nil)
		wd.waitFor("the speedup chart", `window.perfkb.scaling && window.perfkb.scaling.length > 0 && /points, from SPARQL/.test(document.getElementById("scal-status").textContent) && document.getElementById("scaling-chart").chart && /speedup/.test(document.querySelector("#scaling-chart .u-title").textContent)`)
		var got struct {
			Points []struct {
				P, T, Speedup float64
				Size          string
			}
		}
		wd.script(`return {Points: window.perfkb.scaling.map(r => ({P: r.p, T: r.t, Speedup: r.speedup, Size: r.size}))}`, &got)
		drawn := readChart(wd, "scaling-chart").measured()
		if len(got.Points) != len(want) || len(drawn) != len(want) {
			t.Errorf("speedup chart: %d points, %d drawn, want %d (size, processes) pairs", len(got.Points), len(drawn), len(want))
		}
		for k, w := range want {
			size, p, _ := strings.Cut(k, "|")
			if v, ok := drawn["size "+size+"|"+p]; !ok || math.Abs(v-w) > 1e-9*w {
				t.Errorf("speedup chart at size %s, %s processes: drawn %v (%v), want %v", size, p, v, ok, w)
			}
		}
		for _, g := range got.Points {
			w, ok := want[fmt.Sprintf("%s|%g", g.Size, g.P)]
			if !ok || math.Abs(g.Speedup-w) > 1e-9*w {
				t.Errorf("size %s, %g processes: speedup %v, want %v", g.Size, g.P, g.Speedup, w)
			}
		}
		wd.screenshot("scaling-series")
	})
}

// fakeSites is a site registry with remote entries, as perfkb serve's.
type fakeSites []query.SiteEntry

func (f fakeSites) Sites(context.Context) ([]query.SiteEntry, error) { return f, nil }

// naturalLess orders strings with their digit runs compared by value.
func naturalLess(a, b string) bool {
	for a != "" && b != "" {
		da, db := digitRun(a), digitRun(b)
		if da > 0 && db > 0 {
			na, _ := strconv.ParseUint(a[:da], 10, 64)
			nb, _ := strconv.ParseUint(b[:db], 10, 64)
			if na != nb {
				return na < nb
			}
			a, b = a[da:], b[db:]
			continue
		}
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		a, b = a[1:], b[1:]
	}
	return len(a) < len(b)
}

func digitRun(s string) int {
	n := 0
	for n < len(s) && s[n] >= '0' && s[n] <= '9' {
		n++
	}
	return n
}
