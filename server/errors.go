package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"syscall"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server/graphstore"
	"github.com/perfkb/perfkb/textpos"
)

// ErrorType classifies API errors, as in Prometheus' web API.
type ErrorType string

// The error types of the envelope and the HTTP status each maps to.
const (
	ErrorBadData      ErrorType = "bad_data"        // 400
	ErrorUnauthorized ErrorType = "unauthorized"    // 401
	ErrorForbidden    ErrorType = "forbidden"       // 403
	ErrorNotFound     ErrorType = "not_found"       // 404
	ErrorNotAccept    ErrorType = "not_acceptable"  // 406
	ErrorTooLarge     ErrorType = "too_large"       // 413
	ErrorUnsupported  ErrorType = "unsupported"     // 415
	ErrorExecution    ErrorType = "execution"       // 422
	ErrorLimit        ErrorType = "limit"           // 422
	ErrorCanceled     ErrorType = "canceled"        // 499
	ErrorInternal     ErrorType = "internal"        // 500
	ErrorNotAvailable ErrorType = "not_implemented" // 501
	ErrorUnavailable  ErrorType = "unavailable"     // 503
	ErrorTimeout      ErrorType = "timeout"         // 503
	ErrorStalled      ErrorType = "client_stalled"  // 408
	ErrorLoop         ErrorType = "loop"            // 508
	ErrorSite         ErrorType = "site_error"      // 502
	ErrorSiteTimeout  ErrorType = "site_timeout"    // 504
	ErrorStorage      ErrorType = "storage_full"    // 507
)

// SiteFailure is implemented by errors of a call to a remote site (a
// SERVICE pattern, a fan-out, a refresh) that are the site's doing: it
// answered an error or something unreadable, redirected badly, could not
// be reached, or outran its own time limit. They map to 502, or 504 when
// SiteTimedOut, with the site named in the envelope: the request was
// fine and the server did its part.
type SiteFailure interface {
	error
	SiteName() string
	SiteTimedOut() bool
}

// statusClientClosedRequest is nginx's code for a request the client gave
// up on; Prometheus uses it for canceled queries.
const statusClientClosedRequest = 499

// Sentinel errors services return so the server answers with the right
// status.
var (
	// ErrNotAvailable marks a feature whose backing package is not wired
	// in this build (501).
	ErrNotAvailable = errors.New("not available yet")
	// ErrNotFound marks a missing resource (404).
	ErrNotFound = errors.New("not found")
	// ErrTimeout marks a query or run that exceeded its time limit.
	ErrTimeout = errors.New("timed out")
	// ErrForbidden marks a request the server's policy does not allow,
	// such as a SERVICE call to an endpoint that is not a registered site
	// (403).
	ErrForbidden = errors.New("not allowed by the server's policy")
	// ErrTooLarge marks a request whose content is larger than the
	// server takes (413), such as query text that parsing alone would
	// take past --query-memory.
	ErrTooLarge = errors.New("too large")
)

// InvalidInputError is the marker perfkb's parsers use for errors caused by
// the input (a syntax or static error): they map to 400.
type InvalidInputError interface {
	error
	InvalidInput() bool
}

// LimitError is implemented by errors of valid work stopped because it
// needed more of a bounded resource than the server allows (a query past
// --query-memory): they map to 422 with errorType "limit" and the limit's
// name in the envelope's "limit" member, so a client can tell a query to
// narrow from a server fault. A limit shared with other requests
// (--query-memory-total) that also has a Busy method returning true maps
// to 503 with Retry-After: the same request may pass later.
type LimitError interface {
	error
	LimitName() string
}

// executionError marks an error raised while evaluating valid input.
type executionError struct{ err error }

func (e executionError) Error() string { return e.err.Error() }
func (e executionError) Unwrap() error { return e.err }

// Execution marks err as an evaluation error of valid input (422), e.g. a
// result cap exceeded.
func Execution(err error) error { return executionError{err} }

// apiError is an error with its envelope type.
type apiError struct {
	typ ErrorType
	err error
	// retryAfter, when positive, is sent as Retry-After seconds.
	retryAfter int
}

func (e *apiError) Error() string { return e.err.Error() }
func (e *apiError) Unwrap() error { return e.err }

func newAPIError(typ ErrorType, format string, args ...any) *apiError {
	return &apiError{typ: typ, err: fmt.Errorf(format, args...)}
}

// errorResponse is the JSON envelope of every error answer.
type errorResponse struct {
	Status    string    `json:"status"`
	ErrorType ErrorType `json:"errorType"`
	Error     string    `json:"error"`
	// Source, Line and Column locate a syntax error (a *textpos.Error):
	// Source names the uploaded file or the rule file when there is one, a
	// query's text has none.
	Source string `json:"source,omitempty"`
	Line   int    `json:"line,omitempty"`
	Column int    `json:"column,omitempty"`
	// Limit names the limit a "limit" error exceeded (e.g. query-memory).
	Limit string `json:"limit,omitempty"`
	// Site names the remote site of a site_error or site_timeout.
	Site string `json:"site,omitempty"`
}

// classify maps any error to an apiError.
func classify(err error) *apiError {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae
	}
	var tooLarge *http.MaxBytesError
	var invalid InvalidInputError
	var pos *textpos.Error
	var exec executionError
	var limit LimitError
	var site SiteFailure
	switch {
	case errors.Is(err, errClientStalled), errors.Is(err, errClientTooSlow):
		return &apiError{typ: ErrorStalled, err: err}
	case errors.As(err, &tooLarge):
		return &apiError{typ: ErrorTooLarge, err: fmt.Errorf("request body larger than %d bytes", tooLarge.Limit)}
	case errors.Is(err, ErrTooLarge):
		return &apiError{typ: ErrorTooLarge, err: err}
	case errors.Is(err, graphstore.ErrUnsupportedFormat):
		return &apiError{typ: ErrorUnsupported, err: err}
	case errors.Is(err, ErrNotAvailable):
		return &apiError{typ: ErrorNotAvailable, err: err}
	case errors.Is(err, ErrNotFound):
		return &apiError{typ: ErrorNotFound, err: err}
	case errors.Is(err, query.ErrTooManyHops):
		return &apiError{typ: ErrorLoop, err: err}
	case errors.Is(err, ErrForbidden):
		return &apiError{typ: ErrorForbidden, err: err}
	case errors.Is(err, syscall.ENOSPC):
		return &apiError{typ: ErrorStorage, err: err}
	case errors.As(err, &site) && !errors.As(err, &exec) && !errors.As(err, &limit) && !errors.Is(err, context.Canceled):
		if site.SiteTimedOut() {
			return &apiError{typ: ErrorSiteTimeout, err: err}
		}
		return &apiError{typ: ErrorSite, err: err}
	case errors.Is(err, ErrTimeout), errors.Is(err, context.DeadlineExceeded):
		return &apiError{typ: ErrorTimeout, err: err, retryAfter: 1}
	case errors.Is(err, context.Canceled):
		return &apiError{typ: ErrorCanceled, err: err}
	case errors.As(err, &limit):
		if busy, ok := limit.(interface{ Busy() bool }); ok && busy.Busy() {
			return &apiError{typ: ErrorUnavailable, err: err, retryAfter: 1}
		}
		return &apiError{typ: ErrorLimit, err: err}
	case errors.As(err, &invalid) && invalid.InvalidInput(), errors.As(err, &pos):
		return &apiError{typ: ErrorBadData, err: err}
	case errors.As(err, &exec):
		return &apiError{typ: ErrorExecution, err: err}
	}
	return &apiError{typ: ErrorInternal, err: err}
}

// statusOf returns the HTTP status for an error type.
func statusOf(t ErrorType) int {
	switch t {
	case ErrorBadData:
		return http.StatusBadRequest
	case ErrorUnauthorized:
		return http.StatusUnauthorized
	case ErrorForbidden:
		return http.StatusForbidden
	case ErrorNotFound:
		return http.StatusNotFound
	case ErrorNotAccept:
		return http.StatusNotAcceptable
	case ErrorTooLarge:
		return http.StatusRequestEntityTooLarge
	case ErrorUnsupported:
		return http.StatusUnsupportedMediaType
	case ErrorExecution, ErrorLimit:
		return http.StatusUnprocessableEntity
	case ErrorCanceled:
		return statusClientClosedRequest
	case ErrorNotAvailable:
		return http.StatusNotImplemented
	case ErrorUnavailable, ErrorTimeout:
		return http.StatusServiceUnavailable
	case ErrorStalled:
		return http.StatusRequestTimeout
	case ErrorLoop:
		return http.StatusLoopDetected
	case ErrorSite:
		return http.StatusBadGateway
	case ErrorSiteTimeout:
		return http.StatusGatewayTimeout
	case ErrorStorage:
		return http.StatusInsufficientStorage
	}
	return http.StatusInternalServerError
}

// respondError writes err in the error envelope and aborts the chain.
func respondError(c *gin.Context, err error) {
	ae := classify(err)
	resp := errorResponse{Status: "error", ErrorType: ae.typ, Error: ae.err.Error()}
	if ae.typ == ErrorTimeout {
		if limit, ok := c.Get(timeoutKey); ok {
			// "context deadline exceeded" tells a user nothing; say which
			// limit it was and how to change it.
			resp.Error = fmt.Sprintf("timed out after %v (the server's --timeout, or a shorter ?timeout= of the request)", limit)
		}
	}
	var perr *textpos.Error
	if errors.As(err, &perr) {
		resp.Source, resp.Line, resp.Column = perr.Pos.Source, perr.Pos.Line, perr.Pos.Column
	}
	var limit LimitError
	if errors.As(err, &limit) {
		resp.Limit = limit.LimitName()
	}
	var site SiteFailure
	if (ae.typ == ErrorSite || ae.typ == ErrorSiteTimeout) && errors.As(err, &site) {
		resp.Site = site.SiteName()
	}
	if ae.retryAfter > 0 {
		c.Header("Retry-After", strconv.Itoa(ae.retryAfter))
	}
	if ae.typ == ErrorUnauthorized {
		// Both challenges in one header, Basic first: Jena 4.5's client
		// (rupdate, s-put) answers only a Basic or Digest challenge and
		// fails on a header it cannot parse, so a separate Bearer header,
		// or Bearer first, stops it before it sends its credentials.
		// A page's own fetch gets no Basic challenge: the browser would
		// hold the request behind its login prompt and the page would
		// never see the 401 it can explain.
		if fromPage(c.Request) {
			c.Header("WWW-Authenticate", `Bearer realm="perfkb"`)
		} else {
			c.Header("WWW-Authenticate", `Basic realm="perfkb", Bearer realm="perfkb"`)
		}
	}
	if ae.typ == ErrorTimeout {
		if m := metricsFrom(c); m != nil {
			m.timeouts.Inc()
		}
	}
	_ = c.Error(err)
	c.Abort()
	c.PureJSON(statusOf(ae.typ), resp)
}

// successResponse is the JSON envelope of API answers that are not SPARQL
// results.
type successResponse struct {
	Status string `json:"status"`
	Data   any    `json:"data"`
}

func respondData(c *gin.Context, status int, data any) {
	// PureJSON keeps <, > and & readable: IRIs and N-Triples are full of them.
	c.PureJSON(status, successResponse{Status: "success", Data: data})
}

// fromPage reports whether a request is a script's fetch (the workbench's
// X-Requested-With, or a browser's Sec-Fetch-Mode other than navigate)
// rather than a navigation or a command-line client.
func fromPage(r *http.Request) bool {
	if r.Header.Get("X-Requested-With") != "" {
		return true
	}
	mode := r.Header.Get("Sec-Fetch-Mode")
	return mode != "" && mode != "navigate"
}
