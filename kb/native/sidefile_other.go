//go:build !unix

package native

import "errors"

// mapFile is not supported here: the read side is built from Pebble.
func mapFile(string) ([]byte, error) { return nil, errors.New("native: side files need mmap") }

func (m *sideMapping) unmap() {}

func newSideCleanup(*sideMapping) {}

func keepMapped(*sideMapping, []byte) {}
