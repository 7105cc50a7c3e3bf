// Package federation lets one perfkb query the knowledge bases of several
// grid sites (Truong, §6.5.5, Fig. 6.28): each virtual organisation runs
// its own repository service, and a client either asks one of them, asks
// several and merges the answers, or pulls data to work locally.
//
// It holds three parts:
//
//   - Client, the remote side of SPARQL 1.1 Federated Query: an
//     eval.ServiceHandler that forwards a SERVICE pattern (with the query's
//     prologue and a VALUES block for bind joins) to a SPARQL 1.1 Protocol
//     endpoint over HTTP, with per-site deadlines, retries, response size
//     and row limits, and standard result formats only, so the remote end
//     may be any SPARQL engine.
//   - Registry, the Global Experiment Metadata (GEM): the registered sites
//     and the experiments each holds, kept as triples in the graph
//     urn:x-perfkb:sites of the local store.
//   - FanOut, which rewrites a query so that its WHERE clause runs at every
//     chosen site (a UNION of SERVICE blocks) while the solution modifiers
//     and aggregates run locally; a failed site leaves a partial answer and
//     a report instead of an error.
package federation
