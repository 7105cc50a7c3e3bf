package rdfio

import (
	"fmt"
	"hash/fnv"
	"sort"
	"strings"

	"github.com/perfkb/perfkb/kb"
)

// Graph isomorphism, for tests that read an encoder's output back: blank
// node labels are the writer's, so equal graphs compare up to a renaming
// of blank nodes.

// Isomorphic reports why two datasets are not isomorphic (RDF 1.1
// Concepts 3.6; "" when they are): a bijection between their blank nodes must map one set onto
// the other exactly. Blank nodes are first coloured by iterated hashing of
// their surroundings; the bijection is then searched among same-coloured
// nodes, checking every statement as soon as its blank nodes are mapped.
func Isomorphic(a, b []kb.TermQuad) string {
	a, b = dedupeStatements(expandTripleTerms(a)), dedupeStatements(expandTripleTerms(b))
	if len(a) != len(b) {
		return fmt.Sprintf("%d statements, want %d", len(a), len(b))
	}
	inB := make(map[kb.TermQuad]bool, len(b))
	for _, q := range b {
		inB[q] = true
	}
	ground := func(q kb.TermQuad) bool {
		return q.S.Kind != kb.KindBlank && q.O.Kind != kb.KindBlank && q.G.Kind != kb.KindBlank
	}
	var aBlank, bBlank []kb.TermQuad
	for _, q := range a {
		if ground(q) {
			if !inB[q] {
				return "unexpected statement " + q.String()
			}
		} else {
			aBlank = append(aBlank, q)
		}
	}
	for _, q := range b {
		if !ground(q) {
			bBlank = append(bBlank, q)
		}
	}
	if len(aBlank) != len(bBlank) {
		return fmt.Sprintf("%d statements with blank nodes, want %d", len(aBlank), len(bBlank))
	}
	ca, cb := colourBlanks(aBlank), colourBlanks(bBlank)
	// Colour classes must have the same sizes.
	count := func(c map[kb.Term]uint64) map[uint64]int {
		n := map[uint64]int{}
		for _, h := range c {
			n[h]++
		}
		return n
	}
	na, nb := count(ca), count(cb)
	if len(na) != len(nb) {
		return "blank nodes differ in structure"
	}
	for h, k := range na {
		if nb[h] != k {
			return "blank nodes differ in structure"
		}
	}
	// Order a's blank nodes, rarest colour first, and search.
	var order []kb.Term
	for t := range ca {
		order = append(order, t)
	}
	sort.Slice(order, func(i, j int) bool {
		ci, cj := na[ca[order[i]]], na[ca[order[j]]]
		if ci != cj {
			return ci < cj
		}
		return order[i].Value < order[j].Value
	})
	byColour := map[uint64][]kb.Term{}
	for t, h := range cb {
		byColour[h] = append(byColour[h], t)
	}
	// statementsOf[x] are a's statements whose last-mapped blank node
	// (in search order) is x: they are checked when x is mapped.
	rank := map[kb.Term]int{}
	for i, t := range order {
		rank[t] = i
	}
	statementsOf := map[kb.Term][]kb.TermQuad{}
	for _, q := range aBlank {
		last, r := kb.Term{}, -1
		for _, t := range [3]kb.Term{q.S, q.O, q.G} {
			if t.Kind == kb.KindBlank && rank[t] > r {
				last, r = t, rank[t]
			}
		}
		statementsOf[last] = append(statementsOf[last], q)
	}
	m := map[kb.Term]kb.Term{}
	used := map[kb.Term]bool{}
	mapT := func(t kb.Term) kb.Term {
		if t.Kind == kb.KindBlank {
			return m[t]
		}
		return t
	}
	var search func(i int) bool
	search = func(i int) bool {
		if i == len(order) {
			return true
		}
		x := order[i]
		for _, y := range byColour[ca[x]] {
			if used[y] {
				continue
			}
			m[x], used[y] = y, true
			ok := true
			for _, q := range statementsOf[x] {
				if !inB[kb.TermQuad{S: mapT(q.S), P: q.P, O: mapT(q.O), G: mapT(q.G)}] {
					ok = false
					break
				}
			}
			if ok && search(i+1) {
				return true
			}
			delete(m, x)
			used[y] = false
		}
		return false
	}
	if !search(0) {
		return "no mapping of blank nodes makes the graphs equal"
	}
	return ""
}

func dedupeStatements(qs []kb.TermQuad) []kb.TermQuad {
	seen := map[kb.TermQuad]bool{}
	var out []kb.TermQuad
	for _, q := range qs {
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	return out
}

// colourBlanks gives each blank node a hash of its neighbourhood, refined
// until the number of colours stops growing.
func colourBlanks(qs []kb.TermQuad) map[kb.Term]uint64 {
	colour := map[kb.Term]uint64{}
	for _, q := range qs {
		for _, t := range [3]kb.Term{q.S, q.O, q.G} {
			if t.Kind == kb.KindBlank {
				colour[t] = 1
			}
		}
	}
	termHash := func(t kb.Term, self kb.Term) string {
		switch {
		case t == self:
			return "SELF"
		case t.Kind == kb.KindBlank:
			return fmt.Sprintf("_%d", colour[t])
		}
		return t.String()
	}
	distinct := 1
	for round := 0; round < len(colour)+1; round++ {
		sigs := map[kb.Term][]string{}
		for _, q := range qs {
			for pos, t := range [3]kb.Term{q.S, q.O, q.G} {
				if t.Kind == kb.KindBlank {
					sigs[t] = append(sigs[t], fmt.Sprintf("%d|%s|%s|%s|%s", pos, termHash(q.S, t), q.P.String(), termHash(q.O, t), termHash(q.G, t)))
				}
			}
		}
		next := map[kb.Term]uint64{}
		seen := map[uint64]bool{}
		for t, s := range sigs {
			sort.Strings(s)
			h := fnv.New64a()
			fmt.Fprintf(h, "%d;%s", colour[t], strings.Join(s, ";"))
			next[t] = h.Sum64()
			seen[next[t]] = true
		}
		colour = next
		if len(seen) == distinct {
			break
		}
		distinct = len(seen)
	}
	return colour
}

// tripleTermGraph holds the statements expandTripleTerms adds.
const tripleTermGraph = "urn:x-perfkb:isomorphic:triple-term#"

// expandTripleTerms replaces each triple term that holds a blank node by a
// blank node of its own, described by three statements in a graph of
// their own (its subject, predicate and object, expanded the same way), so
// that the blank nodes inside triple terms take part in the search for a
// bijection like any other: two datasets are isomorphic exactly when
// their expansions are. An expansion node never matches a blank node of
// the data, which has no such statements.
func expandTripleTerms(qs []kb.TermQuad) []kb.TermQuad {
	has := false
	for _, q := range qs {
		if q.S.IsTriple() || q.O.IsTriple() {
			has = true
			break
		}
	}
	if !has {
		return qs
	}
	nodes := map[kb.Term]kb.Term{}
	var extra []kb.TermQuad
	var expand func(t kb.Term) kb.Term
	expand = func(t kb.Term) kb.Term {
		if !t.IsTriple() || !strings.Contains(t.Value, "_:") {
			return t
		}
		if n, ok := nodes[t]; ok {
			return n
		}
		tr, ok := t.Triple()
		if !ok {
			return t
		}
		n := kb.Blank(fmt.Sprintf("x-triple-term-%d", len(nodes)))
		nodes[t] = n
		g := kb.IRI(tripleTermGraph + "graph")
		extra = append(extra,
			kb.TermQuad{S: n, P: kb.IRI(tripleTermGraph + "s"), O: expand(tr.S), G: g},
			kb.TermQuad{S: n, P: kb.IRI(tripleTermGraph + "p"), O: tr.P, G: g},
			kb.TermQuad{S: n, P: kb.IRI(tripleTermGraph + "o"), O: expand(tr.O), G: g})
		return n
	}
	out := make([]kb.TermQuad, 0, len(qs))
	for _, q := range qs {
		q.S, q.O = expand(q.S), expand(q.O)
		out = append(out, q)
	}
	return append(out, extra...)
}
