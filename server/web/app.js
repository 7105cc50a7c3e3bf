// perfkb workbench: the query page (YASGUI, vendored under /static/vendor)
// and the analyst's views (call tree, comparison, scaling, findings, sites).
// Plain JavaScript, no build step.
"use strict";

const PERFONTO = "http://www.par.univie.ac.at/project/scalea/perfonto#";
const $ = (id) => document.getElementById(id);
const WB = (window.perfkb = { terms: null, examples: [], last: null });
let PREFIXES = {
  perfonto: PERFONTO,
  rdf: "http://www.w3.org/1999/02/22-rdf-syntax-ns#",
  rdfs: "http://www.w3.org/2000/01/rdf-schema#",
  xsd: "http://www.w3.org/2001/XMLSchema#",
  owl: "http://www.w3.org/2002/07/owl#",
};
const PREFIX_TEXT = () => `PREFIX perfonto: <${PERFONTO}>\n`;

// ---------- helpers ----------

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") e.className = v;
    else if (k.startsWith("on")) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v);
  }
  for (const c of children) e.append(c);
  return e;
}

function compact(iri) {
  for (const [p, ns] of Object.entries(PREFIXES)) {
    if (iri.startsWith(ns)) return p + ":" + iri.slice(ns.length);
  }
  return iri;
}

// shortIRI drops scheme and host when no prefix fits (full IRI in the tooltip).
function shortIRI(iri) {
  const c = compact(iri || "");
  if (c !== iri) return c;
  const m = /^[a-z]+:\/\/[^/]+(\/.*)$/.exec(iri || "");
  return m ? m[1] : iri || "";
}

function termNumber(t) {
  if (!t || t.type !== "literal" && t.type !== "typed-literal") return NaN;
  if (!/#(integer|decimal|double|float|long|int|short|byte|nonNegativeInteger|positiveInteger|unsignedLong|unsignedInt)$/.test(t.datatype || "")) return NaN;
  return Number(t.value);
}

function termText(t) {
  if (!t) return "";
  if (t.type === "uri") return compact(t.value);
  if (t.type === "bnode") return "_:" + t.value;
  return t.value;
}

// fmt prints a measured value readably (no 7.7474057993029995E9).
function fmt(v, unit) {
  if (v == null || isNaN(v)) return "";
  let s;
  if (unit === "microsecond") return fmtDuration(v);
  s = Number.isInteger(v) && Math.abs(v) < 1e12 ? v.toLocaleString("en") : Math.abs(v) >= 1e5 || (Math.abs(v) < 1e-3 && v !== 0) ? v.toExponential(3) : String(Number(v.toPrecision(4)));
  return unit && unit !== "counter" ? s + " " + unitAbbrev(unit) : s;
}
// fmtDuration prints a duration given in microseconds in the unit that
// keeps its number between 1 and 1000, to 4 significant digits (residuals
// of 9.375e-5 µs read 93.75 ps).
const DURATION_UNITS = [[1e6, "s"], [1e3, "ms"], [1, "µs"], [1e-3, "ns"], [1e-6, "ps"]];
function fmtDuration(us) {
  if (us == null || isNaN(us)) return "";
  if (us === 0) return "0 s";
  const a = Math.abs(us);
  const [scale, name] = DURATION_UNITS.find(([f]) => a >= f) || DURATION_UNITS[DURATION_UNITS.length - 1];
  return `${Number((us / scale).toPrecision(4))} ${name}`;
}
WB.fmtDuration = fmtDuration;
function unitAbbrev(u) { return { microsecond: "µs", byte: "B", ratio: "", percent: "%" }[u] ?? u; }

function metricUnit(name) {
  const m = WB.terms && WB.terms.metrics.find((x) => x.name === name);
  return m ? m.unit : "";
}

function authHeaders() {
  const token = $("token").value.trim();
  // X-Requested-With keeps the server's 401 free of a Basic challenge,
  // which would hold the fetch behind the browser's login prompt.
  const h = { "X-Requested-With": "perfkb" };
  if (token) h.Authorization = "Bearer " + token;
  return h;
}

async function apiError(resp) {
  if (resp.status === 401) return "this needs the write token: enter it in the token field";
  let text = await resp.text();
  try {
    const e = JSON.parse(text);
    text = `${resp.status} ${e.errorType}: ${e.error}`;
    if (e.line) text += ` (line ${e.line}, column ${e.column})`;
  } catch (_) {
    text = `${resp.status}: ${text}`;
  }
  return text;
}

// sparql runs a SELECT through the endpoint and returns the bindings.
async function sparql(query) {
  const resp = await fetch("/sparql", {
    method: "POST",
    headers: Object.assign({ "Content-Type": "application/x-www-form-urlencoded", Accept: "application/sparql-results+json" }, authHeaders()),
    body: new URLSearchParams({ query }),
  });
  if (!resp.ok) throw new Error(await apiError(resp));
  return (await resp.json()).results.bindings;
}
WB.sparql = sparql;

function setStatus(id, text, isError) {
  const s = $(id);
  s.textContent = text;
  s.className = isError ? "error" : "";
}

// ---------- query page (YASGUI) ----------

let yasgui = null;

function registerCompleters() {
  const Yasqe = Yasgui.Yasqe;
  // Prefix declarations come from the ontology's own list, not prefix.cc.
  Yasqe.Autocompleters.prefixes.get = () => Object.entries(PREFIXES).map(([p, ns]) => `${p}: <${ns}>`).sort();
  Yasqe.Autocompleters.prefixes.persistenceId = null;
  // PERFONTO classes, properties and individuals, wherever a perfonto: name is typed.
  Yasqe.registerAutocompleter({
    name: "perfonto",
    bulk: false,
    autoShow: true,
    isValidCompletionPosition(yasqe) {
      const token = yasqe.getCompleteToken();
      return /^perfonto:/.test(token.string);
    },
    preProcessToken(yasqe, token) {
      token.autocompletionString = token.string;
      return token;
    },
    get(yasqe, token) {
      if (!WB.terms) return [];
      const want = (token.autocompletionString || token.string || "").toLowerCase();
      const all = WB.terms.classes.concat(WB.terms.properties, WB.terms.individuals).map((t) => t.name);
      return all.filter((n) => n.toLowerCase().startsWith(want)).slice(0, 100);
    },
    postProcessSuggestion(yasqe, token, suggestion) { return suggestion; },
  });
  Yasqe.defaults.autocompleters = ["prefixes", "variables", "perfonto"];
}

function markServerError(yasqe, err) {
  clearErrorMarks(yasqe);
  let info = null;
  try { info = JSON.parse(err.message); } catch (_) { /* not JSON */ }
  const msg = info ? `${info.errorType}: ${info.error}` : String(err.message || err);
  setStatus("status", msg + (info && info.line ? ` (line ${info.line}, column ${info.column})` : ""), true);
  if (!info || !info.line) return;
  const line = info.line - 1;
  yasqe.addLineClass(line, "background", "perfkb-error-line");
  const marker = el("span", { class: "perfkb-error-marker", title: msg }, "●");
  yasqe.setGutterMarker(line, "gutterErrorBar", marker);
  const from = { line, ch: Math.max(0, (info.column || 1) - 1) };
  yasqe.perfkbMarks = [yasqe.markText(from, { line, ch: from.ch + 1 }, { className: "perfkb-error-at", title: msg })];
  yasqe.perfkbErrorLine = line;
}

function clearErrorMarks(yasqe) {
  if (yasqe.perfkbErrorLine != null) {
    yasqe.removeLineClass(yasqe.perfkbErrorLine, "background", "perfkb-error-line");
    yasqe.setGutterMarker(yasqe.perfkbErrorLine, "gutterErrorBar", null);
  }
  (yasqe.perfkbMarks || []).forEach((m) => m.clear());
  yasqe.perfkbMarks = [];
  yasqe.perfkbErrorLine = null;
}

function wireTab(tab) {
  const yasqe = tab.getYasqe();
  if (!yasqe || yasqe.perfkbWired) return;
  yasqe.perfkbWired = true;
  yasqe.on("query", () => { clearErrorMarks(yasqe); setStatus("status", "running…"); WB.last = null; });
  // Yasqe's events pass the editor first: (yasqe, error).
  yasqe.on("error", (_y, err) => markServerError(yasqe, err));
  yasqe.on("queryResponse", (_y, resp, ms) => {
    if (!resp || resp.ok === undefined) return;
    onResults(yasqe, resp, ms);
  });
}

function onResults(yasqe, resp, ms) {
  const type = (resp.headers && resp.headers.get("Content-Type")) || "";
  const form = yasqe.getQueryType();
  WB.last = { query: yasqe.getValue(), form, contentType: type, vars: [], rows: [] };
  if (type.includes("json")) {
    try {
      const data = JSON.parse(resp.content);
      if ("boolean" in data) {
        WB.last.vars = ["boolean"];
        WB.last.rows = [{ boolean: { type: "literal", value: String(data.boolean) } }];
      } else {
        WB.last.vars = data.head.vars;
        WB.last.rows = data.results.bindings;
      }
    } catch (_) { /* Yasr shows the raw response */ }
  }
  const n = WB.last.rows.length;
  setStatus("status", form === "CONSTRUCT" || form === "DESCRIBE" ? `graph result in ${ms} ms` : `${n} row${n === 1 ? "" : "s"} in ${ms} ms`);
  updateDownloads(form);
  setupChart();
}

// Every format the endpoint writes, by query form.
const FORMATS = {
  select: [["JSON", "application/sparql-results+json", "srj"], ["XML", "application/sparql-results+xml", "srx"], ["CSV", "text/csv", "csv"], ["TSV", "text/tab-separated-values", "tsv"]],
  graph: [["Turtle", "text/turtle", "ttl"], ["N-Triples", "application/n-triples", "nt"]],
};

function updateDownloads(form) {
  const list = form === "CONSTRUCT" || form === "DESCRIBE" ? FORMATS.graph : FORMATS.select;
  $("downloads").replaceChildren(...list.map(([label, mime, ext]) =>
    el("button", { type: "button", class: "dl", "data-format": ext, onclick: () => download(mime, ext) }, label)));
  $("download-bar").hidden = false;
}

// download re-runs the current query asking for one format and saves it.
async function download(mime, ext) {
  const query = yasgui.getTab().getYasqe().getValue();
  const resp = await fetch("/sparql", {
    method: "POST",
    headers: Object.assign({ "Content-Type": "application/x-www-form-urlencoded", Accept: mime }, authHeaders()),
    body: new URLSearchParams({ query }),
  });
  if (!resp.ok) { setStatus("status", await apiError(resp), true); return; }
  const blob = await resp.blob();
  const a = $("download-link");
  if (a.href) URL.revokeObjectURL(a.href);
  a.href = URL.createObjectURL(blob);
  a.download = "results." + ext;
  a.dataset.type = resp.headers.get("Content-Type") || "";
  a.textContent = a.download;
  a.hidden = false;
  if (!WB.noClickDownloads) a.click();
}

// ---------- result table (a Yasr plugin) ----------

// PagedTable replaces Yasr's DataTables view, which builds every cell of a
// result up front (20,000 rows took minutes in Chromium): it renders one
// page at a time, filters and sorts on the plain values, shows IRIs
// compactly with prefixes and keeps literal datatypes visible.
class PagedTable {
  constructor(yasr) {
    this.yasr = yasr;
    this.priority = 20;
    this.label = "Table";
    this.state = { page: 0, size: 50, filter: "", sortVar: null, sortDir: 1 };
  }
  canHandleResults() {
    const r = this.yasr.results;
    return !!(r && r.getVariables && r.getVariables() && r.getVariables().length > 0);
  }
  getIcon() { return el("span", { class: "perfkb-table-icon" }, "▦"); }
  rows() {
    const r = this.yasr.results;
    if (this.cachedFor !== r) {
      this.cachedFor = r;
      this.vars = r.getVariables();
      this.all = r.getBindings() || [];
      this.state.page = 0;
    }
    let list = this.all;
    const f = this.state.filter.toLowerCase();
    if (f) list = list.filter((b) => this.vars.some((v) => b[v] && (b[v].value.toLowerCase().includes(f) || termText(b[v]).toLowerCase().includes(f))));
    if (this.state.sortVar) {
      const v = this.state.sortVar, d = this.state.sortDir;
      list = list.slice().sort((a, b) => d * compareTerms(a[v], b[v]));
    }
    return list;
  }
  draw() {
    const list = this.rows();
    const st = this.state;
    const pages = Math.max(1, Math.ceil(list.length / st.size));
    st.page = Math.min(st.page, pages - 1);
    const from = st.page * st.size, shown = list.slice(from, from + st.size);
    const head = el("tr", {}, el("th", { class: "rownum" }, "#"), ...this.vars.map((v) => {
      const th = el("th", { "data-var": v, title: "sort by ?" + v }, "?" + v);
      if (st.sortVar === v) th.className = st.sortDir > 0 ? "asc" : "desc";
      th.addEventListener("click", () => { st.sortDir = st.sortVar === v ? -st.sortDir : 1; st.sortVar = v; this.draw(); });
      return th;
    }));
    const body = shown.map((b, i) => el("tr", {}, el("td", { class: "rownum" }, String(from + i + 1)), ...this.vars.map((v) => cell(b[v]))));
    const filter = el("input", { type: "search", class: "perfkb-filter", placeholder: "filter rows", value: st.filter });
    filter.addEventListener("input", () => { st.filter = filter.value; st.page = 0; this.draw(); const f = this.yasr.resultsEl.querySelector(".perfkb-filter"); f.focus(); f.setSelectionRange(f.value.length, f.value.length); });
    const size = el("select", { class: "perfkb-size" }, ...[10, 50, 100, 500, 1000].map((n) => el("option", { value: String(n) }, String(n))));
    size.value = String(st.size);
    size.addEventListener("change", () => { st.size = Number(size.value); st.page = 0; this.draw(); });
    const go = (p) => () => { st.page = Math.max(0, Math.min(pages - 1, p)); this.draw(); };
    const pager = el("div", { class: "perfkb-pager" },
      el("button", { type: "button", class: "first", onclick: go(0) }, "«"), el("button", { type: "button", class: "prev", onclick: go(st.page - 1) }, "◀"),
      el("span", { class: "perfkb-page-info" }, `rows ${list.length ? from + 1 : 0}–${from + shown.length} of ${list.length.toLocaleString("en")}` + (list.length !== this.all.length ? ` (filtered from ${this.all.length.toLocaleString("en")})` : "") + ` · page ${st.page + 1} of ${pages}`),
      el("button", { type: "button", class: "next", onclick: go(st.page + 1) }, "▶"), el("button", { type: "button", class: "last", onclick: go(pages - 1) }, "»"),
      el("label", {}, " rows per page ", size), filter);
    this.yasr.resultsEl.replaceChildren(pager, el("table", { class: "perfkb-results", id: "result-table" }, el("thead", {}, head), el("tbody", {}, ...body)));
    WB.table = this;
  }
}

function compareTerms(a, b) {
  const na = termNumber(a), nb = termNumber(b);
  if (!isNaN(na) && !isNaN(nb)) return na - nb;
  if (!a) return b ? -1 : 0;
  if (!b) return 1;
  return termText(a).localeCompare(termText(b));
}

function cell(t) {
  if (!t) return el("td", {});
  if (t.type === "uri") return el("td", { title: t.value }, el("a", { href: t.value, target: "_blank", rel: "noopener" }, compact(t.value) !== t.value ? compact(t.value) : "<" + t.value + ">"));
  if (t.type === "bnode") return el("td", {}, "_:" + t.value);
  const td = el("td", { title: t.value }, t.value);
  if (t["xml:lang"]) td.append(el("span", { class: "dt" }, "@" + t["xml:lang"]));
  else if (t.datatype) td.append(el("span", { class: "dt" }, "^^" + compact(t.datatype)));
  if (!isNaN(termNumber(t))) td.className = "num";
  return td;
}

// ---------- charts ----------

// Labels for IRIs: perfonto:regionName of the region (or of a region
// summary's region), else rdfs:label.
const labelCache = new Map();
async function fetchLabels(iris) {
  const want = iris.filter((i) => !labelCache.has(i)).slice(0, 200);
  if (want.length) {
    const q = `PREFIX perfonto: <${PERFONTO}>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?x (SAMPLE(?l) AS ?label) WHERE {
  VALUES ?x { ${want.map((i) => "<" + i + ">").join(" ")} }
  { ?x perfonto:regionName ?l } UNION { ?x perfonto:ofCodeRegion/perfonto:regionName ?l } UNION { ?x rdfs:label ?l }
} GROUP BY ?x`;
    try {
      for (const r of await sparql(q)) labelCache.set(r.x.value, r.label.value);
    } catch (_) { /* labels are a nicety */ }
    want.forEach((i) => { if (!labelCache.has(i)) labelCache.set(i, null); });
  }
  return (iri) => labelCache.get(iri) || shortIRI(iri);
}

// The unit of a chart: the metric the query filters on (hasMetricName "x").
function unitOfQuery(q) {
  const m = /hasMetricName\s+"([^"]+)"/.exec(q || "");
  return m ? { metric: m[1], unit: metricUnit(m[1]) } : { metric: "", unit: "" };
}

function setupChart() {
  const last = WB.last;
  const box = $("chart");
  if (!last || last.rows.length === 0) { $("chart-bar").hidden = true; box.replaceChildren(); return; }
  const numeric = last.vars.filter((v) => last.rows.some((r) => r[v]) && last.rows.every((r) => !r[v] || !isNaN(termNumber(r[v]))));
  if (numeric.length === 0) { $("chart-bar").hidden = true; box.replaceChildren(); return; }
  $("chart-bar").hidden = false;
  const opt = (v) => el("option", { value: v }, "?" + v);
  $("chart-column").replaceChildren(...numeric.map(opt));
  $("label-column").replaceChildren(...last.vars.map(opt));
  $("series-column").replaceChildren(el("option", { value: "" }, "(none)"), ...last.vars.map(opt));
  // Chart the metric the query is about when a column carries its name.
  const { metric } = unitOfQuery(last.query);
  $("chart-column").value = numeric.includes(metric) ? metric : numeric[0];
  const firstLabel = last.vars.find((v) => !numeric.includes(v));
  $("label-column").value = firstLabel || numeric[0];
  // A result over a scaling factor (?processes, ?threads, …) beside the
  // value is a series: one line per label, the factor on x.
  const factor = numeric.find((v) => v !== $("chart-column").value && /^(processes|procs|threads|p|n|nodes|size|problemsize)$/i.test(v));
  $("chart-kind").value = factor ? "line" : "bar";
  $("series-column").value = "";
  if (factor) {
    $("label-column").value = factor;
    if (firstLabel) $("series-column").value = firstLabel;
  }
  drawQueryChart();
}

// chartGen numbers the chart draws: each control change starts a new one,
// and a draw still waiting for its labels when a newer one has started
// gives up, so that it cannot paint over the newer chart.
let chartGen = 0;

async function drawQueryChart() {
  const gen = ++chartGen;
  const last = WB.last;
  const col = $("chart-column").value, label = $("label-column").value, series = $("series-column").value;
  const kind = $("chart-kind").value;
  const rows = last.rows.filter((r) => !isNaN(termNumber(r[col])));
  const iris = rows.map((r) => r[label]).filter((t) => t && t.type === "uri").map((t) => t.value);
  const name = await fetchLabels(Array.from(new Set(iris)));
  if (gen !== chartGen) return;
  // The metric's unit belongs to the column holding its values (?wtime,
  // ?value, ?time), not to counts such as ?summaries.
  const q = unitOfQuery(last.query);
  const carries = q.metric && (col === q.metric || /^(value|v|time|max|min|avg|mean|sum)$/i.test(col));
  const metric = carries ? q.metric : "", unit = carries ? q.unit : "";
  // Names repeat across sites (every site has a "main"): a repeated name
  // gets its site (or short IRI) so that the bars can be told apart.
  const named = rows.map((r) => (r[label] && r[label].type === "uri" ? name(r[label].value) : null));
  const seen = new Map();
  named.forEach((n) => { if (n != null) seen.set(n, (seen.get(n) || 0) + 1); });
  const labelOf = (r, i) => {
    if (!r[label]) return "";
    if (named[i] == null) return r[label].value;
    return seen.get(named[i]) > 1 ? `${named[i]} · ${siteOf(r[label].value) || shortIRI(r[label].value)}` : named[i];
  };
  const points = rows.map((r, i) => ({
    label: labelOf(r, i),
    x: termNumber(r[label]),
    y: termNumber(r[col]),
    series: series && r[series] ? (r[series].type === "uri" ? name(r[series].value) : r[series].value) : "",
  }));
  drawChart($("chart"), { kind, points, log: $("chart-log").checked, yTitle: "?" + col + (metric ? ` (${metric}${unit ? ", " + unit : ""})` : ""), xTitle: "?" + label, unit, name: "query-chart" });
}

// drawChart (views.js) draws the query chart and the scaling chart with uPlot.

// ---------- examples ----------

async function loadExamples() {
  WB.examples = await (await fetch("/static/examples.json")).json();
  const sel = $("examples");
  WB.examples.forEach((ex, i) => sel.append(el("option", { value: String(i) }, ex.name)));
  sel.addEventListener("change", () => {
    if (sel.value === "") return;
    openExample(Number(sel.value));
    sel.value = ""; // no stale label: the tab carries the example's name
  });
}

function openExample(i) {
  const ex = WB.examples[i];
  // The new tab takes this page's endpoint and settings (getDefaults(yasgui)).
  const id = yasgui.addTab(true, Object.assign(Yasgui.Tab.getDefaults(yasgui), { name: ex.name.slice(0, 40) }));
  const t = (typeof id === "string" && yasgui.getTab(id)) || yasgui.getTab();
  wireTab(t);
  t.getYasqe().setValue(ex.query);
  return t;
}
WB.openExample = openExample;

// ---------- call tree ----------

// loadExperiments loads the experiment lists once: views that open at the
// same time share one request, so that a late second answer cannot refill
// the drop-downs over a choice made in between.
let experimentsLoading = null;
function loadExperiments() {
  if (WB.experiments) return Promise.resolve(WB.experiments);
  if (!experimentsLoading) experimentsLoading = fetchExperiments().finally(() => { experimentsLoading = null; });
  return experimentsLoading;
}

// naturalCompare orders names with their numbers by value: exp/2 before exp/10.
const naturalCompare = (WB.naturalCompare = new Intl.Collator("en", { numeric: true }).compare);

async function fetchExperiments() {
  const rows = await sparql(`PREFIX perfonto: <${PERFONTO}>
SELECT ?exp ?version ?processes ?site WHERE {
  ?rs perfonto:inExperiment ?exp . FILTER NOT EXISTS { ?p perfonto:hasChildRS ?rs }
  OPTIONAL { ?exp perfonto:ofVersion ?version } OPTIONAL { ?exp perfonto:numberOfProcesses ?processes } OPTIONAL { ?exp perfonto:atSite ?site }
} GROUP BY ?exp ?version ?processes ?site ORDER BY ?exp`);
  const seen = new Set();
  WB.experiments = rows.filter((r) => !seen.has(r.exp.value) && seen.add(r.exp.value)).map((r) => ({
    iri: r.exp.value, version: r.version && r.version.value, processes: r.processes ? Number(r.processes.value) : NaN, site: r.site && r.site.value,
  })).sort((a, b) => naturalCompare(a.iri, b.iri));
  const fill = (sel) => sel.replaceChildren(...WB.experiments.map((e) => el("option", { value: e.iri }, shortIRI(e.iri) + (isNaN(e.processes) ? "" : ` (${e.processes} procs)`))));
  ["tree-exp", "cmp-a", "cmp-b"].forEach((id) => fill($(id)));
  if (WB.experiments.length > 1) $("cmp-b").value = WB.experiments[1].iri;
  const versions = Array.from(new Set(WB.experiments.map((e) => e.version).filter(Boolean))).sort(naturalCompare);
  $("scal-version").replaceChildren(...versions.map((v) => el("option", { value: v }, shortIRI(v))));
  // The scaling view opens on the version with the most process counts
  // (the first in name order has a single run or two at one count).
  const counts = new Map();
  WB.experiments.forEach((e) => { if (e.version && !isNaN(e.processes)) { if (!counts.has(e.version)) counts.set(e.version, new Set()); counts.get(e.version).add(e.processes); } });
  const best = versions.reduce((a, v) => ((counts.get(v) || new Set()).size > (counts.get(a) || new Set()).size ? v : a), versions[0]);
  if (best) $("scal-version").value = best;
  return WB.experiments;
}

// treeURL is the request for one experiment's call tree, computed by the
// server (package analysis, the same tree perfkb tree prints).
function treeURL(exp, pu, agg) {
  const q = new URLSearchParams({ experiment: exp, agg: agg || "mean" });
  if (pu) q.set("pu", pu);
  return "/analysis/tree?" + q.toString();
}
WB.treeURL = treeURL;

// fetchTree asks GET /analysis/tree for the tree.
async function fetchTree(exp, pu, agg) {
  const resp = await fetch(treeURL(exp, pu, agg), { headers: authHeaders() });
  if (!resp.ok) throw new Error(await apiError(resp));
  return (await resp.json()).data;
}

// treeGen numbers the call-tree loads: opening the tab loads the first
// experiment, picking another one right away starts a second load, and
// the first must not finish over it.
let treeGen = 0;

async function showTree() {
  const gen = ++treeGen;
  await loadExperiments();
  if (gen !== treeGen) return;
  const exp = $("tree-exp").value;
  if (!exp) { setStatus("tree-status", "no experiments in the store"); return; }
  setStatus("tree-status", "loading…");
  try {
    const newExp = WB.treeFor !== exp;
    // A PU of another experiment means nothing here: ask for all.
    const tree = await fetchTree(exp, newExp ? "" : $("tree-pu").value, $("tree-agg").value);
    if (gen !== treeGen) return;
    if (newExp) {
      // The tree and the findings of one experiment are set together,
      // after both answers, so that the view never pairs one experiment's
      // tree with another's (or no) findings.
      const findings = await findingsBySubject(exp);
      if (gen !== treeGen) return;
      WB.treeFindings = findings;
      WB.treeFor = exp;
      const puSel = $("tree-pu");
      puSel.replaceChildren(el("option", { value: "" }, "all, aggregated"), ...tree.pus.map((p) => el("option", { value: p }, shortIRI(p))));
      const mSel = $("tree-metric"), keepM = mSel.value || "wtime";
      mSel.replaceChildren(...tree.metricNames.map((m) => el("option", { value: m }, m)));
      mSel.value = tree.metricNames.includes(keepM) ? keepM : tree.metricNames[0] || "";
    }
    WB.tree = tree;
    renderTree(tree);
    setStatus("tree-status", `${tree.nodes} call-tree nodes from ${tree.regionSummaries} region summaries`);
  } catch (err) {
    setStatus("tree-status", String(err.message || err), true);
  }
}

// findingsBySubject maps each region summary of exp (and each code region
// that an analysis finding on a perfonto:RegionAggregate names) to the
// classes of its findings, the most specific only: a HighIdentifiedOverhead
// is not listed again as its superclass PerformanceProblem.
async function findingsBySubject(exp) {
  const rows = await sparql(`PREFIX perfonto: <${PERFONTO}>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
SELECT ?rs ?cr ?class WHERE {
  ?rs perfonto:inExperiment <${exp}> ; perfonto:hasProblem ?f . ?f a ?class .
  FILTER NOT EXISTS { ?f a ?sub . ?sub rdfs:subClassOf ?class . FILTER(?sub != ?class) }
  OPTIONAL { ?rs a perfonto:RegionAggregate ; perfonto:ofCodeRegion ?cr }
}`).catch(() => []);
  const m = new Map();
  const add = (k, c) => { if (!m.has(k)) m.set(k, new Set()); m.get(k).add(c); };
  rows.forEach((r) => {
    const c = compact(r.class.value).replace(/^perfonto:/, "");
    add(r.rs.value, c);
    if (r.cr) add("cr:" + r.cr.value, c);
  });
  return m;
}

// treeValue is a node's value of metric ("exclusive": the exclusive time),
// NaN when the node has none.
function treeValue(n, metric) {
  const v = metric === "exclusive" ? n.exclusive : n.metrics[metric];
  if (v == null) return NaN;
  // Inclusive minus the children's inclusive leaves rounding noise
  // (-3.6e-12 µs) where a node has no time of its own: that is 0.
  if (metric === "exclusive" && Math.abs(v) <= 1e-9 * Math.abs(n.metrics.wtime || 0)) return 0;
  return v;
}

function renderTree(tree) {
  const metric = $("tree-metric").value, sortBy = $("tree-sort").value;
  $("tree-metric-head").textContent = metric;
  const unit = metricUnit("wtime"), munit = metricUnit(metric);
  const key = { incl: (n) => -treeValue(n, "wtime"), excl: (n) => -treeValue(n, "exclusive"), calls: (n) => -treeValue(n, "ncalls"), name: (n) => n.name };
  const cmp = (a, b) => { const ka = key[sortBy](a), kb = key[sortBy](b); return ka < kb ? -1 : ka > kb ? 1 : 0; };
  const body = [];
  const collapsed = WB.collapsed || (WB.collapsed = new Set());
  // % of total is a node's inclusive time over the roots' together; the hot
  // path runs from the largest root through the largest child at each level
  // (whatever the sort), as ParaProf and Hatchet mark it.
  const incl = (n) => { const v = treeValue(n, "wtime"); return Number.isFinite(v) ? v : 0; };
  const total = tree.roots.reduce((s, r) => s + incl(r), 0);
  const hot = new Set();
  for (let level = tree.roots; level.length;) {
    const top = level.reduce((a, b) => (incl(b) > incl(a) ? b : a));
    hot.add(top.path);
    level = top.children;
  }
  const walk = (n, depth) => {
    const open = !collapsed.has(n.path);
    const findings = new Set();
    n.regionSummaries.forEach((rs) => ((WB.treeFindings && WB.treeFindings.get(rs)) || []).forEach((c) => findings.add(c)));
    ((WB.treeFindings && WB.treeFindings.get("cr:" + n.region)) || []).forEach((c) => findings.add(c));
    const toggle = n.children.length ? el("button", { type: "button", class: "toggle", onclick: () => { open ? collapsed.add(n.path) : collapsed.delete(n.path); renderTree(tree); } }, open ? "▾" : "▸") : el("span", { class: "toggle-space" });
    const pct = total > 0 && Number.isFinite(treeValue(n, "wtime")) ? (100 * treeValue(n, "wtime")) / total : NaN;
    const heat = Number.isFinite(pct) ? `background: rgba(214, 69, 65, ${(Math.max(0, Math.min(pct, 100)) / 100 * 0.55).toFixed(3)})` : "";
    body.push(el("tr", { "data-key": n.path, "data-depth": String(depth), "data-incl": String(treeValue(n, "wtime")), "data-pct": Number.isFinite(pct) ? pct.toFixed(1) : "", class: hot.has(n.path) ? "hot" : "" },
      el("td", { style: `padding-left:${0.4 + depth * 1.2}em`, title: n.region + (hot.has(n.path) ? " (hot path)" : "") }, toggle, " ", n.name),
      el("td", { class: "num" }, fmt(treeValue(n, "wtime"), unit)),
      el("td", { class: "num pct", style: heat }, Number.isFinite(pct) ? pct.toFixed(1) + " %" : ""),
      el("td", { class: "num" }, fmt(treeValue(n, "exclusive"), unit)),
      el("td", { class: "num" }, fmt(treeValue(n, "ncalls"))),
      el("td", { class: "num" }, fmt(treeValue(n, metric), munit)),
      el("td", { class: findings.size ? "finding" : "" }, Array.from(findings).join(", "))));
    if (open) n.children.slice().sort(cmp).forEach((c) => walk(c, depth + 1));
  };
  tree.roots.slice().sort(cmp).forEach((r) => walk(r, 0));
  $("tree").tBodies[0].replaceChildren(...body);
  if (WB.flameFor !== tree) { WB.flameFor = tree; drawFlame(tree); }
}

// ---------- comparison ----------

// compareQuery sums a metric per code region name over the PUs of one experiment.
function compareQuery(exp, metric) {
  return `PREFIX perfonto: <${PERFONTO}>
SELECT ?name (SUM(?v) AS ?value) WHERE {
  ?rs perfonto:inExperiment <${exp}> ; perfonto:inProcessingUnit ?pu ; perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m .
  ?cr perfonto:regionName ?name .
  ?m perfonto:hasMetricName "${metric.replace(/"/g, "")}" ; perfonto:hasMetricValue ?v .
} GROUP BY ?name`;
}
WB.compareQuery = compareQuery;

// compareRows asks the analysis service (GET /analysis/diff: call paths,
// computed by the analysis package) and falls back to the SPARQL above
// when the server has no analysis service; the view is the same.
async function compareRows(a, b, metric) {
  try {
    const resp = await fetch(`/analysis/diff?base=${encodeURIComponent(a)}&trial=${encodeURIComponent(b)}`, { headers: authHeaders() });
    if (resp.ok) {
      const d = (await resp.json()).data;
      if (d && Array.isArray(d.rows)) {
        const rows = d.rows.filter((r) => r.metric === metric).map((r) => ({
          n: r.region, a: r.onlyIn === "trial" ? undefined : r.base, b: r.onlyIn === "base" ? undefined : r.trial,
        }));
        return { rows, source: "the analysis service (/analysis/diff, by call path)" };
      }
    }
  } catch (_) { /* fall back to SPARQL */ }
  const [ra, rb] = await Promise.all([sparql(compareQuery(a, metric)), sparql(compareQuery(b, metric))]);
  const va = new Map(ra.map((r) => [r.name.value, Number(r.value.value)]));
  const vb = new Map(rb.map((r) => [r.name.value, Number(r.value.value)]));
  const names = Array.from(new Set([...va.keys(), ...vb.keys()]));
  return { rows: names.map((n) => ({ n, a: va.get(n), b: vb.get(n) })), source: "SPARQL (sum over the PUs per region name)" };
}

async function runCompare() {
  await loadExperiments();
  const a = $("cmp-a").value, b = $("cmp-b").value, metric = $("cmp-metric").value || "wtime";
  setStatus("cmp-status", "comparing…");
  try {
    const { rows, source } = await compareRows(a, b, metric);
    const unit = metricUnit(metric);
    rows.sort((x, y) => Math.abs((y.b ?? 0) - (y.a ?? 0)) - Math.abs((x.b ?? 0) - (x.a ?? 0)));
    $("compare").tBodies[0].replaceChildren(...rows.map(({ n, a, b }) => {
      const only = a == null ? "only in new run" : b == null ? "only in baseline" : "";
      const diff = a != null && b != null ? b - a : NaN;
      return el("tr", { "data-region": n, "data-diff": String(diff), class: only ? "one-side" : diff > 0 ? "worse" : "better" },
        el("td", {}, n), el("td", { class: "num" }, a == null ? "—" : fmt(a, unit)), el("td", { class: "num" }, b == null ? "—" : fmt(b, unit)),
        el("td", { class: "num" }, only || (diff > 0 ? "+" : "") + fmt(diff, unit)), el("td", { class: "num" }, a && b != null ? (b / a).toFixed(3) + "×" : ""));
    }));
    WB.compareSource = source;
    setStatus("cmp-status", `${rows.length} regions (${rows.filter((r) => r.a == null || r.b == null).length} on one side only), from ${source}`);
  } catch (err) {
    setStatus("cmp-status", String(err.message || err), true);
  }
}

// ---------- scaling ----------

function scalingQuery(version) {
  return `PREFIX perfonto: <${PERFONTO}>
SELECT ?exp ?processes ?size (MAX(?v) AS ?time) WHERE {
  ?exp perfonto:ofVersion <${version}> ; perfonto:numberOfProcesses ?processes .
  OPTIONAL { ?exp perfonto:problemSize ?size }
  ?rs perfonto:inExperiment ?exp ; perfonto:hasMetric ?m .
  FILTER NOT EXISTS { ?p perfonto:hasChildRS ?rs }
  ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v .
} GROUP BY ?exp ?processes ?size ORDER BY ?size ?processes`;
}
WB.scalingQuery = scalingQuery;

// scalingRows asks the analysis service (GET /analysis/scaling: the
// whole-program rows of every version, asked once per page and picked per
// version here) and falls back to SPARQL (the longest call-tree root per run).
let scalingTable = null;
async function scalingRows(version) {
  try {
    if (!scalingTable) {
      scalingTable = fetch("/analysis/scaling", { headers: authHeaders() }).then(async (resp) => {
        if (!resp.ok) return null;
        const tables = (await resp.json()).data;
        return (Array.isArray(tables) && tables.find((t) => t.name === "scaling")) || null;
      });
      scalingTable.catch(() => { scalingTable = null; });
    }
    const table = await scalingTable;
    if (table) {
      const col = (name) => table.columns.indexOf(name);
      const rows = table.rows.filter((r) => r[col("region")] === "(program)" && r[col("version")] === version && r[col("time_us")] !== "").map((r) => ({
        exp: r[col("experiment")], p: Number(r[col("processes")]), t: Number(r[col("time_us")]), size: r[col("problem_size")] || "",
        speedup: Number(r[col("speedup")]), eff: Number(r[col("efficiency")]),
      }));
      if (rows.length) return { rows, source: "the analysis service (/analysis/scaling)" };
    }
  } catch (_) { /* fall back to SPARQL */ }
  const rows = (await sparql(scalingQuery(version))).map((r) => ({ exp: r.exp.value, p: Number(r.processes.value), t: Number(r.time.value), size: r.size ? r.size.value : "" }));
  return { rows, source: "SPARQL (longest call-tree root per run)" };
}

// scalingGen numbers the scaling draws (as chartGen does the query chart's).
let scalingGen = 0;

async function showScaling() {
  const gen = ++scalingGen;
  await loadExperiments();
  if (gen !== scalingGen) return;
  const version = $("scal-version").value;
  if (!version) { setStatus("scal-status", "no versions with experiments"); return; }
  setStatus("scal-status", "loading…");
  try {
    // Time, speedup, efficiency and the log axis redraw one version's
    // rows: only another version asks the server again.
    if (!WB.scalingRows || WB.scalingRows.version !== version) {
      const got = await scalingRows(version);
      if (gen !== scalingGen) return;
      WB.scalingRows = { version, rows: got.rows, source: got.source };
    }
    const rows = WB.scalingRows.rows.map((r) => Object.assign({}, r)), source = WB.scalingRows.source;
    // One series per problem size (runs of different sizes do not scale
    // against each other); per process count the fastest run; speedup and
    // efficiency against the smallest count of the same size.
    const best = new Map();
    rows.forEach((r) => { const k = r.size + "|" + r.p; if (!best.has(k) || r.t < best.get(k).t) best.set(k, r); });
    const pts = Array.from(best.values()).sort((a, b) => a.size.localeCompare(b.size) || a.p - b.p);
    const baseOf = new Map();
    pts.forEach((r) => { if (!baseOf.has(r.size)) baseOf.set(r.size, r); });
    // The analysis service's own speedup/efficiency when it gave them.
    pts.forEach((r) => { const base = baseOf.get(r.size); if (r.speedup == null) { r.speedup = base.t / r.t; r.eff = (r.speedup * base.p) / r.p; } });
    WB.scaling = pts;
    const kind = $("scal-kind").value, unit = metricUnit("wtime");
    const y = { time: (r) => r.t, speedup: (r) => r.speedup, efficiency: (r) => r.eff }[kind];
    // The ideal line per problem size: time t₁·p₁/p, speedup p/p₁,
    // efficiency 1, from the size's smallest process count.
    const idealOf = (r) => { const b = baseOf.get(r.size); return { time: (b.t * b.p) / r.p, speedup: r.p / b.p, efficiency: 1 }[kind]; };
    const seriesOf = (r) => (r.size ? "size " + r.size : shortIRI(version));
    drawChart($("scaling-chart"), { kind: "line", points: pts.map((r) => ({ x: r.p, y: y(r), label: String(r.p), series: seriesOf(r), ideal: idealOf(r) })), log: $("scal-log").checked, logX: true,
      yTitle: kind === "time" ? "wall-clock time of the run (wtime)" : kind, xTitle: "processes", unit: kind === "time" ? unit : "", name: "scaling-" + kind });
    $("scaling").tBodies[0].replaceChildren(...rows.sort((a, b) => a.size.localeCompare(b.size) || a.p - b.p).map((r) => {
      const b = best.get(r.size + "|" + r.p) === r;
      return el("tr", { class: b ? "" : "hint" }, el("td", { title: r.exp }, shortIRI(r.exp) + (r.size ? ` (size ${r.size})` : "")), el("td", { class: "num" }, String(r.p)), el("td", { class: "num" }, fmt(r.t, unit)),
        el("td", { class: "num" }, b ? r.speedup.toFixed(2) : ""), el("td", { class: "num" }, b ? r.eff.toFixed(2) : ""));
    }));
    WB.scalingSource = source;
    const sizes = baseOf.size;
    setStatus("scal-status", `${rows.length} experiments, ${sizes} problem size${sizes === 1 ? "" : "s"}, ${pts.length} (size, processes) points, from ${source}` + (pts.length === sizes ? " — one process count per size: no speedup to show" : ""));
  } catch (err) {
    setStatus("scal-status", String(err.message || err), true);
  }
}

// ---------- findings ----------

const F = { all: [], page: 0, size: 50, advice: {}, ruleRuns: 0 };

async function loadFindings() {
  // A rule run started while this loads owns the status line (its
  // "needs the write token" must not be painted over by the list).
  const runs = F.ruleRuns;
  setStatus("findings-status", "loading…");
  const sitesReady = loadExperimentTable().catch(() => []); // the sites of the filter
  const resp = await fetch("/findings?limit=0", { headers: authHeaders() });
  if (!resp.ok) { setStatus("findings-status", await apiError(resp), true); return; }
  F.all = (await resp.json()).data || [];
  // Advice per problem class IRI, written beside the rules (#@advice
  // comments in the rule files: shipped, serve --advice, uploaded).
  try {
    const list = (await (await fetch("/rules/advice", { headers: authHeaders() })).json()).data.advice;
    F.advice = Object.fromEntries(list.map((a) => [a.class, a]));
  } catch (_) { F.advice = {}; }
  const classes = Array.from(new Set(F.all.map((f) => localName(f.problem)))).sort();
  $("f-class").replaceChildren(el("option", { value: "" }, "all"), ...classes.map((c) => el("option", { value: c }, c)));
  F.page = 0;
  renderFindings(runs !== F.ruleRuns);
  // The sites (of the experiment table) fill the site filter and the
  // region cells' "· site" when they arrive; the list does not wait.
  await sitesReady;
  const sites = Array.from(new Set(F.all.map((f) => siteOfExperiment(f.experiment)).filter(Boolean))).sort(naturalCompare);
  const picked = $("f-site").value;
  $("f-site").replaceChildren(el("option", { value: "" }, "all"), ...sites.map((s) => el("option", { value: s }, s)));
  if (sites.includes(picked)) $("f-site").value = picked;
  renderFindings(true);
}

function localName(iri) { return (iri || "").replace(/^.*[#/]/, ""); }
function siteOf(iri) { const m = /\/site\/([^/]+)/.exec(iri || ""); return m ? m[1] : ""; }

function filteredFindings() {
  const cls = $("f-class").value, sev = Number($("f-sev").value) || 0, exp = $("f-exp").value.trim(), site = $("f-site").value, sort = $("f-sort").value;
  const list = F.all.filter((f) => (!cls || localName(f.problem) === cls) && (f.severity || 0) >= sev && (!exp || (f.experiment || "").includes(exp)) && (!site || siteOfExperiment(f.experiment) === site));
  const by = { severity: (a, b) => (b.severity || 0) - (a.severity || 0), class: (a, b) => localName(a.problem).localeCompare(localName(b.problem)), experiment: (a, b) => (a.experiment || "").localeCompare(b.experiment || "") };
  return list.sort((a, b) => by[sort](a, b) || (b.severity || 0) - (a.severity || 0));
}

function renderFindings(keepStatus) {
  const list = filteredFindings();
  const pages = Math.max(1, Math.ceil(list.length / F.size));
  F.page = Math.min(F.page, pages - 1);
  const shown = list.slice(F.page * F.size, (F.page + 1) * F.size);
  if (keepStatus !== true) setStatus("findings-status", `${list.length} of ${F.all.length} findings`);
  $("f-page").textContent = `page ${F.page + 1} of ${pages} (rows ${list.length ? F.page * F.size + 1 : 0}–${F.page * F.size + shown.length})`;
  // Per-run summary: counts per class, worst first, grouped by experiment.
  const byExp = new Map();
  list.forEach((f) => { const e = f.experiment || "(no experiment)"; if (!byExp.has(e)) byExp.set(e, []); byExp.get(e).push(f); });
  const runs = Array.from(byExp.entries()).map(([e, fs]) => ({ e, fs, worst: Math.max(...fs.map((f) => f.severity || 0)) })).sort((a, b) => b.worst - a.worst || b.fs.length - a.fs.length);
  $("findings-summary").replaceChildren(el("details", {}, el("summary", {}, `${runs.length} experiments with findings (worst first)`),
    el("table", { id: "run-summary" }, el("thead", {}, el("tr", {}, el("th", {}, "experiment"), el("th", {}, "findings"), el("th", {}, "worst"), el("th", {}, "per class"))),
      el("tbody", {}, ...runs.map((r) => {
        const counts = new Map();
        r.fs.forEach((f) => counts.set(localName(f.problem), (counts.get(localName(f.problem)) || 0) + 1));
        return el("tr", { onclick: () => { $("f-exp").value = r.e; F.page = 0; renderFindings(); } }, el("td", { title: r.e }, shortIRI(r.e)), el("td", { class: "num" }, String(r.fs.length)), el("td", { class: "num" }, String(r.worst)),
          el("td", {}, Array.from(counts.entries()).sort((a, b) => b[1] - a[1]).map(([c, n]) => `${c} ${n}`).join(", ")));
      })))));
  const head = el("tr", {}, ...["problem", "severity", "region", "experiment", "description"].map((h) => el("th", {}, h)));
  const rows = shown.map((f) => {
    const tr = el("tr", { "data-iri": f.subject },
      el("td", {}, localName(f.problem)),
      el("td", { class: "num" }, f.severity != null ? `${f.severity} ${f.severityClass || ""}` : ""),
      el("td", { title: f.region || f.subject, "data-region": f.region || f.subject, "data-experiment": f.experiment || "", class: "region" }, shortIRI(f.region || f.subject)),
      el("td", { title: f.experiment || "" }, shortIRI(f.experiment || "")),
      el("td", { class: "desc" }, readableNumbers(f.description || "")));
    tr.addEventListener("click", () => {
      document.querySelectorAll("#findings tr.selected").forEach((r) => r.classList.remove("selected"));
      tr.classList.add("selected");
      explain(f);
    });
    return tr;
  });
  $("findings").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
  // Region names instead of IRIs, with the site, once the labels of this
  // page are known (cells of a page no longer shown are simply detached).
  const cells = Array.from(document.querySelectorAll("#findings td.region"));
  fetchLabels(Array.from(new Set(cells.map((td) => td.dataset.region)))).then(() => cells.forEach((td) => {
    const name = labelCache.get(td.dataset.region), site = siteOfExperiment(td.dataset.experiment);
    if (name) td.textContent = site ? `${name} · ${site}` : name;
  }));
}

// readableNumbers rewrites 8.3336E7 us into 83.34 s in rule descriptions.
function readableNumbers(s) {
  return s.replace(/(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)( us\b)?/g, (all, num, us) => {
    const v = Number(num);
    if (isNaN(v)) return all;
    if (us) return fmt(v, "microsecond");
    return /[eE.]/.test(num) && num.length > 8 ? fmt(v) : all;
  });
}

const HELPER = /urn:x-perfkb:rules#/;

function derivationItem(d) {
  const li = el("li", {});
  const head = el("div", {}, el("code", { title: d.triple }, readableTriple(d.triple)));
  if (d.rule) head.append(" ", el("span", { class: "rule" }, "← " + d.rule));
  if (d.asserted) head.append(" ", el("span", { class: "asserted" }, "(asserted)"));
  if (d.note) head.append(" ", el("span", { class: "hint" }, d.note));
  li.append(head);
  const premises = d.premises || [];
  const visible = premises.filter((p) => !HELPER.test(p.triple));
  const hidden = premises.length - visible.length;
  if (visible.length) li.append(el("ul", {}, ...visible.map(derivationItem)));
  if (hidden) li.append(el("details", { class: "helpers" }, el("summary", {}, `${hidden} internal helper triple${hidden === 1 ? "" : "s"} folded`), el("ul", {}, ...premises.filter((p) => HELPER.test(p.triple)).map(derivationItem))));
  return li;
}

// readableTriple shows names instead of IRIs.
function readableTriple(nt) {
  return nt.replace(/<([^<>]*)>/g, (all, iri) => (labelCache.get(iri) ? `${labelCache.get(iri)}` : compact(iri) !== iri ? compact(iri) : shortIRI(iri)))
    .replace(/"([^"]*)"\^\^<?[^ ]*#(double|decimal)>?/g, (all, v) => fmt(Number(v)));
}

// ruleSource finds a named rule ([name: … ]) in the shipped rule sets.
let ruleTexts = null;
async function ruleSource(name) {
  if (!name) return "";
  if (!ruleTexts) {
    ruleTexts = [];
    try {
      const sets = await (await fetch("/static/rules/index.json")).json();
      for (const set of sets) {
        const resp = await fetch("/static/rules/" + encodeURIComponent(set));
        if (resp.ok) ruleTexts.push(await resp.text());
      }
    } catch (_) { /* no rule text then */ }
  }
  for (const text of ruleTexts) {
    const i = text.indexOf("[" + name + ":");
    if (i < 0) continue;
    let depth = 0;
    for (let j = i; j < text.length; j++) {
      if (text[j] === "[") depth++;
      else if (text[j] === "]" && --depth === 0) return text.slice(i, j + 1);
    }
  }
  return "";
}

// explainGen numbers the explanations asked for: one still loading when
// another finding is clicked must not paint over the newer one.
let explainGen = 0;

async function explain(f) {
  const gen = ++explainGen;
  const box = $("explanation");
  box.replaceChildren(el("p", { class: "hint" }, "explaining…"));
  const resp = await fetch("/explain?iri=" + encodeURIComponent(f.subject), { headers: authHeaders() });
  if (gen !== explainGen) return;
  if (resp.status === 404 && f.problem) {
    // No rule derived anything about the subject: the finding was written
    // as it stands (by perfkb analyze: PoorScalability on a region
    // aggregate, the models' findings). Show what it says and who wrote it.
    await fetchLabels([f.subject, f.region].filter(Boolean));
    if (gen !== explainGen) return;
    const cls = localName(f.problem), advice = F.advice[f.problem];
    const where = (f.region && labelCache.get(f.region)) || labelCache.get(f.subject) || shortIRI(f.region || f.subject);
    box.replaceChildren(
      el("h3", { title: f.subject }, `${cls} at ${where}`),
      el("p", { class: "summary" }, `The analysis (perfkb analyze) found ${cls} here` + (f.severity != null ? ` with severity ${f.severity} (${f.severityClass || ""})` : "") +
        (f.metric ? ` because of ${f.metric} = ${fmt(Number(f.value), metricUnit(f.metric))}` : "") + "; it is asserted, so no rule derivation explains it."),
      el("p", { class: "desc" }, readableNumbers(f.description || "")),
      advice ? el("div", { class: "advice", title: `${advice.file}:${advice.line}` }, el("strong", {}, "What to try: "), advice.text) : el("span"));
    return;
  }
  if (!resp.ok) { box.replaceChildren(el("p", { class: "error" }, await apiError(resp))); return; }
  const exp = (await resp.json()).data;
  if (gen !== explainGen) return;
  const cls = localName(f.problem);
  // Only this finding: the derivations of its own class (or rule), not
  // every problem of the same region.
  let ders = exp.derivations.filter((d) => (f.rule && d.rule === f.rule) || d.triple.includes(cls));
  if (ders.length === 0) ders = exp.derivations.filter((d) => d.triple.includes("hasProblem"));
  ders = ders.filter((d) => !HELPER.test(d.triple));
  await fetchLabels([f.subject, f.region].filter(Boolean));
  if (gen !== explainGen) return;
  const advice = F.advice[f.problem];
  box.replaceChildren(
    el("h3", { title: f.subject }, `${cls} at ${labelCache.get(f.subject) || shortIRI(f.subject)}`),
    el("p", { class: "summary" }, `The rule ${ders[0] && ders[0].rule ? ders[0].rule : "(asserted)"} flagged this region summary as ${cls}` + (f.severity != null ? ` with severity ${f.severity} (${f.severityClass || ""})` : "") + (f.metric ? ` because of ${f.metric} = ${fmt(Number(f.value), metricUnit(f.metric))}.` : ".")),
    el("p", { class: "desc" }, readableNumbers(f.description || "")),
    advice ? el("div", { class: "advice", title: `${advice.file}:${advice.line}` }, el("strong", {}, "What to try: "), advice.text) : el("span"),
    el("ul", { class: "tree" }, ...ders.map(derivationItem)));
  const rule = ders[0] && ders[0].rule;
  const src = await ruleSource(rule);
  if (src && gen === explainGen) box.insertBefore(el("details", { class: "rule-src-box", open: "" }, el("summary", {}, `rule ${rule}`), el("pre", { class: "rule-src" }, src)), box.querySelector("ul.tree"));
}

async function runRules() {
  F.ruleRuns++;
  setStatus("findings-status", "running rules…");
  const resp = await fetch("/rules/run", { method: "POST", headers: authHeaders() });
  if (!resp.ok) { setStatus("findings-status", await apiError(resp), true); return; }
  const r = (await resp.json()).data;
  setStatus("findings-status", `${r.summary.rules} rules derived ${r.summary.derived} triples (${r.summary.findings} findings) in ${r.timing.seconds.toFixed(2)} s`);
  loadFindings();
}

// ---------- sites ----------

async function loadSites() {
  const resp = await fetch("/sites", { headers: authHeaders() });
  if (!resp.ok) { $("sites").replaceChildren(el("p", { class: "error" }, await apiError(resp))); return; }
  // Only site graphs: not the inferred graph, derivation records or other internal graphs.
  const list = ((await resp.json()).data || []).filter((s) => !/^urn:x-perfkb:/.test(s.graph || "") && !/^urn:x-arq:/.test(s.graph || "") && s.name !== "derivations");
  const head = el("tr", {}, ...["site", "kind", "graph / endpoint", "triples", "freshness", "experiments"].map((h) => el("th", {}, h)));
  const ago = (t) => {
    if (!t) return "";
    const s = (Date.now() - Date.parse(t)) / 1000;
    if (isNaN(s)) return "";
    return s < 90 ? `${Math.round(s)} s ago` : s < 5400 ? `${Math.round(s / 60)} min ago` : s < 172800 ? `${Math.round(s / 3600)} h ago` : `${Math.round(s / 86400)} days ago`;
  };
  const rows = list.map((s) => el("tr", { "data-site": s.name },
    el("td", {}, s.name), el("td", {}, s.kind || "local"), el("td", {}, el("code", {}, s.graph || s.endpoint || "")),
    // A remote site's triples are not counted here (it is asked at query
    // time); the registry knows how many experiments it holds.
    el("td", { class: "num" }, s.kind === "remote" ? "—" : String(s.triples)),
    el("td", { title: s.lastRefreshed || "" }, s.kind === "remote" ? `${s.status || "never refreshed"}${s.lastRefreshed ? ", " + ago(s.lastRefreshed) : ""}` : "live (this store)"),
    el("td", {}, ...(s.experiments || []).map((e) => el("a", { href: "#", title: e, onclick: (ev) => { ev.preventDefault(); openTree(e); } }, shortIRI(e) + " ")),
      s.kind === "remote" && !(s.experiments || []).length ? `${s.experimentCount || 0} experiments (site registry)` : "")));
  $("sites").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
}

async function openTree(exp) {
  showTab("tree");
  await loadExperiments();
  $("tree-exp").value = exp;
  showTree();
}

// ---------- wiring ----------

function showTab(name) {
  document.querySelectorAll(".navtab").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  document.querySelectorAll(".panel").forEach((p) => { p.hidden = p.id !== "tab-" + name; });
  if (name === "sites") loadSites();
  if (name === "findings" && F.all.length === 0) loadFindings();
  if (name === "tree" && !WB.tree) showTree();
  if (name === "compare") loadExperiments().catch((e) => setStatus("cmp-status", String(e.message || e), true));
  if (name === "scaling") { showScaling(); showRegionCurves(); }
  if (name === "experiments") showExperimentTable();
  if (name === "stats") showStats();
  if (name === "tree" && WB.tree) drawFlame(WB.tree);
}

async function init() {
  try {
    WB.terms = await (await fetch("/static/perfonto-terms.json")).json();
    PREFIXES = Object.assign(PREFIXES, WB.terms.prefixes);
    $("cmp-metric").replaceChildren(...WB.terms.metrics.map((m) => el("option", { value: m.name }, m.name)));
    $("cmp-metric").value = "wtime";
  } catch (_) { /* completion falls back to prefixes only */ }
  registerCompleters();
  Yasgui.Yasr.registerPlugin("perfkbTable", PagedTable);
  delete Yasgui.Yasr.plugins.table;
  const params = new URLSearchParams(location.search);
  yasgui = new Yasgui($("yasgui"), {
    requestConfig: { endpoint: location.origin + "/sparql", method: "POST", headers: () => authHeaders() },
    copyEndpointOnNewTab: true,
    endpointCatalogueOptions: { getData: () => [{ endpoint: location.origin + "/sparql" }], keys: [] },
    persistenceId: "perfkb-workbench",
    populateFromUrl: true,
    yasqe: { value: PREFIX_TEXT() + "\nSELECT * WHERE {\n  ?s ?p ?o\n} LIMIT 10\n" },
    yasr: { prefixes: PREFIXES, defaultPlugin: "perfkbTable", pluginOrder: ["perfkbTable", "response"], maxPersistentResponseSize: 0 },
  });
  WB.yasgui = yasgui;
  yasgui.on("tabChange", (_y, tab) => wireTab(tab));
  yasgui.on("tabSelect", () => setTimeout(() => wireTab(yasgui.getTab()), 0));
  wireTab(yasgui.getTab());
  await loadExamples();
  // A permalink (/?query=…) opens its query and runs it.
  if (params.get("query")) {
    const y = yasgui.getTab().getYasqe();
    if (y.getValue() !== params.get("query")) y.setValue(params.get("query"));
    y.query().catch(() => {});
  }
  $("chart-kind").addEventListener("change", drawQueryChart);
  $("chart-column").addEventListener("change", drawQueryChart);
  $("label-column").addEventListener("change", drawQueryChart);
  $("series-column").addEventListener("change", drawQueryChart);
  $("chart-log").addEventListener("change", drawQueryChart);
  ["tree-exp"].forEach((id) => $(id).addEventListener("change", showTree));
  ["tree-pu", "tree-agg"].forEach((id) => $(id).addEventListener("change", showTree));
  ["tree-metric", "tree-sort"].forEach((id) => $(id).addEventListener("change", () => { if (WB.tree) renderTree(WB.tree); }));
  $("cmp-run").addEventListener("click", runCompare);
  ["scal-version", "scal-kind", "scal-log"].forEach((id) => $(id).addEventListener("change", () => { showScaling(); showRegionCurves(); }));
  ["f-class", "f-sev", "f-exp", "f-site", "f-sort"].forEach((id) => $(id).addEventListener("change", () => { F.page = 0; renderFindings(); }));
  $("f-prev").addEventListener("click", () => { F.page = Math.max(0, F.page - 1); renderFindings(); });
  $("f-next").addEventListener("click", () => { F.page++; renderFindings(); });
  $("run-rules").addEventListener("click", runRules);
  document.querySelectorAll(".navtab").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));
  const saved = sessionStorage.getItem("perfkb-token");
  if (saved) $("token").value = saved;
  $("token").addEventListener("change", () => sessionStorage.setItem("perfkb-token", $("token").value));
  initViews();
  WB.ready = true;
}

init();
