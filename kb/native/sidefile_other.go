//go:build !unix

package native

import "errors"

// mapFile is not supported here: the read side is built from Pebble.
func mapFile(string) ([]byte, error) { return nil, errors.New("native: side files need mmap") }

func (m *sideMapping) unmap() {}

// mapPrivate is not supported here: columns are not kept across processes.
func mapPrivate(string) ([]byte, error) { return nil, errors.New("native: kept columns need mmap") }

func newSideCleanup(*sideMapping) {}

func keepMapped(*sideMapping, []byte) {}
