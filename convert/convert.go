package convert

import (
	"context"
	"fmt"

	"github.com/perfkb/perfkb/kb"
)

// Converter reads one source (a database, a file, a stream) and emits its
// triples to a Sink. A Converter is configured when it is built (source,
// Base, options) and used once: Convert may be called again only when the
// converter says so.
type Converter interface {
	// Convert emits every triple of the source to sink and returns what it
	// did. It does not Close the sink; Run does. An error about the source
	// is a *Error (InvalidInput); the Report is valid up to the failure.
	Convert(ctx context.Context, sink Sink) (Report, error)
}

// ConverterFunc adapts a function to Converter.
type ConverterFunc func(ctx context.Context, sink Sink) (Report, error)

// Convert calls f.
func (f ConverterFunc) Convert(ctx context.Context, sink Sink) (Report, error) { return f(ctx, sink) }

// Sink receives the triples of one conversion. Quads whose G is zero go to
// the sink's target graph (N-Triples sinks ignore G). Sinks are not safe for
// concurrent use: a converter emits from one goroutine.
type Sink interface {
	// Add receives one statement. An error stops the conversion.
	Add(ctx context.Context, q kb.TermQuad) error
	// Close ends the output. With failed == nil it commits: the store
	// bulk load commits, the file is renamed into place, the push request
	// completes. With failed != nil the conversion failed and the sink
	// discards what it received (store and remote graph unchanged, no
	// output file); Close then returns only its own failure to clean up.
	Close(ctx context.Context, failed error) error
}

// Run converts c into sink and closes the sink, committing on success and
// discarding on failure, so the target is either fully written or
// unchanged. It returns the converter's report.
func Run(ctx context.Context, c Converter, sink Sink) (Report, error) {
	rep, err := c.Convert(ctx, sink)
	if err == nil {
		err = ctx.Err()
	}
	if err != nil {
		if cerr := sink.Close(ctx, err); cerr != nil {
			return rep, fmt.Errorf("%w (and discarding the output failed: %v)", err, cerr)
		}
		return rep, err
	}
	if err := sink.Close(ctx, nil); err != nil {
		return rep, err
	}
	return rep, nil
}

// CountingSink forwards to another sink and counts the statements, for
// progress displays and for checking a Report.
type CountingSink struct {
	Sink
	// N is the number of statements forwarded so far.
	N int64
	// OnAdd, when set, is called after each forwarded statement with N.
	OnAdd func(n int64)
}

// Add forwards q and counts it.
func (c *CountingSink) Add(ctx context.Context, q kb.TermQuad) error {
	if err := c.Sink.Add(ctx, q); err != nil {
		return err
	}
	c.N++
	if c.OnAdd != nil {
		c.OnAdd(c.N)
	}
	return nil
}
