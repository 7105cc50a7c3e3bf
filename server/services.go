package server

import (
	"context"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/server/graphstore"
)

// QueryService runs SPARQL queries and updates. It is the seam to the query
// package; see QueryRequest for what the protocol hands over.
type QueryService interface {
	// Query parses and starts a query. A syntax or static error must be
	// returned here (not from the result iterators) so the handler can
	// answer 400 before any result is written.
	Query(ctx context.Context, req QueryRequest) (*QueryResult, error)
	// Update parses and applies a SPARQL 1.1 Update request atomically.
	Update(ctx context.Context, req UpdateRequest) (UpdateSummary, error)
}

// UpdateSummary reports what an update request changed.
type UpdateSummary struct {
	Operations int `json:"operations"`
	Added      int `json:"added"`
	Removed    int `json:"removed"`
}

// QueryRequest is a SPARQL query as received by the protocol.
type QueryRequest struct {
	Query string
	// DefaultGraphs and NamedGraphs come from the default-graph-uri and
	// named-graph-uri parameters; when either is set they replace the
	// query's FROM and FROM NAMED clauses.
	DefaultGraphs []string
	NamedGraphs   []string
	// BaseIRI resolves relative IRIs in the query.
	BaseIRI string
	// Sites, from the sites parameter, runs the query at registered sites
	// and merges the answers: "all" or NAME,…[,local] (federation).
	Sites string
	// Scope is what the request's token may read and which sites it may
	// call (nil: everything). The query service must evaluate over
	// RestrictDataset(ds, Scope), not filter the answers afterwards, and
	// refuse SERVICE and sites outside the scope.
	Scope *Scope
}

// UpdateRequest is a SPARQL update as received by the protocol.
type UpdateRequest struct {
	Update string
	// UsingGraphs and UsingNamedGraphs come from the using-graph-uri and
	// using-named-graph-uri parameters.
	UsingGraphs      []string
	UsingNamedGraphs []string
	BaseIRI          string
	// Scope is what the request's token may read and write (nil:
	// everything); the update runs over RestrictDataset(ds, Scope).
	Scope *Scope
	// Check, when set, is given the quads the update adds before any is
	// stored; an error from it refuses the update, storing nothing (serve
	// --validate checks them against the shapes).
	Check func(ctx context.Context, added []kb.TermQuad) error
}

// ResultKind says which of the QueryResult fields holds the answer.
type ResultKind uint8

// The result kinds of SPARQL queries.
const (
	// ResultBindings is a SELECT result: Vars and Solutions.
	ResultBindings ResultKind = iota + 1
	// ResultBoolean is an ASK result: Boolean.
	ResultBoolean
	// ResultGraph is a CONSTRUCT or DESCRIBE result: Triples.
	ResultGraph
)

// QueryResult is the answer to a query. Iterators are closed by the handler.
type QueryResult struct {
	Kind      ResultKind
	Vars      []string
	Solutions SolutionIterator
	Boolean   bool
	Triples   TripleIterator
	// Federation is the per-site report of a query run with Sites; the
	// server sends it as headers and in the JSON head.
	Federation *query.FederationReport
}

// Close closes whichever iterator the result holds.
func (r *QueryResult) Close() error {
	if r == nil {
		return nil
	}
	if r.Solutions != nil {
		return r.Solutions.Close()
	}
	if r.Triples != nil {
		return r.Triples.Close()
	}
	return nil
}

// SolutionIterator streams the solutions of a SELECT query. Solution
// returns one term per variable of QueryResult.Vars, in that order; the
// zero kb.Term means unbound. The slice may be reused by the next call to
// Next.
type SolutionIterator interface {
	Next() bool
	Solution() []kb.Term
	Err() error
	Close() error
}

// TripleIterator streams the triples of a CONSTRUCT or DESCRIBE result.
type TripleIterator interface {
	Next() bool
	Triple() kb.Triple
	Err() error
	Close() error
}

// GraphStore is what the Graph Store Protocol needs from the store. The
// graph argument is an IRI term, or kb.DefaultGraph for ?default.
type GraphStore interface {
	// Graphs lists the graphs that hold triples, with their sizes.
	Graphs(ctx context.Context) ([]graphstore.GraphInfo, error)
	// Size returns the number of triples in graph (0 when it does not
	// exist).
	Size(ctx context.Context, graph kb.Term) (int64, error)
	// Triples calls emit for every triple of graph.
	Triples(ctx context.Context, graph kb.Term, emit func(kb.Triple) error) error
	// Replace atomically replaces the content of graph with the RDF read
	// from src. On any error (a syntax error included) nothing changes.
	Replace(ctx context.Context, graph kb.Term, src graphstore.RDFSource) (graphstore.GraphChange, error)
	// Append atomically adds the RDF read from src to graph.
	Append(ctx context.Context, graph kb.Term, src graphstore.RDFSource) (graphstore.GraphChange, error)
	// Drop removes every triple of graph and reports how many there were.
	Drop(ctx context.Context, graph kb.Term) (int64, error)
}

// RuleService runs rules and reports their findings; it is the seam to the
// reasoner and rules packages.
type RuleService interface {
	// Run runs the named shipped rule sets and/or an uploaded rule file over
	// the store and materializes what they derive.
	Run(ctx context.Context, req RuleRunRequest) (RuleRunReport, error)
	// Check parses and compiles a rule file without running it. A file with
	// errors returns a report with Valid false and the diagnostics; err is
	// for failures of the service itself.
	Check(ctx context.Context, name string, text string) (RuleCheckReport, error)
	// Findings lists the problems the rules asserted, filtered.
	Findings(ctx context.Context, filter FindingFilter) ([]Finding, error)
	// Explain returns the derivation of the findings about a resource; it
	// returns an error wrapping ErrNotFound when nothing was derived
	// about it.
	Explain(ctx context.Context, iri string) (Explanation, error)
}

// RuleRunRequest selects what a rule run evaluates.
type RuleRunRequest struct {
	// Sets names shipped rule sets (e.g. "rdfs", "owl-rl", "perfonto");
	// empty with an empty RuleText means the default shipped sets.
	Sets []string `json:"sets,omitempty"`
	// RuleText is an uploaded rule file; RuleName names it in messages.
	RuleText string `json:"rules,omitempty"`
	RuleName string `json:"name,omitempty"`
}

// RuleRunReport is the answer of a rule run: reasoner.Report, the shape
// `perfkb reason --format json` prints too, plus what the server keeps.
type RuleRunReport struct {
	reasoner.Report
	// Advice is the #@advice of the uploaded file (not of the shipped
	// sets), which the query page shows from now on.
	Advice []rules.Advice `json:"-"`
}

// RuleCheckReport is the outcome of validating a rule file.
type RuleCheckReport struct {
	Valid       bool         `json:"valid"`
	Rules       int          `json:"rules"`
	Diagnostics []Diagnostic `json:"diagnostics,omitempty"`
}

// Diagnostic is one error or warning with its position in a file.
type Diagnostic struct {
	File    string `json:"file,omitempty"`
	Line    int    `json:"line,omitempty"`
	Column  int    `json:"column,omitempty"`
	Message string `json:"message"`
}

// FindingFilter narrows a findings listing; empty fields match anything.
type FindingFilter struct {
	// Problem is a problem class IRI or its local name (e.g. BigMessage).
	Problem string
	// Experiment is an experiment IRI or its local name.
	Experiment string
	// Limit caps the number of findings (0 = no cap).
	Limit int
}

// Finding is one problem a rule asserted about a resource, in the one
// findings shape of perfkb (see reasoner.Finding).
type Finding = reasoner.Finding

// Explanation is the derivation of what the rules concluded about a
// resource (see reasoner.Explanation).
type Explanation = reasoner.Explanation

// Derivation explains one triple: asserted, or derived by a rule from
// premises that are themselves explained (see reasoner.Derivation).
type Derivation = reasoner.Derivation

// SiteService lists the grid sites this server knows about.
type SiteService interface {
	Sites(ctx context.Context) ([]query.SiteEntry, error)
}

// StoreStats is the part of the store the metrics and health checks read.
type StoreStats interface {
	// Quads returns the number of stored quads (an estimate is fine).
	Quads(ctx context.Context) (int64, error)
}

// TextSizeChecker is implemented by a QueryService or RuleService that
// refuses a text (a query, an update, a rule file) by its size alone,
// because parsing it would pass a memory budget. The server asks before
// it reads a body that declares its length, so a text refused for its
// size costs neither the reading nor the body memory: a client sending
// 60 MB rule files three at a time otherwise had the server copy 180 MB
// per round only to refuse them. what is "query", "update" or "rule
// file"; the error wraps ErrTooLarge.
type TextSizeChecker interface {
	CheckTextSize(what string, size int64) error
}
