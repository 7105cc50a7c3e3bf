package rdfio

import (
	"context"
	"fmt"
	"io"
	"sort"

	"github.com/perfkb/perfkb/kb"
)

// ExportOptions tune Export.
type ExportOptions struct {
	// Format is the name of any format with an encoder (any name Lookup
	// accepts): NTriples (the default), NQuads, Turtle, TriG, RDFXML or
	// JSONLD.
	Format string
	// Graphs restricts the export to these graphs; empty means all but
	// the reasoner's derivation records (kb.DerivationsGraphIRI): they name
	// the store's own term IDs, mean nothing in another store and cannot be
	// loaded (Load refuses them), so a whole-store export leaves them out
	// and `perfkb reason` rebuilds them where the export is loaded. Naming
	// the graph exports it anyway, for inspection.
	Graphs []kb.ID
}

// Export writes the quads of ds in an RDF format with the format's rdfio
// encoder. N-Quads and TriG keep graphs (triples of DefaultGraph are
// written without one); N-Triples, Turtle and RDF/XML write the merge of
// the chosen graphs, each triple once. Turtle, TriG and RDF/XML output is
// grouped by graph and subject and sorted; N-Triples and N-Quads stream in
// store order. Literals keep their datatype and language tag exactly.
func Export(ctx context.Context, ds kb.Dataset, w io.Writer, opts ExportOptions) error {
	format := opts.Format
	if format == "" {
		format = NTriples
	}
	f, ok := Lookup(format)
	if !ok || f.NewEncoder == nil {
		return fmt.Errorf("export: cannot write format %q (want one of %v)", format, Names())
	}
	enc := f.NewEncoder(w, EncoderOptions{})
	ex := &exporter{ds: ds, cache: make(map[kb.ID]kb.Term)}
	var err error
	switch f.Name {
	case "ntriples", "nquads":
		err = ex.lines(ctx, enc, opts.Graphs, f.Quads)
	default:
		err = ex.sorted(ctx, enc, opts.Graphs, f.Quads)
	}
	if err != nil {
		return err
	}
	return enc.Close()
}

type exporter struct {
	ds    kb.Dataset
	cache map[kb.ID]kb.Term
}

const exportCacheSize = 1 << 20

func (ex *exporter) term(ctx context.Context, id kb.ID) (kb.Term, error) {
	if t, ok := ex.cache[id]; ok {
		return t, nil
	}
	t, err := ex.ds.Resolve(ctx, id)
	if err != nil {
		return kb.Term{}, fmt.Errorf("export: resolve term %d: %w", id, err)
	}
	if len(ex.cache) >= exportCacheSize {
		clear(ex.cache)
	}
	ex.cache[id] = t
	return t, nil
}

// each calls fn for every quad of the chosen graphs.
func (ex *exporter) each(ctx context.Context, graphs []kb.ID, fn func(kb.Quad) error) error {
	patterns := []kb.Pattern{{}}
	var skip kb.ID // the derivation records' graph, on a whole-store export
	if len(graphs) == 0 {
		id, ok, err := ex.ds.Lookup(ctx, kb.IRI(kb.DerivationsGraphIRI))
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
		if ok {
			skip = id
		}
	}
	if len(graphs) > 0 {
		patterns = patterns[:0]
		seen := make(map[kb.ID]bool)
		for _, g := range graphs {
			if !seen[g] && g != kb.Any {
				seen[g] = true
				patterns = append(patterns, kb.Pattern{G: g})
			}
		}
	}
	for _, p := range patterns {
		it := ex.ds.Match(ctx, p)
		n := 0
		for it.Next() {
			if n++; n%4096 == 0 {
				if err := ctx.Err(); err != nil {
					it.Close()
					return err
				}
			}
			if skip != 0 && it.Quad().G == skip {
				continue
			}
			if err := fn(it.Quad()); err != nil {
				it.Close()
				return err
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}

// lines writes N-Triples or N-Quads in store order.
func (ex *exporter) lines(ctx context.Context, enc Encoder, graphs []kb.ID, quads bool) error {
	// Merging several graphs into triples must not repeat a triple.
	var seen map[[3]kb.ID]struct{}
	if !quads && len(graphs) != 1 {
		seen = make(map[[3]kb.ID]struct{})
	}
	return ex.each(ctx, graphs, func(q kb.Quad) error {
		if seen != nil {
			k := [3]kb.ID{q.S, q.P, q.O}
			if _, dup := seen[k]; dup {
				return nil
			}
			seen[k] = struct{}{}
		}
		if !quads {
			q.G = 0
		}
		tq, err := ex.quad(ctx, q)
		if err != nil {
			return err
		}
		return enc.Encode(tq)
	})
}

// quad resolves a quad for an encoder; G 0 and DefaultGraph become no
// graph.
func (ex *exporter) quad(ctx context.Context, q kb.Quad) (kb.TermQuad, error) {
	var out kb.TermQuad
	for i, id := range [...]kb.ID{q.S, q.P, q.O, q.G} {
		if id == 0 {
			continue
		}
		t, err := ex.term(ctx, id)
		if err != nil {
			return out, err
		}
		if i == 3 && t == kb.DefaultGraph {
			continue
		}
		*[...]*kb.Term{&out.S, &out.P, &out.O, &out.G}[i] = t
	}
	return out, nil
}

// sorted writes the distinct statements (triples when !quads) of the
// chosen graphs ordered by graph, subject, predicate and object, so that
// the Turtle, TriG and RDF/XML encoders group them. It holds them in
// memory.
func (ex *exporter) sorted(ctx context.Context, enc Encoder, graphs []kb.ID, quads bool) error {
	set := make(map[kb.Quad]struct{})
	if err := ex.each(ctx, graphs, func(q kb.Quad) error {
		if !quads {
			q.G = 0
		}
		set[q] = struct{}{}
		return nil
	}); err != nil {
		return err
	}
	all := make([]kb.Quad, 0, len(set))
	for q := range set {
		all = append(all, q)
	}
	set = nil
	sort.Slice(all, func(i, j int) bool {
		a, b := all[i], all[j]
		if a.G != b.G {
			return a.G < b.G
		}
		if a.S != b.S {
			return a.S < b.S
		}
		if a.P != b.P {
			return a.P < b.P
		}
		return a.O < b.O
	})
	for i, q := range all {
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		tq, err := ex.quad(ctx, q)
		if err != nil {
			return err
		}
		if err := enc.Encode(tq); err != nil {
			return fmt.Errorf("export: %w", err)
		}
	}
	return nil
}
