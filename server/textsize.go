package server

import (
	"mime"

	"github.com/gin-gonic/gin"
)

// declaredTooLong returns the error of svc (a TextSizeChecker) refusing
// the request's body for the length it declares, or nil. The body is not
// read; on an error the connection is closed after the answer rather than
// what is left of the body read.
func (s *Server) declaredTooLong(c *gin.Context, svc any, what string) error {
	checker, ok := svc.(TextSizeChecker)
	if !ok || c.Request.ContentLength <= 0 {
		return nil
	}
	err := checker.CheckTextSize(what, c.Request.ContentLength)
	if err != nil {
		s.metrics.rejected.WithLabelValues("too_large").Inc()
		c.Header("Connection", "close")
	}
	return err
}

// textSize refuses a POSTed query or update whose body is the text
// itself (application/sparql-query or -update) when the query service
// refuses a text of its declared length: before bufferBody reads it. A
// form-encoded body is read first, as its length is not the text's.
func (s *Server) textSize(c *gin.Context) {
	mediaType, _, _ := mime.ParseMediaType(c.GetHeader("Content-Type"))
	what := ""
	switch mediaType {
	case mediaSPARQLQuery:
		what = "query"
	case mediaSPARQLUpdate:
		what = "update"
	}
	if what != "" && s.opts.Query != nil {
		if err := s.declaredTooLong(c, s.opts.Query, what); err != nil {
			respondError(c, err)
			return
		}
	}
	c.Next()
}
