#!/usr/bin/env python3
"""Side-by-side SPARQL-over-HTTP timing: the same client, queries and
protocol (POST form, JSON results, one keep-alive connection) against each
endpoint; median of N runs after one warm-up; a Markdown table of both times
and their ratio. Row counts must agree, or the table says so.

usage: client.py [-n 5] NAME=URL[|default-graph-uri] ... -- QUERY.rq ...
"""
import http.client
import json
import statistics
import sys
import time
import urllib.parse


def parse_args(argv):
    runs = 5
    if len(argv) > 1 and argv[0] == "-n":
        runs, argv = int(argv[1]), argv[2:]
    sep = argv.index("--")
    endpoints = []
    for spec in argv[:sep]:
        name, url = spec.split("=", 1)
        graph = None
        if "|" in url:
            url, graph = url.split("|", 1)
        endpoints.append((name, urllib.parse.urlsplit(url), graph))
    return runs, endpoints, argv[sep + 1:]


def run(conn, url, graph, text):
    form = {"query": text}
    if graph:
        form["default-graph-uri"] = graph
    body = urllib.parse.urlencode(form)
    headers = {
        "Content-Type": "application/x-www-form-urlencoded",
        "Accept": "application/sparql-results+json",
    }
    t0 = time.perf_counter()
    try:
        conn.request("POST", url.path, body, headers)
        resp = conn.getresponse()
    except (BrokenPipeError, ConnectionResetError, http.client.RemoteDisconnected):
        # The server closed the kept-alive connection (an idle limit):
        # reconnect once and time the request from there.
        conn.close()
        t0 = time.perf_counter()
        conn.request("POST", url.path, body, headers)
        resp = conn.getresponse()
    data = resp.read()
    doc = json.loads(data)
    elapsed = time.perf_counter() - t0
    if resp.status != 200:
        raise RuntimeError(f"{url.netloc}: HTTP {resp.status}: {data[:300]!r}")
    return elapsed, len(doc["results"]["bindings"])


def main():
    runs, endpoints, queries = parse_args(sys.argv[1:])
    names = [e[0] for e in endpoints]
    print("| query | rows | " + " | ".join(f"{n} (ms)" for n in names) +
          (f" | {names[0]}/{names[1]} |" if len(names) == 2 else " |"))
    print("|---|---|" + "---|" * len(names) + ("---|" if len(names) == 2 else ""))
    for q in queries:
        text = open(q).read()
        medians, rows = [], []
        for name, url, graph in endpoints:
            conn = http.client.HTTPConnection(url.hostname, url.port, timeout=600)
            run(conn, url, graph, text)  # warm-up
            times = []
            for _ in range(runs):
                t, n = run(conn, url, graph, text)
                times.append(t)
            conn.close()
            medians.append(statistics.median(times) * 1000)
            rows.append(n)
        label = q.rsplit("/", 1)[-1].removesuffix(".rq")
        rowtxt = str(rows[0]) if len(set(rows)) == 1 else "DIFFER " + "/".join(map(str, rows))
        cells = " | ".join(f"{m:.1f}" for m in medians)
        ratio = f" {medians[0] / medians[1]:.2f} |" if len(medians) == 2 else ""
        print(f"| {label} | {rowtxt} | {cells} |{ratio}", flush=True)


if __name__ == "__main__":
    main()
