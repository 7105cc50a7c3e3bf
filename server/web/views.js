// perfkb workbench, the analyst's views beside the query page: the
// experiment table (with each run's factors and site), statistics across
// processing units per region, per-region scaling curves with the store's
// fitted models (uPlot), the flame graph of the call tree (d3-flame-graph),
// and saved queries and performance conditions. Loaded after app.js, whose
// helpers (el, sparql, fmt, …) it uses. The libraries are vendored under
// /static/vendor (see server/web/vendor-charts.sh).
"use strict";

// The hash as the page opened: YASGUI rewrites it while it starts.
const START_HASH = location.hash;

// ---------- experiments, their factors and their sites ----------

// The site of an experiment is taken from the store: the site name of its
// perfonto:atSite, else the site (as GET /sites names it) whose graph holds
// the experiment's rdf:type perfonto:Experiment triple. An experiment in
// the default graph with no atSite has no site.
let experimentTableLoading = null;
function loadExperimentTable() {
  if (WB.expTable) return Promise.resolve(WB.expTable);
  if (!experimentTableLoading) experimentTableLoading = fetchExperimentTable().finally(() => { experimentTableLoading = null; });
  return experimentTableLoading;
}

async function fetchExperimentTable() {
  const [rows, sites] = await Promise.all([sparql(`PREFIX perfonto: <${PERFONTO}>
SELECT ?exp ?g ?siteName ?version ?processes ?threads ?size ?compiler ?start WHERE {
  GRAPH ?g { ?exp a perfonto:Experiment }
  FILTER(!STRSTARTS(STR(?g), "urn:x-perfkb:")) # derived graphs (analysis series, inferences) hold no runs
  OPTIONAL { ?exp perfonto:atSite/perfonto:siteName ?siteName }
  OPTIONAL { ?exp perfonto:ofVersion ?version }
  OPTIONAL { ?exp perfonto:numberOfProcesses ?processes }
  OPTIONAL { ?exp perfonto:numberOfThreads ?threads }
  OPTIONAL { ?exp perfonto:problemSize ?size }
  OPTIONAL { ?exp perfonto:compiler ?compiler }
  OPTIONAL { ?exp perfonto:startTime ?start }
}`), fetch("/sites", { headers: authHeaders() }).then((r) => (r.ok ? r.json() : { data: [] })).catch(() => ({ data: [] }))]);
  const graphSite = new Map(((sites && sites.data) || []).filter((s) => s.graph).map((s) => [s.graph, s.name]));
  const byExp = new Map();
  const v = (t) => (t ? t.value : "");
  for (const r of rows) {
    if (byExp.has(r.exp.value)) continue; // one row per experiment (first graph, first value)
    byExp.set(r.exp.value, {
      iri: r.exp.value, graph: r.g.value, site: v(r.siteName) || graphSite.get(r.g.value) || "",
      version: v(r.version), processes: r.processes ? Number(r.processes.value) : NaN, threads: r.threads ? Number(r.threads.value) : NaN,
      size: v(r.size), compiler: v(r.compiler), start: v(r.start),
    });
  }
  WB.expTable = Array.from(byExp.values()).sort((a, b) => naturalCompare(a.iri, b.iri));
  WB.siteOfExperiment = new Map(WB.expTable.map((e) => [e.iri, e.site]));
  return WB.expTable;
}

// siteOfExperiment is the store's site of an experiment ("" when unknown).
function siteOfExperiment(iri) {
  return (WB.siteOfExperiment && WB.siteOfExperiment.get(iri)) || "";
}
WB.siteOf = siteOfExperiment;

const EXP_COLUMNS = [
  ["experiment", (e) => e.iri, (e) => shortIRI(e.iri)],
  ["site", (e) => e.site],
  ["version", (e) => e.version, (e) => shortIRI(e.version)],
  ["processes", (e) => e.processes, (e) => (isNaN(e.processes) ? "" : String(e.processes))],
  ["threads", (e) => e.threads, (e) => (isNaN(e.threads) ? "" : String(e.threads))],
  ["problem size", (e) => e.size],
  ["compiler", (e) => e.compiler],
  ["started", (e) => e.start, (e) => e.start.replace("T", " ").replace(/:00Z$|Z$/, "")],
];
const ET = { sort: 0, dir: 1, filter: "" };

function compareValues(a, b) {
  const na = typeof a === "number", nb = typeof b === "number";
  if (na && nb) return (isNaN(a) ? Infinity : a) - (isNaN(b) ? Infinity : b);
  return naturalCompare(String(a ?? ""), String(b ?? ""));
}

async function showExperimentTable() {
  setStatus("exp-status", "loading…");
  try {
    const list = await loadExperimentTable();
    renderExperimentTable(list);
  } catch (err) {
    setStatus("exp-status", String(err.message || err), true);
  }
}

function renderExperimentTable(list) {
  const f = ET.filter.toLowerCase();
  const shown = list.filter((e) => !f || EXP_COLUMNS.some(([, key, show]) => String((show || key)(e)).toLowerCase().includes(f)));
  const key = EXP_COLUMNS[ET.sort][1];
  shown.sort((a, b) => ET.dir * compareValues(key(a), key(b)) || naturalCompare(a.iri, b.iri));
  const head = el("tr", {}, ...EXP_COLUMNS.map(([name], i) => el("th", { class: ET.sort === i ? (ET.dir > 0 ? "asc" : "desc") : "", "data-col": String(i), title: "sort by " + name,
    onclick: () => { ET.dir = ET.sort === i ? -ET.dir : 1; ET.sort = i; renderExperimentTable(list); } }, name)), el("th", {}, "open"));
  const rows = shown.map((e) => el("tr", { "data-iri": e.iri, class: WB.currentExperiment === e.iri ? "selected" : "" },
    ...EXP_COLUMNS.map(([, k, show], i) => el("td", { class: i === 3 || i === 4 ? "num" : "", title: i === 0 ? e.iri : i === 2 ? e.version : "" }, (show || k)(e))),
    el("td", { class: "open" }, el("button", { type: "button", class: "open-tree", onclick: () => pickExperiment(e.iri, "tree") }, "tree"), " ",
      el("button", { type: "button", class: "open-stats", onclick: () => pickExperiment(e.iri, "stats") }, "statistics"), " ",
      e.version ? el("button", { type: "button", class: "open-scaling", onclick: () => pickExperiment(e.iri, "scaling") }, "scaling") : "")));
  $("experiments").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
  setStatus("exp-status", `${shown.length} of ${list.length} experiments` + (WB.currentExperiment ? ` · current: ${shortIRI(WB.currentExperiment)}` : ""));
}

// pickExperiment makes exp the experiment of every view and opens one.
async function pickExperiment(exp, view) {
  WB.currentExperiment = exp;
  await loadExperiments();
  const e = (WB.expTable || []).find((x) => x.iri === exp);
  ["tree-exp", "cmp-b", "stat-exp"].forEach((id) => { if (Array.from($(id).options).some((o) => o.value === exp)) $(id).value = exp; });
  if (e && e.version && Array.from($("scal-version").options).some((o) => o.value === e.version)) $("scal-version").value = e.version;
  if (view === "tree") { showTab("tree"); showTree(); }
  else if (view === "stats") { showTab("stats"); }
  else if (view === "scaling") { showTab("scaling"); }
}
WB.pickExperiment = pickExperiment;

// ---------- statistics across processing units ----------

// statsQuery gives, per code region and processing unit of one experiment,
// the metric summed over the region's summaries on that unit (a region
// reached on several call paths counts once per unit, as ParaProf's
// per-function statistics do).
function statsQuery(exp, metric) {
  return `PREFIX perfonto: <${PERFONTO}>
SELECT ?cr ?name ?pu (SUM(?v) AS ?value) WHERE {
  ?rs perfonto:inExperiment <${exp}> ; perfonto:inProcessingUnit ?pu ; perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName "${metric.replace(/["\\]/g, "")}" ; perfonto:hasMetricValue ?v .
  OPTIONAL { ?cr perfonto:regionName ?name }
} GROUP BY ?cr ?name ?pu`;
}
WB.statsQuery = statsQuery;

// regionStats reduces per-unit values to n, min, mean, max, the population
// standard deviation and the imbalance (max / mean − 1: how much longer
// the slowest unit takes than the average one).
function regionStats(values) {
  const n = values.length;
  const mean = values.reduce((s, x) => s + x, 0) / n;
  const variance = values.reduce((s, x) => s + (x - mean) * (x - mean), 0) / n;
  const max = Math.max(...values), min = Math.min(...values);
  return { n, min, mean, max, stddev: Math.sqrt(variance), imbalance: mean !== 0 ? max / mean - 1 : NaN };
}
WB.regionStats = regionStats;

const ST = { sort: "max", dir: -1 };
let statsGen = 0;

async function showStats() {
  const gen = ++statsGen;
  await loadExperiments();
  if (gen !== statsGen) return;
  if (!$("stat-exp").options.length) {
    $("stat-exp").replaceChildren(...Array.from($("tree-exp").options).map((o) => el("option", { value: o.value }, o.textContent)));
    if (WB.currentExperiment) $("stat-exp").value = WB.currentExperiment;
  }
  if ($("stat-metric").options.length <= 1 && WB.terms) {
    $("stat-metric").replaceChildren(...WB.terms.metrics.map((m) => el("option", { value: m.name }, m.name)));
    $("stat-metric").value = "wtime";
  }
  const exp = $("stat-exp").value, metric = $("stat-metric").value || "wtime";
  if (!exp) { setStatus("stat-status", "no experiments in the store"); return; }
  setStatus("stat-status", "loading…");
  const t0 = performance.now();
  try {
    const rows = await sparql(statsQuery(exp, metric));
    if (gen !== statsGen) return;
    const by = new Map();
    for (const r of rows) {
      const k = r.cr.value;
      if (!by.has(k)) by.set(k, { cr: k, name: r.name ? r.name.value : shortIRI(k), values: [] });
      by.get(k).values.push(Number(r.value.value));
    }
    const pus = new Set(rows.map((r) => r.pu.value)).size;
    WB.stats = Array.from(by.values()).map((g) => Object.assign(g, regionStats(g.values)));
    WB.statsFor = exp + "|" + metric;
    renderStats();
    setStatus("stat-status", `${WB.stats.length} regions over ${pus} processing units, ${metric}, in ${Math.round(performance.now() - t0)} ms`);
  } catch (err) {
    setStatus("stat-status", String(err.message || err), true);
  }
}

function renderStats() {
  const unit = metricUnit($("stat-metric").value || "wtime");
  const list = WB.stats.slice().sort((a, b) => ST.dir * compareValues(a[ST.sort], b[ST.sort]) || naturalCompare(a.name, b.name));
  const cols = [["name", "region"], ["n", "units"], ["min", "min"], ["mean", "mean"], ["max", "max"], ["stddev", "std. dev."], ["imbalance", "imbalance"]];
  const head = el("tr", {}, ...cols.map(([k, label]) => el("th", { class: ST.sort === k ? (ST.dir > 0 ? "asc" : "desc") : "", "data-key": k,
    onclick: () => { ST.dir = ST.sort === k ? -ST.dir : k === "name" ? 1 : -1; ST.sort = k; renderStats(); } }, label)));
  const body = list.map((s) => el("tr", { "data-cr": s.cr, "data-min": String(s.min), "data-mean": String(s.mean), "data-max": String(s.max), "data-stddev": String(s.stddev), "data-n": String(s.n) },
    el("td", { title: s.cr }, s.name), el("td", { class: "num" }, String(s.n)), el("td", { class: "num" }, fmt(s.min, unit)), el("td", { class: "num" }, fmt(s.mean, unit)),
    el("td", { class: "num" }, fmt(s.max, unit)), el("td", { class: "num" }, fmt(s.stddev, unit)),
    el("td", { class: "num" + (s.imbalance > 0.2 ? " worse" : "") }, isNaN(s.imbalance) ? "" : (100 * s.imbalance).toFixed(1) + " %")));
  $("stats").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...body)));
  drawStatsChart(list.slice(0, 30), unit);
}

// chartWidth fits a chart to its box (no sideways scrolling at 800 px).
function chartWidth(box) {
  return Math.max(320, Math.min(2400, (box.clientWidth || box.parentElement.clientWidth || 800) - 8));
}

// drawChart draws the query chart and the scaling chart with uPlot: bars
// (one per point, the first 40, labelled) or a line/scatter chart over a
// numeric x with one series per point.series, a log y axis with log, a
// log-2 x axis with logX, and a dashed ideal line where points carry
// ideal. What it drew is kept in box.chart ({kind, log, logX, x, series:
// [{label, values}]}) for the export buttons and the tests.
function drawChart(box, { kind, points, log, logX, yTitle, xTitle, unit, name }) {
  if (box.plot) box.plot.destroy();
  box.plot = null;
  box.replaceChildren();
  const valueFmt = (v) => (v == null ? "" : fmt(v, unit));
  const keepLog = (v) => (log && !(v > 0) ? null : v); // a log axis holds positive values only
  let data, opts, chart;
  if (kind === "bar") {
    const shown = points.slice(0, 40);
    const labels = shown.map((p) => p.label);
    const xs = shown.map((_, i) => i);
    const ys = shown.map((p) => keepLog(p.y));
    chart = { kind, log: !!log, logX: false, x: labels, series: [{ label: yTitle, values: shown.map((p) => p.y) }] };
    data = [xs, ys];
    opts = {
      title: yTitle + (log ? " — log scale" : ""), height: Math.max(260, Math.min(520, 120 + 10 * shown.length)),
      scales: { x: { time: false, range: [-0.5, shown.length - 0.5] }, y: log ? { distr: 3 } : { range: (u, lo, hi) => [Math.min(0, lo), hi > 0 ? hi * 1.05 : 1] } },
      axes: [
        { values: (u, ticks) => ticks.map((t) => (Number.isInteger(t) && labels[t] != null ? (labels[t].length > 24 ? "…" + labels[t].slice(-23) : labels[t]) : "")), rotate: -35, size: 110, space: 10, incrs: [1, 2, 5, 10], label: xTitle },
        { values: (u, ticks) => ticks.map(valueFmt), size: 80 },
      ],
      series: [
        { label: xTitle, value: (u, i) => (i == null || labels[i] == null ? "" : labels[i]) },
        { label: yTitle, stroke: "#2d66c8", fill: "rgba(45,102,200,0.4)", paths: uPlot.paths.bars({ size: [0.7, 40] }), points: { show: false }, value: (u, v) => valueFmt(v), svgBars: true },
      ],
    };
  } else {
    const pts = points.filter((p) => Number.isFinite(p.x) && Number.isFinite(p.y));
    if (pts.length === 0) { box.replaceChildren(el("p", { class: "hint" }, "line and scatter charts need a numeric x column")); return; }
    const xs = Array.from(new Set(pts.map((p) => p.x))).sort((a, b) => a - b);
    const at = new Map(xs.map((x, i) => [x, i]));
    const groups = new Map();
    pts.forEach((p) => { if (!groups.has(p.series)) groups.set(p.series, []); groups.get(p.series).push(p); });
    const colors = ["#2d66c8", "#c8462d", "#2a9a4a", "#8a4ac8", "#c8a02d", "#2db8c8"];
    const series = [{ label: xTitle, value: (u, v) => (v == null ? "" : fmt(v)) }];
    const columns = [];
    chart = { kind, log: !!log, logX: !!logX, x: xs, series: [] };
    let gi = 0;
    for (const [s, list] of groups) {
      const color = colors[gi % colors.length];
      const col = xs.map(() => null);
      list.forEach((p) => { col[at.get(p.x)] = p.y; });
      chart.series.push({ label: s || yTitle, values: col.slice() });
      columns.push(col.map(keepLog));
      series.push({ label: s || yTitle, stroke: color, width: 2, spanGaps: true, paths: kind === "scatter" ? () => null : undefined,
        points: { show: true, size: 7, fill: color }, value: (u, v) => valueFmt(v), svgLine: kind !== "scatter", svgPoints: true });
      if (list.some((p) => p.ideal != null)) {
        const ideal = xs.map(() => null);
        list.forEach((p) => { ideal[at.get(p.x)] = p.ideal; });
        chart.series.push({ label: "ideal" + (s ? " " + s : ""), values: ideal.slice(), ideal: true });
        columns.push(ideal.map(keepLog));
        series.push({ label: "ideal" + (s ? " " + s : ""), stroke: color, width: 1, dash: [6, 4], spanGaps: true, points: { show: false }, value: (u, v) => valueFmt(v), svgLine: true });
      }
      gi++;
    }
    const spread = xs[xs.length - 1] / xs[0];
    data = [xs, ...columns];
    opts = {
      title: yTitle + (log ? " — log scale" : ""), height: 340,
      scales: { x: { time: false, distr: logX && xs[0] > 0 && spread >= 4 ? 3 : 1, log: 2 }, y: log ? { distr: 3 } : {} },
      axes: [{ label: xTitle, values: (u, ticks) => ticks.map((t) => fmt(t)) }, { values: (u, ticks) => ticks.map(valueFmt), size: 80 }],
      series,
    };
  }
  opts.width = chartWidth(box);
  box.plot = new uPlot(opts, data, box);
  box.chart = chart;
  box.dataset.kind = kind;
  box.dataset.log = String(!!log);
  box.dataset.points = String(chart.series.filter((s) => !s.ideal).reduce((n, s) => n + s.values.filter((v) => v != null).length, 0));
  addChartExport(box, name || box.id, () => chartCSV(chart));
}
WB.drawChart = drawChart;

// chartCSV writes what a chart drew: x, then one column per series.
function chartCSV(chart) {
  const q = (v) => { const s = v == null ? "" : String(v); return /[",\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s; };
  const lines = [["x", ...chart.series.map((s) => s.label)].map(q).join(",")];
  chart.x.forEach((x, i) => lines.push([x, ...chart.series.map((s) => s.values[i])].map(q).join(",")));
  return lines.join("\n") + "\n";
}

// addChartExport puts PNG, SVG and CSV download buttons under a uPlot
// chart: PNG is the canvas as drawn, SVG redraws the series and axis
// ticks as vectors from the chart's scales, CSV is csv().
function addChartExport(box, name, csv) {
  const save = (blob, ext) => {
    const a = el("a", { href: URL.createObjectURL(blob), download: `${name}.${ext}` });
    document.body.append(a);
    a.click();
    setTimeout(() => { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
  };
  const bar = el("div", { class: "chart-export" }, "Export: ",
    el("button", { type: "button", class: "export-png", onclick: () => box.plot.ctx.canvas.toBlob((b) => save(b, "png"), "image/png") }, "PNG"), " ",
    el("button", { type: "button", class: "export-svg", onclick: () => save(new Blob([chartSVG(box.plot)], { type: "image/svg+xml" }), "svg") }, "SVG"), " ",
    el("button", { type: "button", class: "export-csv", onclick: () => save(new Blob([csv()], { type: "text/csv" }), "csv") }, "CSV"));
  box.append(bar);
}
WB.addChartExport = addChartExport;
WB.chartCSVOf = (box) => chartCSV(box.chart);

// chartSVG draws a uPlot chart again as SVG: its plotting area, each
// series at the positions uPlot computed (bars for svgBars, a line for
// svgLine, points unless svgLine without svgPoints), the axes' tick
// labels, and the title.
function chartSVG(u) {
  const esc = (s) => String(s).replace(/&/g, "&amp;").replace(/</g, "&lt;").replace(/>/g, "&gt;");
  const W = u.width, H = u.height, pr = devicePixelRatio || 1;
  const bb = { left: u.bbox.left / pr, top: u.bbox.top / pr, width: u.bbox.width / pr, height: u.bbox.height / pr };
  const out = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H + 30}" font-family="sans-serif" font-size="11">`,
    `<rect width="100%" height="100%" fill="white"/>`,
    `<text x="${W / 2}" y="16" text-anchor="middle" font-size="13">${esc(u.root.querySelector(".u-title") ? u.root.querySelector(".u-title").textContent : "")}</text>`,
    `<g transform="translate(0,24)">`,
    `<rect x="${bb.left}" y="${bb.top}" width="${bb.width}" height="${bb.height}" fill="none" stroke="#ccc"/>`];
  u.axes.forEach((ax, ai) => {
    const splits = ax._splits || [], values = ax._values || [];
    const scale = ax.scale || (ai === 0 ? "x" : "y");
    splits.forEach((v, i) => {
      if (values[i] == null || values[i] === "") return;
      if (ai === 0) out.push(`<text x="${bb.left + u.valToPos(v, scale)}" y="${bb.top + bb.height + 14}" text-anchor="middle">${esc(values[i])}</text>`);
      else out.push(`<text x="${bb.left - 4}" y="${bb.top + u.valToPos(v, scale) + 4}" text-anchor="end">${esc(values[i])}</text>`);
    });
  });
  u.series.forEach((s, si) => {
    if (si === 0 || s.show === false) return;
    const color = typeof s.stroke === "function" ? s.stroke(u, si) : s.stroke || "#333";
    const xy = [];
    u.data[0].forEach((x, i) => { const y = u.data[si][i]; if (y != null) xy.push([bb.left + u.valToPos(x, "x"), bb.top + u.valToPos(y, s.scale || "y")]); });
    if (s.svgBars) {
      const w = (0.7 * bb.width) / Math.max(1, u.data[0].length), y0 = bb.top + u.valToPos(Math.max(0, u.scales[s.scale || "y"].min), s.scale || "y");
      xy.forEach(([x, y]) => out.push(`<rect x="${x - w / 2}" y="${Math.min(y, y0)}" width="${w}" height="${Math.abs(y0 - y)}" fill="${color}" fill-opacity="0.6"/>`));
      return;
    }
    if (s.svgLine && xy.length > 1) {
      out.push(`<polyline fill="none" stroke="${color}" stroke-width="${s.width || 1}"${s.dash ? ` stroke-dasharray="${s.dash.join(" ")}"` : ""} points="${xy.map((p) => p.join(",")).join(" ")}"/>`);
    }
    if (s.svgLine && !s.svgPoints) return;
    xy.forEach(([x, y]) => out.push(`<circle class="point" cx="${x}" cy="${y}" r="3" fill="${color}"><title>${esc(s.label)}</title></circle>`));
  });
  u.series.forEach((s, si) => { if (si > 0) out.push(`<text x="${bb.left + 8}" y="${bb.top + 14 * si}" fill="${typeof s.stroke === "string" ? s.stroke : "#333"}">${esc(s.label)}</text>`); });
  out.push("</g></svg>");
  return out.join("\n");
}
WB.chartSVG = chartSVG;

function drawStatsChart(list, unit) {
  const box = $("stats-chart");
  if (box.plot) box.plot.destroy();
  box.replaceChildren();
  if (!list.length) return;
  const xs = list.map((_, i) => i);
  const bars = uPlot.paths.bars({ size: [0.6, 40] });
  const opts = {
    width: chartWidth(box), height: 300, title: `min / mean / max over processing units (${list.length} regions with the largest ${ST.sort})`,
    scales: { x: { time: false, range: [-0.5, list.length - 0.5] } },
    axes: [
      { values: (u, ticks) => ticks.map((t) => (Number.isInteger(t) && list[t] ? list[t].name.slice(0, 14) : "")), rotate: -30, size: 70, space: 12, incrs: [1, 2, 5, 10] },
      { values: (u, ticks) => ticks.map((t) => fmt(t, unit)), size: 80 },
    ],
    series: [
      { label: "region", value: (u, i) => (i == null || !list[i] ? "" : list[i].name) },
      { label: "mean", stroke: "#2d66c8", fill: "rgba(45,102,200,0.35)", paths: bars, points: { show: false }, value: (u, v) => fmt(v, unit), svgBars: true },
      { label: "min", stroke: "#2a9a4a", paths: () => null, points: { show: true, size: 7, fill: "#2a9a4a" }, value: (u, v) => fmt(v, unit) },
      { label: "max", stroke: "#c8462d", paths: () => null, points: { show: true, size: 7, fill: "#c8462d" }, value: (u, v) => fmt(v, unit) },
    ],
  };
  box.plot = new uPlot(opts, [xs, list.map((s) => s.mean), list.map((s) => s.min), list.map((s) => s.max)], box);
  box.dataset.points = String(list.length);
  const chart = { x: list.map((s) => s.name), series: ["mean", "min", "max"].map((k) => ({ label: k, values: list.map((s) => s[k]) })) };
  addChartExport(box, "statistics", () => chartCSV(chart));
}

// ---------- per-region scaling curves with the fitted models ----------

// modelsQuery lists the store's performance models (written by perfkb
// analyze and the demo) of a version's series, for one metric.
function modelsQuery(version, metric) {
  return `PREFIX perfonto: <${PERFONTO}>
SELECT ?model ?path ?cr ?formula ?function ?smape ?series ?size WHERE {
  ?model a perfonto:PerformanceModel ; perfonto:modelledMetric "${metric.replace(/["\\]/g, "")}" ; perfonto:callPath ?path ;
         ^perfonto:hasPerformanceModel ?cr ; perfonto:modelFormula ?formula ; perfonto:inSeries ?series ; perfonto:fittedFrom ?exp .
  ?exp perfonto:ofVersion <${version}> .
  OPTIONAL { ?model perfonto:modelFunction ?function } OPTIONAL { ?model perfonto:modelSMAPE ?smape } OPTIONAL { ?series perfonto:seriesProblemSize ?size }
} GROUP BY ?model ?path ?cr ?formula ?function ?smape ?series ?size`;
}

// regionPointsQuery gives, per experiment a model was fitted from, its
// process count and the largest value of the metric over the region's
// summaries (the longest-running unit, the value the models are fitted to).
function regionPointsQuery(model, metric) {
  return `PREFIX perfonto: <${PERFONTO}>
SELECT ?exp ?p ?size (MAX(?v) AS ?value) WHERE {
  <${model}> perfonto:fittedFrom ?exp ; ^perfonto:hasPerformanceModel ?cr .
  ?exp perfonto:numberOfProcesses ?p . OPTIONAL { ?exp perfonto:problemSize ?size }
  ?rs perfonto:inExperiment ?exp ; perfonto:ofCodeRegion ?cr ; perfonto:inProcessingUnit ?pu ; perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName "${metric.replace(/["\\]/g, "")}" ; perfonto:hasMetricValue ?v .
} GROUP BY ?exp ?p ?size ORDER BY ?p`;
}

// parseFormula reads a model as perfonto:modelFormula writes it,
// "f(p) = c0 + c1*p^(a/b)*log2(p)^(k) + …", into a function of the
// parameters (null when the text has another shape).
function parseFormula(text) {
  const m = /^\s*f\(([^)]*)\)\s*=\s*(.*)$/.exec(text || "");
  if (!m) return null;
  const params = m[1].split(",").map((s) => s.trim());
  const terms = m[2].split(/\s\+\s/).map((t) => t.trim());
  const num = (s) => (s.includes("/") ? Number(s.split("/")[0]) / Number(s.split("/")[1]) : Number(s));
  const parsed = [];
  for (const t of terms) {
    const parts = t.split("*");
    const coef = Number(parts[0]);
    if (isNaN(coef)) return null;
    const factors = [];
    for (const f of parts.slice(1)) {
      let fm = /^log2\((\w+)\)\^\(([^)]+)\)$/.exec(f);
      if (fm) { factors.push({ param: params.indexOf(fm[1]), log: num(fm[2]) }); continue; }
      fm = /^(\w+)\^\(([^)]+)\)$/.exec(f);
      if (fm) { factors.push({ param: params.indexOf(fm[1]), pow: num(fm[2]) }); continue; }
      return null;
    }
    if (factors.some((f) => f.param < 0 || isNaN(f.log ?? f.pow))) return null;
    parsed.push({ coef, factors });
  }
  const fn = (...x) => parsed.reduce((s, t) => s + t.factors.reduce((v, f) => v * (f.log != null ? Math.log2(x[f.param]) ** f.log : x[f.param] ** f.pow), t.coef), 0);
  fn.params = params;
  return fn;
}
WB.parseFormula = parseFormula;

let curvesGen = 0;

// showRegionCurves lists the version's modelled call paths and draws the
// one picked: measured points and the model's curve over p, log-log, with
// the ideal strong-scaling line through the smallest run.
async function showRegionCurves() {
  const gen = ++curvesGen;
  await loadExperiments();
  if (gen !== curvesGen) return;
  const version = $("scal-version").value;
  const box = $("region-chart");
  if (!version) return;
  if (WB.modelsFor !== version) {
    setStatus("curve-status", "loading the models…");
    try {
      const rows = await sparql(modelsQuery(version, "wtime"));
      if (gen !== curvesGen) return;
      WB.models = rows.map((r) => ({ iri: r.model.value, path: r.path.value, cr: r.cr.value, formula: r.formula.value, text: r.function ? r.function.value : "", smape: r.smape ? Number(r.smape.value) : NaN, series: r.series.value, size: r.size ? r.size.value : "" }))
        .sort((a, b) => naturalCompare(a.series, b.series) || a.path.split(" > ").length - b.path.split(" > ").length || naturalCompare(a.path, b.path));
      WB.modelsFor = version;
      const sel = $("curve-region");
      sel.replaceChildren(...WB.models.map((m) => el("option", { value: m.iri, title: m.path }, m.path.replace(/ \[[^\]]*\]/g, "") + (WB.models.filter((x) => x.path === m.path).length > 1 ? ` (${m.size || shortIRI(m.series).split("/").pop()})` : ""))));
    } catch (err) {
      setStatus("curve-status", String(err.message || err), true);
      return;
    }
  }
  if (!WB.models.length) {
    if (box.plot) box.plot.destroy();
    box.plot = null;
    box.replaceChildren(el("p", { class: "hint" }, "No performance models of this version in the store (perfkb analyze fits them when a series has at least 5 process counts)."));
    setStatus("curve-status", "no models");
    return;
  }
  const model = WB.models.find((m) => m.iri === $("curve-region").value) || WB.models[0];
  $("curve-region").value = model.iri;
  const t0 = performance.now();
  const rows = await sparql(regionPointsQuery(model.iri, "wtime"));
  if (gen !== curvesGen) return;
  // Repetitions at one process count: their mean, as the fit used.
  const byP = new Map();
  rows.forEach((r) => { const p = Number(r.p.value); if (!byP.has(p)) byP.set(p, []); byP.get(p).push(Number(r.value.value)); });
  const points = Array.from(byP.entries()).map(([p, vs]) => ({ p, t: vs.reduce((s, v) => s + v, 0) / vs.length })).sort((a, b) => a.p - b.p);
  const f = parseFormula(model.formula);
  WB.curve = { model: model.iri, formula: model.formula, points, fn: f, fitted: points.map((q) => (f ? f(q.p) : null)) };
  drawRegionCurve(box, model, points, f);
  setStatus("curve-status", `${model.path}: ${points.length} measured points, model ${model.text || model.formula}` + (isNaN(model.smape) ? "" : ` (SMAPE ${model.smape.toFixed(1)} %)`) + ` in ${Math.round(performance.now() - t0)} ms`);
}

function drawRegionCurve(box, model, points, f) {
  if (box.plot) box.plot.destroy();
  box.replaceChildren();
  if (!points.length) return;
  const pmin = points[0].p, pmax = points[points.length - 1].p;
  // The model's curve on a dense log-spaced grid, joined with the measured xs.
  const grid = new Set(points.map((q) => q.p));
  for (let i = 0; i <= 60; i++) grid.add(Number((pmin * (pmax / pmin) ** (i / 60)).toPrecision(6)));
  const xs = Array.from(grid).sort((a, b) => a - b);
  const measured = xs.map((x) => { const q = points.find((pt) => pt.p === x); return q ? q.t : null; });
  const fitted = xs.map((x) => (f ? f(x) : null));
  const ideal = xs.map((x) => (points[0].t * pmin) / x);
  const unit = "microsecond";
  const positive = [...measured, ...fitted].filter((v) => v != null && v > 0);
  const log = $("scal-log").checked && positive.length > 0;
  const opts = {
    width: chartWidth(box), height: 320, title: model.path,
    scales: { x: { time: false, distr: pmax / pmin >= 4 ? 3 : 1, log: 2 }, y: log ? { distr: 3 } : {} },
    axes: [{ label: "processes", values: (u, ticks) => ticks.map((t) => fmt(t)) }, { label: "wtime", values: (u, ticks) => ticks.map((t) => fmtDuration(t)), size: 80 }],
    series: [
      { label: "processes" },
      { label: "measured (max over units)", stroke: "#c8462d", paths: () => null, points: { show: true, size: 8, fill: "#c8462d" }, value: (u, v) => fmtDuration(v) },
      { label: "model " + (model.text || ""), stroke: "#2d66c8", width: 2, points: { show: false }, value: (u, v) => fmtDuration(v), spanGaps: true, svgLine: true },
      { label: "ideal (t₁·p₁/p)", stroke: "#888", dash: [6, 4], points: { show: false }, value: (u, v) => fmtDuration(v), svgLine: true },
    ],
  };
  if (log) {
    // A log axis cannot hold values ≤ 0 (a model with a negative constant
    // may dip below zero at small p): those points are left out.
    for (const arr of [measured, fitted, ideal]) arr.forEach((v, i) => { if (v != null && v <= 0) arr[i] = null; });
  }
  box.plot = new uPlot(opts, [xs, measured, fitted, ideal], box);
  box.dataset.points = String(points.length);
  const chart = { x: xs, series: [["measured", measured], ["model", fitted], ["ideal", ideal]].map(([label, values]) => ({ label, values })) };
  addChartExport(box, "scaling-region", () => chartCSV(chart));
}

// ---------- flame graph of the call tree ----------

// flameData turns the call tree (GET /analysis/tree) into d3-flame-graph's
// {name, value, children}: widths are inclusive times; exclusive times ride
// along for the labels. Several roots hang under one "all" frame.
function flameData(tree) {
  const conv = (n) => ({
    name: n.name, value: Math.max(0, treeValue(n, "wtime") || 0), exclusive: treeValue(n, "exclusive"), path: n.path,
    children: n.children.map(conv),
  });
  const roots = tree.roots.map(conv);
  if (roots.length === 1) return roots[0];
  return { name: "all", value: roots.reduce((s, r) => s + r.value, 0), exclusive: 0, path: "", children: roots };
}

function drawFlame(tree) {
  const box = $("flame");
  if (typeof flamegraph === "undefined" || !flamegraph.default || !window.d3) { box.replaceChildren(el("p", { class: "error" }, "the flame graph library did not load")); return; }
  box.replaceChildren();
  const data = flameData(tree);
  const total = data.value;
  const pct = (v) => (total > 0 ? ((100 * v) / total).toFixed(1) + " %" : "");
  const label = (d) => `${d.data.name}: inclusive ${fmtDuration(d.data.value)} (${pct(d.data.value)}), exclusive ${fmtDuration(d.data.exclusive)}`;
  const details = el("div", { class: "flame-details hint" }, "Hover a frame for its times; click it to zoom.");
  const svgBox = el("div", {});
  box.append(svgBox, details);
  const chart = flamegraph.default().width(chartWidth(box)).cellHeight(18).minFrameSize(1).transitionDuration(150).sort(false).inverted(true)
    .setLabelHandler(label).setDetailsElement(details)
    .onClick((d) => { WB.flameZoom = d.data.path; })
    .setColorMapper((d) => {
      // Heat by exclusive share of the total: where the time is spent.
      const share = total > 0 && Number.isFinite(d.data.exclusive) ? d.data.exclusive / total : 0;
      return `hsl(${Math.round(50 - 50 * Math.min(1, share * 4))}, 85%, ${Math.round(72 - 22 * Math.min(1, share * 4))}%)`;
    });
  d3.select(svgBox).datum(data).call(chart);
  WB.flame = { chart, data };
}
WB.flameData = flameData;

// ---------- saved queries and performance conditions ----------

// Both live in the browser's localStorage under this page's origin, per
// user of the browser; a saved query is shared by its permalink, a
// condition by its link (#condition=…).
const SAVED_QUERIES = "perfkb-saved-queries", SAVED_CONDITIONS = "perfkb-saved-conditions";
function readSaved(key) {
  try { return JSON.parse(localStorage.getItem(key) || "[]"); } catch (_) { return []; }
}
function writeSaved(key, list) { localStorage.setItem(key, JSON.stringify(list)); }

function refreshSavedQueries() {
  const list = readSaved(SAVED_QUERIES);
  $("saved-queries").replaceChildren(el("option", { value: "" }, list.length ? `(saved queries: ${list.length})` : "(no saved queries)"), ...list.map((q, i) => el("option", { value: String(i) }, q.name)));
}

function saveQuery() {
  const text = yasgui.getTab().getYasqe().getValue();
  const name = ($("save-name").value || "").trim();
  if (!name) { setStatus("status", "give the query a name to save it", true); return; }
  const list = readSaved(SAVED_QUERIES).filter((q) => q.name !== name);
  list.push({ name, query: text, saved: new Date().toISOString() });
  list.sort((a, b) => naturalCompare(a.name, b.name));
  writeSaved(SAVED_QUERIES, list);
  refreshSavedQueries();
  setStatus("status", `saved "${name}"; share it with its permalink`);
  $("share-link").href = location.origin + "/?query=" + encodeURIComponent(text);
  $("share-link").hidden = false;
}

function openSavedQuery(i) {
  const q = readSaved(SAVED_QUERIES)[i];
  if (!q) return;
  const id = yasgui.addTab(true, Object.assign(Yasgui.Tab.getDefaults(yasgui), { name: q.name.slice(0, 40) }));
  const t = (typeof id === "string" && yasgui.getTab(id)) || yasgui.getTab();
  wireTab(t);
  t.getYasqe().setValue(q.query);
  $("share-link").href = location.origin + "/?query=" + encodeURIComponent(q.query);
  $("share-link").hidden = false;
}
WB.openSavedQuery = openSavedQuery;

// A performance condition is a named filter of the findings (class,
// severity at least, experiment text, site): the analyst's "show me the
// runs where …", kept and reapplied.
function currentCondition() {
  return { cls: $("f-class").value, sev: $("f-sev").value, exp: $("f-exp").value, site: $("f-site").value };
}
function conditionLink(c) { return location.origin + "/#condition=" + encodeURIComponent(JSON.stringify(c)); }

function refreshConditions() {
  const list = readSaved(SAVED_CONDITIONS);
  $("saved-conditions").replaceChildren(el("option", { value: "" }, list.length ? `(conditions: ${list.length})` : "(no saved conditions)"), ...list.map((c, i) => el("option", { value: String(i) }, c.name)));
}

function saveCondition() {
  const name = ($("cond-name").value || "").trim();
  if (!name) { setStatus("findings-status", "give the condition a name to save it", true); return; }
  const list = readSaved(SAVED_CONDITIONS).filter((c) => c.name !== name);
  list.push(Object.assign({ name }, currentCondition()));
  list.sort((a, b) => naturalCompare(a.name, b.name));
  writeSaved(SAVED_CONDITIONS, list);
  refreshConditions();
  $("cond-link").href = conditionLink(currentCondition());
  $("cond-link").hidden = false;
}

async function applyCondition(c) {
  showTab("findings");
  if (F.all.length === 0) await loadFindings();
  // A class or site absent from the current findings still filters (to none).
  const ensure = (sel, v) => { if (v && !Array.from(sel.options).some((o) => o.value === v)) sel.append(el("option", { value: v }, v)); sel.value = v || ""; };
  ensure($("f-class"), c.cls);
  ensure($("f-site"), c.site);
  $("f-sev").value = c.sev || "0";
  $("f-exp").value = c.exp || "";
  F.page = 0;
  renderFindings();
  $("cond-link").href = conditionLink({ cls: c.cls, sev: c.sev, exp: c.exp, site: c.site });
  $("cond-link").hidden = false;
}
WB.applyCondition = applyCondition;

function initViews() {
  $("exp-filter").addEventListener("input", () => { ET.filter = $("exp-filter").value; if (WB.expTable) renderExperimentTable(WB.expTable); });
  ["stat-exp", "stat-metric"].forEach((id) => $(id).addEventListener("change", showStats));
  $("curve-region").addEventListener("change", showRegionCurves);
  $("save-query").addEventListener("click", saveQuery);
  $("saved-queries").addEventListener("change", () => { const v = $("saved-queries").value; if (v !== "") openSavedQuery(Number(v)); $("saved-queries").value = ""; });
  $("save-condition").addEventListener("click", saveCondition);
  $("saved-conditions").addEventListener("change", () => { const v = $("saved-conditions").value; const c = readSaved(SAVED_CONDITIONS)[Number(v)]; if (v !== "" && c) applyCondition(c); });
  refreshSavedQueries();
  refreshConditions();
  // #tab=NAME opens a view (links to a view, and the screenshots).
  const tab = /#tab=(\w+)/.exec(START_HASH);
  if (tab && document.getElementById("tab-" + tab[1])) showTab(tab[1]);
  const m = /#condition=(.*)$/.exec(START_HASH);
  if (m) {
    try { applyCondition(JSON.parse(decodeURIComponent(m[1]))); } catch (_) { /* a broken link opens the page as usual */ }
  }
  // Charts follow the window's width.
  let resizeTimer = null;
  window.addEventListener("resize", () => {
    clearTimeout(resizeTimer);
    resizeTimer = setTimeout(() => {
      for (const id of ["stats-chart", "region-chart", "chart", "scaling-chart"]) { const b = $(id); if (b.plot) b.plot.setSize({ width: chartWidth(b), height: b.plot.height }); }
      if (WB.tree && !$("tab-tree").hidden) drawFlame(WB.tree);
    }, 150);
  });
}
