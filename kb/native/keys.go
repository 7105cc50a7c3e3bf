package native

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math/bits"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Key layout. Every key starts with one prefix byte naming its keyspace;
// the keyspaces sort in this order, which matters because sstables ingested
// together must not overlap:
//
//	0x10+k  index k (see orders): four order-preserving varint IDs, empty value
//	'c'     counter for one (predicate, graph) pair: two IDs -> uvarint count
//	'i'     ID -> term: 8-byte big-endian ID -> encoded term
//	'l'     delta log (deltalog.go): 8-byte big-endian entry, 4-byte chunk -> keys
//	'm'     metadata (format version)
//	't'     term -> ID: encoded term -> 8-byte big-endian ID
const (
	prefixIndex   = 0x10
	prefixCounter = 'c'
	prefixID      = 'i'
	prefixLog     = 'l'
	prefixMeta    = 'm'
	prefixTerm    = 't'
)

// formatVersion is stored under metaVersionKey; Open refuses other
// versions than it and formatVersionLog, which a store takes before its
// first delta log entry (deltalog.go) so that older binaries refuse it.
const (
	formatVersion    = 1
	formatVersionLog = 2
	// formatVersionPartial marks a store whose Pebble indexes hold only
	// SPOG (partial.go); older binaries, which would read the other five
	// orders from Pebble, refuse it.
	formatVersionPartial = 3
)

var metaVersionKey = []byte{prefixMeta, 'v'}

// order is a permutation of quad positions (0=S, 1=P, 2=O, 3=G): the
// position stored first in an index key, then second, and so on.
type order [4]uint8

// orders are the six indexes. With them every combination of bound
// positions is a key prefix of one index, so each pattern is one range scan
// that returns exactly the matching quads.
var orders = [numOrders]order{
	{0, 1, 2, 3}, // SPOG
	{1, 2, 0, 3}, // POSG
	{2, 0, 1, 3}, // OSPG
	{3, 0, 1, 2}, // GSPO
	{3, 1, 2, 0}, // GPOS
	{3, 2, 0, 1}, // GOSP
}

const numOrders = 6

var orderNames = [numOrders]string{"SPOG", "POSG", "OSPG", "GSPO", "GPOS", "GOSP"}

// plan says which index answers a pattern and how many leading positions of
// its keys the pattern binds.
type plan struct {
	order  int
	prefix int // number of bound leading positions
}

// plans is indexed by the bound-position mask (bit i set when position i is
// bound).
var plans = func() (p [16]plan) {
	for mask := 0; mask < 16; mask++ {
		best := plan{order: 0, prefix: -1}
		for k, o := range orders {
			n := 0
			for n < 4 && mask&(1<<o[n]) != 0 {
				n++
			}
			if n > best.prefix {
				best = plan{order: k, prefix: n}
			}
		}
		p[mask] = best
	}
	return p
}()

func boundMask(p kb.Pattern) int {
	m := 0
	if p.S != kb.Any {
		m |= 1
	}
	if p.P != kb.Any {
		m |= 2
	}
	if p.O != kb.Any {
		m |= 4
	}
	if p.G != kb.Any {
		m |= 8
	}
	return m
}

func at(q kb.Quad, i uint8) kb.ID {
	switch i {
	case 0:
		return q.S
	case 1:
		return q.P
	case 2:
		return q.O
	}
	return q.G
}

func set(q *kb.Quad, i uint8, id kb.ID) {
	switch i {
	case 0:
		q.S = id
	case 1:
		q.P = id
	case 2:
		q.O = id
	default:
		q.G = id
	}
}

// appendID appends an order-preserving variable-length encoding of id: one
// length byte (1..8) and then the minimal big-endian bytes. A longer
// encoding always holds a larger number, so byte order is numeric order,
// and the encoding is prefix-free, so a concatenation of encoded IDs is a
// valid scan prefix.
func appendID(dst []byte, id kb.ID) []byte {
	n := (bits.Len64(uint64(id)) + 7) / 8
	if n == 0 {
		n = 1
	}
	dst = append(dst, byte(n))
	for i := n - 1; i >= 0; i-- {
		dst = append(dst, byte(uint64(id)>>(8*uint(i))))
	}
	return dst
}

var errCorruptKey = errors.New("native: corrupt key")

// readID decodes one appendID encoding and returns the rest of b.
func readID(b []byte) (kb.ID, []byte, error) {
	if len(b) == 0 {
		return 0, nil, errCorruptKey
	}
	n := int(b[0])
	if n < 1 || n > 8 || len(b) < 1+n {
		return 0, nil, errCorruptKey
	}
	var v uint64
	for _, c := range b[1 : 1+n] {
		v = v<<8 | uint64(c)
	}
	return kb.ID(v), b[1+n:], nil
}

// appendIndexKey appends the key of q in index k.
func appendIndexKey(dst []byte, k int, q kb.Quad) []byte {
	dst = append(dst, prefixIndex+byte(k))
	o := &orders[k]
	for _, pos := range o {
		dst = appendID(dst, at(q, pos))
	}
	return dst
}

// decodeIndexKey decodes a key of index k back into a quad.
func decodeIndexKey(k int, key []byte) (kb.Quad, error) {
	var q kb.Quad
	if len(key) == 0 || key[0] != prefixIndex+byte(k) {
		return q, errCorruptKey
	}
	b := key[1:]
	o := &orders[k]
	for _, pos := range o {
		var id kb.ID
		var err error
		id, b, err = readID(b)
		if err != nil {
			return q, err
		}
		set(&q, pos, id)
	}
	if len(b) != 0 {
		return q, errCorruptKey
	}
	return q, nil
}

// appendScanPrefix appends the prefix of index k that the first n
// positions of p bind.
func appendScanPrefix(dst []byte, k int, p kb.Pattern, n int) []byte {
	dst = append(dst, prefixIndex+byte(k))
	o := &orders[k]
	for _, pos := range o[:n] {
		dst = appendID(dst, at(kb.Quad(p), pos))
	}
	return dst
}

// prefixEnd returns the smallest key greater than every key with prefix p.
func prefixEnd(p []byte) []byte {
	end := append([]byte(nil), p...)
	for i := len(end) - 1; i >= 0; i-- {
		end[i]++
		if end[i] != 0 {
			return end[:i+1]
		}
	}
	return nil // p is all 0xff: no upper bound
}

func counterKey(p, g kb.ID) []byte {
	k := make([]byte, 0, 19)
	k = append(k, prefixCounter)
	k = appendID(k, p)
	return appendID(k, g)
}

func decodeCounterKey(key []byte) (p, g kb.ID, err error) {
	if len(key) == 0 || key[0] != prefixCounter {
		return 0, 0, errCorruptKey
	}
	p, rest, err := readID(key[1:])
	if err != nil {
		return 0, 0, err
	}
	g, rest, err = readID(rest)
	if err == nil && len(rest) != 0 {
		err = errCorruptKey
	}
	return p, g, err
}

func idKey(id kb.ID) []byte {
	k := make([]byte, 9)
	k[0] = prefixID
	binary.BigEndian.PutUint64(k[1:], uint64(id))
	return k
}

func termKey(enc []byte) []byte {
	k := make([]byte, 0, 1+len(enc))
	k = append(k, prefixTerm)
	return append(k, enc...)
}

// Term encoding: one tag byte, then the fields. Frequent datatypes get a
// one-byte code instead of their IRI.
const (
	tagIRI        = 1
	tagBlank      = 2
	tagString     = 3 // xsd:string literal: lexical form
	tagLang       = 4 // rdf:langString: uvarint len(lang), lang, lexical form
	tagKnownType  = 5 // one datatype-code byte, lexical form
	tagOtherTyped = 6 // uvarint len(datatype), datatype, lexical form
	tagTriple     = 7 // RDF 1.2 triple term: its canonical N-Triples Value
	tagDirLang    = 8 // rdf:dirLangString: uvarint len(lang), "tag--dir", lexical form
)

// knownDatatypes are the datatypes coded in one byte. Codes are stored on
// disk: append only.
var knownDatatypes = []string{
	ontology.XSDInteger, ontology.XSDDecimal, ontology.XSDDouble, ontology.XSDFloat,
	ontology.XSDBoolean, ontology.XSDDateTime, ontology.XSDDate, ontology.XSDLong,
	ontology.XSDInt, ontology.XSDDuration, ontology.XSDNonNegativeInteger, ontology.XSDAnyURI,
	ontology.XSDTime, ontology.XSDGYear, ontology.XSDShort, ontology.XSDUnsignedLong,
}

var datatypeCodes = func() map[string]byte {
	m := make(map[string]byte, len(knownDatatypes))
	for i, dt := range knownDatatypes {
		m[dt] = byte(i)
	}
	return m
}()

var errZeroTerm = errors.New("native: cannot intern the zero term")

// appendTerm appends the compact binary encoding of t.
func appendTerm(dst []byte, t kb.Term) ([]byte, error) {
	switch t.Kind {
	case kb.KindIRI:
		dst = append(dst, tagIRI)
	case kb.KindBlank:
		dst = append(dst, tagBlank)
	case kb.KindTriple:
		dst = append(dst, tagTriple)
	case kb.KindLiteral:
		switch dt := t.Datatype; {
		case dt == ontology.XSDString || dt == "":
			dst = append(dst, tagString)
		case dt == ontology.RDFDirLangString:
			dst = append(dst, tagDirLang)
			dst = binary.AppendUvarint(dst, uint64(len(t.Lang)))
			dst = append(dst, t.Lang...)
		case t.Lang != "" || dt == ontology.RDFLangString:
			dst = append(dst, tagLang)
			dst = binary.AppendUvarint(dst, uint64(len(t.Lang)))
			dst = append(dst, t.Lang...)
		default:
			if code, ok := datatypeCodes[dt]; ok {
				dst = append(dst, tagKnownType, code)
			} else {
				dst = append(dst, tagOtherTyped)
				dst = binary.AppendUvarint(dst, uint64(len(dt)))
				dst = append(dst, dt...)
			}
		}
	default:
		return dst, errZeroTerm
	}
	return append(dst, t.Value...), nil
}

// decodeTerm decodes an appendTerm encoding.
func decodeTerm(b []byte) (kb.Term, error) {
	if len(b) == 0 {
		return kb.Term{}, errCorruptKey
	}
	tag, rest := b[0], b[1:]
	switch tag {
	case tagIRI:
		return kb.Term{Kind: kb.KindIRI, Value: string(rest)}, nil
	case tagBlank:
		return kb.Term{Kind: kb.KindBlank, Value: string(rest)}, nil
	case tagTriple:
		return kb.Term{Kind: kb.KindTriple, Value: string(rest)}, nil
	case tagString:
		return kb.Term{Kind: kb.KindLiteral, Value: string(rest), Datatype: ontology.XSDString}, nil
	case tagLang, tagOtherTyped, tagDirLang:
		n, w := binary.Uvarint(rest)
		if w <= 0 || uint64(len(rest)-w) < n {
			return kb.Term{}, errCorruptKey
		}
		field := string(rest[w : w+int(n)])
		value := string(rest[w+int(n):])
		switch tag {
		case tagLang:
			return kb.Term{Kind: kb.KindLiteral, Value: value, Datatype: ontology.RDFLangString, Lang: field}, nil
		case tagDirLang:
			return kb.Term{Kind: kb.KindLiteral, Value: value, Datatype: ontology.RDFDirLangString, Lang: field}, nil
		}
		return kb.Term{Kind: kb.KindLiteral, Value: value, Datatype: field}, nil
	case tagKnownType:
		if len(rest) == 0 || int(rest[0]) >= len(knownDatatypes) {
			return kb.Term{}, errCorruptKey
		}
		return kb.Term{Kind: kb.KindLiteral, Value: string(rest[1:]), Datatype: knownDatatypes[rest[0]]}, nil
	}
	return kb.Term{}, fmt.Errorf("native: unknown term tag %d: %w", tag, errCorruptKey)
}
