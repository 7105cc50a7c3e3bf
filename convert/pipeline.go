package convert

import (
	"context"
	"errors"

	"github.com/perfkb/perfkb/kb"
)

// Pipelined returns a sink that hands statements in batches to a goroutine
// writing them to s, so that a converter reading its source (parsing,
// database round trips) and the formatting and writing of the output run
// at the same time. Memory is bounded by a few batches. Close waits for
// the goroutine and then closes s with the same outcome.
func Pipelined(s Sink) Sink {
	p := &pipelined{inner: s, ch: make(chan []kb.TermQuad, 4), free: make(chan []kb.TermQuad, 6), done: make(chan struct{}), batch: make([]kb.TermQuad, 0, pipelineBatch)}
	go p.run()
	return p
}

const pipelineBatch = 2048

type pipelined struct {
	inner  Sink
	ch     chan []kb.TermQuad
	free   chan []kb.TermQuad // written batches, for reuse
	done   chan struct{}
	batch  []kb.TermQuad
	err    error // the inner sink's Add error, set before done closes
	closed bool
}

func (p *pipelined) run() {
	defer close(p.done)
	// The writer uses a background context: the converter's context ends
	// the conversion through Add and Close, which stop feeding it.
	ctx := context.Background()
	for batch := range p.ch {
		for _, q := range batch {
			if err := p.inner.Add(ctx, q); err != nil {
				p.err = err
				for range p.ch { // let the producer finish; Add reports err
				}
				return
			}
		}
		clear(batch) // drop the terms' strings before the batch waits for reuse
		select {
		case p.free <- batch[:0]:
		default:
		}
	}
}

// Add queues q.
func (p *pipelined) Add(ctx context.Context, q kb.TermQuad) error {
	p.batch = append(p.batch, q)
	if len(p.batch) < pipelineBatch {
		return nil
	}
	return p.flush(ctx)
}

func (p *pipelined) flush(ctx context.Context) error {
	if len(p.batch) == 0 {
		return nil
	}
	select {
	case p.ch <- p.batch:
		select {
		case p.batch = <-p.free:
		default:
			p.batch = make([]kb.TermQuad, 0, pipelineBatch)
		}
		return nil
	case <-p.done:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	}
}

// Close writes what is queued (failed == nil) and closes the inner sink
// with the outcome; a failure of the inner sink's Add makes it discard.
func (p *pipelined) Close(ctx context.Context, failed error) error {
	if p.closed {
		return errors.New("convert: pipelined sink closed twice")
	}
	p.closed = true
	var own error // this sink's failure to write, reported to the caller
	if failed == nil {
		own = p.flush(ctx)
	}
	close(p.ch)
	<-p.done
	if own == nil && failed == nil {
		own = p.err
	}
	outcome := failed
	if outcome == nil {
		outcome = own
	}
	if err := p.inner.Close(ctx, outcome); err != nil {
		return errors.Join(own, err)
	}
	return own
}
