-- wrk script: POST the SPARQL query in $QUERY_FILE as a form, asking for
-- JSON results; $GRAPH, when set, becomes default-graph-uri.
local function urlencode(s)
  return (s:gsub("[^%w%-%._~]", function(c) return string.format("%%%02X", string.byte(c)) end))
end
local f = assert(io.open(os.getenv("QUERY_FILE"), "r"))
local body = "query=" .. urlencode(f:read("*a"))
f:close()
local graph = os.getenv("GRAPH")
if graph and graph ~= "" then body = body .. "&default-graph-uri=" .. urlencode(graph) end
wrk.method = "POST"
wrk.body = body
wrk.headers["Content-Type"] = "application/x-www-form-urlencoded"
wrk.headers["Accept"] = "application/sparql-results+json"

done = function(summary, latency, requests)
  io.write(string.format("WRK req/s=%.1f p50=%.1fms p99=%.1fms errors=%d requests=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.requests))
end
