package server

import (
	"crypto/rand"
	"encoding/hex"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gin-contrib/cors"
	"github.com/gin-gonic/gin"
)

// hostPolicy holds the Host names a request may name. It is filled when
// the server starts listening (the listen address is known only then), so
// it is read atomically.
type hostPolicy struct {
	allowed atomic.Pointer[map[string]bool] // nil: any host
}

// set installs the allowed names; "*" among them allows any.
func (p *hostPolicy) set(names []string) {
	m := map[string]bool{}
	for _, n := range names {
		if n == "*" {
			p.allowed.Store(nil)
			return
		}
		m[strings.ToLower(strings.Trim(n, "[]"))] = true
	}
	p.allowed.Store(&m)
}

// defaultAllowedHosts are the names a browser can use to reach a server
// bound to addr: the bound host itself and, for loopback, the localhost
// names. A server bound to every interface accepts any name (the operator
// chose to be reachable from anywhere; --allowed-hosts narrows it).
func defaultAllowedHosts(addr net.Addr) []string {
	host, _, err := net.SplitHostPort(addr.String())
	if err != nil {
		return []string{"*"}
	}
	ip := net.ParseIP(host)
	if ip != nil && ip.IsUnspecified() {
		return []string{"*"}
	}
	names := []string{host}
	if ip != nil && ip.IsLoopback() {
		names = append(names, "localhost", "127.0.0.1", "::1")
	}
	return names
}

// checkHost refuses requests whose Host header names a host the server
// does not answer for: a page on an attacker's domain that re-points its
// DNS name at 127.0.0.1 (DNS rebinding) would otherwise read and, with a
// stolen token, write the store through the victim's browser.
func (s *Server) checkHost(c *gin.Context) {
	allowed := s.hosts.allowed.Load()
	if allowed == nil {
		c.Next()
		return
	}
	host := c.Request.Host
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	if !(*allowed)[strings.ToLower(strings.Trim(host, "[]"))] {
		s.metrics.rejected.WithLabelValues("host").Inc()
		respondError(c, newAPIError(ErrorForbidden, "host %q is not served here (allowed: see --allowed-hosts)", c.Request.Host))
		return
	}
	c.Next()
}

// corsMiddleware lets pages on other origins (YASGUI, notebooks) use the
// endpoint. With the default origin "*" only reads are allowed across
// origins: the Authorization header is not allowed, so no cross-origin
// write can be made from a browser. Named origins may also write.
func corsMiddleware(origins []string) gin.HandlerFunc {
	cfg := cors.Config{
		AllowMethods:  []string{http.MethodGet, http.MethodHead, http.MethodPost},
		AllowHeaders:  []string{"Content-Type", "Accept"},
		ExposeHeaders: []string{"Content-Length", "Retry-After", "X-Request-Id"},
		MaxAge:        12 * time.Hour,
	}
	if len(origins) == 0 || (len(origins) == 1 && origins[0] == "*") {
		cfg.AllowAllOrigins = true
	} else {
		cfg.AllowOrigins = origins
		cfg.AllowMethods = append(cfg.AllowMethods, http.MethodPut, http.MethodDelete)
		cfg.AllowHeaders = append(cfg.AllowHeaders, "Authorization")
	}
	return cors.New(cfg)
}

// requestIDHeader carries the id the request log records, so a client can
// quote it in a report.
const requestIDHeader = "X-Request-Id"

// requestID gives every request an id: the client's X-Request-Id when it
// sends a sane one, else a random one.
func requestID(c *gin.Context) {
	id := c.GetHeader(requestIDHeader)
	if len(id) == 0 || len(id) > 64 || strings.ContainsFunc(id, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		var b [8]byte
		_, _ = rand.Read(b[:])
		id = hex.EncodeToString(b[:])
	}
	c.Set(requestIDKey, id)
	c.Header(requestIDHeader, id)
	c.Next()
}

const (
	requestIDKey = "perfkb.request-id"
	queryTextKey = "perfkb.query"
	rowsKey      = "perfkb.rows"
)

// logQuery records a query's text (cut to 300 characters) for the request
// log.
func logQuery(c *gin.Context, text string) {
	const max = 300
	if len(text) > max {
		text = text[:max] + "…"
	}
	c.Set(queryTextKey, strings.Join(strings.Fields(text), " "))
}
