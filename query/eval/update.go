package eval

import (
	"context"
	"errors"
	"fmt"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/algebra"
)

// UpdateSummary reports what an update request changed.
type UpdateSummary struct {
	Operations int
	Added      int
	Removed    int
}

// Update evaluates every operation of u in order, each seeing the effects
// of the previous ones, and applies the net change to ds as one atomic
// kb.Delta. On any error nothing is applied.
func Update(ctx context.Context, ds kb.Dataset, u *algebra.Update, opts Options) (UpdateSummary, error) {
	var sum UpdateSummary
	cancel := func() {}
	if opts.Timeout > 0 {
		ctx, cancel = context.WithTimeout(ctx, opts.Timeout)
	}
	defer cancel()
	ov := newOverlay(ds)
	bnodeEnv := NewFuncEnv(opts.Now, u.BaseIRI)
	for _, op := range u.Operations {
		if err := ctxErr(ctx); err != nil {
			return sum, err
		}
		if err := guard(func() error { return applyOp(ctx, ov, op, opts, bnodeEnv) }); err != nil {
			return sum, err
		}
		sum.Operations++
	}
	d := ov.delta()
	sum.Added, sum.Removed = len(d.Add), len(d.Remove)
	if len(d.Add) == 0 && len(d.Remove) == 0 {
		return sum, nil
	}
	if opts.CheckUpdate != nil && len(d.Add) > 0 {
		added := make([]kb.TermQuad, len(d.Add))
		for i, q := range d.Add {
			tq, err := kb.ResolveQuad(ctx, ds, q)
			if err != nil {
				return sum, err
			}
			added[i] = tq
		}
		if err := opts.CheckUpdate(ctx, added); err != nil {
			return sum, err
		}
	}
	return sum, ds.Apply(ctx, d)
}

func graphTerm(iri string) kb.Term {
	if iri == "" {
		return kb.DefaultGraph
	}
	return kb.IRI(iri)
}

func applyOp(ctx context.Context, ov *overlay, op algebra.UpdateOp, opts Options, env *FuncEnv) error {
	switch o := op.(type) {
	case *algebra.InsertData:
		bnodes := map[string]kb.Term{}
		quads, err := groundQuads(o.Quads, func(t kb.Term) kb.Term {
			if t.IsBlank() {
				b, ok := bnodes[t.Value]
				if !ok {
					b = env.FreshBlank()
					bnodes[t.Value] = b
				}
				return b
			}
			return t
		})
		if err != nil {
			return err
		}
		return ov.addTerms(ctx, quads)
	case *algebra.DeleteData:
		quads, err := groundQuads(o.Quads, func(t kb.Term) kb.Term { return t })
		if err != nil {
			return err
		}
		return ov.removeTerms(ctx, quads)
	case *algebra.DeleteInsert:
		spec := opts.Dataset
		switch {
		case len(o.Using) > 0 || len(o.UsingNamed) > 0:
			spec = DatasetSpec{DefaultEmpty: true, NamedNone: true}
			for _, g := range o.Using {
				spec.Default = append(spec.Default, kb.IRI(g))
			}
			for _, g := range o.UsingNamed {
				spec.Named = append(spec.Named, kb.IRI(g))
			}
		case o.With != "":
			spec.Default = []kb.Term{kb.IRI(o.With)}
		}
		return modify(ctx, ov, o.Where, o.Delete, o.Insert, o.With, spec, opts, env)
	case *algebra.DeleteWhere:
		return modify(ctx, ov, o.Where, o.Quads, nil, "", opts.Dataset, opts, env)
	case *algebra.Load:
		err := load(ctx, ov, o, opts.Load)
		if err != nil && o.Silent {
			return nil
		}
		return err
	case *algebra.Clear:
		return clearTarget(ctx, ov, o.Target)
	case *algebra.Drop:
		return clearTarget(ctx, ov, o.Target)
	case *algebra.Create:
		// Graphs exist as long as they hold quads, so CREATE of an empty
		// graph changes nothing; of one that holds quads it fails, as
		// SPARQL 1.1 Update §3.2.1 says, unless SILENT.
		if err := createGraph(ctx, ov, o.Graph); err != nil && !o.Silent {
			return err
		}
		return nil
	case *algebra.Add:
		return copyGraph(ctx, ov, o.From, o.To, false, false)
	case *algebra.Move:
		return copyGraph(ctx, ov, o.From, o.To, true, true)
	case *algebra.Copy:
		return copyGraph(ctx, ov, o.From, o.To, true, false)
	}
	return fmt.Errorf("eval: unsupported update operation %T", op)
}

func createGraph(ctx context.Context, ov *overlay, graph string) error {
	id, ok, err := ov.Lookup(ctx, kb.IRI(graph))
	if err != nil || !ok {
		return err
	}
	n, err := ov.Count(ctx, kb.Pattern{G: id}, false)
	if err != nil {
		return err
	}
	if n > 0 {
		return &loadError{fmt.Sprintf("CREATE GRAPH <%s>: the graph already exists (use CREATE SILENT GRAPH to ignore this)", graph)}
	}
	return nil
}

func groundQuads(qs []algebra.QuadPattern, mapTerm func(kb.Term) kb.Term) ([]kb.TermQuad, error) {
	out := make([]kb.TermQuad, 0, len(qs))
	for _, q := range qs {
		if q.S.IsVar() || q.P.IsVar() || q.O.IsVar() || q.G.IsVar() {
			return nil, errors.New("eval: variable in DATA block")
		}
		g := kb.DefaultGraph
		if !q.G.IsZero() {
			g = q.G.Term
		}
		out = append(out, kb.TermQuad{S: mapTerm(q.S.Term), P: q.P.Term, O: mapTerm(q.O.Term), G: g})
	}
	return out, nil
}

// modify runs DELETE/INSERT … WHERE: all solutions are computed first,
// then the deletions, then the insertions (§3.1.3).
func modify(ctx context.Context, ov *overlay, where algebra.Op, del, ins []algebra.QuadPattern, with string, spec DatasetSpec, opts Options, env *FuncEnv) error {
	qopts := opts
	qopts.Dataset = spec
	qopts.Timeout = 0
	qopts.MaxRows = 0
	ex, err := newExecutor(ctx, ov, qopts, env.Base, nil)
	if err != nil {
		return err
	}
	defer ex.mem.close()
	root, err := ex.optimize(where)
	if err != nil {
		return err
	}
	plan, err := ex.compile(root, scope{seed: varSet{}})
	if err != nil {
		return err
	}
	var solutions []row
	var memErr error
	err = plan.run(ex, ex.newRow(), func(r row) bool {
		if memErr = ex.mem.charge(rowBytes(len(r)), "DELETE/INSERT … WHERE solutions"); memErr != nil {
			return false
		}
		solutions = append(solutions, r)
		return ex.check() == nil
	})
	if memErr != nil {
		return memErr
	}
	if err != nil && !errors.Is(err, errStop) {
		return err
	}
	if err := ctxErr(ctx); err != nil {
		return err
	}
	instantiate := func(tpl []algebra.QuadPattern, fresh bool) ([]kb.TermQuad, error) {
		var out []kb.TermQuad
		for _, r := range solutions {
			bnodes := map[string]kb.Term{}
			for _, q := range tpl {
				var terms [4]kb.Term
				ok := true
				for i, n := range [4]algebra.Node{q.S, q.P, q.O, q.G} {
					if i == 3 && n.IsZero() {
						terms[3] = graphTerm(with)
						continue
					}
					var t kb.Term
					if fresh || !n.Term.IsBlank() {
						t, err = ex.instantiate(n, r, bnodes)
						if err != nil {
							return nil, err
						}
					}
					if t.IsZero() {
						ok = false
						break
					}
					terms[i] = t
				}
				if !ok || terms[0].IsLiteral() || !terms[1].IsIRI() || !terms[3].IsIRI() {
					continue
				}
				if err := ex.mem.charge(4*termSize, "DELETE/INSERT templates"); err != nil {
					return nil, err
				}
				out = append(out, kb.TermQuad{S: terms[0], P: terms[1], O: terms[2], G: terms[3]})
			}
		}
		return out, nil
	}
	dq, err := instantiate(del, false)
	if err != nil {
		return err
	}
	iq, err := instantiate(ins, true)
	if err != nil {
		return err
	}
	if err := ov.removeTerms(ctx, dq); err != nil {
		return err
	}
	return ov.addTerms(ctx, iq)
}

func load(ctx context.Context, ov *overlay, o *algebra.Load, policy LoadPolicy) error {
	path, err := policy.resolve(o.Source)
	if err != nil {
		return err
	}
	target := &loadTarget{overlay: ov}
	if o.Into == "" {
		// LOAD without INTO puts every quad, whatever its graph in the
		// file, into the default graph.
		ids, err := ov.Intern(ctx, []kb.Term{kb.DefaultGraph})
		if err != nil {
			return err
		}
		target.graph = ids[0]
	}
	if _, err := rdfio.LoadFile(ctx, target, path, rdfio.LoadOptions{Graph: graphTerm(o.Into), BaseIRI: o.Source}); err != nil {
		return fmt.Errorf("LOAD <%s>: %w", o.Source, err)
	}
	return nil
}

// loadTarget is the store rdfio.LoadFile loads into for LOAD: it interns
// through the base store (interning changes no visible data) and its bulk
// writer adds the loaded quads to the update's overlay at Commit, so a
// load that fails adds nothing and no temporary store holds the file.
type loadTarget struct {
	*overlay
	graph kb.ID // when set, every quad goes to this graph
}

// BeginBulk implements kb.Dataset.
func (t *loadTarget) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	return &loadBulk{target: t}, nil
}

// loadBulk stages a LOAD's quads until Commit.
type loadBulk struct {
	target *loadTarget
	quads  []kb.Quad
	done   bool
}

var errLoadDone = errors.New("LOAD: bulk load already committed or aborted")

func (b *loadBulk) Add(ctx context.Context, quads []kb.Quad) error {
	if b.done {
		return errLoadDone
	}
	for _, q := range quads {
		if b.target.graph != 0 {
			q.G = b.target.graph
		}
		b.quads = append(b.quads, q)
	}
	return nil
}

func (b *loadBulk) Commit(ctx context.Context) error {
	if b.done {
		return errLoadDone
	}
	b.done = true
	for _, q := range b.quads {
		b.target.add(q)
	}
	b.quads = nil
	return nil
}

func (b *loadBulk) Abort() error {
	b.done = true
	b.quads = nil
	return nil
}

// targetGraphs lists the graph IDs a CLEAR/DROP target covers.
func targetGraphs(ctx context.Context, ov *overlay, t algebra.GraphTarget) ([]kb.ID, error) {
	def, hasDef, err := ov.Lookup(ctx, kb.DefaultGraph)
	if err != nil {
		return nil, err
	}
	switch t.Kind {
	case algebra.TargetGraph, algebra.TargetDefault:
		term := kb.DefaultGraph
		if t.Kind == algebra.TargetGraph {
			term = kb.IRI(t.IRI)
		}
		id, ok, err := ov.Lookup(ctx, term)
		if err != nil || !ok {
			return nil, err
		}
		return []kb.ID{id}, nil
	}
	graphs, err := ov.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	var out []kb.ID
	for _, g := range graphs {
		if t.Kind == algebra.TargetNamed && hasDef && g == def {
			continue
		}
		out = append(out, g)
	}
	return out, nil
}

func clearTarget(ctx context.Context, ov *overlay, t algebra.GraphTarget) error {
	graphs, err := targetGraphs(ctx, ov, t)
	if err != nil {
		return err
	}
	for _, g := range graphs {
		quads, err := kb.Collect(ov.Match(ctx, kb.Pattern{G: g}))
		if err != nil {
			return err
		}
		for _, q := range quads {
			ov.remove(q)
		}
	}
	return nil
}

func copyGraph(ctx context.Context, ov *overlay, from, to algebra.GraphTarget, clearTo, dropFrom bool) error {
	src, dst := kb.DefaultGraph, kb.DefaultGraph
	if from.Kind == algebra.TargetGraph {
		src = kb.IRI(from.IRI)
	}
	if to.Kind == algebra.TargetGraph {
		dst = kb.IRI(to.IRI)
	}
	if src == dst {
		return nil
	}
	var quads []kb.Quad
	if id, ok, err := ov.Lookup(ctx, src); err != nil {
		return err
	} else if ok {
		if quads, err = kb.Collect(ov.Match(ctx, kb.Pattern{G: id})); err != nil {
			return err
		}
	}
	ids, err := ov.Intern(ctx, []kb.Term{dst})
	if err != nil {
		return err
	}
	if clearTo {
		if err := clearTarget(ctx, ov, to); err != nil {
			return err
		}
	}
	for _, q := range quads {
		ov.add(kb.Quad{S: q.S, P: q.P, O: q.O, G: ids[0]})
	}
	if dropFrom {
		for _, q := range quads {
			ov.remove(q)
		}
	}
	return nil
}

// overlay is a Dataset view of a base store plus pending changes, so each
// operation of an update request sees the previous ones before anything is
// applied.
type overlay struct {
	kb.Dataset
	added   map[kb.Quad]bool
	removed map[kb.Quad]bool
}

func newOverlay(base kb.Dataset) *overlay {
	return &overlay{Dataset: base, added: map[kb.Quad]bool{}, removed: map[kb.Quad]bool{}}
}

func (o *overlay) baseHas(q kb.Quad) bool {
	it := o.Dataset.Match(context.Background(), kb.Pattern(q))
	defer it.Close()
	return it.Next()
}

func (o *overlay) add(q kb.Quad) {
	delete(o.removed, q)
	if !o.baseHas(q) {
		o.added[q] = true
	}
}

func (o *overlay) remove(q kb.Quad) {
	delete(o.added, q)
	if o.baseHas(q) {
		o.removed[q] = true
	}
}

func (o *overlay) addTerms(ctx context.Context, quads []kb.TermQuad) error {
	for _, q := range quads {
		for _, t := range [...]kb.Term{q.S, q.P, q.O, q.G} {
			if err := checkIRIs(t); err != nil {
				return fmt.Errorf("update: %w", err)
			}
		}
	}
	ids, err := kb.InternQuads(ctx, o.Dataset, quads)
	if err != nil {
		return err
	}
	for _, q := range ids {
		o.add(q)
	}
	return nil
}

func (o *overlay) removeTerms(ctx context.Context, quads []kb.TermQuad) error {
	for _, tq := range quads {
		var q [4]kb.ID
		known := true
		for i, t := range [4]kb.Term{tq.S, tq.P, tq.O, tq.G} {
			id, ok, err := o.Dataset.Lookup(ctx, t)
			if err != nil {
				return err
			}
			if !ok {
				known = false
				break
			}
			q[i] = id
		}
		if known {
			o.remove(kb.Quad{S: q[0], P: q[1], O: q[2], G: q[3]})
		}
	}
	return nil
}

func (o *overlay) delta() kb.Delta {
	var d kb.Delta
	for q := range o.removed {
		d.Remove = append(d.Remove, q)
	}
	for q := range o.added {
		d.Add = append(d.Add, q)
	}
	return d
}

// Match implements kb.Dataset over base and pending changes.
func (o *overlay) Match(ctx context.Context, p kb.Pattern) kb.QuadIterator {
	quads, err := kb.Collect(o.Dataset.Match(ctx, p))
	if err != nil {
		return kb.NewErrorIterator(err)
	}
	out := quads[:0]
	for _, q := range quads {
		if !o.removed[q] {
			out = append(out, q)
		}
	}
	for q := range o.added {
		if p.Matches(q) {
			out = append(out, q)
		}
	}
	return kb.NewSliceIterator(out)
}

// Count implements kb.Dataset.
func (o *overlay) Count(ctx context.Context, p kb.Pattern, exact bool) (int64, error) {
	if len(o.added) == 0 && len(o.removed) == 0 {
		return o.Dataset.Count(ctx, p, exact)
	}
	quads, err := kb.Collect(o.Match(ctx, p))
	return int64(len(quads)), err
}

// Graphs implements kb.Dataset.
func (o *overlay) Graphs(ctx context.Context) ([]kb.ID, error) {
	base, err := o.Dataset.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	seen := map[kb.ID]bool{}
	var out []kb.ID
	for _, g := range base {
		n, err := o.Count(ctx, kb.Pattern{G: g}, true)
		if err != nil {
			return nil, err
		}
		if n > 0 && !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	for q := range o.added {
		if !seen[q.G] {
			seen[q.G] = true
			out = append(out, q.G)
		}
	}
	return out, nil
}

// Apply is not supported on the overlay; Update applies the net delta.
func (o *overlay) Apply(context.Context, kb.Delta) error {
	return errors.New("eval: overlay is read-only")
}

// checkIRIs applies kb.CheckIRI, the one rule for stored IRIs, to t's
// IRI or datatype.
func checkIRIs(t kb.Term) error {
	switch {
	case t.Kind == kb.KindIRI && t != kb.DefaultGraph:
		return kb.CheckIRI(t.Value)
	case t.Kind == kb.KindLiteral && t.Datatype != "":
		return kb.CheckIRI(t.Datatype)
	}
	return nil
}
