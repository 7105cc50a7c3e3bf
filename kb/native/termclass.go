package native

import "github.com/perfkb/perfkb/kb"

// termClassOf returns the kind of the term encoded as enc and whether it
// is a literal of a datatype the encoding does not code itself (tagged
// with the datatype's IRI), which only decoding can tell apart.
func termClassOf(enc []byte) (kind kb.TermKind, otherDatatype, ok bool) {
	kind, ok = kindOfEncoding(enc)
	return kind, ok && enc[0] == tagOtherTyped, ok
}

// TermClassOf is TermKindOf that also says whether a literal's datatype
// is one the dictionary spells out (otherDatatype) rather than codes in
// its tag (xsd:string, language strings and the common XSD types): the
// rule engine's notLiteral and isLiteral tests then need the term itself
// only for those, where a functor value may hide. ok is false where
// TermKindOf's is, and for a term not yet in the dictionary's encoded
// form.
func (s *Store) TermClassOf(id kb.ID) (kind kb.TermKind, otherDatatype, ok bool) {
	if s.closed.Load() {
		return 0, false, false
	}
	enc, _, old := s.encodingOf(id)
	if old {
		return 0, false, false
	}
	return termClassOf(enc)
}

// TermClassOf is Store.TermClassOf on the in-memory store.
func (m *MemStore) TermClassOf(id kb.ID) (kind kb.TermKind, otherDatatype, ok bool) {
	if m.closed.Load() {
		return 0, false, false
	}
	return termClassOf(dictEncoded(&m.dict, id))
}
