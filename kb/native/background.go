package native

import (
	"fmt"
	"os"
	"sync"
)

// Pebble reports the failures of its background work (flushes and
// compactions) through an event, and retries that work for as long as the
// store is open. On a full disk every retry fails again: logged as it
// came, the same error filled stderr at a line per retry while the command
// waiting on the store never ended. So the log gets the first of them and
// a count, and a command can learn of them (OnBackgroundError) and stop.

var background struct {
	mu       sync.Mutex
	handlers map[int]func(error)
	next     int
	logged   int
}

// maxBackgroundLines is how many background errors are printed before the
// rest are only counted.
const maxBackgroundLines = 3

// OnBackgroundError registers f to be called with every error of any open
// store's background work (a flush or compaction that failed, e.g. for
// want of disk space); the returned function unregisters it. f must not
// block.
func OnBackgroundError(f func(error)) (unregister func()) {
	background.mu.Lock()
	defer background.mu.Unlock()
	if background.handlers == nil {
		background.handlers = map[int]func(error){}
	}
	id := background.next
	background.next++
	background.handlers[id] = f
	return func() {
		background.mu.Lock()
		defer background.mu.Unlock()
		delete(background.handlers, id)
	}
}

// backgroundError is Pebble's BackgroundError event.
func backgroundError(err error) {
	background.mu.Lock()
	background.logged++
	n := background.logged
	handlers := make([]func(error), 0, len(background.handlers))
	for _, f := range background.handlers {
		handlers = append(handlers, f)
	}
	background.mu.Unlock()
	switch {
	case n <= maxBackgroundLines:
		fmt.Fprintf(os.Stderr, "native: pebble: background error: %v\n", err)
	case n == maxBackgroundLines+1:
		fmt.Fprintf(os.Stderr, "native: pebble: background errors continue; further ones are not printed\n")
	}
	for _, f := range handlers {
		f(err)
	}
}
