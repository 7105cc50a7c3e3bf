// Package function is the one table of SPARQL functions: the built-in
// calls of §17.4 by keyword (STRLEN, REGEX, …), the XSD constructor casts
// of §17.5 and extension functions by IRI (§17.6). Each function is
// declared once, as a Def with its name and arity; the parser
// (query/syntax) reads the names and arities from a Registry, so an
// unknown keyword or a wrong number of arguments is a positioned syntax
// error, and the evaluator (query/eval) resolves each call against the
// same Registry once, when it compiles the query, to a direct function
// value.
//
// The built-in calls and the casts are implemented by the evaluator (they
// need its value model and per-query state such as NOW and BNODE labels);
// a test there fails when a declared function has no implementation or an
// implementation has no declaration. Extension functions carry their
// implementation in Def.Call, so any package can add some:
//
//	funcs := function.Builtin().Clone()
//	err := funcs.Register(function.Def{Name: "http://example.org/f#double", Min: 1, Max: 1, Call: double})
//	p, err := query.Prepare(text, query.Options{Functions: funcs})
//
// Extension functions decode numeric arguments with ParseNumeric and write
// numeric results with Double or Numeric.Term, the value model (XSD numeric
// types, promotion kinds, canonical lexical forms) the evaluator computes
// with, so an extension's numbers print as the built-ins' do.
//
// Builtin returns a shared registry that cannot be changed (Register on it
// fails), so there is no global mutable state: a program that wants more
// functions clones it and passes its clone through the options.
package function

import (
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"sync"

	"github.com/perfkb/perfkb/kb"
)

// Namespace is where perfkb's own extension functions are named, e.g.
// <urn:x-perfkb:function#fuzzyTriangle> (query/function/fuzzyfn).
const Namespace = "urn:x-perfkb:function#"

// Variadic as a Def's Max means there is no upper bound on the arguments.
const Variadic = -1

// ErrExpression is the SPARQL expression error (§17.3): a type error or any
// other failure that leaves an expression without a value. FILTER treats it
// as false and BIND leaves its variable unbound; an extension function
// returns an error wrapping it (see Errorf) for an argument it cannot take.
// Any other error from a function stops the query.
var ErrExpression = errors.New("sparql: expression error")

// Errorf returns an expression error (wrapping ErrExpression) with a
// reason.
func Errorf(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrExpression}, args...)...)
}

// Func implements an extension function over its evaluated arguments
// (len(args) is within the declared arity). It must not keep args: the
// evaluator reuses the slice for the next row.
type Func func(args []kb.Term) (kb.Term, error)

// Def declares one function.
type Def struct {
	// Name is the upper-case keyword of a built-in call (the
	// algebra.Builtin name, e.g. "STRLEN") or the absolute IRI of a cast
	// or extension function.
	Name string
	// Aliases are other keywords for the same built-in (URI for IRI).
	Aliases []string
	// Min and Max bound the number of arguments; Max is Variadic for no
	// upper bound.
	Min, Max int
	// Special marks the functional forms whose arguments are not all
	// evaluated first (BOUND, IF, COALESCE, §17.4.1): errors in their
	// arguments do not simply propagate.
	Special bool
	// Volatile marks a built-in whose value may differ between calls with
	// the same arguments (RAND, UUID, STRUUID, BNODE). The evaluator
	// computes a call of any other built-in or cast whose arguments are
	// all constant once, when it compiles the query; extension functions
	// are never folded.
	Volatile bool
	// Doc says in a line what the function computes.
	Doc string
	// Call implements an extension function. It is nil for the built-in
	// calls and casts, which the evaluator implements.
	Call Func
}

// IsIRI reports whether the function is called by IRI (a cast or an
// extension function) rather than by keyword.
func (d *Def) IsIRI() bool { return strings.Contains(d.Name, ":") }

// CheckArity returns an error such as "STRLEN takes 1 argument, found 2"
// when n arguments are not allowed.
func (d *Def) CheckArity(n int) error {
	if n >= d.Min && (d.Max == Variadic || n <= d.Max) {
		return nil
	}
	return fmt.Errorf("%s takes %s, found %d", d.display(), d.ArityText(), n)
}

// ArityText describes the arity: "1 argument", "2 or 3 arguments", "at
// least 1 argument", "no arguments".
func (d *Def) ArityText() string {
	switch {
	case d.Min == d.Max:
		return plural(d.Min)
	case d.Max == Variadic && d.Min == 0:
		return "any number of arguments"
	case d.Max == Variadic:
		return "at least " + plural(d.Min)
	case d.Max == d.Min+1:
		return strconv.Itoa(d.Min) + " or " + plural(d.Max)
	}
	return strconv.Itoa(d.Min) + " to " + plural(d.Max)
}

func (d *Def) display() string {
	if d.IsIRI() {
		return "<" + d.Name + ">"
	}
	return d.Name
}

func plural(n int) string {
	switch n {
	case 0:
		return "no arguments"
	case 1:
		return "1 argument"
	}
	return strconv.Itoa(n) + " arguments"
}

// Registry holds function declarations by keyword and IRI. A registry is
// not safe for concurrent Register calls; once built, lookups may run
// concurrently (queries share it).
type Registry struct {
	keywords map[string]*Def // upper-case keyword or alias
	iris     map[string]*Def
	closed   []string // namespaces whose every function is declared
	frozen   bool
}

// NewRegistry returns an empty registry.
func NewRegistry() *Registry {
	return &Registry{keywords: map[string]*Def{}, iris: map[string]*Def{}}
}

// Builtin returns the SPARQL 1.1 built-in calls and the XSD casts. The
// registry is shared and frozen: Register on it fails; Clone it to add
// functions.
func Builtin() *Registry { return builtin() }

var builtin = sync.OnceValue(func() *Registry {
	r := NewRegistry()
	for i := range builtinDefs {
		if err := r.add(builtinDefs[i]); err != nil {
			panic("function: bad built-in table: " + err.Error())
		}
	}
	for i := range castDefs {
		if err := r.add(castDefs[i]); err != nil {
			panic("function: bad cast table: " + err.Error())
		}
	}
	// Every XSD function the evaluator knows is declared, so a call of
	// another (xsd:date, xsd:duration, a typo) is reported as unsupported
	// at its position instead of silently failing every row.
	r.closed = append(r.closed, xsdNS)
	return r.Freeze()
})

// Clone returns a registry with the same declarations that Register may
// extend.
func (r *Registry) Clone() *Registry {
	c := &Registry{keywords: make(map[string]*Def, len(r.keywords)), iris: make(map[string]*Def, len(r.iris)),
		closed: append([]string(nil), r.closed...)}
	for k, d := range r.keywords {
		c.keywords[k] = d
	}
	for k, d := range r.iris {
		c.iris[k] = d
	}
	return c
}

// Freeze makes r unchangeable (Register and Close fail) and returns it, so
// that a registry built once can be shared by every query without being
// mutable state.
func (r *Registry) Freeze() *Registry {
	r.frozen = true
	return r
}

// Register declares an extension function. Its Name must be an absolute
// IRI not declared yet (keywords are fixed by the SPARQL grammar), Call
// must be set and the arity must be sensible. It fails on the registry
// Builtin returns; Clone that first.
func (r *Registry) Register(d Def) error {
	if r.frozen {
		return errors.New("function: the registry is frozen (shared); Register on a Clone")
	}
	if !d.IsIRI() {
		return fmt.Errorf("function: %q: extension functions are named by an absolute IRI", d.Name)
	}
	if d.Call == nil {
		return fmt.Errorf("function: <%s> has no implementation (Call)", d.Name)
	}
	if d.Special {
		return fmt.Errorf("function: <%s>: only built-in calls are special forms", d.Name)
	}
	if d.Volatile {
		return fmt.Errorf("function: <%s>: extension functions are never folded, Volatile is for built-ins", d.Name)
	}
	return r.add(d)
}

// Close declares that every function of namespace is registered: a call of
// another IRI in it is then an error at parse time ("unknown function")
// instead of an expression error on every row. Calls of IRIs outside
// closed namespaces stay legal, as the grammar allows any IRI (§17.6).
func (r *Registry) Close(namespace string) error {
	if r.frozen {
		return errors.New("function: the registry is frozen (shared); Close on a Clone")
	}
	if namespace == "" {
		return errors.New("function: empty namespace")
	}
	r.closed = append(r.closed, namespace)
	return nil
}

func (r *Registry) add(d Def) error {
	if d.Name == "" {
		return errors.New("function: a function needs a name")
	}
	if d.Min < 0 || (d.Max != Variadic && d.Max < d.Min) {
		return fmt.Errorf("function: %s: bad arity %d..%d", d.display(), d.Min, d.Max)
	}
	def := &d
	if d.IsIRI() {
		if len(d.Aliases) > 0 {
			return fmt.Errorf("function: <%s>: only keywords have aliases", d.Name)
		}
		if _, dup := r.iris[d.Name]; dup {
			return fmt.Errorf("function: <%s> is already declared", d.Name)
		}
		r.iris[d.Name] = def
		return nil
	}
	for _, k := range append([]string{d.Name}, d.Aliases...) {
		if k != strings.ToUpper(k) {
			return fmt.Errorf("function: keyword %q is not upper-case", k)
		}
		if _, dup := r.keywords[k]; dup {
			return fmt.Errorf("function: keyword %s is already declared", k)
		}
		r.keywords[k] = def
	}
	return nil
}

// Keyword returns the built-in called by word, in any letter case (an
// alias gives the built-in's Def, e.g. "uri" gives IRI).
func (r *Registry) Keyword(word string) (*Def, bool) {
	d, ok := r.keywords[word]
	if !ok {
		d, ok = r.keywords[strings.ToUpper(word)]
	}
	return d, ok
}

// IRI returns the function named by iri.
func (r *Registry) IRI(iri string) (*Def, bool) {
	d, ok := r.iris[iri]
	return d, ok
}

// Closed reports whether iri lies in a namespace whose functions are all
// declared (see Close), so calling it when undeclared is an error.
func (r *Registry) Closed(iri string) bool {
	for _, ns := range r.closed {
		if strings.HasPrefix(iri, ns) {
			return true
		}
	}
	return false
}

// Defs returns every declaration once (aliases do not repeat it), keywords
// first, each group sorted by name.
func (r *Registry) Defs() []*Def {
	seen := map[*Def]bool{}
	var out []*Def
	for _, d := range r.keywords {
		if !seen[d] {
			seen[d] = true
			out = append(out, d)
		}
	}
	for _, d := range r.iris {
		out = append(out, d)
	}
	sort.Slice(out, func(i, j int) bool {
		if a, b := out[i].IsIRI(), out[j].IsIRI(); a != b {
			return b
		}
		return out[i].Name < out[j].Name
	})
	return out
}
