package store

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// OntologyGraphIRI names the graph that holds PERFONTO in a store
// (kb.OntologyGraphIRI), so that the RDFS and OWL rules reason over its
// class and property hierarchies and queries such as
// ?cr a/rdfs:subClassOf* perfonto:SpecificCodeRegion work without loading
// anything by hand.
const OntologyGraphIRI = kb.OntologyGraphIRI

// ontologyDigestIRI is the predicate of the one bookkeeping triple in the
// ontology graph: the SHA-256 of the Turtle it was loaded from.
const ontologyDigestIRI = "urn:x-perfkb:ontologyDigest"

// OntologyState says how the ontology stored in a store compares with the
// one built into this binary.
type OntologyState struct {
	// Digest is the built-in ontology's digest; Stored is the store's
	// (empty when the store holds none).
	Digest, Stored string
	// Triples is the number of triples of the built-in ontology.
	Triples int
}

// Current reports whether the store holds the built-in ontology.
func (s OntologyState) Current() bool { return s.Stored == s.Digest }

// ontologyDigest is the hex SHA-256 of the built-in ontology's Turtle.
func ontologyDigest() string {
	sum := sha256.Sum256([]byte(ontology.Turtle()))
	return hex.EncodeToString(sum[:])
}

// CheckOntology compares the ontology stored in ds with the built-in one
// without changing anything.
func CheckOntology(ctx context.Context, ds kb.Dataset) (OntologyState, error) {
	st := OntologyState{Digest: ontologyDigest()}
	stored, err := storedDigest(ctx, ds)
	if err != nil {
		return st, err
	}
	st.Stored = stored
	quads, err := ontologyQuads(ctx)
	if err != nil {
		return st, err
	}
	st.Triples = len(quads)
	return st, nil
}

// EnsureOntology puts the built-in PERFONTO into the graph
// OntologyGraphIRI when the store holds none or an older one, replacing
// the old graph in one atomic write. A store that is current costs one
// lookup. It reports whether it wrote.
func EnsureOntology(ctx context.Context, ds kb.Dataset) (bool, error) {
	digest := ontologyDigest()
	stored, err := storedDigest(ctx, ds)
	if err != nil || stored == digest {
		return false, err
	}
	quads, err := ontologyQuads(ctx)
	if err != nil {
		return false, err
	}
	graph := kb.IRI(OntologyGraphIRI)
	quads = append(quads, kb.TermQuad{S: graph, P: kb.IRI(ontologyDigestIRI), O: kb.String(digest), G: graph})
	add, err := kb.InternQuads(ctx, ds, quads)
	if err != nil {
		return false, fmt.Errorf("storing the ontology: %w", err)
	}
	var remove []kb.Quad
	if gid, ok, err := ds.Lookup(ctx, graph); err != nil {
		return false, err
	} else if ok {
		if remove, err = kb.Collect(ds.Match(ctx, kb.Pattern{G: gid})); err != nil {
			return false, err
		}
	}
	if err := ds.Apply(ctx, kb.Delta{Remove: remove, Add: add}); err != nil {
		return false, fmt.Errorf("storing the ontology: %w", err)
	}
	return true, nil
}

// storedDigest reads the digest triple of the ontology graph ("" when
// there is none).
func storedDigest(ctx context.Context, ds kb.Dataset) (string, error) {
	graph := kb.IRI(OntologyGraphIRI)
	ids := make([]kb.ID, 2)
	for i, t := range []kb.Term{graph, kb.IRI(ontologyDigestIRI)} {
		id, ok, err := ds.Lookup(ctx, t)
		if err != nil || !ok {
			return "", err
		}
		ids[i] = id
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: ids[0], P: ids[1], G: ids[0]}))
	if err != nil || len(quads) == 0 {
		return "", err
	}
	t, err := ds.Resolve(ctx, quads[0].O)
	if err != nil {
		return "", err
	}
	return t.Value, nil
}

// ontologyQuads parses the built-in ontology into quads of the ontology
// graph.
func ontologyQuads(ctx context.Context) ([]kb.TermQuad, error) {
	mem := native.OpenMemory()
	defer mem.Close()
	graph := kb.IRI(OntologyGraphIRI)
	if _, err := rdfio.Load(ctx, mem, strings.NewReader(ontology.Turtle()), rdfio.LoadOptions{
		Format: rdfio.Turtle, Graph: graph, SourceName: "perfonto.ttl", BaseIRI: ontology.Namespace,
	}); err != nil {
		return nil, fmt.Errorf("the built-in ontology: %w", err)
	}
	ids, err := kb.Collect(mem.Match(ctx, kb.Pattern{}))
	if err != nil {
		return nil, err
	}
	out := make([]kb.TermQuad, 0, len(ids))
	for _, q := range ids {
		tq, err := kb.ResolveQuad(ctx, mem, q)
		if err != nil {
			return nil, err
		}
		out = append(out, tq)
	}
	return out, nil
}
