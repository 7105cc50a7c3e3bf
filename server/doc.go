// Package server is perfkb's HTTP endpoint, built on gin.
//
// It speaks the SPARQL 1.1 Protocol at /sparql (queries and updates, with
// content negotiation for SPARQL JSON, XML, CSV and TSV results and
// Turtle, N-Triples, N-Quads, RDF/XML or JSON-LD graphs), the SPARQL 1.1
// Graph Store HTTP Protocol at /data (indirect ?graph=IRI or ?default, and
// direct /data/NAME for the graph whose IRI is that URL), a small rules-and-findings API (/rules/run, /rules/check,
// /findings, /explain), the site registry (/sites), /healthz, Prometheus
// /metrics, and serves an embedded query page at /.
//
//	client ──HTTP──▶ gin engine ── middleware: request log, metrics, auth,
//	                  │            concurrency limit, body limit, timeout
//	                  ├─ /sparql  ──▶ QueryService  (query package)
//	                  ├─ /data    ──▶ GraphStore    (server/graphstore over a kb.Dataset)
//	                  ├─ /rules…  ──▶ RuleService   (reasoner, rules)
//	                  └─ /sites   ──▶ SiteService   (local graphs, registered sites)
//
// The handlers depend only on the small interfaces in services.go, so the
// server can be tested with fakes and wired to the real packages by thin
// adapters: package server/graphstore keeps graphs in a kb.Dataset, and
// package server/backend connects queries, rules, analyses and sites. Errors leave the server in one JSON
// envelope modelled on Prometheus' web API:
// {"status":"error","errorType":…,"error":…}, with the line and column of
// a syntax error when the service reports one; other answers are
// {"status":"success","data":…} or SPARQL results.
//
// Results stream: output is buffered up to 32 KiB before the status line is
// committed, so an error found early still becomes an error response; an
// error after that cuts the connection (never a truncated 200 that looks
// complete). Graph Store uploads are parsed completely before anything is
// stored, so a syntax error on line N changes nothing.
package server
