package rdfio

import (
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// The canonical names of the formats the registry holds, for LoadOptions
// and ExportOptions (which take any name Lookup accepts).
const (
	NTriples = "ntriples"
	NQuads   = "nquads"
	Turtle   = "turtle"
	TriG     = "trig"
	RDFXML   = "rdfxml"
	JSONLD   = "jsonld"
)

// ParseFormat returns the canonical name of the format a user-given name
// means: any name, alias or media type Lookup accepts (nt, n-triples, nq,
// ttl, trig, xml, rdf, owl, application/n-triples, text/turtle …).
func ParseFormat(name string) (string, error) {
	if f, ok := Lookup(name); ok {
		return f.Name, nil
	}
	return "", fmt.Errorf("unknown RDF format %q (want one of %s)", name, strings.Join(Names(), ", "))
}

// LoadOptions tune Load.
type LoadOptions struct {
	// Format of the input, any name Lookup accepts; when empty it is
	// guessed from SourceName.
	Format string
	// BaseIRI resolves relative IRIs in Turtle, TriG and RDF/XML. LoadFile
	// defaults it to the file's file:// URL.
	BaseIRI string
	// Graph receives triples (formats without graphs, and N-Quads lines
	// without a graph); the zero Term means DefaultGraph. Quads keep their
	// own graph.
	Graph kb.Term
	// SourceName names the input in errors (usually the file name).
	SourceName string
	// BatchSize is the number of statements interned and staged at once
	// (default 10000).
	BatchSize int
	// Progress, when set, is called after each batch with the number of
	// statements read so far.
	Progress func(triples int64)
	// CommitProgress, when set, is called while the store writes the
	// load at Commit, with the quads written so far and their total, if
	// the store's BulkWriter reports it (see CommitReporter).
	CommitProgress func(done, total int64)
	// InputProgress, when set, is called by LoadFile as it reads the file,
	// with the bytes read so far and the file's size, so that a caller can
	// show percent and ETA.
	InputProgress func(read, size int64)

	// chunkSize overrides lineChunkSize (tests cut their input small).
	chunkSize int
}

// LoadSummary reports what a load did.
type LoadSummary struct {
	// Triples is the number of statements read (duplicates included).
	Triples int64
	// Graphs is the number of distinct graphs the statements went to.
	Graphs int
	// GraphNames are those graphs.
	GraphNames []kb.Term
	// Duration is the wall time of the load, commit included.
	Duration time.Duration
}

// TriplesPerSecond is the load throughput.
func (s LoadSummary) TriplesPerSecond() float64 {
	if s.Duration <= 0 {
		return 0
	}
	return float64(s.Triples) / s.Duration.Seconds()
}

// LoadFile loads the RDF file at path (gzip-compressed when it ends in
// .gz). The format defaults to the one the extension names, SourceName to
// path and BaseIRI to the file's file:// URL.
func LoadFile(ctx context.Context, ds kb.Dataset, path string, opts LoadOptions) (LoadSummary, error) {
	f, err := os.Open(path)
	if err != nil {
		return LoadSummary{}, err
	}
	defer f.Close()
	var r io.Reader = f
	if opts.InputProgress != nil {
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() {
			r = &countingReader{r: f, size: fi.Size(), report: opts.InputProgress}
		}
	}
	if strings.HasSuffix(strings.ToLower(path), ".gz") {
		gz, err := gzip.NewReader(r)
		if err != nil {
			return LoadSummary{}, fmt.Errorf("%s: %w", path, err)
		}
		defer gz.Close()
		r = gz
	}
	if opts.SourceName == "" {
		opts.SourceName = path
	}
	if opts.Format == "" {
		f, ok := ByFileName(path)
		if !ok {
			return LoadSummary{}, fmt.Errorf("%s: cannot tell the RDF format from the file name; name it (ntriples, nquads, turtle or rdfxml)", path)
		}
		opts.Format = f.Name
	}
	if opts.BaseIRI == "" {
		if abs, err := filepath.Abs(path); err == nil {
			opts.BaseIRI = (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
		}
	}
	return Load(ctx, ds, r, opts)
}

// Load reads RDF from r into ds as one bulk load: statements are parsed as
// a stream, their terms interned and staged in batches, and committed at the
// end, so either all of the input is stored or, on any error (a syntax
// error, a cancelled context, a store failure), none of it. Blank nodes are
// renamed per load, so two loads never share a blank node. Literals keep
// their datatype and language tag (lower case, as kb.Term says).
func Load(ctx context.Context, ds kb.Dataset, r io.Reader, opts LoadOptions) (sum LoadSummary, err error) {
	var f *Format
	if opts.Format == "" {
		var ok bool
		if f, ok = ByFileName(opts.SourceName); !ok {
			return sum, fmt.Errorf("load %s: no RDF format given and none implied by the name", sourceName(opts.SourceName))
		}
	} else {
		var ok bool
		if f, ok = Lookup(opts.Format); !ok || f.NewDecoder == nil {
			return sum, fmt.Errorf("load %s: cannot read format %q (want one of %s)", sourceName(opts.SourceName), opts.Format, strings.Join(Names(), ", "))
		}
	}
	opts.Format = f.Name
	lines := f.Name == NTriples || f.Name == NQuads
	var next func() (kb.TermQuad, error)
	if !lines {
		if _, err := parseBase(opts.BaseIRI); err != nil {
			return sum, err
		}
		next = f.NewDecoder(r, Options{Base: opts.BaseIRI, Source: opts.SourceName}).Next
	}
	return bulkLoad(ctx, ds, opts, func(bw kb.BulkWriter, opts LoadOptions, graph kb.Term, scope blankScope, sum *LoadSummary) error {
		if lines {
			return loadLines(ctx, ds, bw, r, opts, graph, scope, sum)
		}
		return loadStatements(ctx, ds, bw, next, opts, graph, scope, sum)
	})
}

// LoadQuads stores the statements next yields (io.EOF ends them) as one
// bulk load, atomically: on any error from next, a cancelled context or a
// store failure nothing is stored. It is the entry point for converters and
// SPARQL LOAD, which produce terms rather than RDF text. Statements whose G
// is zero go to opts.Graph (DefaultGraph when that is zero too); blank nodes
// are renamed per call as Load does. opts.Format and opts.BaseIRI are not
// used.
func LoadQuads(ctx context.Context, ds kb.Dataset, next func() (kb.TermQuad, error), opts LoadOptions) (LoadSummary, error) {
	return bulkLoad(ctx, ds, opts, func(bw kb.BulkWriter, opts LoadOptions, graph kb.Term, scope blankScope, sum *LoadSummary) error {
		return loadStatements(ctx, ds, bw, next, opts, graph, scope, sum)
	})
}

// bulkLoad runs fill inside one bulk write of ds and commits it, or aborts
// it when fill, the context or the store fails: the one all-or-nothing path
// of Load and LoadQuads. fill gets the options with their defaults, the
// target graph (opts.Graph, else DefaultGraph) and the load's blank-node
// scope.
func bulkLoad(ctx context.Context, ds kb.Dataset, opts LoadOptions, fill func(bw kb.BulkWriter, opts LoadOptions, graph kb.Term, scope blankScope, sum *LoadSummary) error) (sum LoadSummary, err error) {
	start := time.Now()
	if opts.BatchSize <= 0 {
		opts.BatchSize = 10000
	}
	graph := opts.Graph
	if graph.IsZero() {
		graph = kb.DefaultGraph
	}
	if graph.IsLiteral() {
		return sum, fmt.Errorf("load %s: graph name %v is a literal; want an IRI", sourceName(opts.SourceName), graph)
	}
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		return sum, err
	}
	if cr, ok := bw.(kb.CommitReporter); ok && opts.CommitProgress != nil {
		cr.SetCommitProgress(opts.CommitProgress)
	}
	committed := false
	defer func() {
		if !committed {
			_ = bw.Abort()
		}
	}()
	scope, err := newBlankScope()
	if err != nil {
		return sum, err
	}
	if err := fill(bw, opts, graph, scope, &sum); err != nil {
		return sum, err
	}
	if err := bw.Commit(ctx); err != nil {
		return sum, err
	}
	committed = true
	sum.Duration = time.Since(start)
	return sum, nil
}

// ErrDerivationRecords refuses a load into the reasoner's derivation
// records graph: they name the term IDs of the store that wrote them, so in
// any other store they would explain derivations with the wrong terms.
var ErrDerivationRecords = errors.New("graph <" + kb.DerivationsGraphIRI + "> holds the reasoner's derivation records, which name one store's term IDs and cannot be loaded; leave that graph out (a whole-store export does) and run perfkb reason to rebuild them")

// loadStatements hands the statements next yields to bw in batches.
func loadStatements(ctx context.Context, ds kb.Dataset, bw kb.BulkWriter, next func() (kb.TermQuad, error), opts LoadOptions, graph kb.Term, scope blankScope, sum *LoadSummary) error {
	graphs := make(map[kb.Term]struct{})
	batch := make([]kb.TermQuad, 0, opts.BatchSize)
	flush := func() error {
		if len(batch) == 0 {
			return nil
		}
		if ta, ok := bw.(kb.TermAdder); ok {
			if err := ta.AddTerms(ctx, batch); err != nil {
				return err
			}
		} else {
			ids, err := kb.InternQuads(ctx, ds, batch)
			if err != nil {
				return err
			}
			if err := bw.Add(ctx, ids); err != nil {
				return err
			}
		}
		batch = batch[:0]
		if opts.Progress != nil {
			opts.Progress(sum.Triples)
		}
		return ctx.Err()
	}
	for {
		q, err := next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return err
		}
		q.S, q.O, q.G = scope.rename(q.S), scope.rename(q.O), scope.rename(q.G)
		if q.G.IsZero() {
			q.G = graph
		}
		if q.G.Kind == kb.KindIRI && q.G.Value == kb.DerivationsGraphIRI {
			return fmt.Errorf("load %s: statement %d: %w", sourceName(opts.SourceName), sum.Triples+1, ErrDerivationRecords)
		}
		graphs[q.G] = struct{}{}
		batch = append(batch, q)
		sum.Triples++
		if len(batch) == opts.BatchSize {
			if err := flush(); err != nil {
				return err
			}
		}
	}
	if err := flush(); err != nil {
		return err
	}
	sum.Graphs = len(graphs)
	for g := range graphs {
		sum.GraphNames = append(sum.GraphNames, g)
	}
	return nil
}

// blankScope renames blank nodes so that labels from different loads never
// meet: every label of one load gets the same random prefix.
type blankScope struct{ prefix string }

func newBlankScope() (blankScope, error) {
	var b [8]byte
	if _, err := rand.Read(b[:]); err != nil {
		return blankScope{}, err
	}
	return blankScope{prefix: "b" + hex.EncodeToString(b[:]) + "_"}, nil
}

func (s blankScope) rename(t kb.Term) kb.Term {
	switch t.Kind {
	case kb.KindBlank:
		t.Value = s.prefix + t.Value
	case kb.KindTriple:
		// a triple term's blank nodes are the document's too
		if tr, ok := t.Triple(); ok && strings.Contains(t.Value, "_:") {
			return kb.TripleTerm(s.rename(tr.S), tr.P, s.rename(tr.O))
		}
	}
	return t
}

// parseBase parses a base IRI; an empty one gives nil.
func parseBase(iri string) (*url.URL, error) {
	if iri == "" {
		return nil, nil
	}
	u, err := url.Parse(iri)
	if err != nil || !u.IsAbs() {
		return nil, fmt.Errorf("base IRI %q is not an absolute IRI", iri)
	}
	return u, nil
}

// countingReader reports the bytes read of a file of known size.
type countingReader struct {
	r      io.Reader
	read   int64
	size   int64
	report func(read, size int64)
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.read += int64(n)
	c.report(c.read, c.size)
	return n, err
}
