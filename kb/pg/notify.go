package pg

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/perfkb/perfkb/kb"
)

// Several perfkb processes may serve one database (stateless servers
// behind a load balancer). Each write transaction sends a NOTIFY on
// changesChannel in the statement that takes the write lock, so that
// PostgreSQL delivers it when, and only when, the write commits; its
// payload is the store's schema and the writing Store's token, so that a
// listener ignores other schemas and its own writes (which its process
// already knows of).

// changesChannel is the LISTEN/NOTIFY channel of perfkb's writes.
const changesChannel = "perfkb_changes"

// lockAndNotify is the first statement of every write transaction: the
// write lock, and the notice the commit delivers.
const lockAndNotify = "SELECT pg_advisory_xact_lock($1), pg_notify($2, $3)"

// listenBackoffMax bounds the wait between attempts to listen again after
// the listening connection was lost.
const listenBackoffMax = 5 * time.Second

// newToken returns a random token naming one Store in notices.
func newToken() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// notice is the payload of this Store's notices.
func (s *Store) notice() string { return s.schema + " " + s.token }

// Changes implements kb.ChangeNotifier: it listens on a connection of its
// own (taken out of the pool) and sends a Change for each write another
// Store commits to this schema. When the connection is lost it connects
// again, with a growing pause up to listenBackoffMax, and then sends a
// Change with Resync set, since notices sent meanwhile are lost.
func (s *Store) Changes(ctx context.Context) (<-chan kb.Change, error) {
	conn, err := s.listen(ctx)
	if err != nil {
		return nil, err
	}
	ch := make(chan kb.Change)
	go func() {
		defer close(ch)
		defer func() {
			if conn != nil {
				_ = conn.Close(context.Background())
			}
		}()
		send := func(c kb.Change) bool {
			select {
			case ch <- c:
				return true
			case <-ctx.Done():
				return false
			}
		}
		for {
			n, err := conn.WaitForNotification(ctx)
			if err == nil {
				schema, token, _ := strings.Cut(n.Payload, " ")
				if schema == s.schema && token != s.token && !send(kb.Change{}) {
					return
				}
				continue
			}
			_ = conn.Close(context.Background())
			conn = nil
			for pause := 100 * time.Millisecond; conn == nil; pause = min(2*pause, listenBackoffMax) {
				select {
				case <-ctx.Done():
					return
				case <-time.After(pause):
				}
				if s.closed.Load() {
					return
				}
				conn, _ = s.listen(ctx)
			}
			if !send(kb.Change{Resync: true}) {
				return
			}
		}
	}()
	return ch, nil
}

// listen takes a connection out of the pool and listens on it.
func (s *Store) listen(ctx context.Context) (*pgx.Conn, error) {
	if s.closed.Load() {
		return nil, kb.ErrClosed
	}
	c, err := s.pool.Acquire(ctx)
	if err != nil {
		return nil, fmt.Errorf("pg: listen for changes: %w", err)
	}
	conn := c.Hijack()
	if _, err := conn.Exec(ctx, "LISTEN "+changesChannel); err != nil {
		_ = conn.Close(context.Background())
		return nil, fmt.Errorf("pg: listen for changes: %w", err)
	}
	return conn, nil
}

var _ kb.ChangeNotifier = (*Store)(nil)
