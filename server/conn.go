package server

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/gin-gonic/gin"
)

// DefaultStallTimeout is how long a client may send or read nothing in the
// middle of a request before its connection is cut.
const DefaultStallTimeout = 5 * time.Second

// errClientStalled is the error a body read or response write returns when
// the client made no progress for StallTimeout.
var errClientStalled = errors.New("the client sent or read nothing for too long")

// stallGuard bounds how long one request can hold a connection, a
// concurrency slot or a lock while its client does nothing: every read of
// the body and every write of the response moves the connection's deadline
// to StallTimeout from now (never past the request's own deadline). A
// client that stalls mid-body gets a read error and one that stops reading
// a large answer gets a write error within StallTimeout, so the handler
// returns and frees what it holds. net/http's server-wide ReadTimeout and
// WriteTimeout cannot do this: they bound the whole request, which for a
// rule run or a large upload must be long.
func (s *Server) stallGuard(c *gin.Context) {
	rc := http.NewResponseController(c.Writer)
	g := &deadlines{rc: rc, stall: s.opts.StallTimeout, header: c.Writer.Header()}
	if dl, ok := c.Request.Context().Deadline(); ok {
		g.end = dl
	}
	if c.Request.Body != nil && c.Request.Body != http.NoBody {
		c.Request.Body = &stallBody{ReadCloser: c.Request.Body, g: g}
	}
	c.Writer = &stallWriter{ResponseWriter: c.Writer, g: g}
	c.Next()
	// What net/http does after the handler (discarding an unread body,
	// flushing the answer) is bounded the same way; it sets its own
	// deadlines before the next request on the connection.
	_ = rc.SetReadDeadline(g.next())
	_ = rc.SetWriteDeadline(g.next())
}

// deadlines moves a connection's deadlines as a request makes progress.
type deadlines struct {
	rc    *http.ResponseController
	stall time.Duration
	end   time.Time // the request's deadline, zero for none
	// header is the response's: net/http reads what is left of an unread
	// body before it reuses a connection, so a stalled body marks the
	// connection to be closed instead.
	header http.Header
}

func (g *deadlines) next() time.Time {
	d := time.Now().Add(g.stall)
	if !g.end.IsZero() && g.end.Add(time.Second).Before(d) {
		// A second past the request deadline, so the handler can still
		// answer "timed out" before the connection is cut.
		d = g.end.Add(time.Second)
	}
	return d
}

// stallError says whether err is a connection deadline passing.
func stallError(err error) bool {
	var ne net.Error
	return errors.Is(err, os.ErrDeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout())
}

type stallBody struct {
	io.ReadCloser
	g *deadlines
}

func (b *stallBody) Read(p []byte) (int, error) {
	_ = b.g.rc.SetReadDeadline(b.g.next())
	n, err := b.ReadCloser.Read(p)
	if err != nil && stallError(err) {
		b.g.header.Set("Connection", "close")
		err = fmt.Errorf("reading the request body: %w (no data for %v)", errClientStalled, b.g.stall)
	}
	return n, err
}

type stallWriter struct {
	gin.ResponseWriter
	g *deadlines
}

func (w *stallWriter) Write(p []byte) (int, error) {
	_ = w.g.rc.SetWriteDeadline(w.g.next())
	return w.ResponseWriter.Write(p)
}

func (w *stallWriter) WriteString(s string) (int, error) {
	_ = w.g.rc.SetWriteDeadline(w.g.next())
	return w.ResponseWriter.WriteString(s)
}

func (w *stallWriter) Flush() {
	_ = w.g.rc.SetWriteDeadline(w.g.next())
	w.ResponseWriter.Flush()
}

// Unwrap lets http.ResponseController reach the connection.
func (w *stallWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// bufferBody reads a request body whole before the request takes a
// concurrency slot, so the slots go to requests that are ready to run.
// How many bodies are read at once is capped too (twice MaxConcurrent,
// then 503), which bounds the memory held by clients that send slowly;
// the stall guard cuts the ones that stop.
func (s *Server) bufferBody(c *gin.Context) {
	if c.Request.Body == nil || c.Request.Body == http.NoBody {
		c.Next()
		return
	}
	select {
	case s.readers <- struct{}{}:
	default:
		s.metrics.rejected.WithLabelValues("overloaded").Inc()
		respondError(c, &apiError{typ: ErrorUnavailable, retryAfter: 1,
			err: fmt.Errorf("server busy: %d request bodies being received; retry later", cap(s.readers))})
		return
	}
	body, err := io.ReadAll(c.Request.Body)
	<-s.readers
	if err != nil {
		respondError(c, err)
		return
	}
	c.Request.Body = io.NopCloser(bytes.NewReader(body))
	c.Next()
}
