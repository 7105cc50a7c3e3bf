package server

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
)

// DefaultStallTimeout is how long a client may send or read nothing in the
// middle of a request before its connection is cut.
const DefaultStallTimeout = 5 * time.Second

// DefaultMinBodyRate is the slowest a request body may arrive, in bytes
// per second averaged from the body's start, once StallTimeout has passed.
const DefaultMinBodyRate = 1 << 10

// DefaultBodyTimeout bounds the time to receive a whole request body.
const DefaultBodyTimeout = 2 * time.Minute

// errClientTooSlow is the error a body read returns when the client sends
// slower than MinBodyRate or past BodyTimeout.
var errClientTooSlow = errors.New("the client sent the request body too slowly")

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
		now := time.Now()
		c.Request.Body = &stallBody{ReadCloser: c.Request.Body, g: g, start: now,
			rate: s.opts.MinBodyRate, whole: now.Add(s.opts.BodyTimeout), timeout: s.opts.BodyTimeout}
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

// stallBody is a request body under the stall guard, a minimum rate and
// a whole-body deadline. Silence alone is caught by the stall timeout; a
// client that trickles a byte now and then never stalls, and without the
// rate and the deadline could hold a body reader (and its concurrency
// slot) for as long as it likes.
type stallBody struct {
	io.ReadCloser
	g       *deadlines
	start   time.Time
	whole   time.Time     // the whole body must have arrived by then
	timeout time.Duration // BodyTimeout, for the message
	rate    int64         // bytes per second, averaged from start
	n       int64
	failed  error
}

func (b *stallBody) Read(p []byte) (int, error) {
	if b.failed != nil {
		return 0, b.failed
	}
	d := b.g.next()
	if b.whole.Before(d) {
		d = b.whole
	}
	_ = b.g.rc.SetReadDeadline(d)
	n, err := b.ReadCloser.Read(p)
	b.n += int64(n)
	now := time.Now()
	switch {
	case err != nil && stallError(err) && !now.Before(b.whole):
		err = fmt.Errorf("reading the request body: %w (not complete after %v)", errClientTooSlow, b.timeout)
	case err != nil && stallError(err):
		err = fmt.Errorf("reading the request body: %w (no data for %v)", errClientStalled, b.g.stall)
	case err == nil && now.After(b.whole):
		err = fmt.Errorf("reading the request body: %w (not complete after %v)", errClientTooSlow, b.timeout)
	case err == nil && b.rate > 0 && b.tooSlow(now):
		err = fmt.Errorf("reading the request body: %w (%d bytes in %v, under %d bytes per second)",
			errClientTooSlow, b.n, now.Sub(b.start).Round(time.Millisecond), b.rate)
	default:
		return n, err
	}
	// net/http would read what is left of the body before reusing the
	// connection: close it instead.
	b.g.header.Set("Connection", "close")
	b.failed = err
	return n, err
}

// tooSlow reports whether the body has arrived slower than the minimum
// rate, counted after a grace of one stall timeout (connection set-up and
// the first packets are not held against the client).
func (b *stallBody) tooSlow(now time.Time) bool {
	over := now.Sub(b.start) - b.g.stall
	return over > 0 && b.n < int64(over.Seconds()*float64(b.rate))
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

// bodyReaders is how many request bodies per MaxConcurrent slot may be
// read at once (bufferBody).
const bodyReaders = 16

// bufferBody reads a request body whole before the request takes a
// concurrency slot, so the slots go to requests that are ready to run.
// The bytes of the bodies are bounded by Options.BodyMemory (charged
// before they are read), their time by the stall guard, MinBodyRate and
// BodyTimeout; how many are read at once is capped as well, at
// bodyReaders times MaxConcurrent (then 503), a cap set high so that
// clients reconnecting as soon as they are cut for sending too slowly
// cannot hold every reader and keep POST queries out.
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
	start := time.Now()
	body, release, err := s.bodies.readBody(c.Request.Body, c.Request.ContentLength)
	noteBodyTime(c, time.Since(start))
	<-s.readers
	defer release()
	if err != nil {
		if _, ok := err.(*apiError); ok {
			s.metrics.rejected.WithLabelValues("overloaded").Inc()
		} else if errors.Is(err, io.ErrUnexpectedEOF) {
			// The client ended the body before its Content-Length:
			// its error, not the server's.
			err = &apiError{typ: ErrorBadData, err: fmt.Errorf("the request body ended before its Content-Length: %w", err)}
		}
		respondError(c, err)
		return
	}
	// The handler takes the body from the context (readRequestBody);
	// the reader is for any other.
	c.Set(bodyKey, body)
	c.Request.Body = io.NopCloser(strings.NewReader(body))
	c.Next()
}
