package eval

import (
	"errors"
	"sync"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/algebra"
)

// pathNode evaluates a property path (§18.5): sequences and alternatives
// as joins and unions, * and + with the ALP algorithm (a visited set per
// start node, so cycles terminate), ? and * including zero-length pairs.
type pathNode struct {
	nodeInfo
	subj, obj tpos
	path      algebra.PathExpr
	graph     graphRef
	text      func() string // explain text, formatted on demand
	// A path with * or + over fixed graphs, fed one bound end per row,
	// remembers each end's pairs: rows that repeat an end (many subjects
	// of one code region, say) do not walk the closure again.
	memoOK bool
	memoMu sync.Mutex
	memo   map[[2]kb.ID][][2]kb.ID
	pairs  int         // in memo
	forest forestState // closure counts (pathforest.go)
}

// pathMemoMax bounds the pairs a pathNode remembers.
const pathMemoMax = 1 << 20

// hasClosure reports whether p holds * or +.
func hasClosure(p algebra.PathExpr) bool {
	switch x := p.(type) {
	case *algebra.PathZeroOrMore, *algebra.PathOneOrMore:
		return true
	case *algebra.PathInverse:
		return hasClosure(x.Path)
	case *algebra.PathSeq:
		return hasClosure(x.Left) || hasClosure(x.Right)
	case *algebra.PathAlt:
		return hasClosure(x.Left) || hasClosure(x.Right)
	case *algebra.PathZeroOrOne:
		return hasClosure(x.Path)
	}
	return false
}

func (ex *executor) compilePath(p *algebra.Path, sc scope) (node, error) {
	n := &pathNode{path: p.Path, graph: sc.graph, text: func() string { return p.Subject.String() + " " + p.Path.String() + " " + p.Object.String() }}
	n.est = -1
	n.memoOK = sc.graph.kind != gSlot && hasClosure(p.Path)
	for i, nd := range []algebra.Node{p.Subject, p.Object} {
		var pos tpos
		if nd.IsVar() {
			pos = tpos{slot: ex.vars.slot(nd.Var)}
		} else {
			id, err := ex.dict.id(nd.Term) // may be temporary: zero-length paths still match it
			if err != nil {
				return nil, err
			}
			pos = tpos{id: id, slot: -1}
		}
		if i == 0 {
			n.subj = pos
		} else {
			n.obj = pos
		}
	}
	return n, nil
}

type pathCtx struct {
	ex     *executor
	graphs []kb.ID
	dedupe bool
	// constants are the path's constant ends: zero-length paths match them
	// even when the graph lacks them, unlike terms bound by variables.
	constants map[kb.ID]bool
	// hidden are the graphs a walk of the union default graph leaves out
	// (kb.HiddenGraphs), as a BGP does; nil otherwise.
	hidden map[kb.ID]bool
}

func (n *pathNode) run(ex *executor, seed row, emit func(row) bool) error {
	emit = n.count(emit)
	out := func(x, y kb.ID) error {
		out := seed.clone(len(seed))
		if n.subj.slot >= 0 {
			if out[n.subj.slot] != 0 && out[n.subj.slot] != x {
				return nil
			}
			out[n.subj.slot] = x
		}
		if n.obj.slot >= 0 {
			if out[n.obj.slot] != 0 && out[n.obj.slot] != y {
				return nil
			}
			out[n.obj.slot] = y
		}
		if !emit(out) {
			return errStop
		}
		return nil
	}
	pairs, memo, err := n.endPairs(ex, seed, out)
	if err != nil || !memo {
		return err
	}
	for _, p := range pairs {
		if err := out(p[0], p[1]); err != nil {
			return err
		}
	}
	return nil
}

// endPairs returns the path's (subject, object) pairs for the ends seed
// binds, from the memo or walked and remembered, with memo true; where
// the memo does not apply it walks the path calling direct with each pair
// instead, and returns memo false.
func (n *pathNode) endPairs(ex *executor, seed row, direct func(x, y kb.ID) error) (pairs [][2]kb.ID, memo bool, err error) {
	get := func(p tpos) kb.ID {
		if p.slot < 0 {
			return p.id
		}
		return seed[p.slot]
	}
	bg := bgpNode{graph: n.graph}
	graphs, dedupe := bg.graphsFor(ex, seed)
	pc := &pathCtx{ex: ex, graphs: graphs, dedupe: dedupe, constants: map[kb.ID]bool{}}
	if n.graph.kind == gDefault {
		pc.hidden = ex.hidden
	}
	for _, p := range []tpos{n.subj, n.obj} {
		if p.slot < 0 {
			pc.constants[p.id] = true
		}
	}
	s, o := get(n.subj), get(n.obj)
	if !n.memoOK || (s == 0) == (o == 0) {
		return nil, false, pc.eval(n.path, s, o, direct)
	}
	key := [2]kb.ID{s, o}
	n.memoMu.Lock()
	pairs, ok := n.memo[key]
	n.memoMu.Unlock()
	if !ok {
		// Walk once, then emit: the pairs are complete before anything
		// downstream may stop the walk.
		err := pc.eval(n.path, s, o, func(x, y kb.ID) error {
			pairs = append(pairs, [2]kb.ID{x, y})
			return nil
		})
		if err != nil {
			return nil, true, err
		}
		n.memoMu.Lock()
		if n.memo == nil {
			n.memo = map[[2]kb.ID][][2]kb.ID{}
		}
		if n.pairs+len(pairs) <= pathMemoMax && ex.mem.tryCharge(int64(len(pairs))*16+64) {
			n.memo[key] = pairs
			n.pairs += len(pairs)
		}
		n.memoMu.Unlock()
	}
	return pairs, true, nil
}

func (n *pathNode) children() []node { return nil }
func (n *pathNode) describe() string { return "Path " + n.text() }

// eval calls emit for each (subject, object) pair of path; s and o are
// bound IDs or 0.
func (pc *pathCtx) eval(p algebra.PathExpr, s, o kb.ID, emit func(x, y kb.ID) error) error {
	switch x := p.(type) {
	case *algebra.PathLink:
		return pc.link(x.IRI, s, o, emit)
	case *algebra.PathInverse:
		return pc.eval(x.Path, o, s, func(a, b kb.ID) error { return emit(b, a) })
	case *algebra.PathSeq:
		if s != 0 || o == 0 {
			return pc.eval(x.Left, s, 0, func(a, m kb.ID) error {
				return pc.eval(x.Right, m, o, func(_, b kb.ID) error { return emit(a, b) })
			})
		}
		return pc.eval(x.Right, 0, o, func(m, b kb.ID) error {
			return pc.eval(x.Left, 0, m, func(a, _ kb.ID) error { return emit(a, b) })
		})
	case *algebra.PathAlt:
		if err := pc.eval(x.Left, s, o, emit); err != nil {
			return err
		}
		return pc.eval(x.Right, s, o, emit)
	case *algebra.PathZeroOrOne:
		seen := map[[2]kb.ID]bool{}
		acct := pc.ex.account("property path ?")
		defer acct.done()
		once := func(a, b kb.ID) error {
			if seen[[2]kb.ID{a, b}] {
				return nil
			}
			if err := acct.charge(idSetBytes(16, 1)); err != nil {
				return err
			}
			seen[[2]kb.ID{a, b}] = true
			return emit(a, b)
		}
		if err := pc.zero(s, o, once); err != nil {
			return err
		}
		return pc.eval(x.Path, s, o, once)
	case *algebra.PathZeroOrMore:
		return pc.closure(x.Path, s, o, true, emit)
	case *algebra.PathOneOrMore:
		return pc.closure(x.Path, s, o, false, emit)
	case *algebra.PathNegated:
		return pc.negated(x, s, o, emit)
	}
	return nil
}

func (pc *pathCtx) match(p kb.Pattern, each func(q kb.Quad) error) error {
	if isTemp(p.S) || isTemp(p.O) || isTemp(p.P) {
		return nil
	}
	var seen map[[3]kb.ID]bool
	var acct *account
	// Over the union default graph of a store that yields a triple's
	// quads together, a repeat is the previous quad's triple: no set (a
	// set per step was most of a transitive path's allocations).
	neighbours := pc.dedupe && pc.ex.graphLast && len(pc.graphs) == 1 && pc.graphs[0] == kb.Any
	var last [3]kb.ID
	if pc.dedupe && !neighbours {
		seen = map[[3]kb.ID]bool{}
		acct = pc.ex.account("property path (triples seen in several graphs)")
		defer acct.done()
	}
	for _, g := range pc.graphs {
		if isTemp(g) {
			continue
		}
		p.G = g
		err := pc.ex.scan(p, func(q kb.Quad) error {
			if err := pc.ex.check(); err != nil {
				return err
			}
			if pc.hidden[q.G] {
				return nil // perfkb's bookkeeping is not part of the union default graph
			}
			if neighbours {
				k := [3]kb.ID{q.S, q.P, q.O}
				if k == last {
					return nil
				}
				last = k
			}
			if seen != nil {
				k := [3]kb.ID{q.S, q.P, q.O}
				if seen[k] {
					return nil
				}
				if err := acct.charge(idSetBytes(24, 1)); err != nil {
					return err
				}
				seen[k] = true
			}
			return each(q)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

func (pc *pathCtx) link(iri kb.Term, s, o kb.ID, emit func(x, y kb.ID) error) error {
	p, ok, err := pc.ex.dict.lookup(iri)
	if err != nil || !ok {
		return err
	}
	return pc.match(kb.Pattern{S: s, P: p, O: o}, func(q kb.Quad) error { return emit(q.S, q.O) })
}

// inGraph reports whether id occurs as a subject or object of the active
// graph(s): zero-length paths only relate terms of the graph.
func (pc *pathCtx) inGraph(id kb.ID) (bool, error) {
	if pc.constants[id] {
		return true, nil
	}
	found := false
	stop := errors.New("found")
	for _, p := range []kb.Pattern{{S: id}, {O: id}} {
		err := pc.match(p, func(kb.Quad) error { found = true; return stop })
		if err != nil && err != stop {
			return false, err
		}
		if found {
			return true, nil
		}
	}
	return false, nil
}

// zero emits the zero-length pairs.
func (pc *pathCtx) zero(s, o kb.ID, emit func(x, y kb.ID) error) error {
	if s != 0 || o != 0 {
		n := s
		if n == 0 {
			n = o
		}
		if s != 0 && o != 0 && s != o {
			return nil
		}
		ok, err := pc.inGraph(n)
		if err != nil || !ok {
			return err
		}
		return emit(n, n)
	}
	nodes, err := pc.nodes()
	if err != nil {
		return err
	}
	acct := pc.ex.account("property path (every node of the graph)")
	defer acct.done()
	if err := acct.charge(int64(len(nodes)) * 8); err != nil {
		return err
	}
	for _, n := range nodes {
		if err := emit(n, n); err != nil {
			return err
		}
	}
	return nil
}

// nodes lists every subject and object of the active graph(s).
func (pc *pathCtx) nodes() ([]kb.ID, error) {
	seen := map[kb.ID]bool{}
	var out []kb.ID
	// The set and the list while they are built; a caller that keeps the
	// list charges it itself (8 bytes a node).
	acct := pc.ex.account("property path (every node of the graph)")
	defer acct.done()
	err := pc.match(kb.Pattern{}, func(q kb.Quad) error {
		for _, id := range []kb.ID{q.S, q.O} {
			if !seen[id] {
				if err := acct.charge(idSetBytes(8, 1) + 8); err != nil {
					return err
				}
				seen[id] = true
				out = append(out, id)
			}
		}
		return nil
	})
	return out, err
}

// closure evaluates path* (withZero) or path+ by ALP.
func (pc *pathCtx) closure(p algebra.PathExpr, s, o kb.ID, withZero bool, emit func(x, y kb.ID) error) error {
	switch {
	case s != 0:
		return pc.alp(p, s, withZero, false, func(y kb.ID) error {
			if o != 0 && y != o {
				return nil
			}
			return emit(s, y)
		})
	case o != 0:
		return pc.alp(p, o, withZero, true, func(x kb.ID) error { return emit(x, o) })
	}
	var starts []kb.ID
	acct := pc.ex.account("property path (start nodes)")
	defer acct.done()
	if withZero {
		nodes, err := pc.nodes()
		if err != nil {
			return err
		}
		starts = nodes
		if err := acct.charge(int64(len(nodes)) * 8); err != nil {
			return err
		}
	} else {
		seen := map[kb.ID]bool{}
		err := pc.eval(p, 0, 0, func(x, _ kb.ID) error {
			if !seen[x] {
				if err := acct.charge(idSetBytes(8, 1) + 8); err != nil {
					return err
				}
				seen[x] = true
				starts = append(starts, x)
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, st := range starts {
		if err := pc.alp(p, st, withZero, false, func(y kb.ID) error { return emit(st, y) }); err != nil {
			return err
		}
	}
	return nil
}

// alp visits every node reachable from start by one or more steps of p
// (forward, or backward when inverse), each once; with withZero start
// itself is visited first.
func (pc *pathCtx) alp(p algebra.PathExpr, start kb.ID, withZero, inverse bool, visit func(kb.ID) error) error {
	if done, err := pc.storeClosure(p, start, withZero, inverse, visit); done {
		return err
	}
	if done, err := pc.alpLink(p, start, withZero, inverse, visit); done {
		return err
	}
	visited := map[kb.ID]bool{}
	// Each visited node costs its set entry and its place in a frontier.
	acct := pc.ex.account("property path * or + (visited nodes)")
	defer acct.done()
	const visitBytes = 8 + 1 + mapEntryExtra + 8
	if withZero {
		if ok, err := pc.inGraph(start); err != nil || !ok {
			return err
		}
		if err := acct.charge(visitBytes); err != nil {
			return err
		}
		visited[start] = true
		if err := visit(start); err != nil {
			return err
		}
	}
	frontier := []kb.ID{start}
	for len(frontier) > 0 {
		var next []kb.ID
		for _, n := range frontier {
			step := func(_, y kb.ID) error {
				if visited[y] {
					return nil
				}
				if err := acct.charge(visitBytes); err != nil {
					return err
				}
				visited[y] = true
				next = append(next, y)
				return visit(y)
			}
			var err error
			if inverse {
				err = pc.eval(p, 0, n, func(x, _ kb.ID) error { return step(0, x) })
			} else {
				err = pc.eval(p, n, 0, step)
			}
			if err != nil {
				return err
			}
		}
		frontier = next
	}
	return nil
}

func (pc *pathCtx) negated(x *algebra.PathNegated, s, o kb.ID, emit func(a, b kb.ID) error) error {
	excluded := func(list []kb.Term) (map[kb.ID]bool, error) {
		m := map[kb.ID]bool{}
		for _, t := range list {
			id, ok, err := pc.ex.dict.lookup(t)
			if err != nil {
				return nil, err
			}
			if ok {
				m[id] = true
			}
		}
		return m, nil
	}
	if len(x.Forward) > 0 || len(x.Inverse) == 0 {
		fwd, err := excluded(x.Forward)
		if err != nil {
			return err
		}
		err = pc.match(kb.Pattern{S: s, O: o}, func(q kb.Quad) error {
			if fwd[q.P] {
				return nil
			}
			return emit(q.S, q.O)
		})
		if err != nil {
			return err
		}
	}
	if len(x.Inverse) > 0 {
		inv, err := excluded(x.Inverse)
		if err != nil {
			return err
		}
		return pc.match(kb.Pattern{S: o, O: s}, func(q kb.Quad) error {
			if inv[q.P] {
				return nil
			}
			return emit(q.O, q.S)
		})
	}
	return nil
}
