#!/usr/bin/env python3
"""Instantiate Sparqloscope's query templates for one N-Triples data file.

Sparqloscope (sparqloscope/, Apache 2.0, unmodified) runs ten "precomputed"
statistics queries on the endpoint and serves their results to the endpoint
again through SERVICE from its own HTTP server. On 1M PERFONTO triples those
statistics queries take minutes and exceed perfkb's default query budget, so
this script computes the same ten tables from the data file itself and
inlines them into the placeholder queries as VALUES blocks (no SERVICE). The
placeholder and argmax queries, the template instantiation and the prefix
handling are Sparqloscope's own functions, imported from its script.

Deviations from Sparqloscope, all forced by PERFONTO data:
  * PREDICATE_LARGE_WITH_LITERAL and HAS_RDFS_LABEL assume rdfs:label; here
    they use the largest predicate whose objects are all xsd:string literals
    (BENCHMARKING.md).
  * PREDICATE_DATATYPES_QUERY: Sparqloscope's text joins every (p, dt, cnt)
    whose cnt equals *some* predicate's maximum, with one row per such
    predicate; the rows computed here are the same set without duplicates
    (its only users take LIMIT 1 of an ORDER BY).

usage: gen.py --data FILE.nt --endpoint URL [--graph IRI] --name KG --out DIR
writes DIR/NN-family-name.rq (one file per generated query) and
DIR/placeholders.json (every placeholder value, for the record).
"""
import argparse
import collections
import importlib.util
import json
import os
import re
import sys
import tempfile
import types
import urllib.parse

HERE = os.path.dirname(os.path.abspath(__file__))
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_LANGSTRING = "http://www.w3.org/1999/02/22-rdf-syntax-ns#langString"
NUMERIC = {XSD + t for t in (
    "integer", "decimal", "float", "double", "nonPositiveInteger", "negativeInteger",
    "long", "int", "short", "byte", "nonNegativeInteger", "unsignedLong", "unsignedInt",
    "unsignedShort", "unsignedByte", "positiveInteger")}

# An N-Triples / N-Quads line: subject, predicate, object (IRI, blank node or
# literal with optional language tag or datatype), optional graph.
TERM = r'(<[^>]*>|_:\S+|"(?:[^"\\]|\\.)*"(?:@[A-Za-z0-9-]+|\^\^<[^>]*>)?)'
LINE = re.compile(r'^\s*' + TERM + r'\s+' + TERM + r'\s+' + TERM + r'(?:\s+(<[^>]*>|_:\S+))?\s*\.\s*$')
NUM_LEX = re.compile(r'^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$|^[+-]?INF$|^NaN$')


def stub_modules():
    """Sparqloscope imports termcolor and argcomplete for colours and shell
    completion only; stand-ins when Debian's packages are not installed."""
    try:
        import termcolor  # noqa: F401
    except ImportError:
        m = types.ModuleType("termcolor")
        m.colored = lambda text, *a, **k: text
        sys.modules["termcolor"] = m
    try:
        import argcomplete  # noqa: F401
    except ImportError:
        m = types.ModuleType("argcomplete")
        m.autocomplete = lambda *a, **k: None
        sys.modules["argcomplete"] = m


def load_sparqloscope():
    """Import sparqloscope/generate-benchmark.py. Its one f-string with a
    backslash in an expression needs Python 3.12; the same expression is
    rewritten for 3.11 in memory (the file stays as published)."""
    stub_modules()
    path = os.path.join(HERE, "sparqloscope", "generate-benchmark.py")
    src = open(path, encoding="utf-8").read()
    old = 'f"{\'\\n\'.join(prefixes_used_defs)}\\n{query}"'
    if old in src:
        src = src.replace(old, '"\\n".join(prefixes_used_defs) + "\\n" + query')
    mod = types.ModuleType("sparqloscope")
    mod.__file__ = path
    exec(compile(src, path, "exec"), mod.__dict__)
    return mod


def read_triples(path):
    """Yield (s, p, o) term strings; p is the IRI without brackets."""
    with open(path, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if not line.strip() or line.lstrip().startswith("#"):
                continue
            m = LINE.match(line)
            if not m:
                raise SystemExit(f"{path}:{n}: not an N-Triples line: {line[:120]!r}")
            yield m.group(1), m.group(2)[1:-1], m.group(3)


def literal_parts(o):
    """(lexical, datatype IRI or None for IRIs/blank nodes)."""
    if not o.startswith('"'):
        return None, None
    end = o.rindex('"')
    lex, rest = o[1:end], o[end + 1:]
    if rest.startswith("^^"):
        return lex, rest[3:-1]
    if rest.startswith("@"):
        return lex, RDF_LANGSTRING
    return lex, XSD + "string"


def unescape(lex):
    return json.loads('"' + lex.replace("\\'", "'") + '"') if "\\" in lex else lex


def ilit(n):
    return {"type": "literal", "datatype": XSD + "integer", "value": str(n)}


def dlit(x):
    return {"type": "literal", "datatype": XSD + "decimal", "value": f"{x:.6f}"}


def uri(p):
    return {"type": "uri", "value": p}


def table(vars_, rows):
    return {"head": {"vars": vars_}, "results": {"bindings": [
        {v: c for v, c in zip(vars_, r) if c is not None} for r in rows]}}


def statistics(path):
    """The results of Sparqloscope's precomputed_queries, from the file."""
    pcount = collections.Counter()
    numeric = collections.Counter()
    subj = collections.defaultdict(collections.Counter)   # s -> p -> n
    obj = collections.defaultdict(collections.Counter)    # o -> p -> n
    dtcount = collections.Counter()                       # (p, dt) -> n
    for s, p, o in read_triples(path):
        pcount[p] += 1
        subj[s][p] += 1
        obj[o][p] += 1
        lex, dt = literal_parts(o)
        if dt is not None:
            dtcount[(p, dt)] += 1
            if dt in NUMERIC and NUM_LEX.match(lex.strip()):
                numeric[p] += 1

    def by_count(c):
        return sorted(c.items(), key=lambda kv: (-kv[1], kv[0]))

    def pair_join(left, right, same):
        """sum over keys k of left[k][p1] * right[k][p2], p1 != p2 (or =)."""
        acc = collections.Counter()
        for k, lp in left.items():
            rp = right.get(k)
            if not rp:
                continue
            for p1, c1 in lp.items():
                for p2, c2 in rp.items():
                    if (p1 == p2) == same:
                        acc[(p1, p2)] += c1 * c2
        return acc

    def join_table(acc):
        rows = sorted(acc.items(), key=lambda kv: (-kv[1], kv[0]))[:1000]
        return table(["p1", "p2", "count_join", "count_p1", "count_p2"], [
            (uri(p1), uri(p2), ilit(n), ilit(pcount[p1]), ilit(pcount[p2])) for (p1, p2), n in rows])

    res = {}
    res["PREDICATE_SIZE_QUERY"] = table(["p", "count"], [(uri(p), ilit(n)) for p, n in by_count(pcount)])
    res["PREDICATE_SIZE_SMALL_QUERY"] = table(["p", "count"], [
        (uri(p), ilit(n)) for p, n in by_count(pcount) if n <= 1000])
    res["PREDICATE_LARGE_WITH_NUMERIC_QUERY"] = table(["p", "count"], [
        (uri(p), ilit(n)) for p, n in by_count(numeric)])
    res["JOIN_ON_SUBJECT_SIZE_QUERY"] = join_table(pair_join(subj, subj, False))
    res["JOIN_DIAGONAL_SIZE_QUERY"] = join_table(pair_join(obj, subj, False))
    res["JOIN_ON_OBJECT_SIZE_QUERY"] = join_table(pair_join(obj, obj, False))

    def multiplicity(index):
        count, distinct = collections.Counter(), collections.Counter()
        for _, ps in index.items():
            for p, n in ps.items():
                count[p] += n
                distinct[p] += 1
        rows = sorted(((p, count[p], distinct[p], count[p] / distinct[p]) for p in count),
                      key=lambda r: (-r[3], r[0]))
        return table(["p", "count", "count_distinct", "multiplicity"], [
            (uri(p), ilit(c), ilit(d), dlit(m)) for p, c, d, m in rows])

    res["MULTIPLICITY_ON_OBJECT_QUERY"] = multiplicity(obj)
    res["MULTIPLICITY_ON_SUBJECT_QUERY"] = multiplicity(subj)

    trans = pair_join(obj, subj, True)
    rows = sorted(((p1, pcount[p1], n, n / pcount[p1]) for (p1, _), n in trans.items()),
                  key=lambda r: (-r[3], r[0]))[:1000]
    res["TRANSITIVE_PATH_PREDICATES_QUERY"] = table(["p1", "count_p1", "count", "x"], [
        (uri(p), ilit(c), ilit(n), dlit(x)) for p, c, n, x in rows])

    maxima = collections.Counter()
    for (p, _), n in dtcount.items():
        maxima[p] = max(maxima[p], n)
    mset = set(maxima.values())
    rows = sorted(((p, dt, n / pcount[p], pcount[p]) for (p, dt), n in dtcount.items() if n in mset),
                  key=lambda r: (-r[3], r[0], r[1]))[:1000]
    res["PREDICATE_DATATYPES_QUERY"] = table(["p", "dt", "percent", "p_count"], [
        (uri(p), uri(dt), dlit(x), ilit(c)) for p, dt, x, c in rows])

    # The largest predicate whose objects are all xsd:string literals stands
    # in for rdfs:label.
    strings = [(p, n) for (p, dt), n in dtcount.items() if dt == XSD + "string" and n == pcount[p]]
    strings.sort(key=lambda r: (-r[1], r[0]))
    label = strings[0] if strings else None
    return res, label


def term(b):
    if b["type"] == "uri":
        return f"<{b['value']}>"
    if b["type"] == "bnode":
        raise ValueError("blank node in a statistics table")
    v = json.dumps(b["value"])
    if "datatype" in b:
        return f"{v}^^<{b['datatype']}>"
    if "xml:lang" in b:
        return f"{v}@{b['xml:lang']}"
    return v


def values_block(t):
    vars_ = t["head"]["vars"]
    rows = []
    for r in t["results"]["bindings"]:
        rows.append("(" + " ".join(term(r[v]) if v in r else "UNDEF" for v in vars_) + ")")
    return "{ VALUES (" + " ".join("?" + v for v in vars_) + ") {\n" + "\n".join(rows) + "\n} }"


def file_name(pos, group, name):
    """NNN-family-template.rq (family empty where the YAML gives none)."""
    return f"{pos:03d}-{group.replace('_', '-')}-{name}.rq"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--data", required=True, help="N-Triples file the engines load")
    ap.add_argument("--endpoint", required=True, help="SPARQL endpoint with the data loaded")
    ap.add_argument("--graph", help="default-graph-uri to restrict the endpoint to the data")
    ap.add_argument("--name", required=True, help="name of the data set (kg-name)")
    ap.add_argument("--out", required=True, help="output directory for the .rq files")
    ap.add_argument("--prefixes", help="file with PREFIX lines used to abbreviate IRIs")
    ap.add_argument("--argmax-timeout", type=int, default=120)
    ap.add_argument("--limit", type=int, default=10)
    ap.add_argument("--cache", help="directory for Sparqloscope's placeholder caches (default: temporary)")
    a = ap.parse_args()

    import yaml
    sq = load_sparqloscope()
    with open(os.path.join(HERE, "sparqloscope", "query-templates.yaml")) as f:
        tpl = yaml.safe_load(f)

    print(f"# statistics from {a.data}", file=sys.stderr)
    stats, label = statistics(a.data)
    for k, v in stats.items():
        print(f"#   {k}: {len(v['results']['bindings'])} rows", file=sys.stderr)
    print(f"#   rdfs:label stand-in: {label}", file=sys.stderr)

    placeholders = []
    for ph in tpl["placeholders"]:
        ph = dict(ph)
        if ph["name"] == "PREDICATE_LARGE_WITH_LITERAL":
            if label is None:
                continue
            ph["query"] = f"SELECT (<{label[0]}> AS ?p) (COUNT(?s) AS ?count) WHERE {{ ?s <{label[0]}> ?o }}"
        elif ph["name"] == "HAS_RDFS_LABEL":
            ph["query"] = f"ASK {{ ?s <{label[0]}> ?o }}" if label else "ASK { FILTER(false) }"
        q = ph["query"]
        for name, t in stats.items():
            q = q.replace(f"%{name}%", values_block(t))
        ph["query"] = q
        placeholders.append(ph)

    endpoint = a.endpoint
    if a.graph:
        endpoint = sq.add_url_param(endpoint, "default-graph-uri", a.graph)
    prefix_defs = {}
    if a.prefixes:
        prefix_defs = sq.parse_prefix_definitions(open(a.prefixes).read().strip())
    args = argparse.Namespace(sparql_endpoint=endpoint, kg_name=a.name, overwrite_cached_results=False,
                              argmax_timeout=a.argmax_timeout, external_url="http://unused.invalid",
                              limit=a.limit, output_format="yaml", kg_title=a.name, kg_description="")
    cache = a.cache or tempfile.mkdtemp(prefix="sparqloscope-")
    os.makedirs(cache, exist_ok=True)
    cwd = os.getcwd()
    os.chdir(cache)
    try:
        values = sq.compute_placeholders(placeholders, {}, prefix_defs, args)
        out_yaml = os.path.join(cache, f"{a.name}.benchmark.yaml")
        written, errors, skipped = sq.generate_queries(values, tpl["queries"], prefix_defs, out_yaml, args)
    finally:
        os.chdir(cwd)
    with open(out_yaml) as f:
        generated = yaml.safe_load(f)["queries"]
    groups = {q["name"]: q.get("group", "") for q in tpl["queries"]}
    order = {q["name"]: i + 1 for i, q in enumerate(tpl["queries"])}
    os.makedirs(a.out, exist_ok=True)
    for old in os.listdir(a.out):
        if old.endswith(".rq"):
            os.remove(os.path.join(a.out, old))
    for q in generated:
        fn = file_name(order[q["name"]], groups[q["name"]], q["name"])
        with open(os.path.join(a.out, fn), "w") as f:
            f.write(f"# Sparqloscope template {q['name']} ({groups[q['name']]}): {q['description']}\n")
            f.write(q["query"].rstrip() + "\n")
    with open(os.path.join(a.out, "placeholders.json"), "w") as f:
        json.dump({"data": os.path.basename(a.data), "rdfs_label_stand_in": label[0] if label else None,
                   "placeholders": values}, f, indent=1, sort_keys=True)
    print(f"# {written} queries written to {a.out}, {skipped} skipped (condition false), "
          f"{errors} not generated (a placeholder failed)", file=sys.stderr)


if __name__ == "__main__":
    main()
