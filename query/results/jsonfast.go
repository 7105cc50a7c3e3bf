package results

import (
	"bufio"
	"errors"
	"fmt"
	"io"
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

// plainDecoder reads binding objects of the plain shape. It allocates
// only the terms' values: member names, term types and variable names are
// compared as bytes, and datatype IRIs (a handful per answer) are kept
// once each.
type plainDecoder struct {
	// countOnly checks every object as strictly but builds no term
	// (ReadOptions.CountOnly): bind is called with the zero Term.
	countOnly bool
	datatypes map[string]string
}

// binding parses raw, one binding object cut out by bindingSplitter
// (which checks only its brackets and strings' ends), calling bind for
// each variable in document order; ok is false, with nothing bound, when
// raw is not of the plain shape or not valid JSON, and the caller then
// hands it to encoding/json, which says what is wrong. name is only valid
// during the call.
func (d *plainDecoder) binding(raw []byte, bind func(name []byte, t kb.Term) error) (ok bool, err error) {
	type pair struct {
		name []byte
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
		t, ok, err := d.term(&p)
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

// datatype returns b as a string, the same string for the same bytes.
func (d *plainDecoder) datatype(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	if s, ok := d.datatypes[string(b)]; ok {
		return s
	}
	s := string(b)
	if d.datatypes == nil {
		d.datatypes = map[string]string{}
	}
	if len(d.datatypes) < maxInternedDatatypes {
		d.datatypes[s] = s
	}
	return s
}

// maxInternedDatatypes bounds the datatypes a decoder keeps: a hostile
// answer with a new datatype in every row must not grow the map.
const maxInternedDatatypes = 64

// term reads one term object of the plain shape.
func (d *plainDecoder) term(p *jsonScan) (kb.Term, bool, error) {
	if !p.byte('{') {
		return kb.Term{}, false, nil
	}
	var typ, value, lang, datatype, dir []byte
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
		switch string(key) {
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
	switch string(typ) {
	case "uri":
		if d.countOnly {
			return kb.Term{}, true, nil
		}
		return kb.IRI(string(value)), true, nil
	case "bnode":
		if d.countOnly {
			return kb.Term{}, true, nil
		}
		return kb.Blank(string(value)), true, nil
	case "literal", "typed-literal":
		if d.countOnly {
			err := checkLiteral(value, lang, dir)
			return kb.Term{}, err == nil, err
		}
		t, err := literal(string(value), d.datatype(datatype), string(lang), string(dir))
		return t, err == nil, err
	}
	return kb.Term{}, false, nil
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

// str reads a string without escapes whose bytes are valid UTF-8, and
// returns its bytes in place.
func (p *jsonScan) str() ([]byte, bool) {
	if !p.byte('"') {
		return nil, false
	}
	start := p.i
	for p.i < len(p.b) {
		switch c := p.b[p.i]; {
		case c == '"':
			s := p.b[start:p.i]
			p.i++
			if !utf8.Valid(s) {
				return nil, false
			}
			return s, true
		case c == '\\', c < 0x20:
			return nil, false
		}
		p.i++
	}
	return nil, false
}

// bindingSplitter cuts the binding objects of a results document's
// "bindings" array out of its bytes, one at a time, without decoding them:
// encoding/json's Decoder scanned each object twice (once to find its end,
// once more to check it as a RawMessage), which was most of what reading a
// federated site's 60 MB answer cost. Only the array's punctuation, the
// objects' brackets and their strings' ends are checked here; each object
// is then parsed strictly (plainBinding, else encoding/json).
type bindingSplitter struct {
	br   *bufio.Reader
	base int64 // the document offset of br's first byte
	read int64 // bytes consumed from br
	n    int   // objects cut so far
}

// errBindingsEnd is next's answer at the array's closing ']'.
var errBindingsEnd = errors.New("end of bindings")

// next appends the next binding object's bytes to raw[:0] and returns
// them, or errBindingsEnd after the closing ']' has been consumed.
func (s *bindingSplitter) next(raw []byte) ([]byte, error) {
	c, err := s.skipSpace()
	if err != nil {
		return nil, err
	}
	if s.n > 0 {
		switch c {
		case ']':
			s.discard(1)
			return nil, errBindingsEnd
		case ',':
			s.discard(1)
			if c, err = s.skipSpace(); err != nil {
				return nil, err
			}
		default:
			return nil, s.syntax("expected ',' or ']' after a binding", c)
		}
	} else if c == ']' {
		s.discard(1)
		return nil, errBindingsEnd
	}
	if c != '{' {
		return nil, s.syntax("expected a binding object", c)
	}
	raw = raw[:0]
	depth, inStr, esc := 0, false, false
	for {
		buf, err := s.br.Peek(max(1, s.br.Buffered()))
		if len(buf) == 0 {
			if err == io.EOF {
				err = fmt.Errorf("results: unexpected end of JSON in binding %d", s.n+1)
			}
			return nil, err
		}
		for i, b := range buf {
			switch {
			case esc:
				esc = false
			case inStr:
				switch b {
				case '\\':
					esc = true
				case '"':
					inStr = false
				}
			case b == '"':
				inStr = true
			case b == '{' || b == '[':
				depth++
			case b == '}' || b == ']':
				depth--
				if depth == 0 {
					raw = append(raw, buf[:i+1]...)
					s.discard(i + 1)
					s.n++
					return raw, nil
				}
			}
		}
		raw = append(raw, buf...)
		s.discard(len(buf))
	}
}

// skipSpace consumes JSON whitespace and returns the next byte, unread.
func (s *bindingSplitter) skipSpace() (byte, error) {
	for {
		b, err := s.br.ReadByte()
		if err != nil {
			if err == io.EOF {
				err = fmt.Errorf("results: unexpected end of JSON in the bindings array at byte %d", s.base+s.read)
			}
			return 0, err
		}
		switch b {
		case ' ', '\t', '\n', '\r':
			s.read++
		default:
			_ = s.br.UnreadByte()
			return b, nil
		}
	}
}

// discard consumes n bytes already peeked.
func (s *bindingSplitter) discard(n int) {
	_, _ = s.br.Discard(n)
	s.read += int64(n)
}

// syntax names what was expected at the current byte.
func (s *bindingSplitter) syntax(want string, c byte) error {
	return fmt.Errorf("results: reading JSON: %s at byte %d, found %q", want, s.base+s.read, c)
}
