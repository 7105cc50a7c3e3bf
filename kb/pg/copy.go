package pg

import (
	"context"
	"encoding/binary"
	"io"
	"math"

	"github.com/jackc/pgx/v5/pgconn"
)

// copyHeader starts PostgreSQL's binary COPY format: the signature, a
// flags word and the length of an empty header extension.
const copyHeader = "PGCOPY\n\xff\r\n\x00\x00\x00\x00\x00\x00\x00\x00\x00"

// copyChunk is how many bytes of rows copyReader encodes at a time.
const copyChunk = 256 << 10

// copyReader is PostgreSQL's binary COPY format as an io.Reader: rows are
// encoded straight into a byte buffer by the caller's next, which skips
// pgx's per-value encoding plan (most of a bulk load's client CPU when
// every value is an int8).
type copyReader struct {
	buf  []byte
	off  int
	next func(buf []byte) ([]byte, bool) // appends one row; false when there are none left
	done bool
}

func (r *copyReader) Read(p []byte) (int, error) {
	if r.off == len(r.buf) {
		if r.done {
			return 0, io.EOF
		}
		r.buf, r.off = r.buf[:0], 0
		for len(r.buf) < copyChunk {
			var ok bool
			if r.buf, ok = r.next(r.buf); !ok {
				r.buf = binary.BigEndian.AppendUint16(r.buf, 0xffff) // the trailer: field count -1
				r.done = true
				break
			}
		}
	}
	n := copy(p, r.buf[r.off:])
	r.off += n
	return n, nil
}

// copyIn runs COPY table (cols) FROM STDIN in binary format on conn, with the rows next appends; options are more COPY options
// (", FREEZE").
func copyIn(ctx context.Context, conn *pgconn.PgConn, table, cols, options string, next func(buf []byte) ([]byte, bool)) (int64, error) {
	r := &copyReader{buf: append(make([]byte, 0, copyChunk+4096), copyHeader...), next: next}
	tag, err := conn.CopyFrom(ctx, r, "COPY "+table+" ("+cols+") FROM STDIN (FORMAT binary"+options+")")
	return tag.RowsAffected(), err
}

// appendRowStart appends a row's field count.
func appendRowStart(buf []byte, fields int) []byte {
	return binary.BigEndian.AppendUint16(buf, uint16(fields))
}

// appendInt8 appends an int8 field.
func appendInt8(buf []byte, v int64) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 8)
	return binary.BigEndian.AppendUint64(buf, uint64(v))
}

// appendInt2 appends an int2 field.
func appendInt2(buf []byte, v int16) []byte {
	buf = binary.BigEndian.AppendUint32(buf, 2)
	return binary.BigEndian.AppendUint16(buf, uint16(v))
}

// appendFloat8 appends a float8 field, or NULL when !valid.
func appendFloat8(buf []byte, v float64, valid bool) []byte {
	if !valid {
		return binary.BigEndian.AppendUint32(buf, 0xffffffff)
	}
	buf = binary.BigEndian.AppendUint32(buf, 8)
	return binary.BigEndian.AppendUint64(buf, math.Float64bits(v))
}

// appendBytes appends a text or bytea field: in binary COPY both are the
// raw bytes.
func appendBytes[T string | []byte](buf []byte, v T) []byte {
	buf = binary.BigEndian.AppendUint32(buf, uint32(len(v)))
	return append(buf, v...)
}

// quadRowsFrom returns a copyIn row source over qs.
func quadRowsFrom(qs [][4]int64) func([]byte) ([]byte, bool) {
	i := 0
	return func(buf []byte) ([]byte, bool) {
		if i == len(qs) {
			return buf, false
		}
		q := &qs[i]
		i++
		buf = appendRowStart(buf, 4)
		for _, v := range q {
			buf = appendInt8(buf, v)
		}
		return buf, true
	}
}
