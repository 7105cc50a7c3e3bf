package scalea

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strconv"

	"github.com/jackc/pgx/v5/pgconn"
)

// The large tables (region summaries, processing units and the three
// metric tables: nearly all rows of a repository) are read with
// COPY (query) TO STDOUT rather than through cursors. COPY streams: the
// server computes and sends rows while the converter maps earlier ones,
// with no round trip per batch and no per-column scanning through
// database/sql. Each of these queries runs on its own connection in the
// snapshot of the main transaction (pg_export_snapshot), so they are all
// started at once and PostgreSQL sorts and joins them while the converter
// works through the smaller tables; every table still sees the same
// consistent snapshot.
//
// github.com/lib/pq, which reads the other tables, cannot COPY TO; the
// streams use github.com/jackc/pgx's low-level pgconn.

const (
	// copyChunk is the size of the blocks a stream hands over; copyChunks
	// bounds the blocks in flight per stream, so a stream holds at most
	// about copyChunks×copyChunk bytes however large its table.
	copyChunk  = 256 << 10
	copyChunks = 6
)

// copyStream is one COPY (query) TO STDOUT running in a goroutine on its
// own connection; the converter reads its rows with next.
type copyStream struct {
	query  string
	chunks chan []byte
	free   chan []byte
	done   chan struct{}
	err    error // the COPY's outcome, set before done closes
	cancel context.CancelFunc

	cur  []byte // the chunk being read
	rest []byte // an incomplete row carried over to the next chunk
	row  []byte
	cols [][]byte
}

// startCopy opens a connection, joins the snapshot and starts streaming
// query; settings are SET LOCAL statements run first.
func startCopy(ctx context.Context, dsn, snapshot string, settings []string, query string) (*copyStream, error) {
	ctx, cancel := context.WithCancel(ctx)
	conn, err := pgconn.Connect(ctx, dsn)
	if err != nil {
		cancel()
		return nil, err
	}
	begin := "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SET TRANSACTION SNAPSHOT '" + snapshot + "'"
	for _, s := range settings {
		begin += "; " + s
	}
	if _, err := conn.Exec(ctx, begin).ReadAll(); err != nil {
		conn.Close(context.Background())
		cancel()
		return nil, err
	}
	s := &copyStream{query: query, chunks: make(chan []byte, copyChunks), free: make(chan []byte, copyChunks+2), done: make(chan struct{}), cancel: cancel}
	go func() {
		defer close(s.done)
		defer conn.Close(context.Background())
		w := &chunkWriter{ctx: ctx, s: s, buf: make([]byte, 0, copyChunk)}
		_, err := conn.CopyTo(ctx, w, "COPY ("+query+") TO STDOUT")
		if err == nil {
			err = w.flush()
		}
		if err == nil {
			_, err = conn.Exec(ctx, "COMMIT").ReadAll()
		}
		s.err = err
		close(s.chunks)
	}()
	return s, nil
}

// chunkWriter collects COPY data messages (one row each) into chunks.
type chunkWriter struct {
	ctx context.Context
	s   *copyStream
	buf []byte
}

func (w *chunkWriter) Write(p []byte) (int, error) {
	if len(w.buf)+len(p) > copyChunk && len(w.buf) > 0 {
		if err := w.flush(); err != nil {
			return 0, err
		}
	}
	w.buf = append(w.buf, p...)
	return len(p), nil
}

func (w *chunkWriter) flush() error {
	if len(w.buf) == 0 {
		return nil
	}
	select {
	case w.s.chunks <- w.buf:
	case <-w.ctx.Done():
		return w.ctx.Err()
	}
	select {
	case b := <-w.s.free:
		w.buf = b[:0]
	default:
		w.buf = make([]byte, 0, copyChunk)
	}
	return nil
}

// next returns the columns of the next row, valid until the following
// call (decode copies what it keeps); ok is false at the end, err says
// whether the COPY failed.
func (s *copyStream) next() (cols [][]byte, ok bool, err error) {
	for {
		if i := bytes.IndexByte(s.cur, '\n'); i >= 0 {
			line := s.cur[:i]
			s.cur = s.cur[i+1:]
			if len(s.rest) > 0 {
				s.rest = append(s.rest, line...)
				line, s.rest = s.rest, s.rest[:0]
			}
			s.cols = s.cols[:0]
			for {
				j := bytes.IndexByte(line, '\t')
				if j < 0 {
					s.cols = append(s.cols, line)
					break
				}
				s.cols = append(s.cols, line[:j])
				line = line[j+1:]
			}
			return s.cols, true, nil
		}
		if len(s.cur) > 0 {
			// COPY sends whole rows per message, so this does not happen;
			// should a server split a row, it is put back together.
			s.rest = append(s.rest, s.cur...)
		}
		if s.row != nil {
			select {
			case s.free <- s.row:
			default:
			}
			s.row = nil
		}
		b, more := <-s.chunks
		if !more {
			<-s.done
			if s.err != nil {
				return nil, false, s.err
			}
			if len(s.rest) > 0 {
				return nil, false, errors.New("COPY data ends inside a row")
			}
			return nil, false, nil
		}
		s.row, s.cur = b, b
	}
}

// close stops the stream (if it is still running) and waits for it.
func (s *copyStream) close() {
	s.cancel()
	for range s.chunks {
	}
	<-s.done
}

// COPY text format columns: \N is NULL; backslash escapes otherwise.

var nullColumn = []byte(`\N`)

func isNull(c []byte) bool { return bytes.Equal(c, nullColumn) }

// text decodes a text column.
func text(c []byte) string {
	if bytes.IndexByte(c, '\\') < 0 {
		return string(c)
	}
	b := make([]byte, 0, len(c))
	for i := 0; i < len(c); i++ {
		if c[i] != '\\' || i+1 == len(c) {
			b = append(b, c[i])
			continue
		}
		i++
		switch ch := c[i]; ch {
		case 'b':
			b = append(b, '\b')
		case 'f':
			b = append(b, '\f')
		case 'n':
			b = append(b, '\n')
		case 'r':
			b = append(b, '\r')
		case 't':
			b = append(b, '\t')
		case 'v':
			b = append(b, '\v')
		case 'x':
			v, n := 0, 0
			for n < 2 && i+1 < len(c) && isHex(c[i+1]) {
				i++
				v = v*16 + hexVal(c[i])
				n++
			}
			if n == 0 {
				b = append(b, 'x')
			} else {
				b = append(b, byte(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			v := int(ch - '0')
			for n := 1; n < 3 && i+1 < len(c) && c[i+1] >= '0' && c[i+1] <= '7'; n++ {
				i++
				v = v*8 + int(c[i]-'0')
			}
			b = append(b, byte(v))
		default:
			b = append(b, ch)
		}
	}
	return string(b)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

func hexVal(c byte) int {
	switch {
	case c >= 'a':
		return int(c-'a') + 10
	case c >= 'A':
		return int(c-'A') + 10
	}
	return int(c - '0')
}

// int64Col parses an integer column; valid is false for NULL.
func int64Col(c []byte) (v int64, valid bool, err error) {
	if isNull(c) {
		return 0, false, nil
	}
	neg := false
	d := c
	if len(d) > 0 && d[0] == '-' {
		neg, d = true, d[1:]
	}
	if len(d) == 0 || len(d) > 18 {
		v, err := strconv.ParseInt(string(c), 10, 64)
		return v, err == nil, err
	}
	for _, ch := range d {
		if ch < '0' || ch > '9' {
			return 0, false, fmt.Errorf("COPY: %q is not an integer", c)
		}
		v = v*10 + int64(ch-'0')
	}
	if neg {
		v = -v
	}
	return v, true, nil
}

// boolCol parses a boolean column (t/f).
func boolCol(c []byte) bool { return len(c) == 1 && c[0] == 't' }

// sessionSettings are run in every transaction of a conversion: the
// metric tables are sorted by summary, so the sorts get memory (this
// session only) and do not spill to disk, and JIT compilation, which
// costs more than it saves here, is off.
var sessionSettings = []string{"SET LOCAL work_mem = '256MB'", "SET LOCAL jit = off"}

// metricTables are the three metric tables with their IRI segments, in
// the order they are converted.
var metricTables = []struct{ table, segment string }{
	{"TimingMetrics", "timing"}, {"HardwareMetrics", "hardware"}, {"TemporalOverheadMetrics", "overhead"},
}

// startStreams exports the main transaction's snapshot and starts the
// COPY streams of the large tables in it.
func (r *run) startStreams(ctx context.Context) error {
	var snapshot string
	if err := r.tx.QueryRowContext(ctx, "SELECT pg_export_snapshot()").Scan(&snapshot); err != nil {
		return fmt.Errorf("scalea: %s: exporting the snapshot: %w", r.source, err)
	}
	queries := []struct{ table, query string }{
		{"ProcessingUnit", r.puQuery()},
		{"RegionSummary", r.summaryQuery()},
	}
	for _, m := range metricTables {
		queries = append(queries, struct{ table, query string }{m.table, r.metricQuery(m.table)})
	}
	r.streams = map[string]*copyStream{}
	for _, q := range queries {
		s, err := startCopy(ctx, r.opt.DSN, snapshot, sessionSettings, q.query)
		if err != nil {
			return fmt.Errorf("scalea: %s: starting to read table %s: %w", r.source, q.table, err)
		}
		r.streams[q.table] = s
	}
	return nil
}

func (r *run) closeStreams() {
	for _, s := range r.streams {
		s.close()
	}
}

// copyRows calls row for every row of table's stream.
func (r *run) copyRows(ctx context.Context, table string, row func(cols [][]byte) error) error {
	s := r.streams[table]
	for n := 0; ; n++ {
		cols, ok, err := s.next()
		if err != nil {
			return fmt.Errorf("scalea: %s: reading table %s: %w\nquery: %s", r.source, table, err, s.query)
		}
		if !ok {
			return nil
		}
		if n&0xffff == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		if err := row(cols); err != nil {
			return err
		}
	}
}

// columns checks a row's column count.
func columns(cols [][]byte, want int) error {
	if len(cols) != want {
		return fmt.Errorf("COPY row has %d columns, want %d", len(cols), want)
	}
	return nil
}

func nullInt(c []byte) (sql.NullInt64, error) {
	v, ok, err := int64Col(c)
	return sql.NullInt64{Int64: v, Valid: ok}, err
}

func mustInt(c []byte) (int64, error) {
	v, ok, err := int64Col(c)
	if err == nil && !ok {
		err = errors.New("COPY: NULL in a NOT NULL column")
	}
	return v, err
}
