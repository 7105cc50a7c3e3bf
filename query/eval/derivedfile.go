package eval

import (
	"encoding/binary"
	"errors"
	"math"
	"sync/atomic"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
)

// Value orders (valueorder.go) and counted joins' per-subject counts
// (countcols.go) are built from a whole predicate; a store that keeps
// them only in memory builds them again in every process, which a
// one-shot `perfkb query` pays on each run (at 10M quads the metric
// values' order costs about a CPU-second against 0.1 CPU-s for the
// query that reads it). Stores that keep such values in derived side
// files (kb/native derivedfile.go) take the encodings below, so that a
// later process reads the bytes instead of building.

// derivedCodec is kb/native's DerivedCodec (the same interface literal).
type derivedCodec = interface {
	EncodeDerived(v any) ([]byte, error)
	DecodeDerived(b []byte) (any, error)
}

// storedDeriver is implemented by stores that keep derived values in
// files as well as in memory.
type storedDeriver interface {
	ObjectsDerivedStored(p kb.ID, kind string, codec derivedCodec, build func(objects []kb.ID) (any, error)) (any, bool, error)
	PredicateDerivedStored(p kb.ID, kind string, codec derivedCodec, build func() (any, int64, error)) (v any, kept, ok bool, err error)
}

// The encodings start with a tag naming the structure and its version:
// a file written by a build whose structure differs is rejected and
// rebuilt, not misread.
const (
	numOrderTag  = "eval.numOrder v1\x00\x00\x00\x00\x00\x00\x00\x00"
	keyCountsTag = "eval.keyCounts v1\x00\x00\x00\x00\x00\x00\x00"
)

var errDerivedEncoding = errors.New("eval: derived value's encoding does not match")

// numOrderCodec encodes a *numOrder: the tag, four counts (the runs'
// entries, then the rest), each run's entries as a float64's bits and
// an ID, then the rest's IDs; all 64-bit, native byte order.
type numOrderCodec struct{}

func (numOrderCodec) EncodeDerived(v any) ([]byte, error) {
	o, ok := v.(*numOrder)
	if !ok {
		return nil, errDerivedEncoding
	}
	n := len(numOrderTag) + 32 + 8*len(o.rest)
	for _, r := range o.runs {
		n += 16 * len(r)
	}
	b := make([]byte, 0, n)
	b = append(b, numOrderTag...)
	for _, r := range o.runs {
		b = binary.NativeEndian.AppendUint64(b, uint64(len(r)))
	}
	b = binary.NativeEndian.AppendUint64(b, uint64(len(o.rest)))
	for _, r := range o.runs {
		for _, e := range r {
			b = binary.NativeEndian.AppendUint64(b, math.Float64bits(e.v))
			b = binary.NativeEndian.AppendUint64(b, uint64(e.id))
		}
	}
	for _, id := range o.rest {
		b = binary.NativeEndian.AppendUint64(b, uint64(id))
	}
	return b, nil
}

func (numOrderCodec) DecodeDerived(b []byte) (any, error) {
	t := len(numOrderTag)
	if len(b) < t+32 || string(b[:t]) != numOrderTag {
		return nil, errDerivedEncoding
	}
	var counts [4]uint64
	for i := range counts {
		counts[i] = binary.NativeEndian.Uint64(b[t+8*i:])
	}
	body := b[t+32:]
	if counts[0]+counts[1]+counts[2] > uint64(len(body))/16 ||
		uint64(len(body)) != 16*(counts[0]+counts[1]+counts[2])+8*counts[3] {
		return nil, errDerivedEncoding
	}
	o := &numOrder{}
	for i := range o.runs {
		if counts[i] > 0 { // else nil, as buildNumOrder leaves an empty run
			o.runs[i] = viewOf[numEntry](body[:16*counts[i]], func(b []byte) numEntry {
				return numEntry{math.Float64frombits(binary.NativeEndian.Uint64(b)), kb.ID(binary.NativeEndian.Uint64(b[8:]))}
			})
			body = body[16*counts[i]:]
		}
	}
	if counts[3] > 0 {
		o.rest = viewOf[kb.ID](body, func(b []byte) kb.ID { return kb.ID(binary.NativeEndian.Uint64(b)) })
	}
	return o, nil
}

// keyCountsCodec encodes a *keyCounts: the tag, the number of keys, the
// keys' IDs, then their counts; all 64-bit, native byte order.
type keyCountsCodec struct{}

func (keyCountsCodec) EncodeDerived(v any) ([]byte, error) {
	c, ok := v.(*keyCounts)
	if !ok || len(c.ids) != len(c.n) {
		return nil, errDerivedEncoding
	}
	b := make([]byte, 0, len(keyCountsTag)+8+16*len(c.ids))
	b = append(b, keyCountsTag...)
	b = binary.NativeEndian.AppendUint64(b, uint64(len(c.ids)))
	for _, id := range c.ids {
		b = binary.NativeEndian.AppendUint64(b, uint64(id))
	}
	for _, n := range c.n {
		b = binary.NativeEndian.AppendUint64(b, uint64(n))
	}
	return b, nil
}

func (keyCountsCodec) DecodeDerived(b []byte) (any, error) {
	t := len(keyCountsTag)
	if len(b) < t+8 || string(b[:t]) != keyCountsTag {
		return nil, errDerivedEncoding
	}
	n := binary.NativeEndian.Uint64(b[t:])
	body := b[t+8:]
	if n > uint64(len(body))/16 || uint64(len(body)) != 16*n {
		return nil, errDerivedEncoding
	}
	c := &keyCounts{
		ids: viewOf[kb.ID](body[:8*n], func(b []byte) kb.ID { return kb.ID(binary.NativeEndian.Uint64(b)) }),
		n:   viewOf[int64](body[8*n:], func(b []byte) int64 { return int64(binary.NativeEndian.Uint64(b)) }),
	}
	return c, nil
}

// numOrderBuilds counts the value orders built (tests check that one
// kept in a file is read instead).
var numOrderBuilds atomic.Int64

// numOrderDerived returns p's value order from the store, built with
// build when it keeps none (in memory or, where it can, in a file). A
// one-shot query's planner does not read the file for an estimate
// (bgprange.go: keptNumOrderOf): checking a 27 MB file's checksum costs
// more than a selective star at 10M quads.
func numOrderDerived(ds any, p kb.ID, build func(objects []kb.ID) (any, error)) (any, bool, error) {
	counted := func(objects []kb.ID) (any, error) {
		numOrderBuilds.Add(1)
		return build(objects)
	}
	if sd, ok := ds.(storedDeriver); ok {
		return sd.ObjectsDerivedStored(p, numOrderKind, numOrderCodec{}, counted)
	}
	return ds.(objectsDeriver).ObjectsDerived(p, numOrderKind, counted)
}

// keyCountsDerived returns what build makes of p's quads under kind,
// through the store's file where it keeps one.
func keyCountsDerived(ds any, p kb.ID, kind string, build func() (any, int64, error)) (v any, kept, ok bool, err error) {
	if sd, isSD := ds.(storedDeriver); isSD {
		return sd.PredicateDerivedStored(p, kind, keyCountsCodec{}, build)
	}
	return ds.(predicateDeriver).PredicateDerived(p, kind, build)
}

// viewOf returns b as a slice of T (a fixed-size type without pointers
// whose memory layout is its encoding in native byte order): the bytes
// themselves where they are aligned for T, so that a mapped file's value
// is read in place and only the pages a search touches are faulted in;
// else a copy decoded element by element with at. The stores hand out
// bytes that live as long as the process (kb/native derivedfile.go), so
// the view may outlive the call.
func viewOf[T any](b []byte, at func([]byte) T) []T {
	var zero T
	size := int(unsafe.Sizeof(zero))
	n := len(b) / size
	if n == 0 {
		return nil
	}
	if uintptr(unsafe.Pointer(&b[0]))%unsafe.Alignof(zero) == 0 {
		return unsafe.Slice((*T)(unsafe.Pointer(&b[0])), n)
	}
	out := make([]T, n)
	for i := range out {
		out[i] = at(b[i*size:])
	}
	return out
}
