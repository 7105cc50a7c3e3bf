package results

import (
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
)

// A binding object of the JSON results format is read without reflection
// when it has the plain shape nearly every answer has: each variable's
// term an object of string members "type" (uri, bnode, literal,
// typed-literal), "value", "xml:lang", "datatype", "its:dir", none twice,
// none with an escape sequence. Decoding it into a map of structs was
// most of the CPU a federated query spent on a site's large answer. Any
// other shape (an escape, a triple term, a member named otherwise,
// invalid UTF-8) goes the general way (encoding/json), so both ways read
// every document alike.

// plainBinding parses raw, one binding object already checked to be
// valid JSON by the decoder, calling bind for each variable in document
// order; ok is false, with nothing bound, when raw is not of the plain
// shape.
func plainBinding(raw []byte, bind func(name string, t kb.Term) error) (ok bool, err error) {
	type pair struct {
		name string
		term kb.Term
	}
	var pairs [8]pair
	got := pairs[:0]
	p := jsonScan{b: raw}
	if !p.byte('{') {
		return false, nil
	}
	if p.byte('}') {
		return true, nil
	}
	for {
		name, ok := p.str()
		if !ok || !p.byte(':') {
			return false, nil
		}
		t, ok, err := p.term()
		if err != nil || !ok {
			return false, err
		}
		got = append(got, pair{name, t})
		if p.byte(',') {
			continue
		}
		if !p.byte('}') || p.skip() != len(raw) {
			return false, nil
		}
		break
	}
	for _, v := range got {
		if err := bind(v.name, v.term); err != nil {
			return true, err
		}
	}
	return true, nil
}

// jsonScan reads plain JSON: strings without escapes, objects of them.
type jsonScan struct {
	b []byte
	i int
}

// skip passes white space and returns the offset after it.
func (p *jsonScan) skip() int {
	for p.i < len(p.b) {
		switch p.b[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return p.i
		}
	}
	return p.i
}

// byte passes white space and c, reporting whether c came.
func (p *jsonScan) byte(c byte) bool {
	if p.skip() < len(p.b) && p.b[p.i] == c {
		p.i++
		return true
	}
	return false
}

// str reads a string without escapes whose bytes are valid UTF-8.
func (p *jsonScan) str() (string, bool) {
	if !p.byte('"') {
		return "", false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !utf8.Valid(s) {
				return "", false
			}
			return string(s), true
		case c == '\\':
			return "", false
		}
		p.i++
	}
	return "", false
}

// term reads one term object of the plain shape.
func (p *jsonScan) term() (kb.Term, bool, error) {
	if !p.byte('{') {
		return kb.Term{}, false, nil
	}
	var typ, value, lang, datatype, dir string
	var seen [5]bool
	for {
		key, ok := p.str()
		if !ok || !p.byte(':') {
			return kb.Term{}, false, nil
		}
		val, ok := p.str()
		if !ok {
			return kb.Term{}, false, nil
		}
		var slot int
		switch key {
		case "type":
			typ, slot = val, 0
		case "value":
			value, slot = val, 1
		case "xml:lang":
			lang, slot = val, 2
		case "datatype":
			datatype, slot = val, 3
		case "its:dir":
			dir, slot = val, 4
		default:
			return kb.Term{}, false, nil
		}
		if seen[slot] {
			return kb.Term{}, false, nil
		}
		seen[slot] = true
		if p.byte(',') {
			continue
		}
		if !p.byte('}') {
			return kb.Term{}, false, nil
		}
		break
	}
	if !seen[1] {
		return kb.Term{}, false, nil
	}
	switch typ {
	case "uri":
		return kb.IRI(value), true, nil
	case "bnode":
		return kb.Blank(value), true, nil
	case "literal", "typed-literal":
		t, err := literal(value, datatype, lang, dir)
		return t, err == nil, err
	}
	return kb.Term{}, false, nil
}
