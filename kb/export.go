package kb

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"sort"
	"strings"
)

// ExportOptions tune Export.
type ExportOptions struct {
	// Format is FormatNTriples (the default), FormatNQuads or FormatTurtle.
	Format Format
	// Graphs restricts the export to these graphs; empty means all.
	Graphs []ID
}

// Export writes the quads of ds in an RDF format. N-Quads keeps graphs
// (triples of DefaultGraph are written without one); N-Triples and Turtle
// write the merge of the chosen graphs, each triple once. Turtle output is
// grouped by subject and sorted; N-Triples and N-Quads stream in store
// order. Literals keep their datatype and language tag exactly.
func Export(ctx context.Context, ds Dataset, w io.Writer, opts ExportOptions) error {
	format := opts.Format
	if format == "" {
		format = FormatNTriples
	}
	bw := bufio.NewWriterSize(w, 256<<10)
	ex := &exporter{ds: ds, cache: make(map[ID]Term)}
	var err error
	switch format {
	case FormatNTriples, FormatNQuads:
		err = ex.lines(ctx, bw, opts.Graphs, format == FormatNQuads)
	case FormatTurtle:
		err = ex.turtle(ctx, bw, opts.Graphs)
	default:
		return fmt.Errorf("export: cannot write format %q (want ntriples, nquads or turtle)", format)
	}
	if err != nil {
		return err
	}
	return bw.Flush()
}

type exporter struct {
	ds    Dataset
	cache map[ID]Term
	sb    strings.Builder
}

const exportCacheSize = 1 << 20

func (ex *exporter) term(ctx context.Context, id ID) (Term, error) {
	if t, ok := ex.cache[id]; ok {
		return t, nil
	}
	t, err := ex.ds.Resolve(ctx, id)
	if err != nil {
		return Term{}, fmt.Errorf("export: resolve term %d: %w", id, err)
	}
	if len(ex.cache) >= exportCacheSize {
		clear(ex.cache)
	}
	ex.cache[id] = t
	return t, nil
}

// each calls fn for every quad of the chosen graphs.
func (ex *exporter) each(ctx context.Context, graphs []ID, fn func(Quad) error) error {
	patterns := []Pattern{{}}
	if len(graphs) > 0 {
		patterns = patterns[:0]
		seen := make(map[ID]bool)
		for _, g := range graphs {
			if !seen[g] && g != Any {
				seen[g] = true
				patterns = append(patterns, Pattern{G: g})
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

// lines writes N-Triples or N-Quads.
func (ex *exporter) lines(ctx context.Context, w *bufio.Writer, graphs []ID, quads bool) error {
	// Merging several graphs into triples must not repeat a triple.
	var seen map[[3]ID]struct{}
	if !quads && len(graphs) != 1 {
		seen = make(map[[3]ID]struct{})
	}
	return ex.each(ctx, graphs, func(q Quad) error {
		if seen != nil {
			k := [3]ID{q.S, q.P, q.O}
			if _, dup := seen[k]; dup {
				return nil
			}
			seen[k] = struct{}{}
		}
		ex.sb.Reset()
		for i, id := range [...]ID{q.S, q.P, q.O} {
			t, err := ex.term(ctx, id)
			if err != nil {
				return err
			}
			if i > 0 {
				ex.sb.WriteByte(' ')
			}
			writeTerm(&ex.sb, t)
		}
		if quads {
			g, err := ex.term(ctx, q.G)
			if err != nil {
				return err
			}
			if g != DefaultGraph {
				ex.sb.WriteByte(' ')
				writeTerm(&ex.sb, g)
			}
		}
		ex.sb.WriteString(" .\n")
		_, err := w.WriteString(ex.sb.String())
		return err
	})
}

// writeTerm writes t in N-Triples syntax, making blank node labels safe.
func writeTerm(b *strings.Builder, t Term) {
	if t.Kind == KindBlank {
		b.WriteString("_:")
		b.WriteString(safeBlankLabel(t.Value))
		return
	}
	t.AppendNTriples(b)
}

// safeBlankLabel returns label if it is a valid N-Triples/Turtle blank node
// label, else an encoding of it that is (distinct labels stay distinct).
func safeBlankLabel(label string) string {
	ok := label != "" && !strings.HasSuffix(label, ".")
	for i, r := range label {
		if !ok {
			break
		}
		if i == 0 {
			ok = isLabelStart(r) && r != '.'
		} else {
			ok = isLabelChar(r) && r != 0xB7
		}
	}
	if ok && !strings.HasPrefix(label, "x_") {
		return label
	}
	var b strings.Builder
	b.WriteString("x_")
	for _, c := range []byte(label) {
		fmt.Fprintf(&b, "%02x", c)
	}
	return b.String()
}

// Well-known prefixes used by the Turtle writer.
var turtlePrefixes = []struct{ prefix, ns string }{
	{"rdf", "http://www.w3.org/1999/02/22-rdf-syntax-ns#"},
	{"rdfs", "http://www.w3.org/2000/01/rdf-schema#"},
	{"xsd", "http://www.w3.org/2001/XMLSchema#"},
	{"owl", "http://www.w3.org/2002/07/owl#"},
	{"perfonto", "http://www.par.univie.ac.at/project/scalea/perfonto#"},
}

const rdfType = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"

// turtle writes the merge of the chosen graphs as Turtle, grouped by
// subject then predicate. It holds the distinct triples in memory.
func (ex *exporter) turtle(ctx context.Context, w *bufio.Writer, graphs []ID) error {
	set := make(map[[3]ID]struct{})
	if err := ex.each(ctx, graphs, func(q Quad) error {
		set[[3]ID{q.S, q.P, q.O}] = struct{}{}
		return nil
	}); err != nil {
		return err
	}
	triples := make([][3]ID, 0, len(set))
	for t := range set {
		triples = append(triples, t)
	}
	set = nil
	sort.Slice(triples, func(i, j int) bool {
		a, b := triples[i], triples[j]
		if a[0] != b[0] {
			return a[0] < b[0]
		}
		if a[1] != b[1] {
			return a[1] < b[1]
		}
		return a[2] < b[2]
	})
	for _, p := range turtlePrefixes {
		fmt.Fprintf(w, "@prefix %s: <%s> .\n", p.prefix, p.ns)
	}
	for i, t := range triples {
		newSubject := i == 0 || t[0] != triples[i-1][0]
		newPredicate := newSubject || t[1] != triples[i-1][1]
		ex.sb.Reset()
		switch {
		case newSubject:
			if i > 0 {
				ex.sb.WriteString(" .\n")
			}
			ex.sb.WriteByte('\n')
			if err := ex.turtleTerm(ctx, t[0], false); err != nil {
				return err
			}
			ex.sb.WriteByte(' ')
		case newPredicate:
			ex.sb.WriteString(" ;\n    ")
		default:
			ex.sb.WriteString(" ,\n        ")
		}
		if newPredicate {
			if err := ex.turtleTerm(ctx, t[1], true); err != nil {
				return err
			}
			ex.sb.WriteByte(' ')
		}
		if err := ex.turtleTerm(ctx, t[2], false); err != nil {
			return err
		}
		if _, err := w.WriteString(ex.sb.String()); err != nil {
			return err
		}
		if i%4096 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
	}
	if len(triples) > 0 {
		_, err := w.WriteString(" .\n")
		return err
	}
	return nil
}

func (ex *exporter) turtleTerm(ctx context.Context, id ID, predicate bool) error {
	t, err := ex.term(ctx, id)
	if err != nil {
		return err
	}
	b := &ex.sb
	switch t.Kind {
	case KindIRI:
		if predicate && t.Value == rdfType {
			b.WriteByte('a')
			return nil
		}
		if name, ok := prefixedName(t.Value); ok {
			b.WriteString(name)
			return nil
		}
	case KindLiteral:
		if t.Lang == "" && t.Datatype != XSDString {
			b.WriteByte('"')
			escapeString(b, t.Value)
			b.WriteString(`"^^`)
			if name, ok := prefixedName(t.Datatype); ok {
				b.WriteString(name)
			} else {
				IRI(t.Datatype).AppendNTriples(b)
			}
			return nil
		}
	}
	writeTerm(b, t)
	return nil
}

// prefixedName abbreviates iri with a well-known prefix when the local part
// is a plain name.
func prefixedName(iri string) (string, bool) {
	for _, p := range turtlePrefixes {
		local, ok := strings.CutPrefix(iri, p.ns)
		if !ok || local == "" {
			continue
		}
		for i, r := range local {
			alpha := r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r == '_'
			if !(alpha || i > 0 && (r >= '0' && r <= '9' || r == '-')) {
				return "", false
			}
		}
		return p.prefix + ":" + local, true
	}
	return "", false
}
