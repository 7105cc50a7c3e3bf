package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
)

// defaultQueryMemory is --query-memory's default: room for ORDER BY or
// DISTINCT over about a million rows, while 64 concurrent queries of a
// server cannot all reach it without the server's --max-concurrent
// deciding first.
const defaultQueryMemory = "512MiB"

// defaultQueryMemoryTotal is --query-memory-total's default: four queries
// at their full budget at once.
const defaultQueryMemoryTotal = "2GiB"

// queryMemoryFlag is --query-memory of query, serve and demo: the memory
// one query's buffering operators (GROUP BY, ORDER BY, DISTINCT, join
// tables, property paths, …) may hold.
type queryMemoryFlag struct {
	text  string
	bytes int64
	// --query-memory-total, serve and demo only: what all the queries
	// running at once may hold together.
	totalText  string
	totalBytes int64
}

func (f *queryMemoryFlag) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.text, "query-memory", defaultQueryMemory,
		"memory one query may hold for GROUP BY, ORDER BY, DISTINCT, joins and paths (e.g. 256MiB, 1GiB; 0: no limit); past it the query fails")
}

// bindServe binds --query-memory and --query-memory-total.
func (f *queryMemoryFlag) bindServe(fs *pflag.FlagSet) {
	f.bind(fs)
	fs.StringVar(&f.totalText, "query-memory-total", defaultQueryMemoryTotal,
		"memory all the queries running at once may hold together (0: no limit); past it a query gets 503 with Retry-After")
}

// parse validates the flags (a usage error when one is not a size).
func (f *queryMemoryFlag) parse() error {
	n, err := parseByteSize(f.text)
	if err != nil {
		return usageError(fmt.Errorf("--query-memory %q: %w", f.text, err))
	}
	f.bytes = n
	if f.totalText != "" {
		if f.totalBytes, err = parseByteSize(f.totalText); err != nil {
			return usageError(fmt.Errorf("--query-memory-total %q: %w", f.totalText, err))
		}
	}
	return nil
}

// apply gives the (parsed) budgets to the server's query engine.
func (f *queryMemoryFlag) apply(opts *server.Options) {
	if qe, ok := opts.Query.(*backend.QueryEngine); ok {
		qe.QueryMemory = f.bytes
		qe.MemoryPool = query.NewMemoryPool(f.totalBytes)
		if qe.Admission != nil && qe.MemoryPool != nil {
			qe.Admission.Memory = qe.MemoryPool
		}
	}
}
