-- wrk script: Graph Store Protocol appends. Every request POSTs an
-- N-Triples body of $TRIPLES_PER_POST triples (1000 by default) to the
-- URL (/data?graph=...), with subjects unique to the request, and the
-- write token from $TOKEN.
local n = tonumber(os.getenv("TRIPLES_PER_POST") or "1000")
local lines = {}
for i = 1, n do
  lines[i] = string.format('<http://perfkb.example/gsp/@/s%d> <http://perfkb.example/gsp/p%d> "%d"^^<http://www.w3.org/2001/XMLSchema#integer> .', i, i % 7, i)
end
local template = table.concat(lines, "\n") .. "\n"
local counter = 0

local threads = 0
setup = function(thread)
  threads = threads + 1
  thread:set("id", threads)
end

init = function(args)
  wrk.method = "POST"
  wrk.headers["Content-Type"] = "application/n-triples"
  wrk.headers["Authorization"] = "Bearer " .. os.getenv("TOKEN")
end

request = function()
  counter = counter + 1
  local tag = string.format("t%d-%d-r%d", id, os.time(), counter)
  return wrk.format(nil, nil, nil, (template:gsub("@", tag)))
end

done = function(summary, latency, requests)
  io.write(string.format("WRK req/s=%.1f p50=%.1fms p99=%.1fms errors=%d requests=%d\n",
    summary.requests / (summary.duration / 1e6), latency:percentile(50) / 1000,
    latency:percentile(99) / 1000,
    summary.errors.status + summary.errors.connect + summary.errors.read + summary.errors.write + summary.errors.timeout,
    summary.requests))
end
