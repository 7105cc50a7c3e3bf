#!/usr/bin/env python3
"""Run SPARQL queries against two endpoints, alternating, and compare.

Per query: one untimed warm-up per engine, then -n timed rounds in which the
engines take turns (the order flips every round); the median of the timed
runs counts. Every request is a form POST asking for JSON results, on one
kept-alive connection per engine, with default-graph-uri and a timeout
(perfkb: ?timeout=Ns on the URL; Virtuoso: timeout=ms in the form, and a
partial "anytime" answer, flagged by its X-SQL-State header, counts as a
timeout). An engine that fails or times out in the warm-up is not timed.

Answers are compared as multisets of rows: IRIs as is, blank nodes as one
symbol, literals with a numeric datatype by value to 5 significant digits
(Virtuoso prints doubles with 6), xsd:string and plain literals alike.

usage: compare.py [-n 3] [--timeout 60] [--short N] [--md F] [--json F]
       [--title T] A=URL[|GRAPH] B=URL[|GRAPH] -- QUERY.rq ...
The first endpoint is the one measured (ratios are A/B); an endpoint whose
name starts with "virtuoso" gets Virtuoso's timeout and partial-answer
handling.
"""
import argparse
import collections
import datetime
import hashlib
import http.client
import json
import math
import os
import platform
import re
import statistics
import sys
import time
import urllib.parse

XSD = "http://www.w3.org/2001/XMLSchema#"
NUMERIC = {XSD + t for t in (
    "integer", "decimal", "float", "double", "nonPositiveInteger", "negativeInteger",
    "long", "int", "short", "byte", "nonNegativeInteger", "unsignedLong", "unsignedInt",
    "unsignedShort", "unsignedByte", "positiveInteger")}


class Failure(Exception):
    def __init__(self, kind, msg):
        super().__init__(msg)
        self.kind = kind


class Endpoint:
    def __init__(self, spec, timeout):
        self.name, url = spec.split("=", 1)
        self.graph = None
        if "|" in url:
            url, self.graph = url.split("|", 1)
        self.url = urllib.parse.urlsplit(url)
        self.virtuoso = self.name.startswith("virtuoso")
        self.timeout = timeout
        self.conn = None

    def connect(self):
        if self.conn is None:
            self.conn = http.client.HTTPConnection(self.url.hostname, self.url.port, timeout=self.timeout + 60)
        return self.conn

    def close(self):
        if self.conn is not None:
            self.conn.close()
            self.conn = None

    def query(self, text):
        form = {"query": text}
        path = self.url.path
        if self.graph:
            form["default-graph-uri"] = self.graph
        if self.virtuoso:
            form["timeout"] = str(self.timeout * 1000)
        else:
            path += f"?timeout={self.timeout}s"
        body = urllib.parse.urlencode(form)
        headers = {"Content-Type": "application/x-www-form-urlencoded",
                   "Accept": "application/sparql-results+json"}
        for attempt in (0, 1):
            t0 = time.perf_counter()
            try:
                conn = self.connect()
                conn.request("POST", path, body, headers)
                resp = conn.getresponse()
                data = resp.read()
                elapsed = time.perf_counter() - t0
                break
            except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected,
                    http.client.CannotSendRequest) as e:
                # A kept-alive connection the server closed: retry once.
                self.close()
                if attempt:
                    raise Failure("error", f"connection: {e}")
            except TimeoutError:
                self.close()
                raise Failure("timeout", f"no answer in {self.timeout + 60} s")
            except http.client.IncompleteRead as e:
                # The server gave up while streaming the answer (its own
                # timeout fired mid-response).
                self.close()
                raise Failure("error", f"answer cut off after {len(e.partial)} bytes")
        if resp.status != 200:
            text = data[:400].decode("utf-8", "replace").replace("\n", " ")
            kind = "timeout" if resp.status in (503, 504) and re.search(r"(?i)time", text) else "error"
            m = re.search(rb"Virtuoso S1TAT Error[^\n]{0,120}", data) if self.virtuoso else None
            if m:
                # Virtuoso's "anytime" mode: a partial answer, then this
                # error at its end, with HTTP 500.
                kind, text = "timeout", m.group(0).decode("utf-8", "replace")
            raise Failure(kind, f"HTTP {resp.status}: {text}")
        state = resp.getheader("X-SQL-State")
        if self.virtuoso and state:
            raise Failure("timeout", f"partial answer, X-SQL-State {state}: {resp.getheader('X-SQL-Message')}")
        try:
            doc = json.loads(data)
        except ValueError as e:
            raise Failure("error", f"bad JSON: {e}: {data[:200]!r}")
        return elapsed, doc


def norm(b):
    t = b.get("type")
    if t == "uri":
        return "<" + b["value"] + ">"
    if t == "bnode":
        return "_:"
    dt = b.get("datatype")
    if dt in NUMERIC:
        try:
            x = float(b["value"])
            if math.isnan(x) or math.isinf(x):
                return repr(x)
            return "%.5g" % x
        except ValueError:
            pass
    if dt in (None, XSD + "string"):
        lang = b.get("xml:lang")
        return json.dumps(b["value"]) + ("@" + lang.lower() if lang else "")
    return json.dumps(b["value"]) + "^^" + dt


def digest(doc):
    """(row count, multiset digest, the normalized rows)"""
    if "boolean" in doc:
        return 1, "ask:" + str(doc["boolean"]).lower(), [str(doc["boolean"])]
    vars_ = doc["head"]["vars"]
    rows = []
    for r in doc["results"]["bindings"]:
        rows.append("\t".join(norm(r[v]) if v in r else "" for v in sorted(vars_)))
    rows.sort()
    h = hashlib.sha256("\n".join(rows).encode()).hexdigest()[:16]
    return len(rows), h, rows


def geomean(xs):
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")


def family_of(path, text):
    """The template's family from the first line gen.py writes."""
    m = re.match(r"# Sparqloscope template (\S+) \(([^)]*)\)", text)
    if m:
        return m.group(2) or "ungrouped", m.group(1)
    return "workload", os.path.basename(path)[:-3]


def run_query(path, engines, runs, slow):
    text = open(path).read()
    res = {e.name: {"status": "ok", "times_ms": []} for e in engines}
    answers = {}
    for e in engines:
        try:
            t, doc = e.query(text)
            n, h, rows = digest(doc)
            res[e.name].update(rows=n, digest=h, warmup_ms=round(t * 1000, 2))
            answers[e.name] = rows
            if slow and t > slow:
                runs = 1
        except Failure as f:
            res[e.name].update(status=f.kind, error=str(f)[:300])
    order = list(engines)
    for i in range(runs):
        for e in (order if i % 2 == 0 else order[::-1]):
            r = res[e.name]
            if r["status"] != "ok":
                continue
            try:
                t, doc = e.query(text)
                r["times_ms"].append(round(t * 1000, 2))
            except Failure as f:
                r.update(status=f.kind, error=str(f)[:300])
    for e in engines:
        r = res[e.name]
        if r["status"] == "ok" and r["times_ms"]:
            r["median_ms"] = statistics.median(r["times_ms"])
    return text, res, answers


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=3, help="timed runs per engine (after one warm-up)")
    ap.add_argument("--timeout", type=int, default=60, help="seconds per request")
    ap.add_argument("--short", type=int, help="only the first N queries")
    ap.add_argument("--slow", type=float, help="one timed run only where a warm-up took longer (s)")
    ap.add_argument("--md")
    ap.add_argument("--json")
    ap.add_argument("--title", default="")
    ap.add_argument("--diffs", help="directory for the differing answers (one file per query and engine)")
    ap.add_argument("rest", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    sep = a.rest.index("--")
    engines = [Endpoint(s, a.timeout) for s in a.rest[:sep]]
    queries = a.rest[sep + 1:]
    if a.short:
        queries = queries[:a.short]
    A, B = engines[0].name, engines[1].name
    started = datetime.datetime.now(datetime.timezone.utc)
    load0 = open("/proc/loadavg").read().split()[:3]
    results = []
    for q in queries:
        fam, name = family_of(q, open(q).read())
        text, res, answers = run_query(q, engines, a.n, a.slow)
        ra, rb = res[A], res[B]
        ratio = None
        if "median_ms" in ra and "median_ms" in rb and rb["median_ms"] > 0:
            ratio = ra["median_ms"] / rb["median_ms"]
        agree = None
        if "digest" in ra and "digest" in rb:
            agree = "same" if ra["digest"] == rb["digest"] else (
                "values differ" if ra["rows"] == rb["rows"] else "rows differ")
        unordered_limit = bool(re.search(r"(?i)\bLIMIT\b", text)) and not re.search(r"(?i)\bORDER\s+BY\b", text)
        if agree and agree != "same" and a.diffs:
            os.makedirs(a.diffs, exist_ok=True)
            for e in engines:
                with open(os.path.join(a.diffs, f"{os.path.basename(q)[:-3]}.{e.name}.txt"), "w") as f:
                    f.write("\n".join(answers.get(e.name, [])[:2000]) + "\n")
        rec = {"query": os.path.basename(q), "family": fam, "name": name, A: ra, B: rb,
               "ratio": ratio, "answers": agree, "limit_without_order_by": unordered_limit}
        results.append(rec)
        cells = []
        for r in (ra, rb):
            cells.append(f"{r['median_ms']:.1f} ms/{r.get('rows')}" if "median_ms" in r else r["status"])
        print(f"{rec['query']}: {A} {cells[0]}, {B} {cells[1]}, ratio "
              f"{'%.2f' % ratio if ratio else '-'}, answers {agree}", file=sys.stderr, flush=True)
    for e in engines:
        e.close()
    finished = datetime.datetime.now(datetime.timezone.utc)
    load1 = open("/proc/loadavg").read().split()[:3]

    both = [r for r in results if r["ratio"]]
    fams = collections.OrderedDict()
    for r in results:
        fams.setdefault(r["family"], []).append(r)
    summary = {
        "title": a.title, "engines": [A, B], "runs": a.n, "slow_s": a.slow, "timeout_s": a.timeout,
        "started": started.isoformat(timespec="seconds"), "finished": finished.isoformat(timespec="seconds"),
        "machine": {"cpus": os.cpu_count(), "host": platform.node(), "kernel": platform.release(),
                    "loadavg_start": load0, "loadavg_end": load1},
        "queries": len(results), "both_ok": len(both),
        "geomean_ratio": geomean([r["ratio"] for r in both]),
        "geomean_ms": {e: geomean([r[e]["median_ms"] for r in both]) for e in (A, B)},
        # Failures counted at the timeout (Sparqloscope's penalty is 2x; here 1x).
        "geomean_ms_failures_at_timeout": {e: geomean([r[e].get("median_ms", a.timeout * 1000.0)
                                                       for r in results]) for e in (A, B)},
        "failures": {e: [(r["query"], r[e]["status"], r[e].get("error", "")) for r in results
                         if r[e]["status"] != "ok"] for e in (A, B)},
        "disagreements": [(r["query"], r["answers"], r[A].get("rows"), r[B].get("rows"), r["limit_without_order_by"])
                          for r in results if r["answers"] not in (None, "same")],
        "families": {f: {"queries": len(rs), "both_ok": len([r for r in rs if r["ratio"]]),
                         "geomean_ratio": geomean([r["ratio"] for r in rs if r["ratio"]]),
                         "worst": max(((r["ratio"], r["query"]) for r in rs if r["ratio"]), default=None)}
                     for f, rs in fams.items()},
    }
    worst = max(both, key=lambda r: r["ratio"], default=None)
    best = min(both, key=lambda r: r["ratio"], default=None)
    summary["worst"] = (worst["query"], worst["ratio"]) if worst else None
    summary["best"] = (best["query"], best["ratio"]) if best else None
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"summary": summary, "results": results}, f, indent=1)
    if a.md:
        with open(a.md, "w") as f:
            f.write(markdown(summary, results, A, B))
    print(json.dumps({k: summary[k] for k in ("geomean_ratio", "geomean_ms", "worst", "best")}), file=sys.stderr)


def fmt_ms(r):
    if "median_ms" in r:
        return f"{r['median_ms']:,.1f}"
    return f"**{r['status']}**"


def markdown(s, results, A, B):
    L = []
    m = s["machine"]
    L.append(f"### {s['title']}\n")
    L.append(f"{s['started']} – {s['finished']}, {m['cpus']} CPUs ({m['host']}), load average "
             f"{' '.join(m['loadavg_start'])} → {' '.join(m['loadavg_end'])}; median of {s['runs']} timed runs "
             f"after 1 warm-up, engines alternating"
             + (f" (1 timed run where a warm-up took over {s['slow_s']} s)" if s.get("slow_s") else "")
             + f"; timeout {s['timeout_s']} s.\n")
    L.append(f"- queries: {s['queries']}, both engines answered: {s['both_ok']}")
    L.append(f"- geometric mean of {A}/{B} over those: **{s['geomean_ratio']:.2f}** "
             f"({A} {s['geomean_ms'][A]:.1f} ms, {B} {s['geomean_ms'][B]:.1f} ms)")
    L.append(f"- geometric mean with failures counted at the timeout: {A} "
             f"{s['geomean_ms_failures_at_timeout'][A]:.1f} ms, {B} {s['geomean_ms_failures_at_timeout'][B]:.1f} ms")
    if s["worst"]:
        L.append(f"- worst ratio: {s['worst'][0]} ({s['worst'][1]:.2f}); best: {s['best'][0]} ({s['best'][1]:.3f})")
    for e in (A, B):
        L.append(f"- {e} failures: {len(s['failures'][e])}" +
                 "".join(f"\n  - {q}: {k}: {msg[:160]}" for q, k, msg in s["failures"][e]))
    L.append(f"- answer disagreements: {len(s['disagreements'])}" +
             "".join(f"\n  - {q}: {k} ({A} {ra} rows, {B} {rb} rows)" + (" — LIMIT without ORDER BY" if u else "")
                     for q, k, ra, rb, u in s["disagreements"]))
    L.append("\n| family | queries | both ok | geomean ratio | worst (ratio) |")
    L.append("|---|---:|---:|---:|---|")
    for f, v in s["families"].items():
        w = f"{v['worst'][1]} ({v['worst'][0]:.2f})" if v["worst"] else "-"
        g = f"{v['geomean_ratio']:.2f}" if v["both_ok"] else "-"
        L.append(f"| {f} | {v['queries']} | {v['both_ok']} | {g} | {w} |")
    L.append(f"\n| query | {A} ms | {B} ms | {A}/{B} | rows {A} | rows {B} | answers |")
    L.append("|---|---:|---:|---:|---:|---:|---|")
    for r in results:
        ratio = f"{r['ratio']:.2f}" if r["ratio"] else "-"
        L.append(f"| {r['query'][:-3]} | {fmt_ms(r[A])} | {fmt_ms(r[B])} | {ratio} | {r[A].get('rows', '-')} | "
                 f"{r[B].get('rows', '-')} | {r['answers'] or '-'} |")
    return "\n".join(L) + "\n"


if __name__ == "__main__":
    main()
