//go:build !unix

package native

// ReleaseMapped does nothing where side files are not mapped.
func (s *Store) ReleaseMapped() int64 { return 0 }
