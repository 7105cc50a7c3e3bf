package rdfio

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"runtime"
	"slices"
	"strings"
	"sync"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/textpos"
)

// lineChunkSize is the number of bytes of N-Triples or N-Quads that one
// parser goroutine takes at a time (whole lines, so a little more or less).
const lineChunkSize = 1 << 20

// firstChunkSize is the size of the first chunk's buffer; each later chunk
// doubles it up to the chunk size. A server takes many uploads of a few
// lines, and a full-size buffer for each was a third of everything it
// allocated under load (so a third of its garbage collections).
const firstChunkSize = 16 << 10

// lineChunk is a run of whole lines of the input.
type lineChunk struct {
	seq       int
	data      []byte
	firstLine int
	err       error // a read error after the lines before this chunk
}

// chunkResult is a parsed (and perhaps interned) chunk.
type chunkResult struct {
	seq    int
	terms  []kb.Term // S, P, O, G of each statement, when the main goroutine interns
	ids    []kb.Quad // when the worker interned
	graphs []kb.Term // distinct graphs, copied
	err    error
}

// loadLines is Load for N-Triples and N-Quads: one goroutine cuts the input
// into chunks of whole lines, one per core parses them (renaming blank nodes
// and filling in the graph) and, when the dataset allows, interns them; the
// calling goroutine hands the ID quads to bw in input order, so the first
// error in the input is the one reported and a failed load adds nothing.
func loadLines(ctx context.Context, ds kb.Dataset, bw kb.BulkWriter, r io.Reader, opts LoadOptions, graph kb.Term, scope blankScope, sum *LoadSummary) error {
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()

	concurrent := false
	if ci, ok := ds.(kb.ConcurrentInterner); ok && ci.InternsConcurrently() {
		concurrent = true
	}
	internInWorkers := concurrent

	workers := max(1, runtime.GOMAXPROCS(0))
	inFlight := 2*workers + 2
	tokens := make(chan struct{}, inFlight)
	chunks := make(chan lineChunk, inFlight)
	results := make(chan chunkResult, inFlight)
	// free returns ID-quad buffers from the calling goroutine, once bw has
	// taken their quads, to the workers that intern.
	free := make(chan []kb.Quad, inFlight)

	var wg sync.WaitGroup
	defer wg.Wait()
	defer cancel() // runs before wg.Wait: stops the goroutines on an early return

	wg.Add(1)
	go func() {
		defer wg.Done()
		defer close(chunks)
		chunkSize := lineChunkSize
		if opts.chunkSize > 0 {
			chunkSize = opts.chunkSize
		}
		readChunks(ctx, r, chunkSize, tokens, chunks)
	}()
	var workersWG sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		workersWG.Add(1)
		go func() {
			defer wg.Done()
			defer workersWG.Done()
			p := &LineParser{Quads: opts.Format == NQuads, ZeroCopy: concurrent}
			var buf []kb.Term // reused when the worker interns
			for c := range chunks {
				if ctx.Err() != nil {
					return
				}
				var quads []kb.Quad
				select {
				case quads = <-free:
				default:
				}
				res := parseLineChunk(ctx, ds, p, c, graph, scope, internInWorkers, opts.SourceName, buf[:0], quads)
				if internInWorkers {
					buf = res.terms
					res.terms = nil
				}
				select {
				case results <- res:
				case <-ctx.Done():
					return
				}
			}
		}()
	}
	go func() {
		workersWG.Wait()
		close(results)
	}()

	graphs := make(map[kb.Term]struct{})
	var mainQuads []kb.Quad // reused when this goroutine interns
	pending := make(map[int]chunkResult)
	next := 0
	batch := int64(opts.BatchSize)
	var reported int64 // statements handed to Progress
	// hand hands over the quads [0, n) by calling addRange in pieces that
	// end where Progress is due, so that it is called after every
	// BatchSize statements.
	hand := func(n int64, addRange func(lo, hi int64) error) error {
		for lo := int64(0); lo < n; {
			k := min(n-lo, batch-(sum.Triples-reported))
			if err := addRange(lo, lo+k); err != nil {
				return err
			}
			lo += k
			sum.Triples += k
			if sum.Triples-reported == batch {
				reported = sum.Triples
				if opts.Progress != nil {
					opts.Progress(sum.Triples)
				}
			}
		}
		return ctx.Err()
	}
	add := func(ids []kb.Quad) error {
		return hand(int64(len(ids)), func(lo, hi int64) error { return bw.Add(ctx, ids[lo:hi]) })
	}
	// A TermAdder interns in bulk itself: give it the parsed terms.
	termAdder, _ := bw.(kb.TermAdder)
	var termQuads []kb.TermQuad
	addTerms := func(terms []kb.Term) error {
		termQuads = termQuads[:0]
		for i := 0; i+3 < len(terms); i += 4 {
			termQuads = append(termQuads, kb.TermQuad{S: terms[i], P: terms[i+1], O: terms[i+2], G: terms[i+3]})
		}
		return hand(int64(len(termQuads)), func(lo, hi int64) error { return termAdder.AddTerms(ctx, termQuads[lo:hi]) })
	}
	for res := range results {
		pending[res.seq] = res
		for {
			res, ok := pending[next]
			if !ok {
				break
			}
			delete(pending, next)
			next++
			<-tokens
			if res.err != nil {
				return res.err
			}
			if termAdder != nil && !internInWorkers {
				if err := addTerms(res.terms); err != nil {
					return err
				}
				for _, g := range res.graphs {
					graphs[g] = struct{}{}
				}
				continue
			}
			ids := res.ids
			if !internInWorkers {
				var err error
				if ids, err = internTerms(ctx, ds, res.terms, mainQuads); err != nil {
					return err
				}
				mainQuads = ids
			}
			if err := add(ids); err != nil {
				return err
			}
			if internInWorkers {
				select {
				case free <- ids[:0]:
				default:
				}
			}
			for _, g := range res.graphs {
				graphs[g] = struct{}{}
			}
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if len(pending) > 0 {
		return fmt.Errorf("load %s: internal error: %d chunks left unprocessed", sourceName(opts.SourceName), len(pending))
	}
	if sum.Triples > reported && opts.Progress != nil {
		opts.Progress(sum.Triples)
	}
	for g := range graphs {
		sum.GraphNames = append(sum.GraphNames, g)
	}
	sum.Graphs = len(graphs)
	return nil
}

// readChunks cuts r into chunks of whole lines and sends them, numbered, to
// chunks, taking a token for each; a read error goes out as the last chunk.
// Every chunk is a new buffer: parsers keep pointing into it.
func readChunks(ctx context.Context, r io.Reader, chunkSize int, tokens chan struct{}, chunks chan<- lineChunk) {
	var carry []byte // the start of a line the last chunk did not end
	line := 1
	next := min(chunkSize, firstChunkSize)
	for seq := 0; ; seq++ {
		select {
		case tokens <- struct{}{}:
		case <-ctx.Done():
			return
		}
		send := func(c lineChunk) bool {
			c.seq = seq
			select {
			case chunks <- c:
				return true
			case <-ctx.Done():
				return false
			}
		}
		size := next
		next = min(chunkSize, 2*next)
		for size < 2*len(carry) {
			size *= 2
		}
		buf := make([]byte, size)
		n := copy(buf, carry)
		var err error
		end := -1 // index just past the last '\n' in buf[:n]
		for {
			var m int
			m, err = io.ReadFull(r, buf[n:])
			if i := bytes.LastIndexByte(buf[n:n+m], '\n'); i >= 0 {
				end = n + i + 1
			}
			n += m
			if err != nil || end >= 0 {
				break
			}
			// No line end in a full buffer: the line is longer.
			if len(buf) > MaxLine {
				lines := line + bytes.Count(carry, []byte{'\n'})
				send(lineChunk{err: textpos.Errorf(textpos.Position{Line: lines, Column: 1}, "line longer than %d bytes", MaxLine)})
				return
			}
			buf = append(buf[:n], make([]byte, len(buf))...)
			buf = buf[:cap(buf)]
		}
		eof := errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF)
		if err != nil && !eof {
			send(lineChunk{err: err})
			return
		}
		if eof {
			end = n // the last line may lack its '\n'
		}
		data := buf[:end:end]
		carry = buf[end:n]
		if len(data) > 0 {
			if !send(lineChunk{data: data, firstLine: line}) {
				return
			}
			line += bytes.Count(data, []byte{'\n'})
		} else {
			<-tokens // nothing to send after all
			seq--
		}
		if eof {
			return
		}
	}
}

// parseLineChunk parses one chunk, appending its terms to terms, and, when
// intern is set, interns them into quads (a buffer to reuse, or nil).
func parseLineChunk(ctx context.Context, ds kb.Dataset, p *LineParser, c lineChunk, graph kb.Term, scope blankScope, intern bool, src string, terms []kb.Term, quads []kb.Quad) chunkResult {
	res := chunkResult{seq: c.seq, terms: terms}
	if c.err != nil {
		res.err = loadLineError(c.err, src)
		return res
	}
	if terms == nil {
		res.terms = make([]kb.Term, 0, len(c.data)/32+16)
	}
	start := len(res.terms)
	var err error
	res.terms, err = p.ParseChunk(c.data, c.firstLine, res.terms)
	if err != nil {
		res.err = loadLineError(err, src)
		return res
	}
	var lastGraph kb.Term
	seen := make(map[kb.Term]bool)
	for i := start; i < len(res.terms); i += 4 {
		q := (*[4]kb.Term)(res.terms[i:])
		if q[0].Kind == kb.KindBlank {
			q[0] = scope.rename(q[0])
		}
		if q[2].Kind == kb.KindBlank || q[2].Kind == kb.KindTriple {
			q[2] = scope.rename(q[2])
		}
		switch {
		case q[3].IsZero():
			q[3] = graph
		case q[3].Kind == kb.KindBlank:
			q[3] = scope.rename(q[3])
		}
		if g := q[3]; g != lastGraph {
			lastGraph = g
			if !seen[g] {
				if g.Kind == kb.KindIRI && g.Value == kb.DerivationsGraphIRI {
					res.err = fmt.Errorf("load %s: %w", sourceName(src), ErrDerivationRecords)
					return res
				}
				seen[g] = true
				// A copy, so that the summary keeps no chunk alive.
				res.graphs = append(res.graphs, kb.Term{Kind: g.Kind, Value: strings.Clone(g.Value)})
			}
		}
	}
	if !intern {
		return res
	}
	if err := ctx.Err(); err != nil {
		res.err = err
		return res
	}
	res.ids, res.err = internTerms(ctx, ds, res.terms, quads)
	return res
}

// internTerms interns terms, the S, P, O and G of each quad in turn, and
// returns the ID quads, in quads' memory when it is large enough.
func internTerms(ctx context.Context, ds kb.Dataset, terms []kb.Term, quads []kb.Quad) ([]kb.Quad, error) {
	if len(terms) == 0 {
		return nil, nil
	}
	ids, err := ds.Intern(ctx, terms)
	if err != nil {
		return nil, err
	}
	if len(ids) != len(terms) {
		return nil, fmt.Errorf("load: Intern returned %d IDs for %d terms", len(ids), len(terms))
	}
	quads = slices.Grow(quads[:0], len(ids)/4)[:len(ids)/4]
	for i := range quads {
		q := (*[4]kb.ID)(ids[4*i:])
		quads[i] = kb.Quad{S: q[0], P: q[1], O: q[2], G: q[3]}
	}
	return quads, nil
}

// loadLineError gives a parser's error its source name.
func loadLineError(err error, src string) error {
	var se *textpos.Error
	if errors.As(err, &se) {
		return &textpos.Error{Pos: textpos.Position{Source: src, Line: se.Pos.Line, Column: se.Pos.Column}, Msg: se.Msg, Err: se.Err}
	}
	return fmt.Errorf("%s: %w", sourceName(src), err)
}
