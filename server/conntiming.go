package server

import (
	"context"
	"net"
	"sync/atomic"
	"time"
)

// connTiming is what the server knows of a connection's time before a
// request on it reaches the handlers: when the connection was accepted
// (net/http's accept loop, after the kernel's accept queue), when its
// last bytes were read (for a request, its header), and how many requests
// it has carried. The request log writes them (requestTiming.attrs), so a
// request whose client waited far longer than the handlers took can be
// placed: before the accept (the kernel's queue, the client's dial),
// between the read and the first middleware (the server's goroutines
// waiting for a processor), or before the read (the bytes waiting in the
// kernel for the connection's goroutine).
type connTiming struct {
	accepted time.Time
	lastRead atomic.Int64 // Unix ns of the last read that returned data
	requests atomic.Int64
}

type connTimingKey struct{}

// timedConn notes when reads return data.
type timedConn struct {
	net.Conn
	t *connTiming
}

func (c *timedConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.t.lastRead.Store(time.Now().UnixNano())
	}
	return n, err
}

// timedListener wraps each accepted connection in a timedConn.
type timedListener struct{ net.Listener }

func (l timedListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &timedConn{Conn: c, t: &connTiming{accepted: time.Now()}}, nil
}

// connContext puts the connection's timing in its requests' contexts
// (http.Server.ConnContext).
func connContext(ctx context.Context, c net.Conn) context.Context {
	if tc, ok := c.(*timedConn); ok {
		return context.WithValue(ctx, connTimingKey{}, tc.t)
	}
	return ctx
}

func connTimingOf(ctx context.Context) *connTiming {
	t, _ := ctx.Value(connTimingKey{}).(*connTiming)
	return t
}
