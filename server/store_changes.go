package server

import (
	"context"

	"github.com/perfkb/perfkb/kb"
)

// WatchStore follows the writes other processes commit to a store that
// several serve (kb.ChangeNotifier: PostgreSQL), until ctx ends: each one
// moves the write generation on, so that no view cached before it is
// served after it (Server.CacheViews), and makes the findings streams look
// at once (FindingsChanged) instead of at their next poll.
func (s *Server) WatchStore(ctx context.Context, n kb.ChangeNotifier) error {
	ch, err := n.Changes(ctx)
	if err != nil {
		return err
	}
	go func() {
		for range ch {
			s.writeGen.begin()
			s.writeGen.end()
			s.FindingsChanged()
		}
	}()
	return nil
}
