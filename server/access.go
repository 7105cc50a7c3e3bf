package server

import (
	"context"
	"crypto/subtle"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"
	"github.com/perfkb/perfkb/kb"
)

// Access per graph. A tokens file names users, each with a token and the
// graphs (by IRI prefix) it may read and write and the registered sites
// its queries may call. Every route asks the request's scope: SPARQL and
// the Graph Store Protocol per graph (a query runs over a dataset that
// holds only the readable graphs, so no query form can count the others),
// the routes that draw on the whole store (rules, findings, analyses,
// validation, the site registry, metrics) only with an unrestricted scope.

// AllGraphs is the scope entry that covers every graph (and, in "sites",
// every registered site).
const AllGraphs = "*"

// DefaultGraphScope is the scope entry for the store's default graph
// (urn:x-arq:DefaultGraph), which no IRI prefix a user would write covers.
const DefaultGraphScope = "default"

// User is one entry of a tokens file.
type User struct {
	// Name identifies the user in logs and is the user name of HTTP Basic
	// authentication.
	Name string `json:"name"`
	// Token is the bearer token (or the Basic password); at least 16
	// characters.
	Token string `json:"token"`
	// Read and Write are graph IRI prefixes, AllGraphs or
	// DefaultGraphScope. Write implies Read.
	Read  []string `json:"read,omitempty"`
	Write []string `json:"write,omitempty"`
	// Sites are the registered sites (by name) the user's queries may
	// call through SERVICE or the sites parameter; AllGraphs for all.
	Sites []string `json:"sites,omitempty"`
}

// Anonymous is the scope of a request without a token, in a tokens file:
// the graphs anyone may read and the sites their queries may call. It has
// no write scope: writes always need a token.
type Anonymous struct {
	Read  []string `json:"read"`
	Sites []string `json:"sites,omitempty"`
}

// Access is the parsed tokens file: its users, looked up by token, and
// what a request without a token may read.
type Access struct {
	users     []User
	anonymous *Scope // nil: as the server's ProtectReads says
}

// minTokenLength is the shortest token a tokens file may hold.
const minTokenLength = 16

// ReadAccess reads a tokens file (JSON: {"anonymous": Anonymous,
// "users": [User, …]}, "anonymous" optional).
func ReadAccess(path string) (*Access, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("tokens file: %w", err)
	}
	a, err := ParseAccess(data)
	if err != nil {
		return nil, fmt.Errorf("tokens file %s: %w", path, err)
	}
	return a, nil
}

// ParseAccess parses the text of a tokens file.
func ParseAccess(data []byte) (*Access, error) {
	var doc struct {
		Anonymous *Anonymous `json:"anonymous"`
		Users     []User     `json:"users"`
	}
	dec := json.NewDecoder(strings.NewReader(string(data)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&doc); err != nil {
		return nil, err
	}
	names, tokens := map[string]bool{}, map[string]bool{}
	for i, u := range doc.Users {
		switch {
		case u.Name == "" || strings.ContainsAny(u.Name, ":\r\n"):
			return nil, fmt.Errorf("user %d: a name is needed (no colon)", i+1)
		case names[u.Name]:
			return nil, fmt.Errorf("user %q appears twice", u.Name)
		case len(u.Token) < minTokenLength:
			return nil, fmt.Errorf("user %q: the token must have at least %d characters", u.Name, minTokenLength)
		case tokens[u.Token]:
			return nil, fmt.Errorf("user %q: the token is another user's", u.Name)
		}
		for _, p := range append(append(append([]string(nil), u.Read...), u.Write...), u.Sites...) {
			if p == "" {
				return nil, fmt.Errorf("user %q: an empty scope entry (write %q for all)", u.Name, AllGraphs)
			}
		}
		names[u.Name], tokens[u.Token] = true, true
	}
	a := &Access{users: doc.Users}
	if an := doc.Anonymous; an != nil {
		for _, p := range append(append([]string(nil), an.Read...), an.Sites...) {
			if p == "" {
				return nil, fmt.Errorf("anonymous: an empty scope entry (write %q for all)", AllGraphs)
			}
		}
		a.anonymous = &Scope{read: slices.Clone(an.Read), sites: slices.Clone(an.Sites)}
	}
	return a, nil
}

// HasAnonymous reports whether the tokens file says what requests without
// a token may read.
func (a *Access) HasAnonymous() bool { return a != nil && a.anonymous != nil }

// lookup finds the user of token (and, for HTTP Basic, name), comparing
// every token in constant time so the answer's timing does not tell how
// much of a token was right.
func (a *Access) lookup(token, name string, basic bool) (User, bool) {
	var found User
	ok := 0
	for _, u := range a.users {
		m := subtle.ConstantTimeCompare([]byte(token), []byte(u.Token))
		if basic {
			m &= subtle.ConstantTimeCompare([]byte(name), []byte(u.Name))
		}
		if m == 1 {
			found = u
		}
		ok |= m
	}
	return found, ok == 1
}

// Writer returns the user of token when the tokens file gives it a write
// scope that covers graph (an IRI): the check of the listeners that take
// data into one graph outside the HTTP routes (perfkb sensor-listen and
// otlp-listen). Tokens are compared in constant time.
func (a *Access) Writer(token, graph string) (string, bool) {
	if a == nil {
		return "", false
	}
	u, ok := a.lookup(token, "", false)
	if !ok || !u.scope().CanWrite(graph) {
		return "", false
	}
	return u.Name, true
}

// Scope is what one request may read, write and call.
type Scope struct {
	User  string // "" for an anonymous reader
	read  []string
	write []string
	sites []string
}

// fullScope is the scope of the server's --token: everything.
func fullScope(user string) *Scope {
	all := []string{AllGraphs}
	return &Scope{User: user, read: all, write: all, sites: all}
}

// readOnlyScope is an anonymous reader's when reads are open.
func readOnlyScope() *Scope {
	all := []string{AllGraphs}
	return &Scope{read: all, sites: all}
}

// noReadScope is an anonymous reader's under ProtectReads: nothing.
func noReadScope() *Scope { return &Scope{} }

// anonymousScope is what a request without a token may read: the tokens
// file's "anonymous" entry when it has one, else everything, or nothing
// under --protect-reads (which is the entry {"read": []}).
func (s *Server) anonymousScope() *Scope {
	switch {
	case s.opts.Access.HasAnonymous():
		return s.opts.Access.anonymous
	case s.opts.ProtectReads:
		return noReadScope()
	}
	return readOnlyScope()
}

// withAnonymous widens a token's scope by what anyone may read: a token
// never sees less than a request without one.
func (s *Scope) withAnonymous(anon *Scope) *Scope {
	if len(anon.read) == 0 && len(anon.sites) == 0 {
		return s
	}
	return &Scope{User: s.User, write: s.write,
		read:  append(slices.Clone(s.read), anon.read...),
		sites: append(slices.Clone(s.sites), anon.sites...)}
}

// readsNothing reports whether the scope may read no graph at all.
func (s *Scope) readsNothing() bool { return s != nil && len(s.read) == 0 }

func (u User) scope() *Scope {
	return &Scope{User: u.Name, read: append(append([]string(nil), u.Read...), u.Write...), write: u.Write, sites: u.Sites}
}

func covers(entries []string, graph string) bool {
	for _, e := range entries {
		switch {
		case e == AllGraphs:
			return true
		case e == DefaultGraphScope:
			if graph == kb.DefaultGraphIRI {
				return true
			}
		case strings.HasPrefix(graph, e):
			return true
		}
	}
	return false
}

func coversAll(entries []string) bool {
	for _, e := range entries {
		if e == AllGraphs {
			return true
		}
	}
	return false
}

// CanRead reports whether the scope may read the graph named graph (an
// IRI, or kb.DefaultGraphIRI).
func (s *Scope) CanRead(graph string) bool { return s == nil || covers(s.read, graph) }

// CanWrite reports whether the scope may change the graph.
func (s *Scope) CanWrite(graph string) bool { return s == nil || covers(s.write, graph) }

// CanWriteAny reports whether the scope may write at all.
func (s *Scope) CanWriteAny() bool { return s == nil || len(s.write) > 0 }

// ReadsAll reports whether the scope reads every graph.
func (s *Scope) ReadsAll() bool { return s == nil || coversAll(s.read) }

// WritesAll reports whether the scope writes every graph.
func (s *Scope) WritesAll() bool { return s == nil || coversAll(s.write) }

// CanCallSite reports whether the scope's queries may call the registered
// site name.
func (s *Scope) CanCallSite(name string) bool {
	if s == nil || coversAll(s.sites) {
		return true
	}
	for _, n := range s.sites {
		if n == name {
			return true
		}
	}
	return false
}

// scopeKey is the gin context key of the request's scope.
const scopeKey = "perfkb.scope"

// requestScope is the scope authorize gave the request (nil: everything,
// on routes without authorization).
func requestScope(c *gin.Context) *Scope {
	if v, ok := c.Get(scopeKey); ok {
		if s, ok := v.(*Scope); ok {
			return s
		}
	}
	return nil
}

// ErrGraphForbidden is the error of a write to a graph outside the
// request's scope.
var ErrGraphForbidden = fmt.Errorf("%w: the token may not write this graph", ErrForbidden)

// RestrictDataset returns ds as the scope sees it: only the quads of the
// graphs it may read are matched, counted or listed, and writes to a graph
// outside its write scope fail with ErrGraphForbidden (the whole delta:
// Apply is atomic). A scope that reads and writes everything gets ds
// itself. The view hides every optional interface of ds, so no fast path
// reaches the store around it.
//
// A query only reads: RestrictReads gives it ds itself when the scope reads
// everything, whatever it may write, so its evaluation keeps the store's
// fast paths.
func RestrictDataset(ds kb.Dataset, s *Scope) kb.Dataset {
	if s.ReadsAll() && s.WritesAll() {
		return ds
	}
	return &scopedDataset{Dataset: ds, scope: s, readable: map[kb.ID]bool{}}
}

// RestrictReads is RestrictDataset for a request that cannot write (a
// SPARQL query).
func RestrictReads(ds kb.Dataset, s *Scope) kb.Dataset {
	if s.ReadsAll() {
		return ds
	}
	return RestrictDataset(ds, s)
}

type scopedDataset struct {
	kb.Dataset
	scope    *Scope
	mu       sync.Mutex     // SERVICE and prefetches match concurrently
	readable map[kb.ID]bool // by graph ID, as resolved
}

func (d *scopedDataset) graphName(ctx context.Context, g kb.ID) (string, error) {
	t, err := d.Dataset.Resolve(ctx, g)
	if err != nil {
		return "", err
	}
	return t.Value, nil
}

func (d *scopedDataset) canRead(ctx context.Context, g kb.ID) (bool, error) {
	d.mu.Lock()
	ok, seen := d.readable[g]
	d.mu.Unlock()
	if seen {
		return ok, nil
	}
	name, err := d.graphName(ctx, g)
	if err != nil {
		return false, err
	}
	ok = d.scope.CanRead(name)
	d.mu.Lock()
	d.readable[g] = ok
	d.mu.Unlock()
	return ok, nil
}

func (d *scopedDataset) canWrite(ctx context.Context, g kb.ID) (bool, string, error) {
	name, err := d.graphName(ctx, g)
	if err != nil {
		return false, "", err
	}
	return d.scope.CanWrite(name), name, nil
}

// Lookup implements kb.Dataset. The name of a graph the scope may not
// read is unknown to it unless a readable graph uses the term: otherwise
// FROM NAMED <g> { GRAPH ?g {} } would tell that such a graph exists.
func (d *scopedDataset) Lookup(ctx context.Context, t kb.Term) (kb.ID, bool, error) {
	id, ok, err := d.Dataset.Lookup(ctx, t)
	if err != nil || !ok || !t.IsIRI() || d.scope.CanRead(t.Value) {
		return id, ok, err
	}
	if n, err := d.Dataset.Count(ctx, kb.Pattern{G: id}, true); err != nil || n == 0 {
		return id, ok, err // not a graph's name
	}
	for _, p := range []kb.Pattern{{S: id}, {P: id}, {O: id}} {
		if n, err := d.Count(ctx, p, true); err != nil || n > 0 {
			return id, ok, err
		}
	}
	return 0, false, nil
}

// Match implements kb.Dataset.
func (d *scopedDataset) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	if p.G != kb.Any {
		ok, err := d.canRead(ctx, p.G)
		if err != nil {
			return kb.NewErrorIterator(err)
		}
		if !ok {
			return kb.NewSliceIterator(nil)
		}
		return d.Dataset.Match(ctx, p)
	}
	graphs, err := d.Graphs(ctx)
	if err != nil {
		return kb.NewErrorIterator(err)
	}
	return &graphsIterator{ctx: ctx, ds: d.Dataset, p: p, graphs: graphs}
}

// graphsIterator matches a pattern in each of a list of graphs in turn.
type graphsIterator struct {
	ctx    context.Context
	ds     kb.Dataset
	p      kb.Pattern
	graphs []kb.ID
	cur    kb.QuadIterator
	err    error
}

func (it *graphsIterator) Next() bool {
	for {
		if it.cur != nil {
			if it.cur.Next() {
				return true
			}
			it.err = it.cur.Err()
			it.cur.Close()
			it.cur = nil
			if it.err != nil {
				return false
			}
		}
		if len(it.graphs) == 0 {
			return false
		}
		p := it.p
		p.G, it.graphs = it.graphs[0], it.graphs[1:]
		it.cur = it.ds.Match(it.ctx, p)
	}
}

func (it *graphsIterator) Quad() kb.Quad { return it.cur.Quad() }
func (it *graphsIterator) Err() error    { return it.err }
func (it *graphsIterator) Close() error {
	if it.cur != nil {
		return it.cur.Close()
	}
	return nil
}

// Count implements kb.Dataset.
func (d *scopedDataset) Count(ctx context.Context, p kb.Pattern, exact bool) (int64, error) {
	if p.G != kb.Any {
		ok, err := d.canRead(ctx, p.G)
		if err != nil || !ok {
			return 0, err
		}
		return d.Dataset.Count(ctx, p, exact)
	}
	graphs, err := d.Graphs(ctx)
	if err != nil {
		return 0, err
	}
	var n int64
	for _, g := range graphs {
		p.G = g
		c, err := d.Dataset.Count(ctx, p, exact)
		if err != nil {
			return 0, err
		}
		n += c
	}
	return n, nil
}

// Graphs implements kb.Dataset: the readable graphs only.
func (d *scopedDataset) Graphs(ctx context.Context) ([]kb.ID, error) {
	all, err := d.Dataset.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	var out []kb.ID
	for _, g := range all {
		ok, err := d.canRead(ctx, g)
		if err != nil {
			return nil, err
		}
		if ok {
			out = append(out, g)
		}
	}
	return out, nil
}

// Stats implements kb.Dataset with the readable graphs' counts only.
func (d *scopedDataset) Stats(ctx context.Context) (kb.Stats, error) {
	st, err := d.Dataset.Stats(ctx)
	if err != nil {
		return st, err
	}
	out := kb.Stats{Terms: st.Terms, Approximate: st.Approximate, ByGraph: map[kb.ID]int64{}}
	for g, n := range st.ByGraph {
		if ok, err := d.canRead(ctx, g); err != nil {
			return kb.Stats{}, err
		} else if ok {
			out.ByGraph[g] = n
			out.Quads += n
		}
	}
	if st.ByPredicateGraph != nil {
		out.ByPredicate, out.ByPredicateGraph = map[kb.ID]int64{}, map[[2]kb.ID]int64{}
		for k, n := range st.ByPredicateGraph {
			if _, ok := out.ByGraph[k[1]]; ok {
				out.ByPredicateGraph[k] = n
				out.ByPredicate[k[0]] += n
			}
		}
	}
	return out, nil
}

// Apply implements kb.Dataset: every quad must be in a writable graph.
func (d *scopedDataset) Apply(ctx context.Context, delta kb.Delta) error {
	for _, qs := range [2][]kb.Quad{delta.Remove, delta.Add} {
		checked := map[kb.ID]bool{}
		for _, q := range qs {
			if checked[q.G] {
				continue
			}
			ok, name, err := d.canWrite(ctx, q.G)
			if err != nil {
				return err
			}
			if !ok {
				return fmt.Errorf("%w: <%s>", ErrGraphForbidden, name)
			}
			checked[q.G] = true
		}
	}
	return d.Dataset.Apply(ctx, delta)
}

// BeginBulk implements kb.Dataset: bulk loads are for unrestricted scopes.
func (d *scopedDataset) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	return nil, fmt.Errorf("%w: bulk loads need a token that writes every graph", ErrForbidden)
}
