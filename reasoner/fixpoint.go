package reasoner

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// A store that reached a program's fixpoint says so with a marker quad in
// the derivations graph (which rules never read):
//
//	<urn:x-perfkb:fixpoint> <urn:x-perfkb:fixpoint-of> "v1 KEY A B N T"
//
// KEY digests the program and the options that change its result
// (fixpointKey); A, B and N digest the store's quads outside the
// derivations graph when the run ended (contentDigest); T is the number of
// distinct triples the rules saw at the fixpoint. Run compares the store
// with the marker before it loads anything: the same program over the same
// quads derives nothing, so the run can stop after one scan of the store
// instead of loading the working memory and joining every rule once more.
// Any write outside the derivations graph changes the digest, so no write
// since the marker can go unnoticed, whoever made it; a marker whose
// digest no longer matches is dropped when the next run writes its own.
const (
	fixpointSubjectIRI   = "urn:x-perfkb:fixpoint"
	fixpointPredicateIRI = "urn:x-perfkb:fixpoint-of"
	fixpointVersion      = "v1"
)

// notAFunctionOfTheStore lists the builtins whose effects are not decided
// by the store's quads alone (the clock, output, new blank nodes, deletes):
// a program that uses one runs in full every time.
var notAFunctionOfTheStore = map[string]bool{"now": true, "print": true, "makeTemp": true, "remove": true, "drop": true}

// fixpointKey returns a digest of what a run's result depends on besides
// the store: each rule's label and text (full IRIs, @define constants
// written in), the SPARQL rules' queries, and the graphs the run reads
// and writes. ok is false for programs that use a builtin of
// notAFunctionOfTheStore.
func fixpointKey(prog *Program, opts Options) (key string, ok bool) {
	h := sha256.New()
	for _, r := range prog.rules {
		for _, c := range append(append([]compiledClause(nil), r.body...), r.head...) {
			if c.call != nil && notAFunctionOfTheStore[c.call.b.Name] {
				return "", false
			}
		}
		fmt.Fprintf(h, "rule %q %q\n", r.label, r.rule.String())
	}
	for _, a := range prog.source.SPARQLRules {
		fmt.Fprintf(h, "sparql %q %q\n", a.Label(), a.Query)
	}
	inferred := opts.InferredGraph
	if inferred.IsZero() {
		inferred = kb.InferredGraph
	}
	fmt.Fprintf(h, "inferred %s\n", inferred)
	if opts.ReadGraphs != nil {
		fmt.Fprintf(h, "reads %d\n", len(opts.ReadGraphs))
		for _, g := range opts.ReadGraphs {
			fmt.Fprintf(h, "read %s\n", g)
		}
	}
	return hex.EncodeToString(h.Sum(nil)[:16]), true
}

// contentDigest is an order-independent digest of a set of quads: the
// sums of two independently seeded 64-bit hashes of each quad's IDs, and
// the count. Adding or removing any quad changes all three (two different
// sets agree on both sums with a probability near 2^-128).
type contentDigest struct{ a, b, n uint64 }

// mix64 is SplitMix64's finalizer: every input bit flips each output bit
// with probability about one half.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

func quadHash(seed uint64, q kb.Quad) uint64 {
	h := mix64(seed ^ uint64(q.S))
	h = mix64(h ^ uint64(q.P) ^ 0x9e3779b97f4a7c15)
	h = mix64(h ^ uint64(q.O) ^ 0x3c6ef372fe94f82a)
	return mix64(h ^ uint64(q.G) ^ 0xdaa66d2c7ddf743f)
}

func (d *contentDigest) add(q kb.Quad) {
	d.a += quadHash(0x243f6a8885a308d3, q)
	d.b += quadHash(0x13198a2e03707344, q)
	d.n++
}

// storeDigest digests every quad of ds outside the derivations graph.
func storeDigest(ctx context.Context, ds kb.Dataset, derivG kb.ID) (contentDigest, error) {
	var d contentDigest
	graphs, err := ds.Graphs(ctx)
	if err != nil {
		return d, fmt.Errorf("reasoner: listing graphs: %w", err)
	}
	for _, g := range graphs {
		if g == derivG {
			continue
		}
		it := ds.Match(ctx, kb.Pattern{G: g})
		n := 0
		for it.Next() {
			d.add(it.Quad())
			if n++; n&0xffff == 0 {
				if err := ctx.Err(); err != nil {
					it.Close()
					return d, err
				}
			}
		}
		err := it.Err()
		it.Close()
		if err != nil {
			return d, fmt.Errorf("reasoner: reading the store: %w", err)
		}
	}
	return d, nil
}

// fixpointMarker is one marker literal, parsed.
type fixpointMarker struct {
	key     string
	digest  contentDigest
	triples int64
}

func (m fixpointMarker) literal() kb.Term {
	return kb.Literal(fmt.Sprintf("%s %s %x %x %d %d", fixpointVersion, m.key, m.digest.a, m.digest.b, m.digest.n, m.triples), ontology.XSDString)
}

func parseFixpointMarker(t kb.Term) (fixpointMarker, bool) {
	f := strings.Fields(t.Value)
	if t.Kind != kb.KindLiteral || len(f) != 6 || f[0] != fixpointVersion {
		return fixpointMarker{}, false
	}
	var m fixpointMarker
	var err [4]error
	m.key = f[1]
	m.digest.a, err[0] = strconv.ParseUint(f[2], 16, 64)
	m.digest.b, err[1] = strconv.ParseUint(f[3], 16, 64)
	m.digest.n, err[2] = strconv.ParseUint(f[4], 10, 64)
	m.triples, err[3] = strconv.ParseInt(f[5], 10, 64)
	for _, e := range err {
		if e != nil {
			return fixpointMarker{}, false
		}
	}
	return m, true
}

// fixpointMarkers returns the store's marker quads with their parsed
// literals (nil when the store has none, without interning anything).
func fixpointMarkers(ctx context.Context, ds kb.Dataset) ([]kb.Quad, []fixpointMarker, error) {
	ids := make([]kb.ID, 3)
	for i, t := range []kb.Term{kb.IRI(fixpointSubjectIRI), kb.IRI(fixpointPredicateIRI), DerivationsGraph} {
		id, ok, err := ds.Lookup(ctx, t)
		if err != nil || !ok {
			return nil, nil, err
		}
		ids[i] = id
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: ids[0], P: ids[1], G: ids[2]}))
	if err != nil {
		return nil, nil, fmt.Errorf("reasoner: reading the fixpoint marker: %w", err)
	}
	ms := make([]fixpointMarker, len(quads))
	for i, q := range quads {
		t, err := ds.Resolve(ctx, q.O)
		if err != nil {
			return nil, nil, fmt.Errorf("reasoner: reading the fixpoint marker: %w", err)
		}
		ms[i], _ = parseFixpointMarker(t)
	}
	return quads, ms, nil
}

// atFixpoint reports whether ds holds a marker for key whose digest is
// the store's. digest is the store's digest when it was computed (ok
// false with a marker for key but another digest), for the marker the run
// writes if it changes nothing.
func atFixpoint(ctx context.Context, ds kb.Dataset, key string) (m fixpointMarker, digest *contentDigest, ok bool, err error) {
	_, ms, err := fixpointMarkers(ctx, ds)
	if err != nil {
		return m, nil, false, err
	}
	for _, cand := range ms {
		if cand.key != key {
			continue
		}
		derivG, _, err := ds.Lookup(ctx, DerivationsGraph)
		if err != nil {
			return m, nil, false, err
		}
		d, err := storeDigest(ctx, ds, derivG)
		if err != nil {
			return m, nil, false, err
		}
		for _, c := range ms {
			if c.key == key && c.digest == d {
				return c, &d, true, nil
			}
		}
		return m, &d, false, nil
	}
	return m, nil, false, nil
}

// markFixpoint records that ds, whose digest is d (computed here when
// nil), is at the fixpoint of key, keeping the markers of other programs
// that are at their fixpoint over the same quads and dropping the rest.
func markFixpoint(ctx context.Context, ds kb.Dataset, key string, d *contentDigest, triples int64) error {
	quads, ms, err := fixpointMarkers(ctx, ds)
	if err != nil {
		return err
	}
	if d == nil {
		ids, err := ds.Intern(ctx, []kb.Term{DerivationsGraph})
		if err != nil {
			return fmt.Errorf("reasoner: interning terms: %w", err)
		}
		dd, err := storeDigest(ctx, ds, ids[0])
		if err != nil {
			return err
		}
		d = &dd
	}
	var drop []kb.Quad
	for i, m := range ms {
		if m.key == key || m.digest != *d {
			drop = append(drop, quads[i])
		}
	}
	mark := fixpointMarker{key: key, digest: *d, triples: triples}
	ids, err := ds.Intern(ctx, []kb.Term{kb.IRI(fixpointSubjectIRI), kb.IRI(fixpointPredicateIRI), mark.literal(), DerivationsGraph})
	if err != nil {
		return fmt.Errorf("reasoner: interning terms: %w", err)
	}
	add := kb.Quad{S: ids[0], P: ids[1], O: ids[2], G: ids[3]}
	delta := kb.Delta{Add: []kb.Quad{add}}
	for _, q := range drop {
		if q != add {
			delta.Remove = append(delta.Remove, q)
		}
	}
	if err := ds.Apply(ctx, delta); err != nil {
		return fmt.Errorf("reasoner: writing the fixpoint marker: %w", err)
	}
	return nil
}
