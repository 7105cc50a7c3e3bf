package cube

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"math"
	"strings"
)

// valueKind says how a metric's values are read and added up.
type valueKind int

const (
	kindFloat valueKind = iota // DOUBLE, FLOAT: added along the call tree
	kindInt                    // integer types: added along the call tree
	kindMin                    // MINDOUBLE: the minimum over the subtree
	kindMax                    // MAXDOUBLE: the maximum over the subtree
)

// dtype is a CUBE data type this package reads.
type dtype struct {
	size   int
	kind   valueKind
	signed bool
}

// dtypes are the scalar CUBE data types (cubelib's names); the compound
// ones (RATE, TAU_ATOMIC, HISTOGRAM(n), NDOUBLES(n), COMPLEX, SCALE_FUNC)
// are skipped with a warning.
var dtypes = map[string]dtype{
	"DOUBLE": {8, kindFloat, true}, "FLOAT": {8, kindFloat, true},
	"MINDOUBLE": {8, kindMin, true}, "MAXDOUBLE": {8, kindMax, true},
	"INT8": {1, kindInt, true}, "UINT8": {1, kindInt, false}, "CHAR": {1, kindInt, false},
	"INT16": {2, kindInt, true}, "SHORT INT": {2, kindInt, true}, "SIGNED SHORT INT": {2, kindInt, true},
	"UINT16": {2, kindInt, false}, "UNSIGNED SHORT INT": {2, kindInt, false},
	"INT32": {4, kindInt, true}, "INT": {4, kindInt, true}, "SIGNED INT": {4, kindInt, true},
	"UINT32": {4, kindInt, false}, "UNSIGNED INT": {4, kindInt, false},
	"INT64": {8, kindInt, true}, "INTEGER": {8, kindInt, true}, "SIGNED INTEGER": {8, kindInt, true},
	"UINT64": {8, kindInt, false}, "UNSIGNED INTEGER": {8, kindInt, false},
}

// maxUint64Double is the largest UINT64 that survives cubelib's round trip
// through double; larger values read as 0, as in cubelib and pycubexr.
const maxUint64Double = 0xFFFF_FFFF_FFFF_FBFF

// values holds one metric's values for every (cnode, location), dense:
// row c (the cnode's index in Anchor.CNodes) has L values. Absent cnodes
// are zero. Integer metrics use ints, the others floats.
type values struct {
	locs   int
	ints   []int64
	floats []float64
	has    []bool // per cnode: listed in the index
}

func (v *values) isInt() bool { return v.ints != nil }

func (v *values) zero(c, l int) bool {
	if v.ints != nil {
		return v.ints[c*v.locs+l] == 0
	}
	return v.floats[c*v.locs+l] == 0
}

// index is a parsed <id>.index file.
type index struct {
	order   binary.ByteOrder
	entries []int32 // tree indices, in the order of the data rows
}

const (
	indexMagic = "CUBEX.INDEX"
	dataMagic  = "CUBEX.DATA"
	zdataMagic = "ZCUBEX.DATA"
)

// parseIndex reads an index file: "CUBEX.INDEX", int32 1 (the byte order),
// int16 version, byte index type (1: sparse, a list of tree indices),
// int32 N, N int32 tree indices.
func parseIndex(name string, b []byte, arch int64) (*index, error) {
	perr := func(off int64, format string, args ...any) error {
		return &posError{member: name, offset: off, arch: arch + off, msg: fmt.Sprintf(format, args...)}
	}
	const hdr = len(indexMagic) + 4 + 2 + 1 + 4
	if !bytes.HasPrefix(b, []byte(indexMagic)) {
		n := min(len(b), len(indexMagic))
		return nil, perr(0, "expected the index header %q, got %q", indexMagic, b[:n])
	}
	if len(b) < hdr {
		return nil, perr(int64(len(b)), "truncated index header: want %d bytes, file has %d", hdr, len(b))
	}
	p := len(indexMagic)
	var order binary.ByteOrder
	switch {
	case binary.LittleEndian.Uint32(b[p:]) == 1:
		order = binary.LittleEndian
	case binary.BigEndian.Uint32(b[p:]) == 1:
		order = binary.BigEndian
	default:
		return nil, perr(int64(p), "byte order mark: expected the integer 1, got bytes % x", b[p:p+4])
	}
	typ := b[p+6]
	if typ != 1 {
		return nil, perr(int64(p+6), "index type %d: only 1 (sparse list of call-tree indices, as Score-P and Scalasca write) is supported", typ)
	}
	n := int64(int32(order.Uint32(b[p+7:])))
	if n < 0 || int64(hdr)+4*n != int64(len(b)) {
		return nil, perr(int64(p+7), "index announces %d entries (%d bytes), the file has %d bytes after the %d-byte header", n, 4*n, len(b)-hdr, hdr)
	}
	ix := &index{order: order, entries: make([]int32, n)}
	for i := range ix.entries {
		ix.entries[i] = int32(order.Uint32(b[hdr+4*i:]))
	}
	return ix, nil
}

// decodeData reads a data file ("CUBEX.DATA" and raw values, or
// "ZCUBEX.DATA", an int64 count, count × (int64 uncompressed offset,
// int64 compressed offset, int64 compressed size) and the zlib segments)
// and returns the raw value bytes. Decompression stops past want bytes
// (the size the index and anchor announce), so a bad stream cannot
// inflate without bound.
func decodeData(name string, b []byte, arch int64, order binary.ByteOrder, want int64) ([]byte, error) {
	perr := func(off int64, format string, args ...any) error {
		return &posError{member: name, offset: off, arch: arch + off, msg: fmt.Sprintf(format, args...)}
	}
	switch {
	case bytes.HasPrefix(b, []byte(dataMagic)):
		return b[len(dataMagic):], nil
	case bytes.HasPrefix(b, []byte(zdataMagic)):
	default:
		n := min(len(b), len(zdataMagic))
		return nil, perr(0, "expected the data header %q or %q, got %q", dataMagic, zdataMagic, b[:n])
	}
	p := int64(len(zdataMagic))
	if int64(len(b)) < p+8 {
		return nil, perr(int64(len(b)), "truncated compressed data header: want a segment count")
	}
	n := int64(order.Uint64(b[p:]))
	p += 8
	if n < 0 || n > (int64(len(b))-p)/24 {
		return nil, perr(p-8, "compressed data announces %d segments; the file has room for at most %d segment headers", n, (int64(len(b))-p)/24)
	}
	sizes := make([]int64, n)
	for i := range sizes {
		sizes[i] = int64(order.Uint64(b[p+24*int64(i)+16:]))
	}
	p += 24 * n
	var out bytes.Buffer
	for i, sz := range sizes {
		if sz == 0 {
			continue
		}
		if sz < 0 || p+sz > int64(len(b)) {
			return nil, &posError{member: name, offset: p, arch: arch + p, record: fmt.Sprintf("segment %d", i),
				msg: fmt.Sprintf("truncated: segment of %d compressed bytes runs past the end of the file (%d bytes)", sz, len(b))}
		}
		zr, err := zlib.NewReader(bytes.NewReader(b[p : p+sz]))
		if err == nil {
			_, err = io.Copy(&out, io.LimitReader(zr, want+1-int64(out.Len())))
		}
		if err != nil {
			return nil, &posError{member: name, offset: p, arch: arch + p, record: fmt.Sprintf("segment %d", i), msg: "zlib: " + err.Error()}
		}
		if int64(out.Len()) > want {
			return nil, &posError{member: name, offset: p, arch: arch + p, record: fmt.Sprintf("segment %d", i),
				msg: fmt.Sprintf("decompresses past the %d bytes of values the index announces", want)}
		}
		p += sz
	}
	return out.Bytes(), nil
}

// spot locates bytes of a member for error messages: offset base in the
// member, at archive offset arch (-1: not in the archive as such, e.g.
// decompressed values).
type spot struct {
	member     string
	base, arch int64
}

func (s spot) err(off int64, record, format string, args ...any) *posError {
	e := &posError{member: s.member, offset: s.base + off, arch: -1, record: record, msg: fmt.Sprintf(format, args...)}
	if s.arch >= 0 {
		e.arch = s.arch + off
	}
	return e
}

// readValues decodes a metric's values into a dense (cnode × location)
// array. treeToCNode maps the index's tree indices to cnode positions; at
// and ixAt locate the values and the index entries.
func readValues(m *Metric, dt dtype, ix *index, raw []byte, at, ixAt spot, treeToCNode []int, ncnodes, nlocs int) (*values, error) {
	row := dt.size * nlocs
	want := len(ix.entries) * row
	if len(raw) != want {
		return nil, at.err(int64(min(len(raw), want)), "", "expected %d cnodes × %d locations × %d-byte %s values = %d bytes of values, found %d",
			len(ix.entries), nlocs, dt.size, m.DType, want, len(raw))
	}
	v := &values{locs: nlocs, has: make([]bool, ncnodes)}
	if dt.kind == kindInt {
		v.ints = make([]int64, ncnodes*nlocs)
	} else {
		v.floats = make([]float64, ncnodes*nlocs)
	}
	order := ix.order
	for e, t := range ix.entries {
		if t < 0 || int(t) >= len(treeToCNode) {
			return nil, ixAt.err(int64(4*e), fmt.Sprintf("entry %d", e), "call-tree index %d out of range: the call tree has %d cnodes", t, len(treeToCNode))
		}
		c := treeToCNode[t]
		if v.has[c] {
			return nil, ixAt.err(int64(4*e), fmt.Sprintf("entry %d", e), "call-tree index %d listed twice", t)
		}
		v.has[c] = true
		for l := 0; l < nlocs; l++ {
			x := raw[e*row+l*dt.size:]
			i := c*nlocs + l
			if dt.kind != kindInt {
				v.floats[i] = math.Float64frombits(order.Uint64(x))
				continue
			}
			var n int64
			switch {
			case dt.size == 1 && dt.signed:
				n = int64(int8(x[0]))
			case dt.size == 1:
				n = int64(x[0])
			case dt.size == 2 && dt.signed:
				n = int64(int16(order.Uint16(x)))
			case dt.size == 2:
				n = int64(order.Uint16(x))
			case dt.size == 4 && dt.signed:
				n = int64(int32(order.Uint32(x)))
			case dt.size == 4:
				n = int64(order.Uint32(x))
			case dt.signed:
				n = int64(order.Uint64(x))
			default:
				u := order.Uint64(x)
				if u > maxUint64Double {
					u = 0
				}
				if u > math.MaxInt64 {
					return nil, at.err(int64(e*row+l*dt.size), fmt.Sprintf("row %d location %d", e, l), "UINT64 value %d does not fit a signed 64-bit integer", u)
				}
				n = int64(u)
			}
			v.ints[i] = n
		}
	}
	return v, nil
}

// deepEnumeration maps tree indices of EXCLUSIVE metrics to cnode
// positions: depth-first preorder, which is the document order.
func deepEnumeration(cn []CNode) []int {
	out := make([]int, len(cn))
	for i := range out {
		out[i] = i
	}
	return out
}

// wideEnumeration maps tree indices of INCLUSIVE metrics to cnode
// positions, in cubelib's order: a root, then each visited node's children
// one after the other before descending into the first of them.
func wideEnumeration(cn []CNode) []int {
	out := make([]int, 0, len(cn))
	var stack []int
	for i, c := range cn {
		if c.Parent >= 0 {
			continue
		}
		out = append(out, i)
		stack = append(stack[:0], i)
		for len(stack) > 0 {
			n := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			out = append(out, cn[n].Children...)
			for k := len(cn[n].Children) - 1; k >= 0; k-- {
				stack = append(stack, cn[n].Children[k])
			}
		}
	}
	return out
}

// dtypeOf returns the data type of a metric, or ok=false for compound ones.
func dtypeOf(s string) (dtype, bool) {
	d, ok := dtypes[strings.ToUpper(strings.TrimSpace(s))]
	return d, ok
}
