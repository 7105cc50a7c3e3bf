package builtins

import (
	"fmt"
	"regexp"
	"sort"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// Env is what a builtin sees of the engine running it.
type Env interface {
	// Exists reports whether the data holds a triple matching the pattern;
	// a zero Term is a wildcard.
	Exists(s, p, o kb.Term) (bool, error)
	// Print writes one line of print() output.
	Print(line string)
	// Now is the time now() returns.
	Now() time.Time
	// Remove deletes the triple that matched body clause n (0-based, over
	// all body clauses). silent is true for drop.
	Remove(n int, silent bool) error
	// Regexp compiles (and caches) a regular expression.
	Regexp(pattern string) (*regexp.Regexp, error)
	// NewBlank returns a blank node never returned before (makeTemp).
	NewBlank() kb.Term
	// Rule is the label of the rule being run, for messages.
	Rule() string
}

// Call is one invocation of a builtin.
type Call struct {
	Name string
	// Args are the arguments; a zero Term is an unbound variable.
	Args []kb.Term
	Env  Env
}

// Bound reports whether argument i is bound.
func (c *Call) Bound(i int) bool { return !c.Args[i].IsZero() }

// Bind binds argument i to t when it is unbound; when it is bound, it
// reports whether the bound value equals t (numbers by value).
func (c *Call) Bind(i int, t kb.Term) bool {
	if c.Args[i].IsZero() {
		c.Args[i] = t
		return true
	}
	return SameValue(c.Args[i], t)
}

// Builtin describes one builtin.
type Builtin struct {
	Name string
	// MinArgs and MaxArgs bound the argument count; MaxArgs < 0 means any.
	MinArgs, MaxArgs int
	// Outputs returns the argument positions the builtin may bind when
	// called with n arguments; nil means it binds none, so every variable
	// argument must be bound before the call.
	Outputs func(n int) []int
	// Deferred builtins run after every triple pattern of the body has
	// matched, as in Jena (tests of absence such as noValue, and output).
	Deferred bool
	// Body tests (and may bind) in a rule body; nil if not allowed there.
	Body func(c *Call) (bool, error)
	// Head runs as an action in a rule head; nil if not allowed there.
	Head func(c *Call) error
	// CheckConst, when set, vets argument i when the rule gives it as a
	// constant, so that a rule file that could only fail at run time
	// (an invalid regex pattern) fails its check instead, with the
	// argument's position.
	CheckConst func(i int, t kb.Term) error
}

var registry = map[string]*Builtin{}

// register adds a builtin; it panics on a duplicate name. Only this
// package's init functions call it, so the table is fixed once the program
// starts: the registry is not mutable state (a program cannot add rule
// builtins; SPARQL extension functions are registered per query in
// query/function instead).
func register(b *Builtin) {
	if _, dup := registry[b.Name]; dup {
		panic("builtins: duplicate builtin " + b.Name)
	}
	registry[b.Name] = b
}

// Lookup returns the builtin with the given name.
func Lookup(name string) (*Builtin, bool) {
	b, ok := registry[name]
	return b, ok
}

// Names returns the names of all registered builtins, sorted.
func Names() []string {
	out := make([]string, 0, len(registry))
	for n := range registry {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}

// CheckArity reports an error when n arguments are wrong for b.
func (b *Builtin) CheckArity(n int) error {
	if n < b.MinArgs || (b.MaxArgs >= 0 && n > b.MaxArgs) {
		switch {
		case b.MaxArgs < 0:
			return fmt.Errorf("%s takes at least %d arguments, got %d", b.Name, b.MinArgs, n)
		case b.MinArgs == b.MaxArgs:
			return fmt.Errorf("%s takes %d arguments, got %d", b.Name, b.MinArgs, n)
		default:
			return fmt.Errorf("%s takes %d to %d arguments, got %d", b.Name, b.MinArgs, b.MaxArgs, n)
		}
	}
	return nil
}

// last and first are common Outputs functions.
func last(n int) []int  { return []int{n - 1} }
func first(n int) []int { return []int{0} }
