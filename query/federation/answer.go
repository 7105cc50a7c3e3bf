package federation

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/perfkb/perfkb/query/results"
)

// A site's answer is read row by row by query/results, not decoded whole
// into a document tree: each row is charged to the query's memory budget
// before it is kept, so an answer larger than the budget fails with the
// budget's *LimitError after about the budget's worth of rows, and the
// call's context is checked as rows arrive, so decoding stops with the
// request even when the rest of the answer is already buffered.

// readAnswer reads a SPARQL results document by its media type, sniffing
// the first byte when the type is missing or generic.
func readAnswer(ctx context.Context, contentType string, r io.Reader, opts results.ReadOptions) (*results.ResultSet, error) {
	var format results.Format
	if spec, ok := results.ByMediaType(contentType); ok {
		format = spec.Format
	}
	opts.Context = ctx
	rs, err := results.Read(r, format, opts)
	if errors.Is(err, results.ErrEmptyDocument) {
		return nil, fmt.Errorf("empty answer (Content-Type %q)", contentType)
	}
	return rs, err
}
