package convert

import (
	"context"
	"errors"
	"io"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// StoreSink loads the statements into a store as one bulk load through
// rdfio.LoadQuads: nothing is visible until Close(ctx, nil) commits, and a
// failed conversion leaves the store unchanged. The load runs in its own
// goroutine; Add hands it batches over a channel, so memory is bounded by
// the batch size plus what the store stages.
type StoreSink struct {
	ch      chan storeBatch
	done    chan struct{}
	batch   []kb.TermQuad
	summary rdfio.LoadSummary
	err     error // set by the loader before done closes
	closed  bool
}

type storeBatch struct {
	quads []kb.TermQuad
	fail  error
}

const storeBatchSize = 4096

// NewStoreSink starts a bulk load into ds. opts.Graph is the target graph
// of statements without one; opts.Progress and opts.CommitProgress work as
// for rdfio.Load.
func NewStoreSink(ctx context.Context, ds kb.Dataset, opts rdfio.LoadOptions) *StoreSink {
	s := &StoreSink{ch: make(chan storeBatch, 4), done: make(chan struct{}), batch: make([]kb.TermQuad, 0, storeBatchSize)}
	var cur []kb.TermQuad
	next := func() (kb.TermQuad, error) {
		for len(cur) == 0 {
			b, ok := <-s.ch
			if !ok {
				return kb.TermQuad{}, io.EOF
			}
			if b.fail != nil {
				return kb.TermQuad{}, b.fail
			}
			cur = b.quads
		}
		q := cur[0]
		cur = cur[1:]
		return q, nil
	}
	go func() {
		defer close(s.done)
		s.summary, s.err = rdfio.LoadQuads(ctx, ds, next, opts)
	}()
	return s
}

// Add stages one statement.
func (s *StoreSink) Add(ctx context.Context, q kb.TermQuad) error {
	s.batch = append(s.batch, q)
	if len(s.batch) < storeBatchSize {
		return nil
	}
	return s.send(ctx, storeBatch{quads: s.batch})
}

func (s *StoreSink) send(ctx context.Context, b storeBatch) error {
	select {
	case s.ch <- b:
		s.batch = make([]kb.TermQuad, 0, storeBatchSize)
		return nil
	case <-s.done:
		if s.err == nil {
			return errors.New("convert: the store load ended early")
		}
		return s.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close commits the load (failed == nil) or aborts it.
func (s *StoreSink) Close(ctx context.Context, failed error) error {
	if s.closed {
		return errors.New("convert: store sink closed twice")
	}
	s.closed = true
	if failed != nil {
		select {
		case s.ch <- storeBatch{fail: failed}:
		case <-s.done:
		}
		<-s.done
		return nil
	}
	if len(s.batch) > 0 {
		if err := s.send(ctx, storeBatch{quads: s.batch}); err != nil {
			<-s.done
			return err
		}
	}
	close(s.ch)
	<-s.done
	return s.err
}

// Summary is the store load's summary, valid after Close.
func (s *StoreSink) Summary() rdfio.LoadSummary { return s.summary }
