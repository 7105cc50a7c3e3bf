package main

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
)

// exposureFlags are the serve flags that decide who may reach the server
// and what a request may touch: allowed Host names, cross-origin pages,
// the public base IRI, the stall cut-off and the LOAD directory.
type exposureFlags struct {
	allowedHosts []string
	corsOrigins  []string
	publicBase   string
	stallTimeout time.Duration
	minBodyRate  int64
	bodyTimeout  time.Duration
	loadDir      string
	tokensFile   string
	bodyMemory   string
	bodyBytes    int64          // parsed from bodyMemory by validate
	access       *server.Access // read from tokensFile by validate
}

func (f *exposureFlags) bind(fs *pflag.FlagSet) {
	fs.StringSliceVar(&f.allowedHosts, "allowed-hosts", nil, "Host header names the server answers (default: the listen address, plus localhost names on loopback; * for any)")
	fs.StringSliceVar(&f.corsOrigins, "cors-origins", []string{"*"}, "origins whose pages may call the endpoint; * lets any page read (never write)")
	fs.StringVar(&f.publicBase, "public-base", "", "the server's public base IRI, for graph names it mints (default: http://LISTEN-ADDRESS)")
	fs.DurationVar(&f.stallTimeout, "stall-timeout", server.DefaultStallTimeout, "cut a client that sends or reads nothing for this long in the middle of a request")
	fs.Int64Var(&f.minBodyRate, "min-body-rate", server.DefaultMinBodyRate, "cut a client whose request body arrives slower than this many bytes per second (after one --stall-timeout; 0: no minimum)")
	fs.DurationVar(&f.bodyTimeout, "body-timeout", server.DefaultBodyTimeout, "cut a client whose request body has not arrived whole after this long")
	fs.StringVar(&f.bodyMemory, "body-memory", "512MiB", "most bytes of request bodies held whole at once (queries, updates, rule files), server-wide; a body that does not fit is answered 503 (bytes, or with KiB, MiB, KB, MB)")
	fs.StringVar(&f.tokensFile, "tokens-file", "", "JSON file of users with tokens and the graphs they may read and write (docs/access.md); with --protect-reads, reads are limited too")
	fs.StringVar(&f.loadDir, "load-dir", "", "directory SPARQL LOAD <file:…> may read from (default: LOAD of files is refused over HTTP)")
}

// validate checks the flags and makes --load-dir absolute.
func (f *exposureFlags) validate() error {
	if f.stallTimeout <= 0 {
		return usageError(fmt.Errorf("--stall-timeout must be positive"))
	}
	if f.minBodyRate < 0 {
		return usageError(fmt.Errorf("--min-body-rate must not be negative"))
	}
	if f.bodyTimeout <= 0 {
		return usageError(fmt.Errorf("--body-timeout must be positive"))
	}
	n, err := parseByteSize(f.bodyMemory)
	if err == nil && n <= 0 {
		err = fmt.Errorf("must be positive")
	}
	if err != nil {
		return usageError(fmt.Errorf("--body-memory %q: %w", f.bodyMemory, err))
	}
	f.bodyBytes = n
	if f.tokensFile != "" {
		a, err := server.ReadAccess(f.tokensFile)
		if err != nil {
			return usageError(err)
		}
		f.access = a
	}
	if f.loadDir == "" {
		return nil
	}
	abs, err := filepath.Abs(f.loadDir)
	if err != nil {
		return usageError(fmt.Errorf("--load-dir %q: %v", f.loadDir, err))
	}
	if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
		return usageError(fmt.Errorf("--load-dir %q is not a directory", f.loadDir))
	}
	f.loadDir = abs
	return nil
}

// apply puts the (validated) flags into the server's options.
func (f *exposureFlags) apply(opts *server.Options) {
	opts.AllowedHosts = f.allowedHosts
	opts.CORSOrigins = f.corsOrigins
	opts.PublicBase = f.publicBase
	opts.StallTimeout = f.stallTimeout
	opts.MinBodyRate = f.minBodyRate
	if f.minBodyRate == 0 {
		opts.MinBodyRate = -1 // server.Options: negative is "no minimum"
	}
	opts.BodyTimeout = f.bodyTimeout
	opts.BodyMemory = f.bodyBytes
	opts.Access = f.access
	if qe, ok := opts.Query.(*backend.QueryEngine); ok {
		qe.LoadDir = f.loadDir
	}
}
