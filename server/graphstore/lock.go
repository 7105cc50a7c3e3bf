package graphstore

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"

	"golang.org/x/sync/semaphore"
)

// writeLock is a readers–writer lock whose acquisition gives up when the
// request's context ends, so one slow write can make others wait at most
// their own time limit, never forever. Waiters are served in arrival order
// (a waiting writer holds back later readers).
type writeLock struct{ sem *semaphore.Weighted }

const writeLockWeight = 1 << 30

func newWriteLock() *writeLock { return &writeLock{sem: semaphore.NewWeighted(writeLockWeight)} }

func (l *writeLock) lock(ctx context.Context) error {
	if err := l.sem.Acquire(ctx, writeLockWeight); err != nil {
		return fmt.Errorf("waiting for other writes to finish: %w", err)
	}
	return nil
}

func (l *writeLock) unlock() { l.sem.Release(writeLockWeight) }

func (l *writeLock) rlock(ctx context.Context) error {
	if err := l.sem.Acquire(ctx, 1); err != nil {
		return fmt.Errorf("waiting for a replace or drop to finish: %w", err)
	}
	return nil
}

func (l *writeLock) runlock() { l.sem.Release(1) }

// spoolLimit is the largest upload kept in memory while it is received;
// larger ones go to a temporary file.
const spoolLimit = 4 << 20

// spool receives a whole upload before any lock is taken, so a client that
// sends slowly holds nothing but its own connection. It returns a reader
// over the upload and a function that releases it.
func spool(r io.Reader) (io.Reader, func(), error) {
	head := make([]byte, 0, 64<<10)
	buf := &limitedBuffer{b: head, max: spoolLimit}
	if _, err := io.Copy(buf, r); err == nil {
		return bytes.NewReader(buf.b), func() {}, nil
	} else if err != errSpoolFull {
		return nil, nil, err
	}
	f, err := os.CreateTemp("", "perfkb-upload-*")
	if err != nil {
		return nil, nil, err
	}
	release := func() { f.Close(); os.Remove(f.Name()) }
	if _, err := f.Write(buf.b); err != nil {
		release()
		return nil, nil, err
	}
	if _, err := io.Copy(f, r); err != nil {
		release()
		return nil, nil, err
	}
	if _, err := f.Seek(0, io.SeekStart); err != nil {
		release()
		return nil, nil, err
	}
	return f, release, nil
}

var errSpoolFull = fmt.Errorf("spool buffer full")

type limitedBuffer struct {
	b   []byte
	max int
}

// Write keeps every byte it is given (so nothing read is lost when it
// reports errSpoolFull) and says when the buffer has passed its size.
func (l *limitedBuffer) Write(p []byte) (int, error) {
	l.b = append(l.b, p...)
	if len(l.b) > l.max {
		return len(p), errSpoolFull
	}
	return len(p), nil
}
