"""Python client for perfkb, the knowledge base of parallel performance data.

>>> import perfkb
>>> kb = perfkb.Client("http://127.0.0.1:7878")
>>> df = kb.query("SELECT ?s WHERE { ?s a ?c } LIMIT 3")

See Client for the calls and docs/python.md in the perfkb repository.
"""

from .client import Client, PerfkbError, tree_frame, tree_literal

__all__ = ["Client", "PerfkbError", "tree_frame", "tree_literal"]
__version__ = "0.1.0"
