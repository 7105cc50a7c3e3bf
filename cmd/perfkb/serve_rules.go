package main

import (
	"fmt"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/reasoner"
)

// serveRulesFlags bound the rule runs a client starts with POST /rules/run,
// as `perfkb reason` bounds its own: one uploaded rule file must not take
// the server's memory.
type serveRulesFlags struct {
	maxDerived   int64
	maxTermBytes int
	memory       string
	opts         reasoner.Options // set by check
	// live: rule files (or shipped sets) kept in step with every write
	// (serve_live.go); defines their --define values.
	live    []string
	defines []string
}

func (f *serveRulesFlags) bind(fs *pflag.FlagSet) {
	fs.Int64Var(&f.maxDerived, "rules-max-derived", 50_000_000, "a rule run (POST /rules/run) stops after deriving this many triples; 0: no limit")
	fs.IntVar(&f.maxTermBytes, "rules-max-term-bytes", reasoner.DefaultMaxTermBytes, "largest term a rule builtin may make in a rule run, in bytes")
	fs.StringVar(&f.memory, "rules-memory", "1GiB", "a rule run stops when the heap grows by more than this (e.g. 512MiB, 2GiB)")
	fs.StringArrayVar(&f.live, "rules", nil, "rule file or shipped set to keep in step with every write (inserts derive, deletes withdraw); repeatable")
	fs.StringArrayVar(&f.defines, "define", nil, "override a named constant of the --rules files, NAME=VALUE (repeatable)")
}

// check validates the flags and sets opts from them.
func (f *serveRulesFlags) check() (err error) {
	f.opts, err = f.options()
	return err
}

// options returns the reasoner limits the flags name.
func (f *serveRulesFlags) options() (reasoner.Options, error) {
	if f.maxDerived < 0 {
		return reasoner.Options{}, usageError(fmt.Errorf("--rules-max-derived must not be negative (0 means no limit)"))
	}
	if f.maxTermBytes <= 0 {
		return reasoner.Options{}, usageError(fmt.Errorf("--rules-max-term-bytes must be positive"))
	}
	mem, err := parseByteSize(f.memory)
	if err != nil {
		return reasoner.Options{}, usageError(fmt.Errorf("--rules-memory %q: %w", f.memory, err))
	}
	if mem <= 0 {
		return reasoner.Options{}, usageError(fmt.Errorf("--rules-memory must be positive"))
	}
	return reasoner.Options{MaxDerived: f.maxDerived, MaxTermBytes: f.maxTermBytes, MemoryBudget: mem}, nil
}
