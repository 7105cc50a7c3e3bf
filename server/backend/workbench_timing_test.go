package backend

import (
	"os"
	"strings"
	"testing"
	"time"
)

// TestWorkbenchViewTimes opens each view of the workbench served at
// $PERFKB_WORKBENCH_URL (perfkb demo, or perfkb serve on the demo's store)
// in headless Chromium and reports how long each takes from the click to
// its finished status line, failing a view over $PERFKB_VIEW_LIMIT
// (default 1s; the figure on 2 cores). With PERFKB_SCREENSHOT_DIR
// it saves each view at 1400 and 800 px. It needs a server the caller
// started, so it skips without the variable.
func TestWorkbenchViewTimes(t *testing.T) {
	base := strings.TrimRight(os.Getenv("PERFKB_WORKBENCH_URL"), "/")
	if base == "" {
		t.Skip("set PERFKB_WORKBENCH_URL to a served demo store (perfkb demo) to time the views on it")
	}
	limit := time.Second
	if v := os.Getenv("PERFKB_VIEW_LIMIT"); v != "" {
		d, err := time.ParseDuration(v)
		if err != nil {
			t.Fatalf("PERFKB_VIEW_LIMIT=%q: %v", v, err)
		}
		limit = d
	}
	wd := startChromium(t)
	wd.call("POST", "/window/rect", map[string]int{"width": 1400, "height": 1000})
	load := func(n int) {
		wd.call("POST", "/url", map[string]string{"url": base + "/?view=" + string(rune('a'+n))})
		wd.waitFor("the page", `window.perfkb && window.perfkb.ready`)
	}
	type view struct {
		name, tab, prepare, done string
	}
	views := []view{
		{"query: Top 20 code regions", "", `window.perfkb.openExample(2); document.getElementById("status").textContent = ""; window.perfkb.yasgui.getTab().getYasqe().query().catch(() => {});`,
			`/^\d+ rows? in/.test(document.getElementById("status").textContent) && document.querySelector("#chart canvas, #chart svg")`},
		{"experiments", "experiments", "", `/^\d+ of \d+ experiments/.test(document.getElementById("exp-status").textContent)`},
		{"call tree + flame graph", "tree", "", `/call-tree nodes/.test(document.getElementById("tree-status").textContent) && document.querySelectorAll("#flame g.frame").length > 0`},
		{"statistics", "stats", "", `/regions over/.test(document.getElementById("stat-status").textContent) && document.querySelector("#stats-chart canvas")`},
		{"compare", "compare", `document.getElementById("cmp-run").click();`, `/regions \(/.test(document.getElementById("cmp-status").textContent)`},
		{"scaling: per-region curves", "scaling", "", `/measured points|no models/.test(document.getElementById("curve-status").textContent)`},
		{"scaling: whole-program chart", "scaling", "", `/points, from/.test(document.getElementById("scal-status").textContent)`},
		{"findings", "findings", "", `/^\d+ of \d+ findings$/.test(document.getElementById("findings-status").textContent) && document.querySelectorAll("#findings tbody tr").length > 0`},
		{"sites", "sites", "", `document.querySelectorAll("#sites tbody tr").length > 0`},
	}
	for i, v := range views {
		load(i)
		start := time.Now()
		if v.tab != "" {
			wd.click(`button[data-tab="` + v.tab + `"]`)
		}
		if v.prepare != "" {
			if v.tab != "" {
				wd.waitFor(v.name+"'s controls", `document.querySelectorAll("#cmp-a option").length > 1 || `+"`"+v.tab+"`"+` !== "compare"`)
			}
			wd.script(v.prepare+" return true", nil)
		}
		wd.waitFor(v.name, v.done)
		took := time.Since(start)
		t.Logf("%-30s %6d ms", v.name, took.Milliseconds())
		if took > limit {
			t.Errorf("%s took %v, over %v", v.name, took.Round(time.Millisecond), limit)
		}
		wd.screenshotWidths("demo-" + strings.NewReplacer(" ", "-", ":", "", "+", "and").Replace(v.name))
	}
}
