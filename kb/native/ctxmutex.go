package native

import (
	"context"
	"sync"
)

// ctxMutex is a mutex whose Lock can give up when a context ends, so a
// write waiting for the writer lock behind a long commit or bulk load
// honours its caller's deadline. The zero value is unlocked.
type ctxMutex struct {
	once sync.Once
	ch   chan struct{} // holds one token while locked
}

func (m *ctxMutex) sem() chan struct{} {
	m.once.Do(func() { m.ch = make(chan struct{}, 1) })
	return m.ch
}

// Lock locks m, waiting as long as it takes.
func (m *ctxMutex) Lock() { m.sem() <- struct{}{} }

// LockCtx locks m, or returns ctx's error when ctx ends first (m is then
// not locked).
func (m *ctxMutex) LockCtx(ctx context.Context) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	select {
	case m.sem() <- struct{}{}:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Unlock unlocks m; unlocking an unlocked m is a programming error.
func (m *ctxMutex) Unlock() {
	select {
	case <-m.sem():
	default:
		panic("native: unlock of unlocked ctxMutex")
	}
}
