package reasoner

// mappedReleaser is a store whose read side is mapped from files and can
// give its resident pages back (kb/native.Store).
type mappedReleaser interface {
	ReleaseMapped() int64
}

// ReleaseMapped passes the store's ReleaseMapped through, so that a
// server reasoning on write (`perfkb serve --rules`) gives its mapped
// store pages back when idle as a plain server does
// (server/backend.QueryEngine.ReleaseWhenIdle); 0 when the store maps
// nothing.
func (l *Live) ReleaseMapped() int64 {
	if r, ok := l.Dataset.(mappedReleaser); ok {
		return r.ReleaseMapped()
	}
	return 0
}
