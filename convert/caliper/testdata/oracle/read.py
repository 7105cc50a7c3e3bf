# Reads a Caliper file with an independent reader and prints, as JSON, one
# row per (region path, rank) with the reader's numeric values, and the
# call tree's parent -> child path edges. Usage: read.py READER FILE, with
# READER one of caliperreader (LLNL's caliper-reader), hatchet-cali
# (Hatchet's GraphFrame.from_caliperreader, native metric names) or
# hatchet-json (GraphFrame.from_caliper on cali-query json-split output).
# For Hatchet, "time (inc)" comes from the file or, where the file has no
# inclusive time, from Hatchet's update_inclusive_columns.
import json
import math
import sys

reader, path = sys.argv[1], sys.argv[2]
rows, edges = [], set()


def num(v):
    try:
        f = float(v)
    except (TypeError, ValueError):
        return None
    return None if math.isnan(f) else f


if reader == "caliperreader":
    import caliperreader

    r = caliperreader.CaliperReader()
    r.read(path)
    for rec in r.records:
        if "path" not in rec or rec.get("spot.channel", "regionprofile") != "regionprofile":
            continue
        p = rec["path"] if isinstance(rec["path"], list) else [rec["path"]]
        vals = {}
        for k, v in rec.items():
            if k in r.db.attributes and r.attribute(k).is_value() and k != "mpi.rank":
                vals[k] = num(v)
        rows.append({"path": p, "rank": int(rec.get("mpi.rank", 0)), "values": vals})
        for i in range(1, len(p)):
            edges.add((tuple(p[:i]), tuple(p[: i + 1])))
else:
    import contextlib

    with contextlib.redirect_stdout(sys.stderr):  # hatchet prints notebook notices on import
        import hatchet as ht

    if reader == "hatchet-cali":
        gf = ht.GraphFrame.from_caliperreader(path, native=True)
    else:
        gf = ht.GraphFrame.from_caliper(path)
    if "time (inc)" not in gf.dataframe.columns and "time" in gf.exc_metrics:
        gf.update_inclusive_columns()
        gf.inc_metrics = ["time (inc)"]  # the other sums of min, max … mean nothing
    # Hatchet's json reader links children but not parents, so paths come
    # from a walk down from the roots. Hatchet gives each source line of a
    # sampled profile (sourceloc#cali.sampler.pc) a "statement" node below
    # its function; perfkb does not convert source lines, so their values
    # are added to the function's (folded counts them).
    names, folded = {}, 0

    def walk(n, parent):
        global folded
        if n.frame.get("type") == "statement":
            names[n] = parent
            folded += 1
            return
        names[n] = parent + (n.frame.get("name"),)
        if parent:
            edges.add((parent, names[n]))
        for k in n.children:
            walk(k, names[n])

    for root in gf.graph.roots:
        walk(root, ())
    metrics = [m for m in gf.exc_metrics + gf.inc_metrics if m in gf.dataframe.columns]
    df = gf.dataframe.reset_index()
    byKey = {}
    for _, row in df.iterrows():
        n = row["node"]
        rank = int(row["rank"]) if "rank" in df.columns else 0
        vals = {m: num(row[m]) for m in metrics}
        k = (names[n], rank)
        if k in byKey:
            for m in metrics:
                if not m.endswith("(inc)"):  # a statement's inclusive time is inside its function's
                    byKey[k]["values"][m] += vals[m]
            continue
        byKey[k] = {"path": list(names[n]), "rank": rank, "values": vals}
    rows = list(byKey.values())
json.dump({"rows": rows, "edges": sorted([list(a), list(b)] for a, b in edges)}, sys.stdout)
