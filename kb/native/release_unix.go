//go:build unix

package native

import (
	"runtime"
	"syscall"
)

// ReleaseMapped gives back this process's resident pages of the mapped
// side files (the sorted orders and the dictionary) and returns how many
// bytes of mappings it advised. The pages stay in the kernel's page
// cache: the next read of one maps it again with a minor fault, no disk
// read, so calling it when a server goes idle bounds the process's
// resident memory by the working set of its busy periods instead of
// every page a query ever touched. The mappings are shared and read-only,
// so a concurrent reader sees the same bytes either way.
func (s *Store) ReleaseMapped() int64 {
	if s.closed.Load() {
		return 0
	}
	var n int64
	advise := func(b []byte) {
		if len(b) > 0 && syscall.Madvise(b, syscall.MADV_DONTNEED) == nil {
			n += int64(len(b))
		}
	}
	// Holding the snapshot keeps its mapping from being unmapped (and the
	// address range reused) while it is advised.
	snap := s.mem.Load()
	if snap != nil && snap.pin != nil {
		for _, b := range snap.pin.maps[:numOrders] {
			advise(b)
		}
	}
	if s.side != nil && s.side.pin != nil {
		// The dictionary's mapping lives as long as the process.
		advise(s.side.pin.maps[sideDictFile])
	}
	runtime.KeepAlive(snap)
	n += releaseDerivedMapped()
	return n
}
