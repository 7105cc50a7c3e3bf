package convert

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/perfkb/perfkb/kb"
)

// NTriplesSink writes statements as N-Triples (graphs are dropped). Sorted
// output is written at Close, sorted and without duplicates, so equal
// sources give byte-identical output; it sorts in memory up to 32 MB of
// lines and merges sorted runs from temporary files beyond that, so memory
// stays bounded either way.
type NTriplesSink struct {
	w      *bufio.Writer
	sorted bool
	sorter lineSorter
	line   []byte // the line being formatted, reused

	file *os.File // set by CreateNTriplesFile
	path string
}

// NewNTriplesSink writes to w (e.g. standard output). On failure what was
// already written stays written; use CreateNTriplesFile for files.
func NewNTriplesSink(w io.Writer, sorted bool) *NTriplesSink {
	return &NTriplesSink{w: bufio.NewWriterSize(w, 256<<10), sorted: sorted, sorter: lineSorter{runBytes: defaultRunBytes}}
}

// CreateNTriplesFile writes to a temporary file beside path and renames it
// to path when the conversion succeeds, so a failed conversion leaves no
// file (and an existing file unchanged).
func CreateNTriplesFile(path string, sorted bool) (*NTriplesSink, error) {
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*.tmp")
	if err != nil {
		return nil, err
	}
	s := NewNTriplesSink(f, sorted)
	s.file, s.path = f, path
	return s, nil
}

// Add writes (or, sorted, buffers) one statement.
func (s *NTriplesSink) Add(_ context.Context, q kb.TermQuad) error {
	s.line = appendTriple(s.line[:0], q)
	if s.sorted {
		return s.sorter.add(string(s.line))
	}
	_, err := s.w.Write(s.line)
	return err
}

// Close flushes the output; with failed != nil it discards a file.
func (s *NTriplesSink) Close(_ context.Context, failed error) error {
	if failed != nil {
		s.sorter.discard()
		if s.file != nil {
			s.file.Close()
			return os.Remove(s.file.Name())
		}
		return s.w.Flush()
	}
	if s.sorted {
		if err := s.sorter.writeTo(s.w); err != nil {
			return s.discard(err)
		}
	}
	if err := s.w.Flush(); err != nil {
		return s.discard(err)
	}
	if s.file == nil {
		return nil
	}
	// CreateTemp makes the file private; give it the mode of the file
	// it replaces, or the usual 0644.
	mode := os.FileMode(0o644)
	if fi, err := os.Stat(s.path); err == nil {
		mode = fi.Mode().Perm()
	}
	if err := s.file.Chmod(mode); err != nil {
		return s.discard(err)
	}
	if err := s.file.Close(); err != nil {
		return s.discard(err)
	}
	if err := os.Rename(s.file.Name(), s.path); err != nil {
		return s.discard(fmt.Errorf("writing %s: %w", s.path, err))
	}
	return nil
}

func (s *NTriplesSink) discard(err error) error {
	if s.file != nil {
		s.file.Close()
		return errors.Join(err, os.Remove(s.file.Name()))
	}
	return err
}

// appendTriple appends q as an N-Triples line to b, through the one
// N-Triples term encoder.
func appendTriple(b []byte, q kb.TermQuad) []byte {
	b = kb.AppendTermBytes(b, q.S)
	b = append(b, ' ')
	b = kb.AppendTermBytes(b, q.P)
	b = append(b, ' ')
	b = kb.AppendTermBytes(b, q.O)
	return append(b, " .\n"...)
}
