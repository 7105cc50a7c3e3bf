package pg

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
)

// WALPosition returns the primary's current WAL write position: a write
// that committed before the call is at or below it.
func (s *Store) WALPosition(ctx context.Context) (uint64, error) {
	var lsn string
	if err := s.pool.QueryRow(ctx, "SELECT pg_current_wal_lsn()::text").Scan(&lsn); err != nil {
		return 0, fmt.Errorf("pg: WAL position: %w", err)
	}
	return parseLSN(lsn)
}

// ReplayPosition returns how far a hot standby has replayed the primary's
// WAL, and whether the server is still a standby (false once promoted,
// when the position means nothing).
func (s *Store) ReplayPosition(ctx context.Context) (pos uint64, standby bool, err error) {
	var lsn *string
	if err := s.pool.QueryRow(ctx, "SELECT pg_last_wal_replay_lsn()::text, pg_is_in_recovery()").Scan(&lsn, &standby); err != nil {
		return 0, false, fmt.Errorf("pg: replay position: %w", err)
	}
	if !standby || lsn == nil {
		return 0, false, nil
	}
	pos, err = parseLSN(*lsn)
	return pos, true, err
}

// parseLSN reads PostgreSQL's text form of a WAL position, "HI/LO" in hex.
func parseLSN(s string) (uint64, error) {
	hi, lo, ok := strings.Cut(s, "/")
	h, err1 := strconv.ParseUint(hi, 16, 32)
	l, err2 := strconv.ParseUint(lo, 16, 32)
	if !ok || err1 != nil || err2 != nil {
		return 0, fmt.Errorf("pg: WAL position %q: want HI/LO in hex", s)
	}
	return h<<32 | l, nil
}

// OnCommit makes f run after each write this Store commits (Apply, a bulk
// load's commit): a read replica's router learns from it that the
// replica must catch up before it answers this process's reads.
func (s *Store) OnCommit(f func()) {
	s.commitMu.Lock()
	s.onCommit = f
	s.commitMu.Unlock()
}

// committed runs the OnCommit callback.
func (s *Store) committed() {
	s.commitMu.Lock()
	f := s.onCommit
	s.commitMu.Unlock()
	if f != nil {
		f()
	}
}

// commitHook is the Store's OnCommit state.
type commitHook struct {
	commitMu sync.Mutex
	onCommit func()
}
