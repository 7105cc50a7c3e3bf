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
		return
	}
	fmt.Fprintf(w, "perfkb: %v\n", err)
	if errors.Is(err, syscall.ENOSPC) && !errors.Is(err, errStorage) {
		fmt.Fprintln(w, "perfkb: the disk is full: free space and run the command again (what was acknowledged before is kept)")
	}
}
