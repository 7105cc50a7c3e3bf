package syntax

import (
	"fmt"
	"os"
	"strconv"
)

// This file holds a minimal Turtle reader, enough for the W3C test manifests
// (prefixes, predicate/object lists, blank node property lists, collections).

// ttlTriple is a triple of terms written as strings: IRIs as "<iri>",
// literals as their lexical form in quotes, blank nodes as "_:label".
type ttlTriple struct{ s, p, o string }

type ttlReader struct {
	toks     []token
	pos      int
	base     string
	prefixes map[string]string
	triples  []ttlTriple
	fresh    int
}

// readTurtle parses a Turtle file with the given base IRI.
func readTurtle(path, base string) ([]ttlTriple, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	toks, err := tokenize(string(src), false)
	if err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	r := &ttlReader{toks: toks, base: base, prefixes: map[string]string{}}
	if err := r.parse(); err != nil {
		return nil, fmt.Errorf("%s:%w", path, err)
	}
	return r.triples, nil
}

func (r *ttlReader) peek() token { return r.toks[r.pos] }

func (r *ttlReader) next() token {
	t := r.toks[r.pos]
	if t.kind != tokEOF {
		r.pos++
	}
	return t
}

func (r *ttlReader) fail(what string) error {
	t := r.peek()
	return errorAt(t.line, t.col, "%s", "turtle: expected "+what+", found "+t.describe())
}

func (r *ttlReader) parse() error {
	for r.peek().kind != tokEOF {
		t := r.peek()
		switch {
		case (t.kind == tokLang && t.text == "prefix") || t.isWord("PREFIX"):
			r.next()
			ns := r.next()
			iri := r.next()
			if ns.kind != tokPName || iri.kind != tokIRI {
				return r.fail("prefix declaration")
			}
			r.prefixes[ns.text] = resolveIRI(r.base, iri.text)
			if t.kind == tokLang && !r.next().is(".") {
				return r.fail("'.'")
			}
		case (t.kind == tokLang && t.text == "base") || t.isWord("BASE"):
			r.next()
			r.base = resolveIRI(r.base, r.next().text)
			if t.kind == tokLang {
				r.next()
			}
		default:
			s, err := r.subject()
			if err != nil {
				return err
			}
			if !r.peek().is(".") {
				if err := r.predicateObjects(s); err != nil {
					return err
				}
			}
			if !r.next().is(".") {
				r.pos--
				return r.fail("'.'")
			}
		}
	}
	return nil
}

func (r *ttlReader) blank() string {
	r.fresh++
	return "_:g" + strconv.Itoa(r.fresh)
}

func (r *ttlReader) subject() (string, error) {
	t := r.peek()
	if t.is("[") {
		r.next()
		b := r.blank()
		if !r.peek().is("]") {
			if err := r.predicateObjects(b); err != nil {
				return "", err
			}
		}
		if !r.next().is("]") {
			return "", r.fail("']'")
		}
		return b, nil
	}
	return r.object()
}

func (r *ttlReader) iri(t token) (string, error) {
	switch t.kind {
	case tokIRI:
		return "<" + resolveIRI(r.base, t.text) + ">", nil
	case tokPName:
		ns, ok := r.prefixes[t.text]
		if !ok {
			return "", fmt.Errorf("%d:%d: turtle: undefined prefix %s:", t.line, t.col, t.text)
		}
		return "<" + ns + t.local + ">", nil
	}
	return "", errorAt(t.line, t.col, "%s", "turtle: expected IRI, found "+t.describe())
}

func (r *ttlReader) predicateObjects(s string) error {
	for {
		t := r.next()
		var p string
		if t.kind == tokWord && t.text == "a" {
			p = "<" + rdfType + ">"
		} else {
			var err error
			if p, err = r.iri(t); err != nil {
				return err
			}
		}
		for {
			o, err := r.object()
			if err != nil {
				return err
			}
			r.triples = append(r.triples, ttlTriple{s, p, o})
			if !r.peek().is(",") {
				break
			}
			r.next()
		}
		if !r.peek().is(";") {
			return nil
		}
		for r.peek().is(";") {
			r.next()
		}
		if t := r.peek(); t.is(".") || t.is("]") {
			return nil
		}
	}
}

func (r *ttlReader) object() (string, error) {
	t := r.next()
	switch {
	case t.kind == tokIRI || t.kind == tokPName:
		return r.iri(t)
	case t.kind == tokBNode:
		return "_:" + t.text, nil
	case t.kind == tokString:
		if n := r.peek(); n.kind == tokLang {
			r.next()
		} else if n.is("^^") {
			r.next()
			r.next()
		}
		return strconv.Quote(t.text), nil
	case t.kind == tokInteger || t.kind == tokDecimal || t.kind == tokDouble:
		return strconv.Quote(t.text), nil
	case t.isWord("true") || t.isWord("false"):
		return strconv.Quote(t.text), nil
	case t.is("["):
		r.pos--
		return r.subject()
	case t.is("("):
		head := "<" + rdfNil + ">"
		var prev string
		for !r.peek().is(")") {
			cell := r.blank()
			if prev == "" {
				head = cell
			} else {
				r.triples = append(r.triples, ttlTriple{prev, "<" + rdfRest + ">", cell})
			}
			o, err := r.object()
			if err != nil {
				return "", err
			}
			r.triples = append(r.triples, ttlTriple{cell, "<" + rdfFirst + ">", o})
			prev = cell
		}
		r.next()
		if prev != "" {
			r.triples = append(r.triples, ttlTriple{prev, "<" + rdfRest + ">", "<" + rdfNil + ">"})
		}
		return head, nil
	}
	r.pos--
	return "", r.fail("object")
}
