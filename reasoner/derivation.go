package reasoner

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// Derivation records are how explanations survive the process that
// derived them. They hold store IDs only, never term strings, and many
// derivations share one record, so that recording costs little beside
// writing the derived triples themselves. The engine writes, per batch of
// up to recordBatch derivations (sorted by subject), one literal
//
//	"ENTRY\nENTRY…"^^<urn:x-perfkb:derivation-batch>
//
// where each ENTRY is space-separated base-36 IDs:
//
//	L S P O s1 p1 o1 s2 p2 o2 …
//
// L is the ID of the rule's label (a literal of datatype
// urn:x-perfkb:rule-label), S P O the derived triple, then each premise
// (the triple that matched a body pattern). For each distinct subject S of
// a batch's lowest subject ID FIRST and highest LAST the quads
//
//	FIRST <urn:x-perfkb:derivation-first> BATCH <urn:x-perfkb:derivations>
//	LAST <urn:x-perfkb:derivation-last> BATCH <urn:x-perfkb:derivations>
//
// (the second only when LAST differs from FIRST) let Explain find the
// batches that may hold S's derivations: those whose ID range holds S's
// ID. The range quads of all batches are read once per explainer; a round
// writes batches of disjoint ranges, so a subject falls in about one batch
// per round. For each
// rule label L a batch names, the same write adds
//
//	<urn:x-perfkb:derivations> <urn:x-perfkb:rule-label> L <urn:x-perfkb:derivations>
//
// since a store keeps only the terms that its quads use. Explain follows
// premises that are themselves inferred down to asserted triples. IDs are
// the store's own, so records are valid in the store that wrote them (an
// export and re-import of the data gives new IDs and no explanations: run
// the rules again there).
//
// Stores written before the range quads hold one quad
// S <urn:x-perfkb:derivation> BATCH per distinct subject of a batch, and
// stores written before batches existed hold one record per derived triple,
// with terms instead of IDs (datatype urn:x-perfkb:derivation-record,
// encodeRecord's format); Explain reads both.

// DerivationBatchDatatypeIRI is the datatype of derivation batch literals.
const DerivationBatchDatatypeIRI = "urn:x-perfkb:derivation-batch"

// RuleLabelDatatypeIRI is the datatype of the literals that name a rule in
// derivation batches.
const RuleLabelDatatypeIRI = "urn:x-perfkb:rule-label"

// ruleLabelPredicateIRI links the derivations graph to the rule labels.
const ruleLabelPredicateIRI = "urn:x-perfkb:rule-label"

// recordBatch is the number of derivations per batch literal: large enough
// that the dictionary gets few entries, small enough that Explain decodes
// little to find one derivation.
const recordBatch = 512

// idEntry is one decoded derivation of a batch.
type idEntry struct {
	label    kb.ID
	premises [][3]kb.ID
}

// appendEntry writes one derivation entry (no trailing newline).
func appendEntry(b []byte, label kb.ID, t [3]kb.ID, premises [][3]kb.ID) []byte {
	b = strconv.AppendUint(b, uint64(label), 36)
	for _, id := range t {
		b = append(b, ' ')
		b = strconv.AppendUint(b, uint64(id), 36)
	}
	for _, p := range premises {
		for _, id := range p {
			b = append(b, ' ')
			b = strconv.AppendUint(b, uint64(id), 36)
		}
	}
	return b
}

// decodeBatch reads a derivation batch literal's lexical form.
func decodeBatch(lex string) (map[[3]kb.ID]idEntry, error) {
	out := map[[3]kb.ID]idEntry{}
	for line := range strings.SplitSeq(lex, "\n") {
		f := strings.Fields(line)
		if len(f) < 4 || (len(f)-4)%3 != 0 {
			return nil, fmt.Errorf("derivation batch: entry of %d IDs", len(f))
		}
		ids := make([]kb.ID, len(f))
		for i, s := range f {
			n, err := strconv.ParseUint(s, 36, 64)
			if err != nil {
				return nil, fmt.Errorf("derivation batch: %w", err)
			}
			ids[i] = kb.ID(n)
		}
		e := idEntry{label: ids[0]}
		for i := 4; i < len(ids); i += 3 {
			e.premises = append(e.premises, [3]kb.ID{ids[i], ids[i+1], ids[i+2]})
		}
		out[[3]kb.ID{ids[1], ids[2], ids[3]}] = e
	}
	return out, nil
}

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
	// batches holds the derivation batches decoded so far, by literal ID.
	batches map[kb.ID]map[[3]kb.ID]idEntry
	// ranges are the subject ID ranges of the batches, read on first use.
	ranges     []batchRange
	rangesRead bool
}

// batchRange is the range of subject IDs of one derivation batch.
type batchRange struct{ first, last, batch kb.ID }

// readRanges reads the range quads of every derivation batch.
func (x *explainer) readRanges() error {
	x.rangesRead = true
	var ps [2]kb.ID
	for i, iri := range [2]string{DerivationFirstPredicateIRI, DerivationLastPredicateIRI} {
		id, ok, err := x.ds.Lookup(x.ctx, kb.IRI(iri))
		if err != nil {
			return err
		}
		if !ok {
			if i == 0 {
				return nil
			}
			break
		}
		ps[i] = id
	}
	byBatch := map[kb.ID]int{}
	for i, p := range ps {
		if p == 0 {
			continue
		}
		quads, err := kb.Collect(x.ds.Match(x.ctx, kb.Pattern{P: p, G: x.derivG}))
		if err != nil {
			return err
		}
		for _, q := range quads {
			j, ok := byBatch[q.O]
			if !ok {
				j = len(x.ranges)
				byBatch[q.O] = j
				x.ranges = append(x.ranges, batchRange{first: q.S, last: q.S, batch: q.O})
			}
			if i == 0 {
				x.ranges[j].first = q.S
			} else {
				x.ranges[j].last = q.S
			}
		}
	}
	return nil
}

// candidateBatches returns the IDs of the batches that may hold a
// derivation of a triple with subject s.
func (x *explainer) candidateBatches(s kb.ID) ([]kb.ID, error) {
	var out []kb.ID
	if x.derivP != 0 {
		quads, err := kb.Collect(x.ds.Match(x.ctx, kb.Pattern{S: s, P: x.derivP, G: x.derivG}))
		if err != nil {
			return nil, err
		}
		for _, q := range quads {
			out = append(out, q.O)
		}
	}
	if !x.rangesRead {
		if err := x.readRanges(); err != nil {
			return nil, err
		}
	}
	for _, r := range x.ranges {
		if r.first <= s && s <= r.last {
			out = append(out, r.batch)
		}
	}
	return out, nil
}

func newExplainer(ctx context.Context, ds kb.Dataset) (*explainer, error) {
	x := &explainer{ctx: ctx, ds: ds, memo: map[kb.Triple]*Derivation{}, batches: map[kb.ID]map[[3]kb.ID]idEntry{}}
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
		// Absent from stores written with range quads only (derivP stays 0).
		if x.derivP, _, err = ds.Lookup(ctx, kb.IRI(DerivationPredicateIRI)); err != nil {
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
	rec, found, err := x.findRecord(ids, t)
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

func (x *explainer) findRecord(ids [3]kb.ID, t kb.Triple) (record, bool, error) {
	if !x.haveRecords {
		return record{}, false, nil
	}
	cands, err := x.candidateBatches(ids[0])
	if err != nil {
		return record{}, false, err
	}
	for _, b := range cands {
		if batch, ok := x.batches[b]; ok {
			if e, ok := batch[ids]; ok {
				return x.resolveEntry(e)
			}
			continue
		}
		lit, err := x.ds.Resolve(x.ctx, b)
		if err != nil {
			return record{}, false, err
		}
		switch lit.Datatype {
		case DerivationBatchDatatypeIRI:
			batch, err := decodeBatch(lit.Value)
			if err != nil {
				return record{}, false, err
			}
			x.batches[b] = batch
			if e, ok := batch[ids]; ok {
				return x.resolveEntry(e)
			}
		case DerivationDatatypeIRI:
			// A record of a store written before batches: one per
			// derived triple, whose second line is "p o".
			var key strings.Builder
			t.P.AppendNTriples(&key)
			key.WriteByte(' ')
			t.O.AppendNTriples(&key)
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
	}
	return record{}, false, nil
}

// resolveEntry turns a batch entry's IDs into terms.
func (x *explainer) resolveEntry(e idEntry) (record, bool, error) {
	label, err := x.ds.Resolve(x.ctx, e.label)
	if err != nil {
		return record{}, false, fmt.Errorf("derivation record: rule label: %w", err)
	}
	rec := record{rule: label.Value}
	for _, p := range e.premises {
		var t [3]kb.Term
		for j, id := range p {
			if t[j], err = x.ds.Resolve(x.ctx, id); err != nil {
				return record{}, false, fmt.Errorf("derivation record: premise: %w", err)
			}
		}
		rec.premises = append(rec.premises, kb.Triple{S: t[0], P: t[1], O: t[2]})
	}
	return rec, true, nil
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
