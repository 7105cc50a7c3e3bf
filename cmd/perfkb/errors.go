package main

import (
	"errors"
	"fmt"
	"io"
	"syscall"

	"github.com/perfkb/perfkb/textpos"
)

// printError writes a command's error to stderr. Errors in the user's
// input (*textpos.Error, from every parser: queries, rule files, RDF
// documents) print as a compiler's do, one per line, FILE:LINE:COLUMN:
// message, so editors can jump to them; any other error prints as
// "perfkb: message".
func printError(w io.Writer, err error) {
	if errs := textpos.All(err); len(errs) > 0 {
		for _, e := range errs {
			fmt.Fprintln(w, e)
		}
		var h *hintedError
		if errors.As(err, &h) {
			fmt.Fprintf(w, "perfkb: %s\n", h.hint)
		}
		return
	}
	fmt.Fprintf(w, "perfkb: %v\n", err)
	if errors.Is(err, syscall.ENOSPC) && !errors.Is(err, errStorage) {
		fmt.Fprintln(w, "perfkb: the disk is full: free space and run the command again (what was acknowledged before is kept)")
	}
}

// hintedError is an error with a line of advice, printed after the error
// (also after positioned errors, which otherwise print alone).
type hintedError struct {
	err  error
	hint string
}

func (h *hintedError) Error() string { return h.err.Error() + "\n" + h.hint }
func (h *hintedError) Unwrap() error { return h.err }
