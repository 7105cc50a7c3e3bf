package kb

import "context"

// ChangeNotifier is a store that several processes write (PostgreSQL): it
// tells a process of the writes the others commit, so that what the
// process keeps about the data (cached views, findings streams) follows
// them. Stores only one process writes do not implement it.
type ChangeNotifier interface {
	// Changes sends a Change for each write another process commits,
	// until ctx ends, when it closes the channel. Notices are best
	// effort in count (several writes may arrive as one), never in
	// presence: after a write commits, a Change follows.
	Changes(ctx context.Context) (<-chan Change, error)
}

// Change is a notice that the store changed.
type Change struct {
	// Resync says that notices may have been missed (the store's
	// connection was lost and made again): whatever was kept about the
	// data should be read again.
	Resync bool
}
