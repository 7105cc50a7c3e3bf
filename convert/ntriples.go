package convert

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

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

// appendTriple appends q as an N-Triples line to b. Terms that need no
// escaping (nearly all converted IRIs and numbers) are copied as they
// are; others go through kb's escaping.
func appendTriple(b []byte, q kb.TermQuad) []byte {
	b = appendTerm(b, q.S)
	b = append(b, ' ')
	b = appendTerm(b, q.P)
	b = append(b, ' ')
	b = appendTerm(b, q.O)
	return append(b, " .\n"...)
}

func appendTerm(b []byte, t kb.Term) []byte {
	switch {
	case t.Kind == kb.KindIRI && plainIRI(t.Value):
		b = append(b, '<')
		b = append(b, t.Value...)
		return append(b, '>')
	case t.Kind == kb.KindLiteral && t.Lang == "" && plainString(t.Value) && plainIRI(t.Datatype):
		b = append(b, '"')
		b = append(b, t.Value...)
		b = append(b, '"')
		if t.Datatype != "" && t.Datatype != kb.XSDString {
			b = append(b, "^^<"...)
			b = append(b, t.Datatype...)
			b = append(b, '>')
		}
		return b
	default:
		var sb strings.Builder
		t.AppendNTriples(&sb)
		return append(b, sb.String()...)
	}
}

// plainIRI reports whether an IRI needs no escaping in N-Triples.
func plainIRI(s string) bool {
	for i := 0; i < len(s); i++ {
		if !iriSafe[s[i]] {
			return false
		}
	}
	return true
}

// plainString reports whether a literal's lexical form needs no escaping.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if !stringSafe[s[i]] {
			return false
		}
	}
	return true
}

// iriSafe and stringSafe mark the ASCII bytes written as they are inside
// <…> and "…" (non-ASCII bytes take the slow path).
var iriSafe, stringSafe = func() (iri, str [256]bool) {
	for c := 0x21; c < 0x7f; c++ {
		iri[c] = !strings.ContainsRune(`<>"{}|^`+"`"+`\`, rune(c))
	}
	for c := 0x20; c < 0x7f; c++ {
		str[c] = c != '"' && c != '\\'
	}
	return
}()
