# Reads an HPCToolkit experiment.xml database with Hatchet
# (GraphFrame.from_hpctoolkit) and prints, as JSON, one row per (context
# id, rank, thread) with Hatchet's metric columns, each context's type
# (PF, Pr, L, S) and the call tree's parent -> child context-id edges.
import contextlib
import json
import sys

with contextlib.redirect_stdout(sys.stderr):  # hatchet prints notebook notices on import
    import hatchet as ht

gf = ht.GraphFrame.from_hpctoolkit(sys.argv[1])
df = gf.dataframe.reset_index()
metrics = [m for m in gf.exc_metrics + gf.inc_metrics if m in df.columns]
nid, types, rows = {}, {}, []
for _, row in df.iterrows():
    nid[row["node"]] = int(row["nid"])
    types[int(row["nid"])] = row["type"]
    rows.append({
        "nid": int(row["nid"]),
        "rank": int(row["rank"]),
        "thread": int(row["thread"]) if "thread" in df.columns else 0,
        "values": {m: float(row[m]) for m in metrics},
    })
edges = sorted({(nid[n], nid[k]) for n in gf.graph.traverse() for k in n.children})
json.dump({"rows": rows, "types": types, "edges": edges}, sys.stdout)
