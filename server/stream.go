package server

import (
	"bufio"
	"io"
	"net/http"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
)

// streamBufferSize is how much output is held before the first bytes go
// out: errors found before then still get a proper error response.
const streamBufferSize = 32 << 10

// flushInterval is how often a long stream is pushed to the client.
const flushInterval = 100 * time.Millisecond

// responseStream writes a streamed answer. Headers are committed (status
// 200 and the content type) only when the buffer first flushes, so an
// error met early can still become an error response; an error met after
// that aborts the connection, so a client never takes a truncated answer
// for a complete one.
type responseStream struct {
	c           *gin.Context
	w           *bufio.Writer
	contentType string
	committed   bool
	rows        int
	lastFlush   time.Time
	pool        *bufferPool
}

// bufferPool recycles the 32 KiB stream buffers across requests.
type bufferPool struct{ pool sync.Pool }

func (p *bufferPool) get(w io.Writer) *bufio.Writer {
	if b, ok := p.pool.Get().(*bufio.Writer); ok {
		b.Reset(w)
		return b
	}
	return bufio.NewWriterSize(w, streamBufferSize)
}

func (p *bufferPool) put(b *bufio.Writer) {
	b.Reset(io.Discard)
	p.pool.Put(b)
}

func (s *Server) newResponseStream(c *gin.Context, contentType string) *responseStream {
	rs := &responseStream{c: c, contentType: contentType, lastFlush: time.Now(), pool: &s.buffers}
	rs.w = s.buffers.get(commitWriter{rs})
	return rs
}

type commitWriter struct{ s *responseStream }

func (cw commitWriter) Write(p []byte) (int, error) {
	cw.s.commit()
	return cw.s.c.Writer.Write(p)
}

func (s *responseStream) commit() {
	if s.committed {
		return
	}
	s.committed = true
	s.c.Header("Content-Type", s.contentType)
	s.c.Status(http.StatusOK)
	s.c.Writer.WriteHeaderNow()
}

// tick is called once per row; now and then it pushes buffered output to
// the client.
func (s *responseStream) tick() {
	s.rows++
	if s.rows&63 != 0 {
		return
	}
	if now := time.Now(); now.Sub(s.lastFlush) >= flushInterval {
		s.lastFlush = now
		if s.w.Flush() == nil {
			s.c.Writer.Flush()
		}
	}
}

// finish flushes what is left and commits the response.
func (s *responseStream) finish() error {
	s.commit()
	err := s.w.Flush()
	s.pool.put(s.w)
	return err
}

// fail reports err: as an error response when nothing has been sent yet,
// otherwise by aborting the connection.
func (s *responseStream) fail(err error) {
	if !s.committed {
		s.pool.put(s.w)
		respondError(s.c, err)
		return
	}
	_ = s.c.Error(err)
	// The client has a 200 and part of the body; the only honest signal
	// left is to cut the connection before the final chunk.
	s.w.Flush()
	panic(http.ErrAbortHandler)
}
