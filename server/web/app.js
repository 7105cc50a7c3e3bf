// perfkb query page: plain JavaScript, no build step.
"use strict";

const PERFONTO = "http://www.par.univie.ac.at/project/scalea/perfonto#";
const PREFIXES = `PREFIX perfonto: <${PERFONTO}>
PREFIX rdf: <http://www.w3.org/1999/02/22-rdf-syntax-ns#>
PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>
PREFIX xsd: <http://www.w3.org/2001/XMLSchema#>
`;

const EXAMPLES = [
  {
    name: "Fig. 6.29: region summaries on node gsr410 with wtime >= 3E8",
    query: PREFIXES + `
# The dissertation's Fig. 6.29 search, in SPARQL.
SELECT ?regionsummary ?value
WHERE {
  ?regionsummary perfonto:inProcessingUnit ?processingunit .
  ?processingunit perfonto:inNode "gsr410" .
  ?regionsummary perfonto:hasMetric ?metric .
  ?metric perfonto:hasMetricName "wtime" .
  ?metric perfonto:hasMetricValue ?value .
  FILTER (?value >= 3E8)
}
ORDER BY DESC(?value)`,
  },
  {
    name: "Fig. 6.29 as printed, in RDQL",
    query: `SELECT ?regionsummary
WHERE
  (?regionsummary perfonto:inProcessingUnit ?processingunit)
  (?processingunit perfonto:inNode "gsr410")
  (?regionsummary perfonto:hasMetric ?metric)
  (?metric perfonto:hasMetricName "wtime")
  (?metric perfonto:hasMetricValue ?value)
AND (?value >= 3E8)
USING perfonto FOR <${PERFONTO}>`,
  },
  {
    name: "Top code regions by wall-clock time",
    query: PREFIXES + `
SELECT ?region ?type (SUM(?value) AS ?wtime) (COUNT(?rs) AS ?summaries)
WHERE {
  ?rs perfonto:ofCodeRegion ?region ;
      perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName "wtime" ;
     perfonto:hasMetricValue ?value .
  OPTIONAL { ?region perfonto:hasCrType ?type }
}
GROUP BY ?region ?type
ORDER BY DESC(?wtime)
LIMIT 20`,
  },
  {
    name: "Findings by problem type",
    query: PREFIXES + `
SELECT ?problem (COUNT(DISTINCT ?subject) AS ?findings)
WHERE {
  ?subject perfonto:hasProblem ?problem .
}
GROUP BY ?problem
ORDER BY DESC(?findings)`,
  },
  {
    name: "Graphs and their sizes",
    query: `SELECT ?graph (COUNT(*) AS ?triples)
WHERE { GRAPH ?graph { ?s ?p ?o } }
GROUP BY ?graph
ORDER BY DESC(?triples)`,
  },
];

const $ = (id) => document.getElementById(id);
const state = { vars: [], rows: [], sortVar: null, sortDir: 1 };

// ---------- helpers ----------

function compact(iri) {
  const prefixes = [
    ["perfonto:", PERFONTO],
    ["rdf:", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"],
    ["rdfs:", "http://www.w3.org/2000/01/rdf-schema#"],
    ["xsd:", "http://www.w3.org/2001/XMLSchema#"],
    ["owl:", "http://www.w3.org/2002/07/owl#"],
  ];
  for (const [p, ns] of prefixes) {
    if (iri.startsWith(ns)) return p + iri.slice(ns.length);
  }
  return iri;
}

// shortIRI drops the scheme and host of an IRI that compact cannot
// abbreviate, for narrow table cells (the full IRI is in the tooltip).
function shortIRI(iri) {
  const c = compact(iri);
  if (c !== iri) return c;
  const m = /^[a-z]+:\/\/[^/]+(\/.*)$/.exec(iri);
  return m ? m[1] : iri;
}

// compactTriple abbreviates the IRIs of an N-Triples statement.
function compactTriple(nt) {
  return nt.replace(/<([^<>]*)>/g, (all, iri) => {
    const c = compact(iri);
    return c !== iri ? c : all;
  });
}

function termText(t) {
  if (!t) return "";
  if (t.type === "uri") return compact(t.value);
  if (t.type === "bnode") return "_:" + t.value;
  return t.value;
}

function termNumber(t) {
  if (!t || t.type !== "literal") return NaN;
  const dt = t.datatype || "";
  if (!/#(integer|decimal|double|float|long|int|short|byte|nonNegativeInteger|positiveInteger|unsignedLong|unsignedInt)$/.test(dt)) return NaN;
  return Number(t.value);
}

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

function authHeaders() {
  const token = $("token").value.trim();
  return token ? { Authorization: "Bearer " + token } : {};
}

async function apiError(resp) {
  let text = await resp.text();
  try {
    const e = JSON.parse(text);
    text = `${resp.status} ${e.errorType}: ${e.error}`;
    if (e.line) text += `\n(line ${e.line}, column ${e.column})`;
  } catch (_) {
    text = `${resp.status}: ${text}`;
  }
  return text;
}

// ---------- query ----------

async function runQuery() {
  const query = $("editor").value;
  const status = $("status");
  $("run").disabled = true;
  status.textContent = "running…";
  status.className = "";
  const started = performance.now();
  try {
    const resp = await fetch("/sparql", {
      method: "POST",
      headers: Object.assign({
        "Content-Type": "application/x-www-form-urlencoded",
        Accept: "application/sparql-results+json, text/turtle;q=0.5",
      }, authHeaders()),
      body: new URLSearchParams({ query }),
    });
    if (!resp.ok) {
      status.textContent = await apiError(resp);
      status.className = "error";
      $("results").replaceChildren();
      $("chart").replaceChildren();
      return;
    }
    const ms = (performance.now() - started).toFixed(0);
    const type = resp.headers.get("Content-Type") || "";
    if (!type.includes("json")) {
      const text = await resp.text();
      $("results").replaceChildren(el("pre", {}, text));
      $("chart").replaceChildren();
      status.textContent = `graph result in ${ms} ms`;
      return;
    }
    const data = await resp.json();
    if ("boolean" in data) {
      state.vars = ["boolean"];
      state.rows = [{ boolean: { type: "literal", value: String(data.boolean) } }];
    } else {
      state.vars = data.head.vars;
      state.rows = data.results.bindings;
    }
    state.sortVar = null;
    status.textContent = `${state.rows.length} row${state.rows.length === 1 ? "" : "s"} in ${ms} ms`;
    renderTable();
    setupChart();
  } catch (err) {
    status.textContent = String(err);
    status.className = "error";
  } finally {
    $("run").disabled = false;
  }
}

function compareTerms(a, b) {
  const na = termNumber(a), nb = termNumber(b);
  if (!isNaN(na) && !isNaN(nb)) return na - nb;
  if (!a) return b ? -1 : 0;
  if (!b) return 1;
  return termText(a).localeCompare(termText(b));
}

function renderTable() {
  const rows = state.rows.slice();
  if (state.sortVar) {
    rows.sort((r1, r2) => state.sortDir * compareTerms(r1[state.sortVar], r2[state.sortVar]));
  }
  const head = el("tr", {}, ...state.vars.map((v) => {
    const th = el("th", { "data-var": v, title: "sort by ?" + v }, "?" + v);
    if (state.sortVar === v) th.className = state.sortDir > 0 ? "asc" : "desc";
    th.addEventListener("click", () => {
      state.sortDir = state.sortVar === v ? -state.sortDir : 1;
      state.sortVar = v;
      renderTable();
    });
    return th;
  }));
  const shown = rows.slice(0, 5000);
  const body = shown.map((r) => el("tr", {}, ...state.vars.map((v) => {
    const t = r[v];
    const td = el("td", {}, termText(t));
    if (!isNaN(termNumber(t))) td.className = "num";
    if (t && t.type === "uri") td.title = t.value;
    return td;
  })));
  const table = el("table", { id: "result-table" }, el("thead", {}, head), el("tbody", {}, ...body));
  const parts = [table];
  if (rows.length > shown.length) parts.push(el("p", { class: "hint" }, `showing the first ${shown.length} of ${rows.length} rows`));
  $("results").replaceChildren(...parts);
  updateDownload();
}

function updateDownload() {
  const esc = (s) => (/[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s);
  const lines = [state.vars.join(",")].concat(state.rows.map((r) => state.vars.map((v) => esc(r[v] ? r[v].value : "")).join(",")));
  const a = $("download");
  a.href = "data:text/csv;charset=utf-8," + encodeURIComponent(lines.join("\r\n"));
  a.hidden = false;
}

// ---------- chart ----------

function setupChart() {
  const numeric = state.vars.filter((v) => state.rows.length > 0 && state.rows.every((r) => !r[v] || !isNaN(termNumber(r[v]))) && state.rows.some((r) => r[v]));
  const chartSel = $("chart-column"), labelSel = $("label-column");
  chartSel.replaceChildren(el("option", { value: "" }, "(none)"), ...numeric.map((v) => el("option", { value: v }, "?" + v)));
  labelSel.replaceChildren(...state.vars.map((v) => el("option", { value: v }, "?" + v)));
  if (numeric.length > 0) chartSel.value = numeric[0];
  const firstLabel = state.vars.find((v) => !numeric.includes(v));
  if (firstLabel) labelSel.value = firstLabel;
  drawChart();
}

function drawChart() {
  const col = $("chart-column").value, label = $("label-column").value;
  const box = $("chart");
  if (!col) { box.replaceChildren(); return; }
  const rows = state.rows.filter((r) => !isNaN(termNumber(r[col]))).slice(0, 40);
  if (rows.length === 0) { box.replaceChildren(); return; }
  const ns = "http://www.w3.org/2000/svg";
  const barH = 18, gap = 4, labelW = 320, width = 900, plotW = width - labelW - 90;
  const maxV = Math.max(...rows.map((r) => Math.abs(termNumber(r[col])))) || 1;
  const svg = document.createElementNS(ns, "svg");
  svg.setAttribute("width", width);
  svg.setAttribute("height", rows.length * (barH + gap) + 10);
  svg.setAttribute("role", "img");
  svg.setAttribute("aria-label", `bar chart of ?${col}`);
  rows.forEach((r, i) => {
    const y = 5 + i * (barH + gap);
    const v = termNumber(r[col]);
    const name = document.createElementNS(ns, "text");
    name.setAttribute("x", labelW - 6);
    name.setAttribute("y", y + barH - 5);
    name.setAttribute("text-anchor", "end");
    let text = termText(r[label]);
    if (text.length > 48) text = "…" + text.slice(-47);
    name.textContent = text;
    const rect = document.createElementNS(ns, "rect");
    rect.setAttribute("x", labelW);
    rect.setAttribute("y", y);
    rect.setAttribute("height", barH);
    rect.setAttribute("width", Math.max(1, (Math.abs(v) / maxV) * plotW));
    const title = document.createElementNS(ns, "title");
    title.textContent = `${termText(r[label])}: ${v}`;
    rect.append(title);
    const value = document.createElementNS(ns, "text");
    value.setAttribute("x", labelW + Math.max(1, (Math.abs(v) / maxV) * plotW) + 4);
    value.setAttribute("y", y + barH - 5);
    value.textContent = v.toPrecision(4);
    svg.append(name, rect, value);
  });
  box.replaceChildren(svg);
}

// ---------- findings ----------

async function loadFindings() {
  const params = new URLSearchParams();
  if ($("problem").value.trim()) params.set("problem", $("problem").value.trim());
  if ($("experiment").value.trim()) params.set("experiment", $("experiment").value.trim());
  params.set("limit", "1000");
  const status = $("findings-status");
  status.textContent = "loading…";
  status.className = "";
  const resp = await fetch("/findings?" + params, { headers: authHeaders() });
  if (!resp.ok) {
    status.textContent = await apiError(resp);
    status.className = "error";
    return;
  }
  const list = (await resp.json()).data;
  status.textContent = `${list.length} finding${list.length === 1 ? "" : "s"}`;
  const rows = list.map((f) => {
    const tr = el("tr", { "data-iri": f.subject },
      el("td", {}, compact(f.problem)),
      el("td", { title: f.subject }, shortIRI(f.subject)),
      el("td", { class: "num" }, f.severity != null ? String(f.severity) : ""),
      el("td", {}, f.metric || ""),
      el("td", { class: "num" }, f.value || ""),
      el("td", { title: f.experiment || "" }, shortIRI(f.experiment || "")));
    tr.addEventListener("click", () => {
      document.querySelectorAll("#findings tr.selected").forEach((r) => r.classList.remove("selected"));
      tr.classList.add("selected");
      explain(f.subject);
    });
    return tr;
  });
  const head = el("tr", {}, ...["problem", "subject", "severity", "metric", "value", "experiment"].map((h) => el("th", {}, h)));
  $("findings").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
}

function derivationItem(d) {
  const li = el("li", {});
  const head = el("div", {}, el("code", { title: d.triple }, compactTriple(d.triple)));
  if (d.rule) head.append(" ", el("span", { class: "rule" }, "← " + d.rule));
  if (d.asserted) head.append(" ", el("span", { class: "asserted" }, "(asserted)"));
  if (d.note) head.append(" ", el("span", { class: "hint" }, d.note));
  li.append(head);
  if (d.premises && d.premises.length) li.append(el("ul", {}, ...d.premises.map(derivationItem)));
  return li;
}

async function explain(iri) {
  const box = $("explanation");
  box.replaceChildren(el("p", { class: "hint" }, "explaining…"));
  const resp = await fetch("/explain?iri=" + encodeURIComponent(iri), { headers: authHeaders() });
  if (!resp.ok) {
    box.replaceChildren(el("p", { class: "error" }, await apiError(resp)));
    return;
  }
  const exp = (await resp.json()).data;
  box.replaceChildren(el("h3", { title: exp.iri }, shortIRI(exp.iri)), el("ul", { class: "tree" }, ...exp.derivations.map(derivationItem)));
}

async function runRules() {
  const status = $("findings-status");
  status.textContent = "running rules…";
  status.className = "";
  const resp = await fetch("/rules/run", { method: "POST", headers: authHeaders() });
  if (!resp.ok) {
    status.textContent = await apiError(resp);
    status.className = "error";
    return;
  }
  const r = (await resp.json()).data;
  status.textContent = `${r.rules} rules derived ${r.derived} triples (${r.findings} findings) in ${r.seconds.toFixed(2)} s`;
  loadFindings();
}

// ---------- sites ----------

async function loadSites() {
  const resp = await fetch("/sites", { headers: authHeaders() });
  if (!resp.ok) {
    $("sites").replaceChildren(el("p", { class: "error" }, await apiError(resp)));
    return;
  }
  const list = (await resp.json()).data;
  const head = el("tr", {}, ...["site", "graph", "triples", "experiments"].map((h) => el("th", {}, h)));
  const rows = list.map((s) => el("tr", {},
    el("td", {}, s.name), el("td", {}, el("code", {}, s.graph || s.endpoint || "")),
    el("td", { class: "num" }, String(s.triples)), el("td", {}, (s.experiments || []).map(compact).join(", "))));
  $("sites").replaceChildren(el("table", {}, el("thead", {}, head), el("tbody", {}, ...rows)));
}

// ---------- wiring ----------

function showTab(name) {
  document.querySelectorAll(".tab").forEach((b) => b.classList.toggle("active", b.dataset.tab === name));
  document.querySelectorAll(".panel").forEach((p) => { p.hidden = p.id !== "tab-" + name; });
  if (name === "sites") loadSites();
  if (name === "findings" && !$("findings").hasChildNodes()) loadFindings();
}

function init() {
  const sel = $("examples");
  EXAMPLES.forEach((ex, i) => sel.append(el("option", { value: String(i) }, ex.name)));
  sel.addEventListener("change", () => { $("editor").value = EXAMPLES[Number(sel.value)].query; });
  $("editor").value = EXAMPLES[0].query;
  $("run").addEventListener("click", runQuery);
  $("editor").addEventListener("keydown", (e) => {
    if (e.key === "Enter" && (e.ctrlKey || e.metaKey)) { e.preventDefault(); runQuery(); }
  });
  $("chart-column").addEventListener("change", drawChart);
  $("label-column").addEventListener("change", drawChart);
  $("load-findings").addEventListener("click", loadFindings);
  $("run-rules").addEventListener("click", runRules);
  document.querySelectorAll(".tab").forEach((b) => b.addEventListener("click", () => showTab(b.dataset.tab)));
  const saved = sessionStorage.getItem("perfkb-token");
  if (saved) $("token").value = saved;
  $("token").addEventListener("change", () => sessionStorage.setItem("perfkb-token", $("token").value));
}

init();
