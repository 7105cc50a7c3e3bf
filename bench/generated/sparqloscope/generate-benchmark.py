#!/usr/bin/env python3
# PYTHON_ARGCOMPLETE_OK

# Copyright 2024 - 2025, University of Freiburg,
# Chair of Algorithms and Data Structures
# Authors: Hannah Bast <bast@cs.uni-freiburg.de>
#          Christoph Ullinger <ullingec@cs.uni-freiburg.de>

from __future__ import annotations

import argparse
import argcomplete
import logging
import sys
from contextlib import contextmanager
from typing import Iterator, NotRequired, TextIO, TypedDict, Literal, \
    Generator, Optional
from termcolor import colored
import yaml
from urllib.parse import urlparse, parse_qs, urlencode, urlunparse
from urllib.request import Request, urlopen
from urllib.error import HTTPError
from pathlib import Path
import json
import re
import http.server
import socketserver
import threading
import time


class LogFormatter(logging.Formatter):
    """
    Custom formatter for logging.
    """

    def format(self, record):
        message = record.getMessage()
        if record.levelno == logging.DEBUG:
            return colored(f"{message}", "magenta")
        elif record.levelno == logging.WARNING:
            return colored(f"{message}", "yellow")
        elif record.levelno in [logging.CRITICAL, logging.ERROR]:
            return colored(f"{message}", "red")
        else:
            return message


# Setup the logger.
log = logging.getLogger("sparql-benchmark")
log.setLevel(logging.INFO)
handler = logging.StreamHandler()
handler.setFormatter(LogFormatter())
log.addHandler(handler)
log_levels = {
    "DEBUG": logging.DEBUG,
    "INFO": logging.INFO,
    "WARNING": logging.WARNING,
    "ERROR": logging.ERROR,
    "CRITICAL": logging.CRITICAL,
    "NO_LOG": logging.CRITICAL + 1,
}

# Type annotations for parsed SPARQL JSONs
Binding = TypedDict("Binding", {
    "datatype": NotRequired[str],
    "type": Literal["uri"] | Literal["literal"],
    "value": str
})
Head = TypedDict("Head", {"vars": list[str]})
Results = TypedDict("Results", {"bindings": list[Binding]})
ResultJson = TypedDict("ResultJson", {"head": Head, "results": Results})

# Type annotations for precomputed queries configuration
PrecomputedQuery = TypedDict("PrecomputedQuery", {
    "name": str,
    "query": str,
    "cache_result": NotRequired[bool]
})
PrecomputedQueries = list[PrecomputedQuery]
PrecomputedQueriesResult = dict[str, ResultJson]

# Type annotations for placeholder configuration
PlaceholderChild = TypedDict("PlaceholderChild", {
    "variable": str,
    "suffix": str
})
Placeholder = TypedDict("Placeholder", {
    "name": str,
    "description": NotRequired[str],
    "query": str,
    "argmax": NotRequired[str],
    "children": NotRequired[list[PlaceholderChild]],
    "multiplaceholder": NotRequired[bool]
})

# Cache version
CACHE_VERSION_PLACEHOLDERS = 1
CACHE_VERSION_ARGMAXS = 0

# Request headers to send in an HTTP POST to the SPARQL endpoint
SPARQL_REQ_HEADERS = {
    "Accept": "application/sparql-results+json",
    "Content-type": "application/sparql-query"
}

# HTTP Server settings for SERVICE-based cache
DEFAULT_PORT = 8000
DEFAULT_EXTERNAL_URL = f"http://localhost:{DEFAULT_PORT}"


@contextmanager
def open_file_for_writing(filename: str) -> Generator[TextIO, None, None]:
    """
    Context manager for opening a file for writing or using STDOUT.
    """
    if filename == "-":
        yield sys.stdout
    else:
        with open(filename, "w") as file:
            yield file


def parse_prefix_definitions(prefix_definitions: str) -> dict[str, str]:
    """
    Parse the prefix definitions from the given string (one prefix definition
    per line) and return them as a dictionary.
    """
    result = {}
    for i, line in enumerate(prefix_definitions.split("\n")):
        keyword, prefix, iri = line.split()
        if keyword not in ["PREFIX", "@prefix"]:
            raise ValueError(
                f"Error parsing prefix definitions, line {i+1}: "
                f"Expected `PREFIX` or `@prefix`, got `{keyword}`"
            )
        prefix_regex = re.compile(r"^[a-zA-Z0-9_]+:$")
        if not re.match(prefix_regex, prefix):
            raise ValueError(
                f"Error parsing prefix definitions, line {i+1}: "
                f"should match `{prefix_regex.pattern}`, got `{prefix}`"
            )
        iri_regex = re.compile(r"^<[^>]+>$")
        if not re.match(iri_regex, iri):
            raise ValueError(
                f"Error parsing prefix definitions, line {i+1}: "
                f"should match `{iri_regex.pattern}`, got `{iri}`"
            )
        result[prefix[:-1]] = iri[1:-1]
    return result


def add_url_param(url: str, param_key: str, param_value: str) -> str:
    """
    Safely add a parameter to a given URL which may or may not have URL query
    parameters already.
    """
    parsed = urlparse(url)
    parameters = parse_qs(parsed.query)
    parameters[param_key] = [param_value]
    new_url = urlunparse(parsed._replace(
        query=urlencode(parameters, doseq=True)))
    return new_url


def compute_sparql(name: str, sparql_query: str,
                   args: argparse.Namespace,
                   timeout_sec: Optional[int] = None) -> ResultJson:
    """
    Helper function to execute a SPARQL query on the given endpoint, optionally
    with a timeout which will be passed to the SPARQL engine but also be
    enforced client-side.
    """
    log.debug(f'Computing result for SPARQL query "{name}" ...')
    log.debug(sparql_query)

    # Prepare HTTP request
    url = args.sparql_endpoint
    if timeout_sec is not None:
        url = add_url_param(url, "timeout", f"{timeout_sec}s")
    req = Request(url, data=sparql_query.encode(), headers=SPARQL_REQ_HEADERS)

    try:
        # Send HTTP request and measure end-to-end running time
        s = time.monotonic()
        with urlopen(req, timeout=timeout_sec) as response:
            qr = response.read().decode('utf-8')
        log.debug('End to end time of query ' +
                  f'{name}: {(time.monotonic() - s) * 1000:.0f} ms')

        # Parse result as JSON
        return json.loads(qr)
    except HTTPError as e:
        # Catch HTTP errors separately for a more informative error message
        error_body = e.read().decode('utf-8')
        log.error(
            f"HTTP Error {e.code} ({e.reason}) during execution of SPARQL " +
            f"query {name}:\n {error_body}")
        raise
    except Exception as e:
        # Generic error
        log.error(
            f'Error executing query for "{name}" on SPARQL endpoint '
            + f'{args.sparql_endpoint}: {e}')
        raise


def precompute_queries(precomputed_queries: PrecomputedQueries,
                       args: argparse.Namespace) -> PrecomputedQueriesResult:
    """
    Compute or restore the results of the queries stated in the
    precomputed_queries section of the template YAML and store the results of
    queries with cache_results flag to disk.
    """
    result = {}
    for query in precomputed_queries:
        # Config from YAML
        query_name = query["name"]
        sparql_query = query["query"]
        cache = bool(query.get("cache_result"))

        # Get query result, either from cache or by requesting the endpoint
        filename = f"precomputed.{args.kg_name}.{query_name}.json"
        result_json = None
        cache_dir = Path("precomputed-cache")
        cache_dir.mkdir(exist_ok=True)

        # Backward compatibility: load cache from pwd or subdirectory
        if cache and not args.overwrite_cached_results and \
                (Path(filename).exists() or
                 Path(cache_dir, filename).exists()):
            if Path(cache_dir, filename).exists():
                filename = Path(cache_dir, filename)
            log.debug(f"Loading precomputed query result from file {filename}")
            with open(filename, "r") as f:
                result_json = json.load(f)
        else:
            # No cached result available, run SPARQL query
            log.info(f"Computing query result for {query_name}")
            result_json = compute_sparql(query_name, sparql_query, args)
            # Write to cache
            if cache:
                log.debug(
                    f"Writing precomputed query result to file {filename}")
                with open(Path(cache_dir, filename), "w") as f:
                    json.dump(result_json, f)
        # Always also store result in memory during this run
        result[query_name] = result_json
    return result


def make_precomputed_queries_handler_class(
        precomputed_queries_result: PrecomputedQueriesResult) -> type:
    """
    Make an HTTP request handler class that can provide the precomputed SPARQL
    results as JSON. The class definition captures the
    precomputed_queries_result argument.
    """
    class PrecomputedQueriesHandler(http.server.BaseHTTPRequestHandler):
        "Custom request handler class to return SPARQL JSON results from a dict"

        def __respond(self):
            # The path segment of the SERVICE request IRI is expected to be the
            # name of the precomputed query to fetch
            path = self.path[1:]
            if path in precomputed_queries_result:
                # Return query from cache with appropriate MIME type
                self.send_response(200)
                self.send_header(
                    "Content-Type", "application/sparql-results+json")
                self.send_header("Connection", "close")
                self.close_connection = True
                body = json.dumps(
                    precomputed_queries_result[path]).encode("utf-8")
                self.send_header("Content-length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            else:
                # No cached result is available -> SERVICE returns Internal
                # Server Error
                self.send_response(500)
                self.end_headers()

        def do_GET(self):
            try:
                self.__respond()
            except Exception as e:
                log.error(e)

        def do_POST(self):
            try:
                # Read and discard request body to prevent "Connection reset by
                # peer"
                content_length = self.headers.get("content-length")
                if content_length:
                    self.rfile.read(int(content_length))
                self.__respond()
            except Exception as e:
                log.error(e)

    return PrecomputedQueriesHandler


def compute_placeholders(
    placeholders: list[Placeholder],
    precomputed_queries_result: PrecomputedQueriesResult,
    prefix_definitions: dict[str, str],
    args: argparse.Namespace,
) -> dict[str, str]:
    """
    For each query in the `placeholders` section of the templates YAML file,
    send the query to the given SPARQL endpoint. From the result, construct the
    placeholders and return them as a dictionary.
    """

    result = {}

    def add_internal_services(query: str) -> str:
        """
        Replace placeholders for precomputed queries with the appropriate
        SPARQL SERVICE statement to retrieve the result of the precomputed
        query.
        """
        out = query
        for match in re.finditer(r'%[\w\-]+%', query):
            substr = match.group(0)
            precomputed_query = substr[1:-1]

            if precomputed_query in precomputed_queries_result:
                # The placeholder refers to a precomputed query. Replace the
                # placeholder with a SERVICE request to the internal HTTP server
                # and an appropriate empty VALUES clause defining the variables
                # provided by the SERVICE result.
                variables = precomputed_queries_result[
                    precomputed_query]["head"]["vars"]
                vars_str = ' '.join(f'?{v}' for v in variables)
                out = out.replace(
                    substr,
                    f"{{ SERVICE <{args.external_url}/{precomputed_query}>" +
                    f" {{ VALUES ({vars_str}) {{}} }} }}")
            elif precomputed_query in result:
                # The placeholder refers to a placeholder that was computed
                # before the current one. It is substituted from the dict of
                # placeholder results.
                out = out.replace(substr, result[precomputed_query])
            else:
                raise AssertionError(f"Replacement {substr} unknown")
        return out

    def get_precomputed_queries_mtimes(query: str) -> Iterator[int]:
        """
        Get the file system modification times of all precomputed queries
        used in the given placeholder query (this is required for cache
        integrity)
        """
        for match in re.finditer(r'%[\w\-]+%', query):
            substr = match.group(0)
            precomputed_query = substr[1:-1]
            if precomputed_query in precomputed_queries_result:
                fn = Path(
                    f"precomputed.{args.kg_name}.{precomputed_query}.json")
                if fn.exists():
                    yield round(fn.stat().st_mtime)
                elif Path("precomputed-cache", fn).exists():
                    yield round(Path("precomputed-cache", fn).stat().st_mtime)
                else:
                    log.debug(
                        f"Precomputed query {fn} not found. Invalidating " +
                        "placeholder cache.")
                    yield round(time.time())

    def add_iri_brackets(binding: dict[str, str]) -> str:
        "Make a SPARQL literal from a result JSON binding"
        if binding["type"] == "uri":
            return f"<{binding['value']}>"
        else:
            return binding["value"]

    def get_placeholder_values(result_vars: list[str],
                               result_bindings: list[Binding],
                               column: Optional[str] = None) \
            -> Iterator[tuple[str, int]]:
        "Extract the values for a placeholder from all result bindings rows"
        # If no variable is given, use the first one
        if column is None:
            column = result_vars[0]
        elif column.startswith("?"):
            column = column[1:]

        assert len(result_bindings), "No matching binding found for placeholder"
        assert all(column in row for row in result_bindings), \
            f"Column '{column}' not present in query result"

        # Generator for pairs of placeholder value and source row number
        return (
            (add_iri_brackets(row[column]), i)
            for i, row in enumerate(result_bindings))

    def evaluate_argmax(p_name: str, argmax: str,
                        candidates: list[dict[str, str]]) -> Optional[int]:
        """
        If a placeholder query has multiple result rows, the argmax query
        is used to assign a score to each result. The final placeholder will be
        argmax over this score.
        """
        assert candidates, "Argmax query needs at least one candidate"

        # Argmax so far
        _max: Optional[float] = None
        _max_i: Optional[int] = None

        log.debug(f"Evaluating argmax for {p_name}")

        # Caching configuration
        cache_dir = Path("argmax-cache")
        cache_dir.mkdir(exist_ok=True)
        cert_cache = {}
        query_cache_pth = cache_dir / \
            Path(f"argmax.{args.kg_name}.{p_name}.json")

        # Load cache if allowed and present
        if not args.overwrite_cached_results and query_cache_pth.exists():
            with open(query_cache_pth, "r") as f:
                cert_cache = json.load(f)
            if cert_cache.get("_version") != CACHE_VERSION_ARGMAXS:
                log.debug(
                    f"Discarding cache {query_cache_pth}, " +
                    "because of version mismatch")
                cert_cache = {}

        error_count = 0

        # Apply the argmax query to each candidate individually
        for i, bindings in enumerate(candidates):
            # Replace names of placeholders with values of current candidate
            c = argmax
            for suffix, value in bindings.items():
                c = c.replace(f"%{p_name}{suffix}%", value)
            log.debug(f"Argmax query for candidate: {repr(bindings)}")

            # Evaluate argmax query
            if c in cert_cache:
                result_json = cert_cache[c]
                log.debug(
                    f"Reusing cached query result for argmax query {i}")
            else:
                # Not present in cache: compute argmax query
                try:
                    result_json = compute_sparql(
                        f"{p_name}_argmax_{i}", c, args, args.argmax_timeout)
                    cert_cache[c] = result_json
                except Exception as e:
                    log.warning(
                        f"Skipping this argmax candidate due to error: {e}")
                    error_count += 1
                    continue

            result_var_ = result_json["head"]["vars"][0]
            result_bindings_ = result_json["results"]["bindings"]

            # Check result has expected form
            if not (len(result_bindings_) == 1 and
                    result_var_ in result_bindings_[0] and
                    "datatype" in result_bindings_[0][result_var_] and
                    result_bindings_[0][result_var_]["datatype"]
                    .endswith(("#int", "#integer", "#decimal"))):
                error_count += 1
                log.warning(
                    "Argmax queries must return a single numeric score " +
                    f"value, but query for {p_name} returned " +
                    f"{repr(result_json)}")
                continue

            # Extract score from result of argmax query
            val = float(result_bindings_[0][result_var_]["value"])
            log.debug(f"Argmax {i} score: {val}")
            if _max is None or val > _max:
                _max, _max_i = val, i

        # Store computed argmaxs for this placeholder to cache file
        with open(query_cache_pth, "w") as f:
            json.dump(cert_cache | {"_version": CACHE_VERSION_ARGMAXS}, f)
            log.debug(f"Wrote cached argmax queries to {query_cache_pth}")

        # Return row index for placeholder query result with maximum argmax
        # score
        assert _max_i is not None and _max is not None, \
            f"No argmax result could be found. {error_count} queries were " + \
            "skipped due to errors."
        log.debug(f"Argmax maximum row is {_max_i} with score {_max}")
        return _max_i

    # Placeholder cache configuration
    placeholder_cache_dir = Path("placeholder-cache")
    placeholder_cache_dir.mkdir(exist_ok=True)

    for query in placeholders:
        p_name = query["name"]
        precomputed_mtimes = list(
            get_precomputed_queries_mtimes(query["query"]))

        # Can we load this placeholder from cache?
        cache_pth = Path(placeholder_cache_dir,
                         f"placeholder.{args.kg_name}.{p_name}.json")
        cached = None
        if not args.overwrite_cached_results and cache_pth.exists():
            with open(cache_pth, "r") as f:
                cached = json.load(f)
            # Cache does not match
            if cached.get("query") != query:
                cached = None
                log.debug(
                    "Discarding cached placeholder data because " +
                    "configuration of cached placeholder does not match " +
                    "placeholder in template yaml file.")
            elif cached.get("_version") != CACHE_VERSION_PLACEHOLDERS:
                cached = None
                log.debug("Discarding cached placeholder because of version " +
                          "mismatch.")
            elif cached.get("precomputed_mtimes") != precomputed_mtimes:
                cached = None
                log.debug("Discarding cached placeholder because at least " +
                          "one of the used placeholder queries has been " +
                          "recomputed since caching.")

        row: Optional[Binding] = None
        values: dict[str, str] = {}

        if cached:
            log.debug(f"Restoring cached placeholder from {cache_pth}")
            row = cached["row"]
            values = cached["values"]
        else:
            # If the placeholder has children, this means from the same row of
            # the placeholder query, multiple bindings will become placeholders.
            # This is required for example to obtain matching predicates for
            # join operations.
            children: Optional[dict[str, str]] = None
            if "children" in query:
                children = {}
                for child in query["children"]:
                    var = child["variable"]
                    if var.startswith("?"):
                        var = var[1:]
                    children[var] = child["suffix"]

            # Log current computation as this may be a longer running task
            res_pl = [
                p_name + s for s in children.values()
            ] if children else [p_name]
            log.info(colored(
                f"Computing placeholder{'' if len(res_pl) == 1 else 's'} " +
                f"{', '.join(res_pl)}...", "blue"))
            log.debug(f"Placeholder Children: {repr(children)}")

            argmax_raw = query.get("argmax")

            result_vars: list[str] = []
            result_bindings: list[Binding] = []

            try:
                # Get the result of the main placeholder query. This may contain
                # multiple rows and cols of interest.
                sparql_query = add_internal_services(query["query"])
                result_json = compute_sparql(p_name, sparql_query, args)

                # For ASK queries, we want the value of the field `boolean`. For
                # SELECT queries, we want values depending on user config.
                if "boolean" in result_json:
                    values = {"": str(result_json["boolean"]).lower()}
                else:
                    result_vars = result_json["head"]["vars"]
                    result_bindings = result_json["results"]["bindings"]
                    n_rows = len(result_bindings)
                    log.debug(f"result_vars: {result_vars}")

                    # Extract all possible values for each child placeholder
                    # from the query result
                    possible_values_per_child: \
                        dict[str, list[tuple[str, int]]] = {}
                    if not children:
                        children = {result_vars[0]: ""}
                    for column, suffix in children.items():
                        possible_values_per_child[suffix] = list(
                            get_placeholder_values(
                                result_vars, result_bindings, column))

                    assert not (argmax_raw and query.get("multiplaceholder")), \
                        "You may not use the argmax and multiplaceholder " + \
                        "options together in one placeholder configuration"

                    if argmax_raw:
                        # We use argmax to determine which row of the
                        # placeholder query will be used to set the placeholder
                        # child values

                        # Candidates for argmax
                        candidates: list[dict[str, str]] = []
                        for i in range(n_rows):
                            candidate: dict[str, str] = {}
                            for suffix in children.values():
                                candidate[suffix] = \
                                    possible_values_per_child[suffix][i][0]
                            candidates.append(candidate)

                        # Run argmax queries
                        row_number = evaluate_argmax(p_name,
                                                     argmax_raw,
                                                     candidates)
                        assert row_number is not None
                        row = result_bindings[row_number]
                        # Values for each of the child placeholders
                        values = {
                            suffix: add_iri_brackets(row[column])
                            for column, suffix in children.items()
                        }
                    else:
                        # If no argmax is used: the SPARQL result must have
                        # exactly one row or the placeholder must be declared as
                        # a multiplaceholder
                        if not query.get("multiplaceholder"):
                            assert n_rows == 1, \
                                "If no argmax query is used and the " + \
                                "placeholder is not declared as a " + \
                                "multiplaceholder, the result " + \
                                "of a placeholder query must have " + \
                                f"exactly one row, but query for {p_name}" + \
                                f" had {n_rows} rows."

                            row = result_bindings[0]

                            # Values for each of the child placeholders
                            values = {
                                suffix: add_iri_brackets(row[column])
                                for column, suffix in children.items()
                            }
                        else:
                            # Multiplaceholder: Multiple placeholders with the
                            # same semantics will be generated for multiple rows
                            # in the SPARQL result. They will be available using
                            # the placeholder name followed by '_i' for row i.
                            # Additionally, there will be a placeholder with
                            # suffix '_NUM' which contains the number of rows.
                            # This can be used with a for-each template.
                            values = {
                                f"{suffix}_{i}": add_iri_brackets(row[column])
                                for column, suffix in children.items()
                                for i, row in enumerate(result_bindings)
                            } | {"_NUM": str(n_rows)}

            except Exception as e:
                log.error(f'Error computing placeholder "{p_name}": {e}')
                continue

            # Write placeholder values to cache together with all information
            # required to check if the placeholder values are still up to date
            # and can be reused.
            with open(cache_pth, "w") as f:
                json.dump({
                    "_version": CACHE_VERSION_PLACEHOLDERS,
                    "precomputed_mtimes": precomputed_mtimes,
                    "query": query,
                    "row": row,
                    "values": values
                }, f)
                log.debug(f"Wrote cached placeholder result to {cache_pth}")

        # Log the computed values. If the result had further numeric variables,
        # log that as well (it is typically a count that is useful to know).
        additional_info = ""
        log.debug(f"Placeholder values: {repr(values)}, " +
                  f"result_bindings for used row: {row}")
        if row:
            for var, cell in row.items():
                val: Binding = cell  # type: ignore
                if "datatype" in val:
                    if val["datatype"].endswith(("#int", "#integer")):
                        additional_info += f" [{var} = {int(val['value']):,}]"
                    if val["datatype"].endswith(("#numeric", "#decimal")):
                        additional_info += \
                            f" [{var} = {float(val['value']):.2f}]"

        # Save placeholder values for each child
        for suffix, value in values.items():
            value_disp, _ = apply_prefix_definitions(value, prefix_definitions)
            log.info(colored(
                f"{p_name}{suffix} = {value_disp}{additional_info}",
                "blue"))

            # Add to result dict.
            result[p_name + suffix] = value
    return result


def apply_prefix_definitions(query: str, prefix_definitions: dict[str, str]) \
        -> tuple[str, set[str]]:
    """
    Check which of the given prefix definitions can be used in the query. For
    each such prefix definition, abbreviate the corresponding IRIs. Return the
    modified query and the set of prefixes used.
    """
    original_query = query
    prefixes_used = set()
    for prefix, iri in prefix_definitions.items():
        if f"<{iri}" in original_query:
            # Raw IRI is given and is substituted with the prefix
            query = re.sub(r"<" + iri + "([^/>]*)>", f"{prefix}:\\g<1>", query)
            prefixes_used.add(prefix)
        elif f"{prefix}:" in original_query:
            # Query already uses the prefixed version
            prefixes_used.add(prefix)
    return query, prefixes_used


def generate_queries(
    placeholders: dict[str, str],
    query_templates: list[dict[str, str]],
    prefix_definitions: dict[str, str],
    output_filename: str,
    args: argparse.Namespace,
) -> tuple[int, int, int]:
    """
    Replace the placeholders in the given queries and write the queries to
    a file, in the format specified by `args.output_format`.
    """

    # Add value for special placeholder `%LIMIT%`.
    placeholders["LIMIT"] = str(args.limit)

    # Result queries as tuples (name, description, query pretty, query one line)
    result: list[tuple[str, str, str, str]] = []

    num_queries_written = 0
    num_queries_error = 0
    num_queries_condition_false = 0

    for query_template in query_templates:
        # Get the values for the various fields (`condition` is optional).
        name = query_template["name"]
        description = query_template.get("description", "")
        # group = query_template["group"]
        query = query_template["query"]
        condition = query_template.get("condition", None)

        # If there is a condition, it must be one of the placeholders and
        # its value must be `true` or `false`. If that is no the case, we
        # report an error. If the condition evaluates to `false`, we skip
        # the query.
        if condition:
            if condition not in placeholders:
                log.error(
                    f"Error processing query template `{name}`: "
                    f"Condition `{condition}` must be one of the "
                    f"placeholders but is not, skipping query"
                )
                num_queries_error += 1
                continue
            if placeholders[condition] not in ["true", "false"]:
                log.error(
                    f"Error processing query template `{name}`: "
                    f"Condition `{condition}` must evaluate to "
                    f"either `true` or `false` but is "
                    f"`{placeholders[condition]}`, skipping query"
                )
                num_queries_error += 1
                continue
            if placeholders[condition] == "false":
                log.info(
                    colored(
                        f"Skipping query `{name}` because condition "
                        f"`{condition}` evaluates to `false`",
                        "magenta",
                    )
                )
                num_queries_condition_false += 1
                continue

        # Resolve loops for multiplaceholders first
        m = list(re.finditer(r'%begin-foreach:(?P<name>[A-Z0-9_]+)%', query))
        assert len(m) <= 1, \
            "Currently at most one foreach per template is allowed"
        if m:
            begin = m[0]
            end = re.search(r'%end-foreach:(?P<name>[A-Z0-9_]+)%', query)
            assert begin and end and begin.group("name") == end.group("name"), \
                "Foreach begin and end don't match"
            foreach_name = begin.group("name")

            # Replace foreach with the required number of repetitions
            def replace_foreach(match: re.Match) -> str:
                num_pl = foreach_name + "_NUM"
                assert num_pl in placeholders, \
                    f"Loop range placeholder {num_pl} not defined"
                assert re.match(r'\d+$', placeholders[num_pl]), \
                    f"{num_pl} must be a positive integer"
                n = int(placeholders[num_pl])
                body = match.group("body")
                res = ""
                for i in range(n):
                    # Replace all occurrences of the loop variable with its
                    # value in the current iteration
                    def replace_foreach_loop_var(match: re.Match) -> str:
                        if match.group("modifier"):
                            return str(i + int(match.group("modifier")))
                        return str(i)
                    res += re.sub(r'%#i(?P<modifier>[+-]?\d+)?%',
                                  replace_foreach_loop_var, body)
                return res
            try:
                query = re.sub(
                    r'%begin-foreach:[A-Z0-9_]+%(?P<body>(.|\n|\r)*)' +
                    r'%end-foreach:[A-Z0-9_]+%', replace_foreach, query)
            except AssertionError as e:
                log.error(e)
                num_queries_error += 1
                continue

        # Helper function for replacing a placeholder. Throws an exception
        # if the placeholder is not defined.
        def replace_placeholder(match: re.Match) -> str:
            placeholder = match.group(1)
            if placeholder in placeholders:
                return placeholders[placeholder]
            else:
                raise ValueError(
                    f"Error processing query template `{name}`: "
                    f"Placeholder `%{placeholder}%` is not defined, "
                    f"skipping query"
                )

        # Iterate over the placeholders in the query, check that they are
        # defined, and replace each by the respective value.
        try:
            query = re.sub(r"%([A-Z0-9_]+)%", replace_placeholder, query)
        except ValueError as e:
            log.error(e)
            num_queries_error += 1
            continue

        # Add prefix definitions and turn into a single line.
        query, prefixes_used = apply_prefix_definitions(
            query, prefix_definitions)
        query_single_line = re.sub(r"\s+", " ", query).strip()
        log.info(colored(f"{name} -> {query_single_line}", "blue"))
        if len(prefixes_used) > 0:
            prefixes_used_defs = [
                f"PREFIX {prefix}: <{prefix_definitions[prefix]}>"
                for prefix in prefixes_used
            ]
            query = f"{'\n'.join(prefixes_used_defs)}\n{query}"
            query_single_line = \
                f"{' '.join(prefixes_used_defs)} {query_single_line}"

        # For TSV, we have one description and one query per line.
        query = query.rstrip()
        query_single_line = query_single_line.rstrip()
        log.debug(colored(query, "yellow"))
        log.debug(colored(query_single_line, "yellow"))
        result.append((name, description, query, query_single_line))
        num_queries_written += 1

    # Custom dumper for YAML, that dumps all values of key `query` using `|-`.
    class MultiLineDumper(yaml.Dumper):
        def represent_scalar(self, tag, value, style=None):
            if isinstance(value, str) and "\n" in value:
                style = "|"
            return super().represent_scalar(tag, value, style)

    # Write the result as TSV or YAML.
    with open_file_for_writing(output_filename) as output_file:
        if args.output_format == "tsv":
            for name, description, _, query in result:
                print(f"{name} [{description}]\t{query}", file=output_file)
        else:
            assert args.output_format == "yaml", "Unsupported output format"

            # Output YAML structure differs from TSV
            yaml_dict = {
                "title": args.kg_title or args.kg_name,
                "description": args.kg_description,
                "queries": [
                    {"name": name, "description": description, "query": query}
                    for name, description, query, _ in result
                ],
            }

            # Output the YAML using custom settings to preserver order and
            # readability
            print(
                yaml.dump(yaml_dict, sort_keys=False, Dumper=MultiLineDumper),
                file=output_file,
            )

    # Return statistics.
    return (num_queries_written, num_queries_error, num_queries_condition_false)


def command_line_args() -> argparse.Namespace:
    """
    Parse the command line arguments and return them.
    """
    arg_parser = argparse.ArgumentParser(
        description="""
        SPARQL Benchmark Generator: Apply generic benchmark templates to a
        concrete knowledge graph.
        """
    )
    arg_parser.add_argument(
        "--query-templates",
        type=str,
        default="query-templates.yaml",
        help="The YAML file with the templates for the benchmark queries "
        "and the queries to compute the placeholders",
    )
    arg_parser.add_argument(
        "--sparql-endpoint",
        type=str,
        required=True,
        help="The SPARQL endpoint for computing the placeholders",
    )
    arg_parser.add_argument(
        "--kg-name",
        type=str,
        required=True,
        help="The name of the knowledge graph; the name of the "
        "output file will be based on this",
    )
    arg_parser.add_argument(
        "--kg-title",
        type=str,
        help="A human-readable title of the knowledge graph; if not provided, "
        "the value of `--kg-name` will be used automatically",
    )
    arg_parser.add_argument(
        "--kg-description",
        type=str,
        help="An optional description of the knowledge graph",
    )
    arg_parser.add_argument(
        "--output-format",
        type=str,
        choices=["tsv", "yaml"],
        default="yaml",
        help="The output format for the benchmark results (tsv or yaml"
        ", default: yaml)",
    )
    arg_parser.add_argument(
        "--prefix-definitions",
        type=str,
        help="Command to get prefix definitions (one per line)",
    )
    arg_parser.add_argument(
        "--limit",
        type=int,
        default=10,
        help="Limit for those queries with a LIMIT clause"
             " (default: 10)",
    )
    arg_parser.add_argument(
        "--log-level",
        type=str,
        default="INFO",
        choices=log_levels.keys(),
        help=f"The log level {list(log_levels.keys())}",
    )
    arg_parser.add_argument(
        "--overwrite-cached-results",
        action="store_true",
        help="If set, all placeholder queries will be re-evaluated."
    )
    arg_parser.add_argument(
        "--external-url",
        type=str,
        default=DEFAULT_EXTERNAL_URL,
        help="The URL where the SPARQL endpoint can reach this program"
    )
    arg_parser.add_argument(
        "--port",
        type=int,
        default=DEFAULT_PORT,
        help="Port where this program can serve a SERVICE used by the " +
        "SPARQL endpoint"
    )
    arg_parser.add_argument(
        "--pause-on-service",
        action="store_true",
        help="Pause for debugging when SERVICE is started"
    )
    arg_parser.add_argument(
        "--argmax-timeout",
        type=int,
        default=300,
        help="Discard placeholder candidates if the argmax query exceeds this "
        "amout of seconds in runtime."
    )
    argcomplete.autocomplete(arg_parser, always_complete_options="long")
    args = arg_parser.parse_args()
    return args


def main(args: argparse.Namespace) -> int:
    """
    Main function.
    """
    # Parse the prefix definitions (if provided).
    prefix_definitions = {}
    if args.prefix_definitions:
        prefix_definitions = parse_prefix_definitions(args.prefix_definitions)
        log.info("Parsed prefix definitions " +
                 f"(#prefixes = {len(prefix_definitions)})")
        for prefix, iri in prefix_definitions.items():
            log.debug(colored(f"PREFIX {prefix}: <{iri}>", "blue"))

    # Read the YAML file.
    with open(args.query_templates, "r") as yaml_file:
        query_templates_yaml = yaml.safe_load(yaml_file)

    precomputed_queries = query_templates_yaml["precomputed_queries"]
    placeholders = query_templates_yaml["placeholders"]
    query_templates = query_templates_yaml["queries"]

    log.info(
        f"Read query templates and placeholder queries from "
        f"`{args.query_templates}` "
        f"(#precomputed queries = {len(precomputed_queries)}, "
        f"#placeholders = {len(placeholders)}, "
        f"#queries = {len(query_templates)})"
    )

    log.info("Precomputing queries for placeholder generation ...")
    precomputed_queries_result = precompute_queries(precomputed_queries, args)

    log.info("Starting HTTP server for precomputed queries ...")
    handler = make_precomputed_queries_handler_class(
        precomputed_queries_result)
    try:
        httpd = http.server.ThreadingHTTPServer(("", args.port), handler)
    except OSError as e:
        log.error(
            f"Could not start internal HTTP server on port {args.port}: {e}")
        return 1
    try:
        server_thread = threading.Thread(target=httpd.serve_forever)
        server_thread.daemon = True
        server_thread.start()
        log.info(f"Internal HTTP server started on port {args.port}")
        if args.pause_on_service:
            print(colored("[PAUSED] ", "blue"), end="")
            input("Press enter to continue: ")

        log.info("Computing placeholders ...")
        placeholders = compute_placeholders(
            placeholders, precomputed_queries_result, prefix_definitions, args)

        log.info("Generating queries ...")
        output_filename = f"{args.kg_name}.benchmark.{args.output_format}"
        num_queries_written, num_queries_error, num_queries_condition_false = (
            generate_queries(
                placeholders, query_templates, prefix_definitions,
                output_filename, args
            )
        )

        log.info(
            f"Queries written to `{output_filename}` "
            f" (format: {args.output_format}, "
            f"#written: {num_queries_written}, "
            f"#condition-false: {num_queries_condition_false}, "
            f"#errors: {num_queries_error})"
        )
    except Exception as e:
        log.error(f"Quitting because of exception: {e}")
        return 1
    finally:
        httpd.shutdown()
        httpd.server_close()
        httpd.socket.close()
    return 0


if __name__ == "__main__":
    # Parse the command line arguments.
    args = command_line_args()
    log.setLevel(log_levels[args.log_level])
    log.info(f"SPARQL endpoint: {args.sparql_endpoint}")
    if (args.port != DEFAULT_PORT and
            args.external_url == DEFAULT_EXTERNAL_URL) or \
        (args.port == DEFAULT_PORT and
         args.external_url != DEFAULT_EXTERNAL_URL):
        log.warning(
            "Only --port or --external-url was set to a custom value." +
            "Ensure that both are configured properly if you are not " +
            "using the default port.")
    # Run main program
    exit(main(args))
