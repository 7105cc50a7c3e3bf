package server

import (
	"fmt"
	"io"
	"strings"

	"github.com/gin-gonic/gin"
	"golang.org/x/sync/semaphore"
)

// The request bodies a handler holds whole in memory (a POSTed query or
// update, a rule file) share one server-wide byte budget,
// Options.BodyMemory. MaxBody bounds each body, and MaxConcurrent how many
// run, but their product (64 MiB × 64) is far beyond a server's memory: a
// few clients sending the largest bodies at once ran the process out of
// memory before any parser could refuse them. A body is charged before it
// is read (its Content-Length, or chunk by chunk when the length is not
// sent) and released when its request ends; a body that cannot get its
// bytes now is answered 503 with Retry-After, one larger than the whole
// budget 413.

// DefaultBodyMemory is Options.BodyMemory's default.
const DefaultBodyMemory = 512 << 20

// bodyChunk is how much a body of unknown length is charged at a time.
const bodyChunk = 1 << 20

// bodyBudget is the server-wide budget of buffered request bodies (nil:
// none).
type bodyBudget struct {
	sem *semaphore.Weighted
	max int64
}

func newBodyBudget(max int64) *bodyBudget {
	if max <= 0 {
		return nil
	}
	return &bodyBudget{sem: semaphore.NewWeighted(max), max: max}
}

// readBody reads r whole (declared is its Content-Length, or -1), charging
// its bytes to the budget; release returns them and must be called once
// the body is no longer held. The error is an *apiError (413 or 503) when
// the budget refuses.
func (b *bodyBudget) readBody(r io.Reader, declared int64) (body string, release func(), err error) {
	if b == nil {
		var sb strings.Builder
		if declared > 0 {
			sb.Grow(int(declared))
		}
		_, err := io.Copy(&sb, r)
		return sb.String(), func() {}, err
	}
	var held int64
	release = func() {
		if held > 0 {
			b.sem.Release(held)
			held = 0
		}
	}
	charge := func(n int64) error {
		if held+n > b.max {
			return &apiError{typ: ErrorTooLarge, err: fmt.Errorf("the request body is larger than the server's --body-memory (%s) for bodies held at once", formatSize(b.max))}
		}
		if !b.sem.TryAcquire(n) {
			return &apiError{typ: ErrorUnavailable, retryAfter: 1, err: fmt.Errorf("server busy: request bodies being held use the server's --body-memory (%s); retry later", formatSize(b.max))}
		}
		held += n
		return nil
	}
	var sb strings.Builder
	if declared > 0 {
		if err := charge(declared); err != nil {
			return "", release, err
		}
		sb.Grow(int(declared))
		// A body longer than declared is cut by net/http; read at most
		// what was charged.
		_, err = io.Copy(&sb, io.LimitReader(r, declared))
		return sb.String(), release, err
	}
	buf := make([]byte, 32<<10)
	for {
		n, rerr := r.Read(buf)
		if n > 0 {
			if int64(sb.Len()+n) > held {
				if err := charge(bodyChunk); err != nil {
					return "", release, err
				}
			}
			sb.Write(buf[:n])
		}
		if rerr == io.EOF {
			return sb.String(), release, nil
		}
		if rerr != nil {
			return "", release, rerr
		}
	}
}

// bodyKey is the gin context key of a body bufferBody has read.
const bodyKey = "perfkb.body"

// readRequestBody reads the request's body whole under the server's body
// budget; the caller calls release once it no longer holds the body. A
// body bufferBody has read is returned as it is (bufferBody releases it),
// not read and held twice.
func (s *Server) readRequestBody(c *gin.Context) (body string, release func(), err error) {
	if v, ok := c.Get(bodyKey); ok {
		if body, ok := v.(string); ok {
			return body, func() {}, nil
		}
	}
	body, release, err = s.bodies.readBody(c.Request.Body, c.Request.ContentLength)
	if err != nil {
		release()
		if _, ok := err.(*apiError); ok {
			s.metrics.rejected.WithLabelValues("overloaded").Inc()
		}
		return "", func() {}, err
	}
	return body, release, nil
}

// releaseAtEnd runs release when the handler that called it returns: a
// deferred call registered on the request's context by withBodies.
func releaseAtEnd(c *gin.Context, release func()) {
	if v, ok := c.Get(releaseKey); ok {
		if p, ok := v.(*[]func()); ok {
			*p = append(*p, release)
			return
		}
	}
	// Outside withBodies the body is not held past this point as far as
	// the budget can tell: release it rather than leak it.
	release()
}

// releaseKey is the gin context key of withBodies' release list.
const releaseKey = "perfkb.bodyRelease"

// withBodies wraps a handler that reads bodies through helpers returning
// them as values (readRuleText): the bytes are released when it returns.
func withBodies(h gin.HandlerFunc) gin.HandlerFunc {
	return func(c *gin.Context) {
		var releases []func()
		c.Set(releaseKey, &releases)
		defer func() {
			for _, r := range releases {
				r()
			}
		}()
		h(c)
	}
}

// formatSize writes a byte count in MiB or KiB.
func formatSize(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
