package query

import (
	"sync"

	"github.com/perfkb/perfkb/query/function"
	"github.com/perfkb/perfkb/query/function/fuzzyfn"
	"github.com/perfkb/perfkb/query/function/modelfn"
)

// DefaultFunctions returns the functions queries may call when
// Options.Functions is nil: the SPARQL built-ins and XSD casts
// (function.Builtin) and perfkb's extension functions in
// function.Namespace (the fuzzy membership functions of
// query/function/fuzzyfn, pf:predict of query/function/modelfn). That namespace is closed, so a misspelt perfkb
// function is a syntax error at its position. The registry is shared and
// frozen; Clone it to register more.
func DefaultFunctions() *function.Registry { return defaultFunctions() }

var defaultFunctions = sync.OnceValue(func() *function.Registry {
	r := function.Builtin().Clone()
	if err := fuzzyfn.Register(r); err != nil {
		panic("query: registering the fuzzy functions: " + err.Error())
	}
	if err := modelfn.Register(r); err != nil {
		panic("query: registering pf:predict: " + err.Error())
	}
	if err := r.Close(function.Namespace); err != nil {
		panic("query: " + err.Error())
	}
	return r.Freeze()
})

// functions is the registry opts selects.
func functions(opts Options) *function.Registry {
	if opts.Functions != nil {
		return opts.Functions
	}
	return DefaultFunctions()
}
