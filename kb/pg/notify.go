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

// standbyPoll is how often Changes asks a hot standby how far it has
// replayed.
const standbyPoll = 200 * time.Millisecond

// Changes implements kb.ChangeNotifier: it listens on a connection of its
// own (taken out of the pool) and sends a Change for each write another
// Store commits to this schema. When the connection is lost it connects
// again, with a growing pause up to listenBackoffMax, and then sends a
// Change with Resync set, since notices sent meanwhile are lost.
//
// A hot standby takes no LISTEN, and the primary's notices are not
// replayed to it; there Changes asks every standbyPoll how far the
// standby has replayed the primary's WAL and sends a Change whenever that
// moved (any write on the primary, to this schema or not), until the
// standby is promoted, when it listens (and sends a Resync).
func (s *Store) Changes(ctx context.Context) (<-chan kb.Change, error) {
	conn, err := s.listen(ctx)
	var standby bool
	var replayed uint64
	if err != nil {
		pos, sb, rerr := s.ReplayPosition(ctx)
		if rerr != nil || !sb {
			return nil, err
		}
		standby, replayed = true, pos
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
		wait := func(d time.Duration) bool {
			select {
			case <-ctx.Done():
				return false
			case <-time.After(d):
				return !s.closed.Load()
			}
		}
		pause, lost := 100*time.Millisecond, false
		for {
			switch {
			case conn != nil:
				n, err := conn.WaitForNotification(ctx)
				if err == nil {
					schema, token, _ := strings.Cut(n.Payload, " ")
					if schema == s.schema && token != s.token && !send(kb.Change{}) {
						return
					}
					continue
				}
				_ = conn.Close(context.Background())
				conn, pause, lost = nil, 100*time.Millisecond, true
			case standby:
				if !wait(standbyPoll) {
					return
				}
				pos, sb, err := s.ReplayPosition(ctx)
				switch {
				case err != nil: // the standby is away: ask again
				case sb && pos != replayed:
					replayed = pos
					if !send(kb.Change{}) {
						return
					}
				case !sb: // promoted: listen from now on
					standby, lost, pause = false, true, 100*time.Millisecond
				}
			default:
				if !wait(pause) {
					return
				}
				pause = min(2*pause, listenBackoffMax)
				if conn, _ = s.listen(ctx); conn == nil {
					if pos, sb, err := s.ReplayPosition(ctx); err == nil && sb {
						standby, replayed, lost = true, pos, true
					} else {
						continue
					}
				}
				if lost && !send(kb.Change{Resync: true}) {
					return
				}
				lost = false
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
