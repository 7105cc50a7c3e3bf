package rdfio

import (
	"bytes"
	"io"
)

// reader is the byte source of the text parsers: a sliding buffer over an
// io.Reader with lookahead and the line and column of the next byte.
type reader struct {
	r    io.Reader
	buf  []byte
	pos  int // next byte
	end  int // bytes buf holds
	eof  bool
	rerr error // a read error other than io.EOF
	line int   // line of buf[pos], 1-based
	col  int   // column (in characters) of buf[pos], 1-based
}

const readerBufSize = 64 << 10

func newReader(r io.Reader) *reader {
	rd := &reader{r: r, buf: make([]byte, readerBufSize), line: 1, col: 1}
	if rd.fill(3) && bytes.HasPrefix(rd.buf[:rd.end], []byte{0xEF, 0xBB, 0xBF}) {
		rd.pos = 3 // a byte order mark is no character of the document
	}
	return rd
}

// fill makes at least n bytes available after pos if the input has them,
// reporting whether it does.
func (r *reader) fill(n int) bool {
	for r.end-r.pos < n {
		if r.eof {
			return false
		}
		if r.pos > 0 {
			copy(r.buf, r.buf[r.pos:r.end])
			r.end -= r.pos
			r.pos = 0
		}
		if n > len(r.buf) {
			nb := make([]byte, max(n, 2*len(r.buf)))
			copy(nb, r.buf[:r.end])
			r.buf = nb
		}
		m, err := r.r.Read(r.buf[r.end:])
		r.end += m
		if err != nil {
			r.eof = true
			if err != io.EOF {
				r.rerr = err
			}
		} else if m == 0 {
			// A reader that returns nothing without an error: try
			// again, as io.ReadAtLeast would, but not forever.
			for i := 0; i < 100 && m == 0 && err == nil; i++ {
				m, err = r.r.Read(r.buf[r.end:])
				r.end += m
			}
			if m == 0 && err == nil {
				r.eof, r.rerr = true, io.ErrNoProgress
			} else if err != nil {
				r.eof = true
				if err != io.EOF {
					r.rerr = err
				}
			}
		}
	}
	return true
}

// peek returns the next byte, or -1 at the end of the input.
func (r *reader) peek() int {
	if r.pos < r.end {
		return int(r.buf[r.pos])
	}
	if !r.fill(1) {
		return -1
	}
	return int(r.buf[r.pos])
}

// peekAt returns the byte k bytes after the next one, or -1.
func (r *reader) peekAt(k int) int {
	if r.pos+k < r.end {
		return int(r.buf[r.pos+k])
	}
	if !r.fill(k + 1) {
		return -1
	}
	return int(r.buf[r.pos+k])
}

// advance consumes one byte.
func (r *reader) advance() {
	b := r.buf[r.pos]
	r.pos++
	if b == '\n' {
		r.line++
		r.col = 1
	} else if b&0xC0 != 0x80 {
		r.col++
	}
}

// skipASCII consumes n bytes known to be ASCII other than a line break.
func (r *reader) skipASCII(n int) {
	r.pos += n
	r.col += n
}

// skipRune consumes one character of w bytes that is not a line break.
func (r *reader) skipRune(w int) {
	r.pos += w
	r.col++
}
