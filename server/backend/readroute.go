package backend

import (
	"context"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// ReplicaPositions tells a ReadRouter where the primary's WAL is and how
// far the replica has replayed it (kb/pg: WALPosition, ReplayPosition).
type ReplicaPositions interface {
	// PrimaryPosition returns the primary's WAL position now.
	PrimaryPosition(ctx context.Context) (uint64, error)
	// ReplicaPosition returns the replica's replay position, and false
	// when it is no longer a standby (promoted).
	ReplicaPosition(ctx context.Context) (uint64, bool, error)
}

// ReadRouter sends the queries of a QueryEngine to a read replica (a
// PostgreSQL hot standby, `perfkb serve --read-store`) when the replica
// has replayed every write this process knows of, and to the primary
// otherwise. A write is known when this process committed it (Wrote, from
// the store's commit hook) or heard of another process's (Wrote, from the
// store's change notices): after it, a query waits up to Wait for the
// replica to replay the primary's WAL position taken after the write, and
// runs on the primary if the replica has not got there. So every client
// reads its own writes, whichever server of the database took them, and
// the replica takes the reads whenever it keeps up. A replica that cannot
// be asked, or that was promoted (it then has writes of its own that the
// primary lacks), gets no reads until it is a standby that keeps up again;
// the replica is asked again at least every recheck.
type ReadRouter struct {
	Replica   kb.Dataset
	Positions ReplicaPositions
	// Wait bounds how long a query waits for the replica (0: none).
	Wait time.Duration
	// Logger reports the replica's failures and recoveries (nil: none).
	Logger *slog.Logger

	need     atomic.Uint64 // the WAL position the replica must reach
	replayed atomic.Uint64 // the replica's position when last asked
	checked  atomic.Int64  // when the replica last answered as a standby (UnixNano)
	mu       sync.Mutex
	down     bool      // the replica failed or was promoted when last asked
	asked    time.Time // when a down replica was last asked

	toReplica, toPrimary atomic.Int64
}

// readPoll is how often a waiting query asks the replica again.
const readPoll = 5 * time.Millisecond

// recheck is how long the replica is trusted to still be a standby
// without asking: one promoted while the primary lives (it then has
// writes of its own) gets reads for at most this long.
const recheck = time.Second

// downRetry is how often a replica that failed or was promoted is asked
// again; meanwhile queries go to the primary without asking.
const downRetry = time.Second

// Wrote tells r that a write committed: the replica must replay the
// primary's current WAL position before it answers. When the position
// cannot be read, every query goes to the primary until one is read.
func (r *ReadRouter) Wrote() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	pos, err := r.Positions.PrimaryPosition(ctx)
	if err != nil {
		pos = ^uint64(0)
		r.logf("read store: primary's WAL position: %v (reads go to the primary)", err)
	}
	for {
		old := r.need.Load()
		if pos <= old || r.need.CompareAndSwap(old, pos) {
			return
		}
	}
}

// Routed counts the queries sent to the replica and to the primary.
func (r *ReadRouter) Routed() (replica, primary int64) {
	return r.toReplica.Load(), r.toPrimary.Load()
}

// dataset returns the dataset a query should read: the replica when it
// has replayed what r.need says, else primary.
func (r *ReadRouter) dataset(ctx context.Context, primary kb.Dataset) kb.Dataset {
	need := r.need.Load()
	if need != ^uint64(0) && r.replayed.Load() >= need && !r.isDown() && time.Since(time.Unix(0, r.checked.Load())) < recheck {
		r.toReplica.Add(1)
		return r.Replica
	}
	if r.skipDown() {
		r.toPrimary.Add(1)
		return primary
	}
	deadline := time.Now().Add(r.Wait)
	for {
		pos, standby, err := r.Positions.ReplicaPosition(ctx)
		switch {
		case err != nil:
			r.setDown(true, "read store: %v (reads go to the primary)", err)
		case !standby:
			r.setDown(true, "read store: the replica is no longer a standby (promoted?); reads go to the primary")
		default:
			r.setDown(false, "read store: the replica is a standby again; reads go to it when it keeps up")
			r.checked.Store(time.Now().UnixNano())
			for {
				old := r.replayed.Load()
				if pos <= old || r.replayed.CompareAndSwap(old, pos) {
					break
				}
			}
			if need != ^uint64(0) && pos >= need {
				r.toReplica.Add(1)
				return r.Replica
			}
		}
		if err != nil || !standby || time.Now().Add(readPoll).After(deadline) {
			r.toPrimary.Add(1)
			return primary
		}
		select {
		case <-ctx.Done():
			r.toPrimary.Add(1)
			return primary
		case <-time.After(readPoll):
		}
	}
}

// skipDown reports whether the replica is down and was asked less than
// downRetry ago; otherwise it notes that it is being asked now.
func (r *ReadRouter) skipDown() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down && time.Since(r.asked) < downRetry {
		return true
	}
	r.asked = time.Now()
	return false
}

func (r *ReadRouter) isDown() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.down
}

// setDown records the replica's state, logging when it changes.
func (r *ReadRouter) setDown(down bool, format string, args ...any) {
	r.mu.Lock()
	changed := r.down != down
	r.down = down
	r.mu.Unlock()
	if changed {
		r.logf(format, args...)
	}
}

func (r *ReadRouter) logf(format string, args ...any) {
	if r.Logger != nil {
		r.Logger.Warn(fmt.Sprintf(format, args...))
	}
}
