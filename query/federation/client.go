package federation

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/knakk/sparql"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/algebra"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/results"
)

// Defaults of a Client.
const (
	DefaultSiteTimeout = 10 * time.Second
	DefaultMaxBytes    = 64 << 20
	DefaultRetries     = 2
	maxRedirects       = 3
)

// Site is a remote SPARQL endpoint known by name.
type Site struct {
	Name     string `json:"name"`
	Endpoint string `json:"endpoint"`
	// TokenEnv names the environment variable holding the bearer token
	// sent to the site; the token itself is never stored or printed. Only
	// names starting with TokenEnvPrefix are read (CheckTokenEnv).
	TokenEnv string `json:"tokenEnv,omitempty"`
}

// Client is an eval.ServiceHandler that sends SERVICE patterns to SPARQL
// 1.1 Protocol endpoints over HTTP. The zero value is not usable; call
// NewClient. A Client is safe for concurrent use.
type Client struct {
	// Timeout bounds each call to a site, within the query's own deadline.
	Timeout time.Duration
	// Retries is how often a call is repeated after a refused or reset
	// connection or a 502/503/504 answer.
	Retries int
	// MaxBytes caps the response body of one call.
	MaxBytes int64
	// MaxRows caps the rows of one answer (0: none).
	MaxRows int64
	// Allow, when set, vets each endpoint before any request, and each
	// redirect to another origin (the server's SSRF guard); an error
	// refuses the call.
	Allow func(endpoint string) error
	// Registered, when set, returns the current registry; it is consulted
	// on each call for site names and tokens (a server's registry changes
	// while it runs).
	Registered func(ctx context.Context) ([]Site, error)

	http    *http.Client
	sites   map[string]Site // by endpoint
	answers atomic.Int64    // numbers the answers, for blank node labels
}

// NewClient returns a client with the default limits that knows sites by
// their endpoints (for names in reports and for their tokens). It uses its
// own http.Client (at most 3 redirects, each vetted by checkRedirect),
// never http.DefaultClient.
func NewClient(sites []Site) *Client {
	c := &Client{Timeout: DefaultSiteTimeout, Retries: DefaultRetries, MaxBytes: DefaultMaxBytes, sites: map[string]Site{}}
	c.http = &http.Client{Transport: http.DefaultTransport, CheckRedirect: c.checkRedirect}
	for _, s := range sites {
		c.sites[s.Endpoint] = s
	}
	return c
}

// checkRedirect vets every hop of a redirect, not only the first URL: a
// registered site must not be able to point the server at a host the
// allow-list refuses (SSRF through 303/307), and the site's token goes to
// the site's own origin only. net/http keeps Authorization on a redirect
// to another port of the same host name, so it is dropped here whenever
// scheme, host or port change.
func (c *Client) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > maxRedirects {
		return fmt.Errorf("more than %d redirects", maxRedirects)
	}
	if req.URL.Scheme != "http" && req.URL.Scheme != "https" {
		return fmt.Errorf("redirect to a %s: URL", req.URL.Scheme)
	}
	if sameOrigin(req.URL, via[0].URL) {
		return nil
	}
	req.Header.Del("Authorization")
	if c.Allow != nil {
		if err := c.Allow(req.URL.String()); err != nil {
			// %v, not %w: the refusal is the site's fault, not the query's.
			return fmt.Errorf("redirect from %s refused: %v", via[0].URL.Redacted(), err)
		}
	}
	return nil
}

// sameOrigin reports whether a and b have the same scheme, host and port
// (RFC 6454), the default port made explicit.
func sameOrigin(a, b *url.URL) bool {
	port := func(u *url.URL) string {
		if p := u.Port(); p != "" {
			return p
		}
		if strings.EqualFold(u.Scheme, "https") {
			return "443"
		}
		return "80"
	}
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

// SiteError is the failure of one call to a site: the site answered with
// an error or nonsense, could not be reached, or outran its own time
// limit. A call ended by the caller's context is not a SiteError.
type SiteError struct {
	Site   string // the site's name, or its endpoint
	Status int    // HTTP status, when the site answered
	// Timeout, when set, is the site's time limit (Client.Timeout) that
	// ended the call.
	Timeout time.Duration
	Err     error
}

func (e *SiteError) Error() string { return fmt.Sprintf("site %s: %v", e.Site, e.Err) }
func (e *SiteError) Unwrap() error { return e.Err }

// SiteName is the site's name, or its endpoint.
func (e *SiteError) SiteName() string { return e.Site }

// SiteTimedOut reports whether the site's own time limit ended the call.
func (e *SiteError) SiteTimedOut() bool { return e.Timeout > 0 }

// HTTPStatus returns the status code the site answered with (0: none).
func (e *SiteError) HTTPStatus() int { return e.Status }

// site returns what is known about endpoint: its registered name and
// token variable, or just the endpoint as name.
func (c *Client) site(ctx context.Context, endpoint string) Site {
	if s, ok := c.sites[endpoint]; ok && s.Name != "" {
		return s
	}
	if c.Registered != nil {
		if all, err := c.Registered(ctx); err == nil {
			for _, s := range all {
				if s.Endpoint == endpoint {
					return s
				}
			}
		}
	}
	return Site{Name: endpoint, Endpoint: endpoint}
}

var (
	_ eval.ServiceHandler   = (*Client)(nil)
	_ eval.ServiceDescriber = (*Client)(nil)
)

// Handle implements eval.ServiceHandler.
func (c *Client) Handle(ctx context.Context, req eval.ServiceRequest) (*eval.Solutions, error) {
	if !req.Endpoint.IsIRI() {
		return nil, fmt.Errorf("SERVICE endpoint %s is not an IRI", req.Endpoint)
	}
	text, err := BuildQuery(req)
	if err != nil {
		return nil, err
	}
	rs, st, err := c.selectRows(ctx, req.Endpoint.Value, text, results.ReadOptions{Charge: req.Charge, CountOnly: req.CountOnly})
	if err != nil {
		return nil, err
	}
	if req.CountOnly {
		return &eval.Solutions{Count: rs.Count, Bytes: st.Bytes, Status: st.Status}, nil
	}
	// Blank node labels are local to one answer (SPARQL 1.1 Results
	// formats): give each answer its own, so that _:b0 from two sites, or
	// from a site and the local store, are two nodes.
	prefix := fmt.Sprintf("fed%d_", c.answers.Add(1))
	for _, row := range rs.Rows {
		for i, t := range row {
			if t.IsBlank() {
				row[i].Value = prefix + t.Value
			}
		}
	}
	sols := &eval.Solutions{Rows: rs.Rows, Bytes: st.Bytes, Status: st.Status}
	for _, v := range rs.Vars {
		sols.Vars = append(sols.Vars, algebra.Var(v))
	}
	return sols, nil
}

// Vet reports the refusal a call to endpoint would get before any request
// is sent (not an IRI, an endpoint CheckEndpoint rejects, one Allow
// refuses), so the evaluator can fail a SERVICE join before it gathers
// its left side.
func (c *Client) Vet(endpoint kb.Term) error {
	if !endpoint.IsIRI() {
		return fmt.Errorf("SERVICE endpoint %s is not an IRI", endpoint)
	}
	if err := CheckEndpoint(endpoint.Value); err != nil {
		return err
	}
	if c.Allow != nil {
		return c.Allow(endpoint.Value)
	}
	return nil
}

// BuildQuery is the query sent for a SERVICE call: the outer query's BASE
// and PREFIX declarations, SELECT * WHERE and the pattern as written, and
// the bind join's VALUES block.
func BuildQuery(req eval.ServiceRequest) (string, error) {
	if strings.TrimSpace(req.Text) == "" {
		return "", errors.New("SERVICE pattern has no source text to forward")
	}
	var b strings.Builder
	if req.Base != "" {
		fmt.Fprintf(&b, "BASE <%s>\n", req.Base)
	}
	for _, p := range req.Prefixes {
		fmt.Fprintf(&b, "PREFIX %s: <%s>\n", p.Prefix, p.IRI)
	}
	b.WriteString("SELECT * WHERE ")
	b.WriteString(req.Text)
	if req.Suffix != "" {
		b.WriteString("\n" + req.Suffix)
	}
	if req.Bindings != nil && len(req.Bindings.Vars) > 0 {
		b.WriteString("\nVALUES (")
		for i, v := range req.Bindings.Vars {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString("?" + string(v))
		}
		b.WriteString(") {\n")
		for _, row := range req.Bindings.Rows {
			b.WriteString("  (")
			for i, t := range row {
				if i > 0 {
					b.WriteByte(' ')
				}
				b.WriteString(valuesTerm(t))
			}
			b.WriteString(")\n")
		}
		b.WriteString("}")
	}
	b.WriteByte('\n')
	return b.String(), nil
}

// valuesTerm writes t for a VALUES block; blank nodes cannot be sent (they
// are local to their answer), so they become UNDEF and the local join
// checks them.
func valuesTerm(t kb.Term) string {
	if t.IsZero() || t.IsBlank() {
		return "UNDEF"
	}
	return t.String()
}

// CallStats describe one completed call.
type CallStats struct {
	Status int
	Bytes  int64
}

// request builds one HTTP request; it implements knakk/sparql's Provider
// so the request is built with the call's context and headers instead of
// the package's process-wide http.DefaultClient settings.
type request struct {
	ctx    context.Context
	query  string
	token  string
	accept string
	hops   int
}

var _ sparql.Provider = request{}

// GenRequest implements sparql.Provider: a SPARQL 1.1 Protocol query via
// POST with a form body.
func (r request) GenRequest(endpoint string) (*http.Request, error) {
	form := url.Values{"query": {r.query}}
	req, err := http.NewRequestWithContext(r.ctx, http.MethodPost, endpoint, strings.NewReader(form.Encode()))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", r.accept)
	req.Header.Set("User-Agent", "perfkb-federation")
	req.Header.Set(HopsHeader, strconv.Itoa(r.hops))
	if r.token != "" {
		req.Header.Set("Authorization", "Bearer "+r.token)
	}
	return req, nil
}

// CheckEndpoint reports whether endpoint is an absolute http or https URL.
func CheckEndpoint(endpoint string) error {
	u, err := url.Parse(endpoint)
	if err != nil {
		return fmt.Errorf("endpoint %q: %w", endpoint, err)
	}
	if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("endpoint %q: only http and https URLs are allowed", endpoint)
	}
	return nil
}

// resultsAccept is the Accept header of SELECT and ASK calls.
const resultsAccept = "application/sparql-results+json, application/sparql-results+xml;q=0.9"

// graphAccept is the Accept header of DESCRIBE calls: the RDF syntaxes
// perfkb reads (text/plain is N-Triples' old media type).
const graphAccept = "application/n-triples, text/turtle;q=0.9, application/rdf+xml;q=0.8, text/plain;q=0.5"

// Select sends a SELECT (or ASK) query to endpoint and decodes the answer.
func (c *Client) Select(ctx context.Context, endpoint, query string) (*results.ResultSet, CallStats, error) {
	return c.selectRows(ctx, endpoint, query, results.ReadOptions{})
}

// selectRows is Select with each decoded row charged to charge (nil: not
// charged); a charge error ends the call and is returned as it is.
func (c *Client) selectRows(ctx context.Context, endpoint, query string, opts results.ReadOptions) (*results.ResultSet, CallStats, error) {
	var rs *results.ResultSet
	st, err := c.call(ctx, endpoint, query, resultsAccept, func(contentType string, r io.Reader) (int, error) {
		var err error
		rs, err = readAnswer(ctx, contentType, r, opts)
		if err != nil {
			return 0, err
		}
		return rs.Count, nil
	})
	return rs, st, err
}

// Describe implements eval.ServiceDescriber: it sends DESCRIBE with the
// resources to endpoint and reads the graph (N-Triples, Turtle or
// RDF/XML, by media type). What a description holds is the site's choice
// (SPARQL 1.1 §16.4); a perfkb site gives each resource's concise bounded
// description.
func (c *Client) Describe(ctx context.Context, endpoint kb.Term, resources []kb.Term) (*eval.Graph, error) {
	if !endpoint.IsIRI() {
		return nil, fmt.Errorf("endpoint %s is not an IRI", endpoint)
	}
	var b strings.Builder
	b.WriteString("DESCRIBE")
	for _, r := range resources {
		if !r.IsIRI() {
			return nil, fmt.Errorf("DESCRIBE at a site: %s is not an IRI", r)
		}
		b.WriteString(" " + r.String())
	}
	b.WriteByte('\n')
	g := &eval.Graph{}
	st, err := c.call(ctx, endpoint.Value, b.String(), graphAccept, func(contentType string, r io.Reader) (int, error) {
		var err error
		g.Triples, err = decodeGraph(contentType, r, endpoint.Value)
		return len(g.Triples), err
	})
	g.Bytes, g.Status = st.Bytes, st.Status
	if err != nil {
		return nil, err
	}
	return g, nil
}

// decodeGraph reads an RDF document by its media type.
func decodeGraph(contentType string, r io.Reader, base string) ([]kb.Triple, error) {
	mt, _, _ := mime.ParseMediaType(contentType)
	f, ok := rdfio.ByMediaType(mt)
	if mt == "text/plain" {
		f, ok = rdfio.Lookup("ntriples")
	}
	if !ok || f.Quads {
		return nil, fmt.Errorf("the answer to DESCRIBE is %q, not N-Triples, Turtle or RDF/XML", contentType)
	}
	dec := f.NewDecoder(r, rdfio.Options{Base: base, Source: "DESCRIBE answer"})
	var out []kb.Triple
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, kb.Triple{S: q.S, P: q.P, O: q.O})
	}
}

// call sends query to endpoint with the per-site timeout, token and
// retries, and hands the answer to read, which returns the number of rows
// (or triples) for the row cap.
func (c *Client) call(ctx context.Context, endpoint, query, accept string, read func(contentType string, r io.Reader) (int, error)) (CallStats, error) {
	known := c.site(ctx, endpoint)
	site := known.Name
	fail := func(status int, err error) (CallStats, error) {
		return CallStats{Status: status}, &SiteError{Site: site, Status: status, Err: err}
	}
	if err := CheckEndpoint(endpoint); err != nil {
		return fail(0, err)
	}
	hops := Hops(ctx) + 1
	if hops > MaxHops {
		return fail(0, ErrTooManyHops)
	}
	if c.Allow != nil {
		if err := c.Allow(endpoint); err != nil {
			return fail(0, err)
		}
	}
	timeout := c.Timeout
	if timeout <= 0 {
		timeout = DefaultSiteTimeout
	}
	var lastErr error
	status := 0
	parent := ctx
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	ended := func() (CallStats, error) {
		if err := parent.Err(); err != nil {
			// The query's own deadline or cancellation, not the site's.
			return CallStats{Status: status}, fmt.Errorf("site %s: %w", site, err)
		}
		return CallStats{Status: status}, &SiteError{Site: site, Status: status, Timeout: timeout,
			Err: fmt.Errorf("timed out after %v (the site's time limit; %w)", timeout, context.DeadlineExceeded)}
	}
	var token string
	if known.TokenEnv != "" {
		// Checked again at each call: a registry written before the
		// prefix rule may name any variable.
		if err := CheckTokenEnv(known.TokenEnv); err != nil {
			return fail(0, err)
		}
		token = os.Getenv(known.TokenEnv)
	}
	for attempt := 0; attempt <= c.Retries; attempt++ {
		if attempt > 0 {
			select {
			case <-time.After(time.Duration(attempt*attempt) * 100 * time.Millisecond):
			case <-ctx.Done():
				return ended()
			}
		}
		st, retry, err := c.do(ctx, endpoint, site, request{ctx: ctx, query: query, token: token, accept: accept, hops: hops}, read)
		if err == nil {
			return st, nil
		}
		status, lastErr = st.Status, err
		if errors.Is(err, eval.ErrLimit) {
			return st, err
		}
		if ctx.Err() != nil {
			return ended()
		}
		if !retry {
			break
		}
	}
	return fail(status, lastErr)
}

// do performs one attempt; retry says the failure is worth repeating.
func (c *Client) do(ctx context.Context, endpoint, site string, p sparql.Provider, read func(string, io.Reader) (int, error)) (CallStats, bool, error) {
	var st CallStats
	req, err := p.GenRequest(endpoint)
	if err != nil {
		return st, false, err
	}
	resp, err := c.http.Do(req)
	if err != nil {
		retry := errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
		return st, retry, err
	}
	defer resp.Body.Close()
	st.Status = resp.StatusCode
	if resp.StatusCode == http.StatusLoopDetected {
		// The site refused to forward further: the loop ends here, with
		// the same error at every level instead of each site's answer
		// nested in the next one's.
		return st, false, fmt.Errorf("HTTP %s: %w", resp.Status, ErrTooManyHops)
	}
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
		retry := resp.StatusCode == http.StatusBadGateway || resp.StatusCode == http.StatusServiceUnavailable || resp.StatusCode == http.StatusGatewayTimeout
		return st, retry, fmt.Errorf("HTTP %s: %s", resp.Status, strings.TrimSpace(string(msg)))
	}
	max := c.MaxBytes
	if max <= 0 {
		max = DefaultMaxBytes
	}
	body := &countingReader{r: resp.Body, max: max}
	rows, err := read(resp.Header.Get("Content-Type"), body)
	st.Bytes = body.n
	if err != nil {
		if errors.Is(err, eval.ErrLimit) {
			// The query's memory budget, not the site, ended the call.
			return st, false, err
		}
		if body.over {
			return st, false, fmt.Errorf("answer larger than %d bytes", max)
		}
		if ctx.Err() != nil {
			return st, false, ctx.Err()
		}
		return st, false, fmt.Errorf("bad results from %s at byte %d: %w", site, errorOffset(err, body.n), err)
	}
	if c.MaxRows > 0 && int64(rows) > c.MaxRows {
		return st, false, fmt.Errorf("%w: the answer has more than %d rows", eval.ErrTooManyRows, c.MaxRows)
	}
	return st, false, nil
}

// errorOffset is the byte position of a decoding error: the decoder's own
// offset when it has one, otherwise the bytes read so far.
func errorOffset(err error, read int64) int64 {
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return se.Offset
	}
	var te *json.UnmarshalTypeError
	if errors.As(err, &te) {
		return te.Offset
	}
	return read
}

// countingReader counts bytes and fails past max.
type countingReader struct {
	r    io.Reader
	n    int64
	max  int64
	over bool
}

func (c *countingReader) Read(b []byte) (int, error) {
	if c.n >= c.max {
		// One more byte than allowed tells an exact fit from an overflow.
		var one [1]byte
		if n, _ := c.r.Read(one[:]); n > 0 {
			c.over = true
			return 0, errors.New("response too large")
		}
		return 0, io.EOF
	}
	if rem := c.max - c.n; int64(len(b)) > rem {
		b = b[:rem]
	}
	n, err := c.r.Read(b)
	c.n += int64(n)
	return n, err
}
