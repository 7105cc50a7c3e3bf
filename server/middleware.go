package server

import (
	"context"
	"crypto/subtle"
	"fmt"
	"log/slog"
	"mime"
	"net/http"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/perfkb/perfkb/query"
)

// recoverer turns a handler panic into a 500 in the error envelope and a
// logged stack. http.ErrAbortHandler, which aborts a broken stream on
// purpose, is passed on to net/http.
func (s *Server) recoverer(c *gin.Context) {
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		if r == http.ErrAbortHandler {
			// A stream cut on purpose after an error (see responseStream.fail).
			msg := "stream aborted"
			if last := c.Errors.Last(); last != nil {
				msg = last.Error()
			}
			s.opts.Logger.Warn("response aborted mid-stream", "method", c.Request.Method, "path", c.Request.URL.Path, "error", msg)
			panic(r)
		}
		stack := debug.Stack()
		if tp, ok := r.(*threadPanic); ok {
			r, stack = tp.value, tp.stack // where it happened, not where ownThread passed it on
		}
		s.opts.Logger.Error("handler panic", "path", c.Request.URL.Path, "panic", fmt.Sprint(r), "stack", string(stack))
		if !c.Writer.Written() {
			respondError(c, fmt.Errorf("internal error: %v", r))
		} else {
			c.Abort()
		}
	}()
	c.Next()
}

// requestLog writes one structured line per request.
func (s *Server) requestLog(c *gin.Context) {
	start := time.Now()
	c.Next()
	status := c.Writer.Status()
	attrs := []slog.Attr{
		slog.String("method", c.Request.Method),
		slog.String("path", c.Request.URL.Path),
		slog.Int("status", status),
		slog.Int("bytes", max(c.Writer.Size(), 0)),
		slog.Float64("ms", float64(time.Since(start).Microseconds())/1000),
		slog.String("remote", c.ClientIP()),
	}
	if id, ok := c.Get(requestIDKey); ok {
		attrs = append(attrs, slog.Any("id", id))
	}
	if q, ok := c.Get(queryTextKey); ok {
		attrs = append(attrs, slog.Any("query", q))
	}
	if rows, ok := c.Get(rowsKey); ok {
		attrs = append(attrs, slog.Any("rows", rows))
	}
	attrs = append(attrs, timingOf(c.Request.Context()).attrs()...)
	if len(c.Errors) > 0 {
		attrs = append(attrs, slog.String("error", c.Errors.Last().Error()))
	}
	level := slog.LevelInfo
	if status >= 500 {
		level = slog.LevelWarn
	}
	s.opts.Logger.LogAttrs(c.Request.Context(), level, "request", attrs...)
}

// limit caps the requests served at once. A request waits up to QueueWait
// for a slot, then gets 503 with Retry-After.
func (s *Server) limit(c *gin.Context) {
	select {
	case s.slots <- struct{}{}:
	default:
		start := time.Now()
		ok := s.waitForSlot(c.Request.Context())
		noteSlotWait(c, time.Since(start))
		if !ok {
			s.metrics.rejected.WithLabelValues("overloaded").Inc()
			respondError(c, &apiError{typ: ErrorUnavailable, retryAfter: 1,
				err: fmt.Errorf("server busy: %d requests in progress; retry later", cap(s.slots))})
			return
		}
	}
	s.metrics.inFlight.Inc()
	defer func() {
		s.metrics.inFlight.Dec()
		<-s.slots
	}()
	c.Next()
}

func (s *Server) waitForSlot(ctx context.Context) bool {
	if s.opts.QueueWait < 0 {
		return false
	}
	t := time.NewTimer(s.opts.QueueWait)
	defer t.Stop()
	select {
	case s.slots <- struct{}{}:
		return true
	case <-t.C:
	case <-ctx.Done():
	}
	return false
}

// bodyLimit refuses bodies larger than MaxBody: at once when
// Content-Length says so, otherwise when reading passes the limit.
func (s *Server) bodyLimit(c *gin.Context) {
	if c.Request.ContentLength > s.opts.MaxBody {
		respondError(c, &apiError{typ: ErrorTooLarge,
			err: fmt.Errorf("request body of %d bytes is larger than the limit of %d bytes", c.Request.ContentLength, s.opts.MaxBody)})
		return
	}
	if c.Request.Body != nil {
		c.Request.Body = http.MaxBytesReader(c.Writer, c.Request.Body, s.opts.MaxBody)
	}
	c.Next()
}

// deadline gives the request's context the server's timeout (RuleTimeout
// for rule runs), or the shorter one the client asks for with ?timeout=
// (Go duration or seconds).
func (s *Server) deadline(c *gin.Context) {
	timeout := s.opts.Timeout
	if c.FullPath() == "/rules/run" {
		timeout = s.opts.RuleTimeout
	}
	if v := c.Query("timeout"); v != "" {
		d, err := parseTimeout(v)
		if err != nil {
			respondError(c, newAPIError(ErrorBadData, "timeout parameter %q: %v", v, err))
			return
		}
		if timeout < 0 || d < timeout {
			timeout = d
		}
	}
	if timeout > 0 {
		c.Set(timeoutKey, timeout)
		ctx, cancel := context.WithTimeout(c.Request.Context(), timeout)
		defer cancel()
		c.Request = c.Request.WithContext(ctx)
	}
	c.Next()
}

// timeoutKey holds a request's time limit in its gin context, for the
// message of a timeout.
const timeoutKey = "perfkb.timeout"

func parseTimeout(v string) (time.Duration, error) {
	if secs, err := strconv.ParseFloat(v, 64); err == nil {
		if secs <= 0 {
			return 0, fmt.Errorf("must be positive")
		}
		return time.Duration(secs * float64(time.Second)), nil
	}
	d, err := time.ParseDuration(v)
	if err != nil {
		return 0, fmt.Errorf("want seconds or a Go duration such as 500ms")
	}
	if d <= 0 {
		return 0, fmt.Errorf("must be positive")
	}
	return d, nil
}

// preauth checks the token before anything reads the body, so a client
// without it can neither make the server buffer an upload nor hold a slot.
// Every request that is not a read needs the token: all methods but GET and
// HEAD, except the two POSTs that only read (a SPARQL query, a rule check).
// A form-encoded SPARQL update is recognised only after its body is read;
// runUpdate checks it then.
func (s *Server) preauth(c *gin.Context) {
	if !s.authorize(c, isWrite(c)) {
		return
	}
	c.Next()
}

func isWrite(c *gin.Context) bool {
	switch c.Request.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
		return false
	}
	switch c.FullPath() {
	case "/sparql":
		mediaType, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
		return mediaType == mediaSPARQLUpdate
	case "/rules/check":
		return false
	}
	return true
}

// authorize finds the request's user and scope and checks that it may
// read (or, with write, change) something. Writes always need a token:
// the server's --token (every graph) or a user's of the tokens file
// (Options.Access). A read without a token gets the anonymous scope
// (anonymousScope: everything, nothing under ProtectReads, or the tokens
// file's "anonymous" graphs) and needs a token only when that scope reads
// nothing; a read with a token gets the token's scope widened by the
// anonymous one. The scope is kept for the handler, which checks it per
// graph (requestScope). It answers the request and returns false when the
// request may not go on.
func (s *Server) authorize(c *gin.Context, write bool) bool {
	anon := s.anonymousScope()
	if !write && anon.ReadsAll() && coversAll(anon.sites) {
		// Open reads: every graph, whatever the request carries.
		c.Set(scopeKey, anon)
		return true
	}
	if !write && !anon.readsNothing() {
		if _, hasToken := requestToken(c); !hasToken {
			c.Set(scopeKey, anon)
			return true
		}
	}
	token, hasToken := requestToken(c)
	if s.opts.Token == "" && s.opts.Access == nil {
		s.metrics.rejected.WithLabelValues("forbidden").Inc()
		respondError(c, newAPIError(ErrorForbidden, "writes are disabled: start the server with --token, PERFKB_TOKEN or --tokens-file"))
		return false
	}
	if !hasToken {
		s.metrics.rejected.WithLabelValues("unauthorized").Inc()
		what := "reads"
		if write {
			what = "writes"
		}
		respondError(c, newAPIError(ErrorUnauthorized, "%s need a token (Authorization: Bearer <token>, or HTTP Basic with the token as password)", what))
		return false
	}
	scope, ok := s.scopeOf(c, token)
	if !ok {
		s.metrics.rejected.WithLabelValues("forbidden").Inc()
		respondError(c, newAPIError(ErrorForbidden, "the token is not valid"))
		return false
	}
	if write && !scope.CanWriteAny() {
		s.metrics.rejected.WithLabelValues("forbidden").Inc()
		respondError(c, newAPIError(ErrorForbidden, "user %s may not write", scope.User))
		return false
	}
	c.Set(scopeKey, scope.withAnonymous(anon))
	if write {
		s.markWrite(c)
	}
	return true
}

// scopeOf finds the scope of a token: the server's --token reads and
// writes everything; a tokens-file user has its own. With HTTP Basic, a
// tokens-file user must give its name as the user name.
func (s *Server) scopeOf(c *gin.Context, token string) (*Scope, bool) {
	name, _, basic := c.Request.BasicAuth()
	legacy := s.validToken(token)
	var user User
	found := false
	if s.opts.Access != nil {
		user, found = s.opts.Access.lookup(token, name, basic)
	}
	switch {
	case found:
		return user.scope(), true
	case legacy:
		return fullScope("token"), true
	}
	return nil, false
}

// wholeStore refuses a request whose scope does not cover every graph, on
// the routes whose answers draw on the whole store (rule runs, findings,
// analyses, validation, the site registry, metrics): they cannot be
// limited to some graphs, so they are for unrestricted tokens only.
func (s *Server) wholeStore(c *gin.Context) {
	scope := requestScope(c)
	if !scope.ReadsAll() || (isWrite(c) && !scope.WritesAll()) {
		s.metrics.rejected.WithLabelValues("forbidden").Inc()
		if scope.User == "" {
			respondError(c, newAPIError(ErrorForbidden, "%s %s reads or changes the whole store; reads without a token are limited to some graphs: send a token that reads every graph", c.Request.Method, c.FullPath()))
			return
		}
		respondError(c, newAPIError(ErrorForbidden, "%s %s reads or changes the whole store; user %s's token is limited to some graphs", c.Request.Method, c.FullPath(), scope.User))
		return
	}
	c.Next()
}

// requestToken is the token a request carries: a Bearer token, or HTTP
// Basic with the token as the password (any user name), so clients that
// only speak Basic (Jena's rupdate, s-put) can write.
func requestToken(c *gin.Context) (string, bool) {
	header := c.GetHeader("Authorization")
	scheme, token, ok := strings.Cut(header, " ")
	if ok && strings.EqualFold(scheme, "Basic") {
		if _, password, basicOK := c.Request.BasicAuth(); basicOK {
			return strings.TrimSpace(password), true
		}
	}
	if header == "" || !ok || !strings.EqualFold(scheme, "Bearer") {
		return "", false
	}
	return strings.TrimSpace(token), true
}

// validToken reports whether token is the server's (never for a server
// without one).
func (s *Server) validToken(token string) bool {
	return s.opts.Token != "" && subtle.ConstantTimeCompare([]byte(token), []byte(s.opts.Token)) == 1
}

// hops hands the Perfkb-Hops count of a request that another perfkb (or
// this one) sent to the SERVICE client of the queries it runs, which
// refuses to call further past query.MaxHops: SERVICE <self> nested
// in SERVICE <self>, or two sites registered at each other, end there
// instead of taking every request slot.
func (s *Server) hops(c *gin.Context) {
	n, err := query.ParseHops(c.GetHeader(query.HopsHeader))
	if err != nil {
		respondError(c, newAPIError(ErrorBadData, "%v", err))
		return
	}
	if n > 0 {
		c.Request = c.Request.WithContext(query.WithHops(c.Request.Context(), n))
	}
	c.Next()
}
