package reasoner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// Derivation records are how explanations survive the process that
// derived them. For each derived triple (s p o) the engine writes one quad
//
//	s <urn:x-perfkb:derivation> "RECORD"^^<urn:x-perfkb:derivation-record> <urn:x-perfkb:derivations>
//
// whose lexical form is, one item per line:
//
//	rule label
//	p o                 (the derived triple's predicate and object, N-Triples terms)
//	s1 p1 o1            (each premise: the triple that matched a body pattern)
//	...
//
// Explain follows premises that are themselves inferred down to asserted
// triples. Records hold terms, not store IDs, so they stay valid whatever
// the backend does with IDs.

func encodeRecord(rule string, p, o kb.Term, premises []kb.Triple) kb.Term {
	var b strings.Builder
	b.WriteString(strings.ReplaceAll(rule, "\n", " "))
	b.WriteByte('\n')
	p.AppendNTriples(&b)
	b.WriteByte(' ')
	o.AppendNTriples(&b)
	for _, t := range premises {
		b.WriteByte('\n')
		t.S.AppendNTriples(&b)
		b.WriteByte(' ')
		t.P.AppendNTriples(&b)
		b.WriteByte(' ')
		t.O.AppendNTriples(&b)
	}
	return kb.Literal(b.String(), DerivationDatatypeIRI)
}

type record struct {
	rule     string
	p, o     kb.Term
	premises []kb.Triple
}

func decodeRecord(lex string) (record, error) {
	lines := strings.Split(lex, "\n")
	if len(lines) < 2 {
		return record{}, errors.New("derivation record: too short")
	}
	r := record{rule: lines[0]}
	terms, err := parseNTTerms(lines[1], 2)
	if err != nil {
		return record{}, fmt.Errorf("derivation record: %w", err)
	}
	r.p, r.o = terms[0], terms[1]
	for _, line := range lines[2:] {
		terms, err := parseNTTerms(line, 3)
		if err != nil {
			return record{}, fmt.Errorf("derivation record: %w", err)
		}
		r.premises = append(r.premises, kb.Triple{S: terms[0], P: terms[1], O: terms[2]})
	}
	return r, nil
}

// parseNTTerms reads n space-separated N-Triples terms with the one
// N-Triples term decoder.
func parseNTTerms(s string, n int) ([]kb.Term, error) {
	terms, err := rdfio.ParseTerms(s)
	if err != nil {
		return nil, err
	}
	if len(terms) != n {
		return nil, fmt.Errorf("%d terms in %q; want %d", len(terms), s, n)
	}
	return terms, nil
}

// Derivation explains one triple: asserted, or derived by Rule from
// Premises (each explained in turn).
type Derivation struct {
	Triple   kb.Triple     `json:"-"`
	Rule     string        `json:"rule,omitempty"`
	Asserted bool          `json:"asserted"`
	Premises []*Derivation `json:"premises,omitempty"`
	// Note says why a branch stops early: a cycle, the depth limit, or a
	// derived triple without a record (derivations were not recorded).
	Note string `json:"note,omitempty"`
}

// maxExplainDepth bounds derivation trees.
const maxExplainDepth = 64

// Explain returns the derivation of every inferred triple whose subject is
// term, each traced down to asserted triples.
func Explain(ctx context.Context, ds kb.Dataset, term kb.Term) ([]*Derivation, error) {
	x, err := newExplainer(ctx, ds)
	if err != nil || x == nil {
		return nil, err
	}
	sid, ok, err := ds.Lookup(ctx, term)
	if err != nil || !ok {
		return nil, err
	}
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: sid, G: x.inferred}))
	if err != nil {
		return nil, err
	}
	var out []*Derivation
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			return nil, err
		}
		d, err := x.explain(kb.Triple{S: tq.S, P: tq.P, O: tq.O}, 0, map[kb.Triple]bool{})
		if err != nil {
			return nil, err
		}
		out = append(out, d)
	}
	sortDerivations(out)
	return out, nil
}

// ExplainTriple returns the derivation of one triple.
func ExplainTriple(ctx context.Context, ds kb.Dataset, t kb.Triple) (*Derivation, error) {
	x, err := newExplainer(ctx, ds)
	if err != nil {
		return nil, err
	}
	if x == nil {
		return &Derivation{Triple: t, Asserted: true}, nil
	}
	return x.explain(t, 0, map[kb.Triple]bool{})
}

type explainer struct {
	ctx                      context.Context
	ds                       kb.Dataset
	inferred, derivG, derivP kb.ID
	internal                 kb.ID // the rules-internal graph (0: none)
	haveRecords              bool
	memo                     map[kb.Triple]*Derivation
}

func newExplainer(ctx context.Context, ds kb.Dataset) (*explainer, error) {
	x := &explainer{ctx: ctx, ds: ds, memo: map[kb.Triple]*Derivation{}}
	id, ok, err := ds.Lookup(ctx, kb.InferredGraph)
	if err != nil || !ok {
		return nil, err
	}
	x.inferred = id
	if x.internal, _, err = ds.Lookup(ctx, kb.IRI(kb.RulesInternalGraphIRI)); err != nil {
		return nil, err
	}
	if x.derivG, x.haveRecords, err = ds.Lookup(ctx, DerivationsGraph); err != nil {
		return nil, err
	}
	if x.haveRecords {
		if x.derivP, x.haveRecords, err = ds.Lookup(ctx, kb.IRI(DerivationPredicateIRI)); err != nil {
			return nil, err
		}
	}
	return x, nil
}

func (x *explainer) ids(t kb.Triple) ([3]kb.ID, bool, error) {
	var out [3]kb.ID
	for j, term := range [3]kb.Term{t.S, t.P, t.O} {
		id, ok, err := x.ds.Lookup(x.ctx, term)
		if err != nil || !ok {
			return out, false, err
		}
		out[j] = id
	}
	return out, true, nil
}

func (x *explainer) explain(t kb.Triple, depth int, path map[kb.Triple]bool) (*Derivation, error) {
	if d, ok := x.memo[t]; ok {
		return d, nil
	}
	d := &Derivation{Triple: t}
	ids, ok, err := x.ids(t)
	if err != nil {
		return nil, err
	}
	if !ok {
		d.Note = "not in the store"
		return d, nil
	}
	quads, err := kb.Collect(x.ds.Match(x.ctx, kb.Pattern{S: ids[0], P: ids[1], O: ids[2]}))
	if err != nil {
		return nil, err
	}
	inferred := false
	for _, q := range quads {
		if q.G == x.inferred || (q.G == x.internal && x.internal != 0) {
			inferred = true
		} else if q.G != x.derivG {
			d.Asserted = true
		}
	}
	if d.Asserted || !inferred {
		if !d.Asserted {
			d.Note = "not in the store"
		}
		x.memo[t] = d
		return d, nil
	}
	if path[t] {
		d.Note = "cycle"
		return d, nil
	}
	if depth >= maxExplainDepth {
		d.Note = "depth limit"
		return d, nil
	}
	rec, found, err := x.findRecord(ids[0], t)
	if err != nil {
		return nil, err
	}
	if !found {
		d.Note = "no derivation record (run without derivations?)"
		x.memo[t] = d
		return d, nil
	}
	d.Rule = rec.rule
	path[t] = true
	for _, p := range rec.premises {
		pd, err := x.explain(p, depth+1, path)
		if err != nil {
			return nil, err
		}
		d.Premises = append(d.Premises, pd)
	}
	delete(path, t)
	x.memo[t] = d
	return d, nil
}

func (x *explainer) findRecord(s kb.ID, t kb.Triple) (record, bool, error) {
	if !x.haveRecords {
		return record{}, false, nil
	}
	quads, err := kb.Collect(x.ds.Match(x.ctx, kb.Pattern{S: s, P: x.derivP, G: x.derivG}))
	if err != nil {
		return record{}, false, err
	}
	// A subject has a record per triple derived about it; only the one
	// whose second line is "p o" is decoded.
	var key strings.Builder
	t.P.AppendNTriples(&key)
	key.WriteByte(' ')
	t.O.AppendNTriples(&key)
	for _, q := range quads {
		lit, err := x.ds.Resolve(x.ctx, q.O)
		if err != nil {
			return record{}, false, err
		}
		if _, rest, ok := strings.Cut(lit.Value, "\n"); ok {
			if line, _, _ := strings.Cut(rest, "\n"); line != key.String() {
				continue
			}
		}
		rec, err := decodeRecord(lit.Value)
		if err != nil {
			return record{}, false, err
		}
		if rec.p == t.P && rec.o == t.O {
			return rec, true, nil
		}
	}
	return record{}, false, nil
}

func sortDerivations(ds []*Derivation) {
	key := func(d *Derivation) string { return d.Triple.P.String() + " " + d.Triple.O.String() }
	for i := 1; i < len(ds); i++ {
		for j := i; j > 0 && key(ds[j]) < key(ds[j-1]); j-- {
			ds[j], ds[j-1] = ds[j-1], ds[j]
		}
	}
}

// MarshalJSON writes the one derivation shape of perfkb (`perfkb reason
// --explain --format json` and GET /explain): the triple as an N-Triples
// statement next to the tree,
//
//	{"triple": "<s> <p> <o> .", "rule": "label", "asserted": false,
//	 "premises": [ … ], "note": "cycle"}
func (d *Derivation) MarshalJSON() ([]byte, error) {
	type plain Derivation
	return marshal(struct {
		Triple string `json:"triple"`
		*plain
	}{kb.TermQuad{S: d.Triple.S, P: d.Triple.P, O: d.Triple.O}.String(), (*plain)(d)})
}

// UnmarshalJSON reads the derivation shape back (for clients of the HTTP
// API).
func (d *Derivation) UnmarshalJSON(b []byte) error {
	type plain Derivation
	var o struct {
		Triple string `json:"triple"`
		*plain
	}
	o.plain = (*plain)(d)
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	terms, err := parseNTTerms(strings.TrimSuffix(strings.TrimSpace(o.Triple), " ."), 3)
	if err != nil {
		return fmt.Errorf("derivation triple %q: %w", o.Triple, err)
	}
	d.Triple = kb.Triple{S: terms[0], P: terms[1], O: terms[2]}
	return nil
}

// Explanation is why the store holds the inferred triples about Subject:
// one derivation tree per triple. Its JSON is
// {"subject": IRI or _:label, "derivations": [ … ]}.
type Explanation struct {
	Subject     kb.Term
	Derivations []*Derivation
}

type explanationJSON struct {
	Subject     string        `json:"subject"`
	Derivations []*Derivation `json:"derivations"`
}

// MarshalJSON writes the explanation shape.
func (e Explanation) MarshalJSON() ([]byte, error) {
	ders := e.Derivations
	if ders == nil {
		ders = []*Derivation{}
	}
	return marshal(explanationJSON{resourceString(e.Subject), ders})
}

// UnmarshalJSON reads the explanation shape back.
func (e *Explanation) UnmarshalJSON(b []byte) error {
	var o explanationJSON
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*e = Explanation{Subject: parseResource(o.Subject), Derivations: o.Derivations}
	return nil
}

// Format writes the derivation as an indented tree, one triple a line.
func (d *Derivation) Format(b *strings.Builder, indent string) {
	b.WriteString(indent)
	b.WriteString(kb.TermQuad{S: d.Triple.S, P: d.Triple.P, O: d.Triple.O}.String())
	switch {
	case d.Asserted:
		b.WriteString("   [asserted]")
	case d.Rule != "":
		b.WriteString("   [rule " + d.Rule + "]")
	}
	if d.Note != "" {
		b.WriteString("   (" + d.Note + ")")
	}
	b.WriteByte('\n')
	for _, p := range d.Premises {
		p.Format(b, indent+"    ")
	}
}
