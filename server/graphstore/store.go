package graphstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
)

// Store serves the Graph Store Protocol, the local site list and store
// statistics straight from a kb.Dataset; uploads are parsed with rdfio.
type Store struct {
	ds kb.Dataset
	// writes keeps replaces and drops (which read a graph, then remove
	// what they read) apart from every other write; appends only take the
	// read side, so they run concurrently and the store can group their
	// commits.
	writes *writeLock
}

// New returns a Store over ds.
func New(ds kb.Dataset) *Store {
	return &Store{ds: ds, writes: newWriteLock()}
}

// Dataset returns the store the Store serves (for validation and other
// read-only passes over it).
func (d *Store) Dataset() kb.Dataset { return d.ds }

// Quads returns the number of stored quads.
func (d *Store) Quads(ctx context.Context) (int64, error) {
	return d.ds.Count(ctx, kb.Pattern{}, false)
}

// Graphs lists every graph holding quads, sorted by IRI.
func (d *Store) Graphs(ctx context.Context) ([]GraphInfo, error) {
	ids, err := d.ds.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	out := make([]GraphInfo, 0, len(ids))
	for _, id := range ids {
		t, err := d.ds.Resolve(ctx, id)
		if err != nil {
			return nil, err
		}
		n, err := d.ds.Count(ctx, kb.Pattern{G: id}, true)
		if err != nil {
			return nil, err
		}
		if n > 0 {
			out = append(out, GraphInfo{IRI: t.Value, Triples: n})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].IRI < out[j].IRI })
	return out, nil
}

func (d *Store) graphID(ctx context.Context, graph kb.Term) (kb.ID, bool, error) {
	return d.ds.Lookup(ctx, graph)
}

// Size returns the number of triples in graph (0 when it does not exist).
func (d *Store) Size(ctx context.Context, graph kb.Term) (int64, error) {
	id, ok, err := d.graphID(ctx, graph)
	if err != nil || !ok {
		return 0, err
	}
	return d.ds.Count(ctx, kb.Pattern{G: id}, true)
}

// Triples calls emit for every triple of graph.
func (d *Store) Triples(ctx context.Context, graph kb.Term, emit func(kb.Triple) error) error {
	id, ok, err := d.graphID(ctx, graph)
	if err != nil || !ok {
		return err
	}
	resolve := newTermCache(d.ds)
	it := d.ds.Match(ctx, kb.Pattern{G: id})
	defer it.Close()
	for it.Next() {
		q := it.Quad()
		var t kb.Triple
		if t.S, err = resolve(ctx, q.S); err != nil {
			return err
		}
		if t.P, err = resolve(ctx, q.P); err != nil {
			return err
		}
		if t.O, err = resolve(ctx, q.O); err != nil {
			return err
		}
		if err := emit(t); err != nil {
			return err
		}
	}
	if err := it.Err(); err != nil {
		return err
	}
	return ctx.Err()
}

// newTermCache returns a Resolve that remembers recent terms (predicates
// and classes repeat on almost every quad).
func newTermCache(ds kb.Dataset) func(context.Context, kb.ID) (kb.Term, error) {
	const maxEntries = 1 << 16
	cache := make(map[kb.ID]kb.Term)
	return func(ctx context.Context, id kb.ID) (kb.Term, error) {
		if t, ok := cache[id]; ok {
			return t, nil
		}
		t, err := ds.Resolve(ctx, id)
		if err != nil {
			return t, err
		}
		if len(cache) >= maxEntries {
			clear(cache)
		}
		cache[id] = t
		return t, nil
	}
}

// Replace atomically replaces the content of graph with the RDF read
// from src. On any error (a syntax error included) nothing changes.
func (d *Store) Replace(ctx context.Context, graph kb.Term, src RDFSource) (GraphChange, error) {
	return d.write(ctx, graph, src, true)
}

// Append atomically adds the RDF read from src to graph.
func (d *Store) Append(ctx context.Context, graph kb.Term, src RDFSource) (GraphChange, error) {
	return d.write(ctx, graph, src, false)
}

func (d *Store) write(ctx context.Context, graph kb.Term, src RDFSource, replace bool) (GraphChange, error) {
	change := GraphChange{Graph: graph.Value}
	if src.Statements == nil {
		if f, ok := rdfio.Lookup(src.Format); !ok || f.Name != src.Format {
			return change, fmt.Errorf("%w: %q", ErrUnsupportedFormat, src.Format)
		}
	}
	gid, err := d.ds.Intern(ctx, []kb.Term{graph})
	if err != nil {
		return change, err
	}
	// The whole upload is received before any lock is taken: a client
	// that sends slowly must not hold up other writers.
	received, release, err := spool(src.Body)
	if err != nil {
		return change, err
	}
	defer release()
	body := &errorRecordingReader{r: received}

	if replace {
		if err := d.writes.lock(ctx); err != nil {
			return change, err
		}
		defer d.writes.unlock()
	} else {
		if err := d.writes.rlock(ctx); err != nil {
			return change, err
		}
		defer d.writes.runlock()
	}
	before, err := d.ds.Count(ctx, kb.Pattern{G: gid[0]}, true)
	if err != nil {
		return change, err
	}
	var remove []kb.Quad
	if replace && before > 0 {
		if remove, err = kb.Collect(d.ds.Match(ctx, kb.Pattern{G: gid[0]})); err != nil {
			return change, err
		}
	}
	// Large uploads into an empty graph, and large appends, go through
	// the store's bulk path (sorted runs, one atomic ingest); small ones
	// and replaces of existing content through one atomic Apply.
	bulk := (!replace || before == 0) && (src.Size <= 0 || src.Size >= bulkUploadBytes)
	target := &graphRewritingDataset{Dataset: d.ds, graph: gid[0], remove: remove, bulk: bulk}
	sum, err := src.Load(ctx, target, body, rdfio.LoadOptions{Graph: graph, BatchSize: batchSize(src.Size)})
	if body.err != nil {
		// The body could not be read (too large, connection lost): that,
		// not what the parser made of the cut input, is the error.
		return change, body.err
	}
	if err != nil {
		return change, err
	}
	change.Created = before == 0 && sum.Triples > 0
	if replace {
		after, err := d.ds.Count(ctx, kb.Pattern{G: gid[0]}, true)
		if err != nil {
			return change, err
		}
		change.Removed, change.Added = before, after
	} else {
		// Concurrent appends make a before/after count meaningless; report
		// what this request carried.
		change.Added = sum.Triples
	}
	return change, nil
}

// batchSize picks rdfio.Load's batch for a document of size bytes: small
// uploads (the common case of a site pushing a few triples) should not pay
// for a 10,000-quad buffer.
func batchSize(size int64) int {
	const bytesPerTriple = 60
	switch {
	case size <= 0:
		return 10000
	case size/bytesPerTriple < 64:
		return 64
	case size/bytesPerTriple > 10000:
		return 10000
	}
	return int(size / bytesPerTriple)
}

// errorRecordingReader remembers the first read error other than io.EOF.
type errorRecordingReader struct {
	r   io.Reader
	err error
}

func (e *errorRecordingReader) Read(p []byte) (int, error) {
	n, err := e.r.Read(p)
	if err != nil && !errors.Is(err, io.EOF) && e.err == nil {
		e.err = err
	}
	return n, err
}

// graphRewritingDataset lets rdfio.Load parse and intern as usual but turns
// its bulk commit into one atomic Apply that puts every quad in one graph
// and, for a replace, removes the graph's old content in the same delta.
type graphRewritingDataset struct {
	kb.Dataset
	graph  kb.ID
	remove []kb.Quad
	// bulk sends the quads to the store's own BulkWriter (remove must be
	// empty then).
	bulk bool
}

// bulkUploadBytes is the upload size from which appends use the store's
// bulk load path.
const bulkUploadBytes = 4 << 20

func (g *graphRewritingDataset) BeginBulk(ctx context.Context) (kb.BulkWriter, error) {
	if g.bulk && len(g.remove) == 0 {
		inner, err := g.Dataset.BeginBulk(ctx)
		if err != nil {
			return nil, err
		}
		return &graphRewritingBulk{inner: inner, graph: g.graph}, nil
	}
	return &graphRewritingWriter{ds: g}, nil
}

// graphRewritingBulk puts quads in one graph on their way to the store's
// BulkWriter.
type graphRewritingBulk struct {
	inner kb.BulkWriter
	graph kb.ID
	buf   []kb.Quad
}

func (w *graphRewritingBulk) Add(ctx context.Context, quads []kb.Quad) error {
	w.buf = append(w.buf[:0], quads...)
	for i := range w.buf {
		w.buf[i].G = w.graph
	}
	return w.inner.Add(ctx, w.buf)
}

func (w *graphRewritingBulk) Commit(ctx context.Context) error { return w.inner.Commit(ctx) }
func (w *graphRewritingBulk) Abort() error                     { return w.inner.Abort() }

type graphRewritingWriter struct {
	ds    *graphRewritingDataset
	add   []kb.Quad
	done  bool
	mutex sync.Mutex
}

func (w *graphRewritingWriter) Add(ctx context.Context, quads []kb.Quad) error {
	w.mutex.Lock()
	defer w.mutex.Unlock()
	if w.done {
		return errors.New("graph store: bulk write already finished")
	}
	for _, q := range quads {
		q.G = w.ds.graph
		w.add = append(w.add, q)
	}
	return nil
}

func (w *graphRewritingWriter) Commit(ctx context.Context) error {
	w.mutex.Lock()
	defer w.mutex.Unlock()
	if w.done {
		return errors.New("graph store: bulk write already finished")
	}
	w.done = true
	return w.ds.Apply(ctx, kb.Delta{Remove: w.ds.remove, Add: w.add})
}

func (w *graphRewritingWriter) Abort() error {
	w.mutex.Lock()
	defer w.mutex.Unlock()
	w.done, w.add = true, nil
	return nil
}

// Drop removes every triple of graph and reports how many there were.
func (d *Store) Drop(ctx context.Context, graph kb.Term) (int64, error) {
	id, ok, err := d.graphID(ctx, graph)
	if err != nil || !ok {
		return 0, err
	}
	if err := d.writes.lock(ctx); err != nil {
		return 0, err
	}
	defer d.writes.unlock()
	quads, err := kb.Collect(d.ds.Match(ctx, kb.Pattern{G: id}))
	if err != nil {
		return 0, err
	}
	if len(quads) == 0 {
		return 0, nil
	}
	if err := d.ds.Apply(ctx, kb.Delta{Remove: quads}); err != nil {
		return 0, err
	}
	return int64(len(quads)), nil
}

// Sites lists the local sites: every named graph of asserted data is one,
// with up to 100 of its experiments.
func (d *Store) Sites(ctx context.Context) ([]query.SiteEntry, error) {
	graphs, err := d.Graphs(ctx)
	if err != nil {
		return nil, err
	}
	typeID, okType, err := d.ds.Lookup(ctx, kb.IRI(ontology.RDFType))
	if err != nil {
		return nil, err
	}
	expID, okExp, err := d.ds.Lookup(ctx, kb.IRI(ontology.Experiment))
	if err != nil {
		return nil, err
	}
	var sites []query.SiteEntry
	for _, g := range graphs {
		if g.IRI == kb.DefaultGraphIRI || g.IRI == kb.InferredGraphIRI {
			continue
		}
		if g.IRI == query.RegistryGraph {
			continue // the registry of remote sites, not a site's data
		}
		site := query.SiteEntry{Name: siteName(g.IRI), Graph: g.IRI, Triples: g.Triples, Kind: "local"}
		if okType && okExp {
			gid, _, err := d.ds.Lookup(ctx, kb.IRI(g.IRI))
			if err != nil {
				return nil, err
			}
			quads, err := kb.Collect(d.ds.Match(ctx, kb.Pattern{P: typeID, O: expID, G: gid}))
			if err != nil {
				return nil, err
			}
			for i, q := range quads {
				if i == 100 {
					break
				}
				t, err := d.ds.Resolve(ctx, q.S)
				if err != nil {
					return nil, err
				}
				site.Experiments = append(site.Experiments, t.Value)
			}
			sort.Strings(site.Experiments)
		}
		sites = append(sites, site)
	}
	return sites, nil
}

// siteName is the last path segment or fragment of a graph IRI.
func siteName(iri string) string {
	name := strings.TrimRight(iri, "/#")
	if i := strings.LastIndexAny(name, "/#:"); i >= 0 && i+1 < len(name) {
		name = name[i+1:]
	}
	return name
}
