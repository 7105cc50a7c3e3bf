#!/usr/bin/env python3
# ab.py N name=url ... -- q.rq ...: per query one warm-up each, then N rounds rotating the order; medians (ms) and ratios to the last endpoint.
import sys, time, http.client, urllib.parse, statistics, json
args = sys.argv[1:]
n = int(args[0]); i = args.index('--')
eps = [a.split('=', 1) for a in args[1:i]]; qs = args[i+1:]
G = "http://perfkb.example/bench"
conns = {}
def run(name, url, q):
    u = urllib.parse.urlsplit(url)
    c = conns.get(name)
    if c is None:
        c = conns[name] = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
    form = {"query": q, "default-graph-uri": G}
    if name.startswith("virtuoso"): form["timeout"] = "60000"
    body = urllib.parse.urlencode(form)
    t = time.perf_counter()
    try:
        c.request("POST", u.path, body, {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/sparql-results+json"})
        r = c.getresponse(); data = r.read()
    except (BrokenPipeError, ConnectionError, http.client.RemoteDisconnected):
        c.close(); c = conns[name] = http.client.HTTPConnection(u.hostname, u.port, timeout=120)
        t = time.perf_counter()
        c.request("POST", u.path, body, {"Content-Type": "application/x-www-form-urlencoded", "Accept": "application/sparql-results+json"})
        r = c.getresponse(); data = r.read()
    dt = (time.perf_counter() - t) * 1000
    if r.status != 200: raise SystemExit(f"{name}: {r.status} {data[:300]}")
    return dt, len(json.loads(data)["results"]["bindings"])
for qf in qs:
    q = open(qf).read()
    times = {e[0]: [] for e in eps}; rows = {}
    for name, url in eps: rows[name] = run(name, url, q)[1]
    for r in range(n):
        order = eps[r % len(eps):] + eps[:r % len(eps)]
        if r % 2: order = order[::-1]
        for name, url in order: times[name].append(run(name, url, q)[0])
    med = {k: statistics.median(v) for k, v in times.items()}
    ref = eps[-1][0]
    print(qf.split('/')[-1], " ".join(f"{k}={med[k]:.1f}ms({med[k]/med[ref]:.2f})" for k in med), "rows", rows, "load", open('/proc/loadavg').read().split()[0], flush=True)
