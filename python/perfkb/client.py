"""The perfkb HTTP client: SPARQL, the Graph Store, findings, analyses, trees."""

import json
import urllib.error
import urllib.parse
import urllib.request

import pandas as pd

XSD = "http://www.w3.org/2001/XMLSchema#"

# SPARQL result datatypes and the pandas dtype of a column holding only them.
_INTEGER_TYPES = {
    XSD + t
    for t in (
        "integer", "int", "long", "short", "byte", "nonNegativeInteger",
        "positiveInteger", "nonPositiveInteger", "negativeInteger",
        "unsignedLong", "unsignedInt", "unsignedShort", "unsignedByte",
    )
}
_FLOAT_TYPES = {XSD + "double", XSD + "float", XSD + "decimal"}
_DATETIME_TYPES = {XSD + "dateTime", XSD + "dateTimeStamp", XSD + "date"}
_BOOLEAN_TYPES = {XSD + "boolean"}

_RDF_FORMATS = {
    "turtle": "text/turtle",
    "ntriples": "application/n-triples",
    "nquads": "application/n-quads",
    "trig": "application/trig",
    "rdfxml": "application/rdf+xml",
    "jsonld": "application/ld+json",
}
_EXTENSIONS = {
    ".ttl": "turtle", ".nt": "ntriples", ".nq": "nquads", ".trig": "trig",
    ".rdf": "rdfxml", ".owl": "rdfxml", ".xml": "rdfxml", ".jsonld": "jsonld",
}


class PerfkbError(Exception):
    """An error answer of the server (status, its errorType and message)."""

    def __init__(self, status, error_type, message):
        super().__init__(f"HTTP {status} {error_type}: {message}")
        self.status = status
        self.error_type = error_type
        self.message = message


class Client:
    """A client of one perfkb server.

    url is the server's base URL (what `perfkb serve` prints, without
    /sparql); token is its write token, needed for load() and update()
    and, on a server started with --protect-reads, for everything.
    """

    def __init__(self, url="http://127.0.0.1:7878", token=None, timeout=120):
        self.url = url.rstrip("/")
        self.token = token
        self.timeout = timeout

    # --- transport -------------------------------------------------------

    def _request(self, method, path, params=None, data=None, headers=None):
        url = self.url + path
        if params:
            params = {k: v for k, v in params.items() if v is not None}
            url += "?" + urllib.parse.urlencode(params)
        req = urllib.request.Request(url, data=data, method=method, headers=dict(headers or {}))
        if self.token:
            req.add_header("Authorization", "Bearer " + self.token)
        try:
            with urllib.request.urlopen(req, timeout=self.timeout) as resp:
                return resp.read(), resp.headers.get("Content-Type", "")
        except urllib.error.HTTPError as e:
            body = e.read()
            try:
                env = json.loads(body)
                raise PerfkbError(e.code, env.get("errorType", ""), env.get("error", body.decode("utf-8", "replace"))) from None
            except ValueError:
                raise PerfkbError(e.code, "", body.decode("utf-8", "replace").strip()) from None

    def _json(self, path, params=None):
        body, _ = self._request("GET", path, params, headers={"Accept": "application/json"})
        env = json.loads(body)
        if env.get("status") != "success":
            raise PerfkbError(200, env.get("errorType", ""), env.get("error", ""))
        return env["data"]

    # --- SPARQL ------------------------------------------------------------

    def query(self, sparql, timeout=None):
        """Runs a SELECT (a DataFrame) or an ASK (a bool).

        Columns are typed by the literals' datatypes when every bound value
        of a column has one kind: xsd:integer and its subtypes become Int64,
        xsd:double, float and decimal float64, xsd:dateTime and date
        datetime64 (UTC), xsd:boolean the nullable boolean; IRIs, plain
        strings and mixed columns are strings (blank nodes as "_:label").
        Unbound values are missing (<NA>, NaN or NaT).
        """
        form = {"query": sparql}
        if timeout is not None:
            form["timeout"] = str(timeout)
        body, _ = self._request(
            "POST", "/sparql",
            data=urllib.parse.urlencode(form).encode(),
            headers={"Accept": "application/sparql-results+json",
                     "Content-Type": "application/x-www-form-urlencoded"},
        )
        return results_frame(json.loads(body))

    def construct(self, sparql, format="turtle"):
        """Runs a CONSTRUCT or DESCRIBE and returns the graph as text in
        format: turtle, ntriples, nquads, rdfxml or jsonld."""
        body, _ = self._request(
            "POST", "/sparql",
            data=urllib.parse.urlencode({"query": sparql}).encode(),
            headers={"Accept": _RDF_FORMATS[format],
                     "Content-Type": "application/x-www-form-urlencoded"},
        )
        return body.decode("utf-8")

    def update(self, sparql):
        """Runs a SPARQL 1.1 Update (needs the token)."""
        self._request("POST", "/sparql", data=sparql.encode(),
                      headers={"Content-Type": "application/sparql-update"})

    def load(self, data, graph=None, format=None):
        """Adds RDF to a graph in one atomic write (Graph Store Protocol POST;
        needs the token) and returns the server's summary (added, removed,
        created). data is text, bytes or a file path (format then from its
        extension); graph None is the default graph."""
        if isinstance(data, str) and "\n" not in data and any(data.endswith(e) for e in _EXTENSIONS):
            if format is None:
                format = _EXTENSIONS[data[data.rfind("."):]]
            with open(data, "rb") as f:
                data = f.read()
        if isinstance(data, str):
            data = data.encode("utf-8")
        params = {"graph": graph} if graph else {"default": ""}
        body, _ = self._request("POST", "/data", params, data=data,
                                headers={"Content-Type": _RDF_FORMATS[format or "turtle"]})
        return json.loads(body)["data"]

    # --- rules and analyses ------------------------------------------------

    def findings(self, problem=None, experiment=None, limit=None):
        """The findings of the rules and analyses as a DataFrame, one row a
        finding (subject, problem, severity, severityClass, metric, value,
        experiment, region, rule, description, …)."""
        rows = self._json("/findings", {"problem": problem, "experiment": experiment,
                                        "limit": None if limit is None else str(limit)})
        df = pd.DataFrame(rows or [])
        if "severity" in df:
            df["severity"] = pd.to_numeric(df["severity"], errors="coerce")
        return df

    def explain(self, iri):
        """Why a triple about iri was derived: the server's explanation."""
        return self._json("/explain", {"iri": iri})

    def run_rules(self):
        """Runs the shipped rules on the server (needs the token); returns
        the run's summary."""
        body, _ = self._request("POST", "/rules/run")
        return json.loads(body)["data"]["summary"]

    def scaling(self, version):
        """Time, speed-up and efficiency of a version's runs, per experiment
        and call path (GET /analysis/scaling) as a DataFrame."""
        return _tables(self._json("/analysis/scaling", {"version": version}))[0]

    def models(self, version):
        """The performance models of a version's series (GET
        /analysis/models) as a DataFrame."""
        return _tables(self._json("/analysis/models", {"version": version}))[0]

    def diff(self, base, trial):
        """Two experiments compared per call path and metric."""
        return _tables(self._json("/analysis/diff", {"base": base, "trial": trial}))[0]

    # --- call trees --------------------------------------------------------

    def tree(self, experiment, pu=None, agg="mean", metric=None, depth=None):
        """The call tree of experiment (its IRI or a unique end of it, e.g.
        "innsbruck/exp/1") as the server's nested structure: {"experiment",
        "roots": [{"name", "metrics", "exclusive", "children": […]}, …]};
        the tree `perfkb tree` prints."""
        return self._json("/analysis/tree", {
            "experiment": experiment, "pu": pu, "agg": agg, "metric": metric,
            "depth": None if depth is None else str(depth)})

    def calltree(self, experiment, pu=None, agg="mean", metric=None, depth=None):
        """The call tree as a DataFrame, one row a call path in the order
        `perfkb tree` prints (see tree_frame)."""
        return tree_frame(self.tree(experiment, pu, agg, metric, depth))

    def to_hatchet(self, experiment, pu=None, agg="mean", depth=None):
        """The call tree as a Hatchet GraphFrame (needs llnl-hatchet):
        metrics "time (inc)" and "time" in microseconds, and every other
        metric of the nodes."""
        try:
            import hatchet
        except ImportError as e:
            raise ImportError("to_hatchet needs llnl-hatchet (pip install llnl-hatchet); "
                              "tree_literal(client.tree(…)) gives the same tree as plain data") from e
        return hatchet.GraphFrame.from_literal(tree_literal(self.tree(experiment, pu, agg, None, depth)))


def results_frame(res):
    """A SPARQL 1.1 JSON result (a parsed dict) as a DataFrame, or a bool
    for an ASK result. Typing as in Client.query."""
    if "boolean" in res:
        return bool(res["boolean"])
    cols = res["head"].get("vars", [])
    bindings = res["results"]["bindings"]
    data = {}
    for c in cols:
        values = [b.get(c) for b in bindings]
        data[c] = _column(values)
    return pd.DataFrame(data, columns=cols)


def _column(values):
    kinds = set()
    for v in values:
        if v is None:
            continue
        if v["type"] in ("literal", "typed-literal") and "datatype" in v:
            dt = v["datatype"]
            if dt in _INTEGER_TYPES:
                kinds.add("int")
            elif dt in _FLOAT_TYPES:
                kinds.add("float")
            elif dt in _DATETIME_TYPES:
                kinds.add("datetime")
            elif dt in _BOOLEAN_TYPES:
                kinds.add("bool")
            else:
                kinds.add("str")
        else:
            kinds.add("str")
    raw = [None if v is None else (("_:" + v["value"]) if v["type"] == "bnode" else v["value"]) for v in values]
    if kinds == {"int"}:
        return pd.array([None if x is None else int(x) for x in raw], dtype="Int64")
    if kinds <= {"int", "float"} and kinds:
        return pd.Series([float("nan") if x is None else _float(x) for x in raw], dtype="float64")
    if kinds == {"datetime"}:
        return pd.to_datetime(pd.Series(raw, dtype="object"), utc=True)
    if kinds == {"bool"}:
        return pd.array([None if x is None else x in ("true", "1") for x in raw], dtype="boolean")
    return pd.Series(raw, dtype="object")


def _float(lexical):
    # xsd:double's special values are spelt INF, -INF and NaN.
    return float({"INF": "inf", "-INF": "-inf"}.get(lexical, lexical))


def _tables(data):
    # The analysis endpoints answer a list of tables {name, columns, rows}.
    return [pd.DataFrame(t["rows"], columns=t["columns"]) for t in data]


def tree_frame(tree):
    """A call tree (Client.tree's structure) as a DataFrame in preorder,
    children by inclusive time as `perfkb tree` prints them. Columns: node
    (row number), parent (its parent's node, <NA> for roots), depth, name,
    inclusive and exclusive (wall-clock µs), calls, path (the code region
    IRIs from the root), region, then one column per other metric."""
    rows = []

    def walk(n, parent, depth):
        me = len(rows)
        m = n.get("metrics") or {}
        row = {"node": me, "parent": parent, "depth": depth, "name": n["name"],
               "inclusive": m.get("wtime"), "exclusive": n.get("exclusive"),
               "calls": m.get("ncalls"), "path": n.get("path"), "region": n.get("region")}
        for k, v in m.items():
            if k not in ("wtime", "ncalls"):
                row[k] = v
        rows.append(row)
        for c in n.get("children") or []:
            walk(c, me, depth + 1)

    for r in tree.get("roots") or []:
        walk(r, None, 0)
    df = pd.DataFrame(rows)
    if len(df):
        df["parent"] = pd.array(df["parent"].tolist(), dtype="Int64")
        for c in ("inclusive", "exclusive", "calls"):
            df[c] = pd.to_numeric(df[c], errors="coerce").astype("float64")
    return df


def tree_literal(tree):
    """A call tree in Hatchet's literal format (the input of
    hatchet.GraphFrame.from_literal): a list of roots, each {"frame":
    {"name", "type"}, "metrics": {"time (inc)", "time", …}, "children"}."""

    def node(n):
        m = dict(n.get("metrics") or {})
        inc = m.pop("wtime", None)
        metrics = {"time (inc)": inc, "time": n.get("exclusive")}
        metrics.update(m)
        return {"frame": {"name": n["name"], "type": "region"},
                "metrics": {k: (float("nan") if v is None else v) for k, v in metrics.items()},
                "children": [node(c) for c in n.get("children") or []]}

    return [node(r) for r in tree.get("roots") or []]
