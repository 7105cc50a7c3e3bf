package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
)

// defaultQueryMemory is --query-memory's default: room for ORDER BY or
// DISTINCT over about a million rows, while 64 concurrent queries of a
// server cannot all reach it without the server's --max-concurrent
// deciding first.
const defaultQueryMemory = "512MiB"

// queryMemoryFlag is --query-memory of query, serve and demo: the memory
// one query's buffering operators (GROUP BY, ORDER BY, DISTINCT, join
// tables, property paths, …) may hold.
type queryMemoryFlag struct {
	text  string
	bytes int64
}

func (f *queryMemoryFlag) bind(fs *pflag.FlagSet) {
	fs.StringVar(&f.text, "query-memory", defaultQueryMemory,
		"memory one query may hold for GROUP BY, ORDER BY, DISTINCT, joins and paths (e.g. 256MiB, 1GiB; 0: no limit); past it the query fails")
}

// parse validates the flag (a usage error when it is not a size).
func (f *queryMemoryFlag) parse() error {
	n, err := parseByteSize(f.text)
	if err != nil {
		return usageError(fmt.Errorf("--query-memory %q: %w", f.text, err))
	}
	f.bytes = n
	return nil
}

// apply gives the (parsed) budget to the server's query engine.
func (f *queryMemoryFlag) apply(opts *server.Options) {
	if qe, ok := opts.Query.(*backend.QueryEngine); ok {
		qe.QueryMemory = f.bytes
	}
}
