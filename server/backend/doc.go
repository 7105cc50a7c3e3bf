// Package backend connects the HTTP server's service interfaces to perfkb's
// engines: QueryEngine runs SPARQL through package query, Reasoner runs
// rules, lists findings and explains them through package reasoner and the
// shipped rule files of package rules, and Sites lists the store's graphs
// and keeps the remote site registry of query/federation.
//
//	server.QueryService ◀── QueryEngine ──▶ query.Prepare / query.Exec / query.Update
//	server.RuleService  ◀── Reasoner    ──▶ reasoner.LoadSources (UploadResolver) / Run / Findings / Explain
//	server.SiteRegistry ◀── Sites       ──▶ query.SiteRegistry (add, remove, refresh) / graphstore.Store
//
// The adapters translate errors into the forms the server maps to HTTP
// statuses: syntax errors keep their line and column (400), limits become
// execution errors (422), and timeouts become server.ErrTimeout (503).
package backend
