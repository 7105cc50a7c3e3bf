package server

import (
	"context"

	"github.com/gin-gonic/gin"
)

type clientKey struct{}

// WithClient returns ctx carrying the name of the client a request comes
// from, which the query service uses to queue each client's heavy
// queries apart from the others' (backend.Admission).
func WithClient(ctx context.Context, client string) context.Context {
	return context.WithValue(ctx, clientKey{}, client)
}

// ClientOf returns the client name WithClient put in ctx, or "" when
// there is none.
func ClientOf(ctx context.Context) string {
	c, _ := ctx.Value(clientKey{}).(string)
	return c
}

// tagClient names the request's client in its context: the address of
// the connection's peer, not a forwarding header, which a client could
// set to a new name on every request to take more than its turn. Every
// connection from one machine shares that machine's turn.
func tagClient(c *gin.Context) {
	c.Request = c.Request.WithContext(WithClient(c.Request.Context(), c.RemoteIP()))
	c.Next()
}
