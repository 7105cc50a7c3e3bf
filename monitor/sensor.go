package monitor

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/sensor"
	"github.com/perfkb/perfkb/internal/timeslice"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/reasoner"
)

// SensorOptions configure a SensorListener. Zero values take the defaults of
// perfkb sensor-listen.
type SensorOptions struct {
	// Base mints the IRIs (required); Graph receives the triples (zero:
	// Base.Graph()).
	Base  convert.Base
	Graph kb.Term
	// Mapper configures the mapping.
	Mapper sensor.Options
	// Messages are written as soon as the store is idle; while a batch is
	// being written the next one grows, up to Batch messages (default
	// 1000), and a received message waits at most FlushInterval (default
	// 500ms) behind the batches in flight.
	Batch         int
	FlushInterval time.Duration
	// ListenerLimits: MaxMessage bounds one message in bytes (default 1
	// MiB). MaxQueueBytes bounds the parsed size
	// (sensor.Message.Footprint) of the messages received and not yet
	// converted (default 256 MiB); a connection may hold at most a
	// sixteenth of it, except that a connection holding nothing may
	// always queue one message; a reader that must wait stops reading its
	// connection. IdleTimeout (default 5m) counts from the last message
	// (whitespace between messages does not count) or, inside a message,
	// from the last byte. MessageTimeout defaults to 1m. With Authorize,
	// a connection must begin with the line "Authorization: Bearer
	// TOKEN" naming a token that may write Graph, or it is closed before
	// anything is read as a message (counted as Unauthorized).
	ListenerLimits
	// MaxBatchBytes bounds the parsed size of the messages converted in
	// one batch (default 16 MiB; negative: no bound beyond Batch): a
	// batch is converted as soon as it reaches it. A message's triples
	// take some ten times its parsed size while they are converted, so
	// without this bound a queue full of large messages becomes one
	// conversion of many times MaxQueueBytes.
	MaxBatchBytes int64
	// WriteShare bounds the share of wall-clock time the writer spends
	// storing batches of large messages (1 MiB parsed and more, on
	// average; default 0.25; 1 or more: no bound): after such a batch's
	// store write took d (at least 20ms), the next batch of large
	// messages waits d×(1−WriteShare)/WriteShare (at most 15s), while the
	// queue bound holds their senders back and small messages are
	// written. A flood of large messages otherwise
	// keeps the store writing and compacting without a pause, and the
	// queries a server answers from the same process wait for the
	// processors behind it; batches of ordinary sensors' small messages
	// never rest.
	WriteShare float64
	// LargeMessageRate bounds, in bytes per second over all
	// connections together, how fast the bytes of messages past their
	// first 64 KiB are read (default DefaultLargeMessageRate; negative:
	// no bound). Parsing a message takes far more processor time than
	// storing it; without a bound, a few connections sending messages of
	// the largest size let through (MaxMessage) keep the processors
	// parsing, and a server answering queries from the same process
	// (perfkb sensor-listen --http) answers them late. Ordinary sensors'
	// messages are far smaller and are read at their own pace; a large
	// message that waits for its turn still counts against
	// MessageTimeout.
	LargeMessageRate int64
	// ParseGate, when set, is called before the measurement data of a
	// message past its first 64 KiB is parsed, and its result once it is
	// parsed (sensor.ReaderOptions.Gate): perfkb sensor-listen --http
	// parses large messages in a heavy query's slot, so that a flood of
	// them leaves a core to the queries it answers.
	ParseGate func() (done func())
	// LargeWriteGate, when set, is called before a large message
	// (restMessageBytes parsed and more: a flood's) is converted to
	// triples and again before they are stored, and its result after
	// each: perfkb sensor-listen --http does both in a heavy query's
	// slot, as it parses, so that the conversion and the store write of
	// a flood leave a core to the queries it answers. Small messages
	// never wait for it.
	LargeWriteGate func() (done func())
	// MaxConns bounds the open sensor connections (default 256). When
	// they are all open, a new connection evicts the open one that has
	// gone longest without completing a message, if that is at least
	// EvictAfter (default 10s); else the new one is closed at once with a
	// log line.
	MaxConns   int
	EvictAfter time.Duration
	// DrainTimeout is how long, at shutdown, connections may still deliver
	// what they have sent (default 500ms).
	DrainTimeout time.Duration
	// Program, when set, is run incrementally over every written batch
	// (reasoner.NewEngine at start, Engine.Add per batch).
	Program *reasoner.Program
	// Reasoner configures that engine.
	Reasoner reasoner.Options
	// RulesWindow, when positive, bounds the engine's working memory: the
	// rules see the last RulesWindow messages (at least; up to twice as
	// many are held) besides what the store held at start; older messages and what was derived from them
	// leave the engine (reasoner.Engine.Forget), not the store. Right for
	// rules that look at one message at a time, as the shipped MONITORING
	// rules do. Zero keeps everything (memory grows with the data).
	RulesWindow int64
	// Logger receives connection events, dropped messages and findings
	// (default: discard).
	Logger *slog.Logger
	// OnFinding, when set, is called for each new finding with the time
	// since the oldest message of its batch was received (an upper bound of
	// the finding's latency).
	OnFinding func(f reasoner.Finding, latency time.Duration)
	// Check, when set, vets triples before they are written (perfkb
	// sensor-listen --validate: SHACL shapes); a non-nil error refuses
	// them and says why. It sees each batch whole and, when it refuses
	// one, each of the batch's messages alone: the messages it refuses
	// then are logged with its error, counted as Invalid and not written,
	// and the rest of the batch is. An error that wraps the context's
	// error stops the listener instead.
	Check func(ctx context.Context, quads []kb.TermQuad) error
}

// SensorStats are the counters of a SensorListener.
type SensorStats struct {
	Connections  int64 // accepted and served
	Open         int64 // open now
	Rejected     int64 // closed at once: --max-conns reached
	Evicted      int64 // closed to make room for a new connection
	Slow         int64 // closed: a message not whole within MessageTimeout
	QueuedBytes  int64 // parsed bytes received and not yet converted
	Received     int64 // messages whose closing tag was parsed
	Stored       int64 // messages written to the store
	Invalid      int64 // received messages the mapping or Check refused (logged)
	Partial      int64 // messages cut by a disconnect, discarded
	Malformed    int64 // connections closed for malformed XML or an oversized message
	Unauthorized int64 // connections closed: no valid token line (ListenerLimits.Authorize)
	Idle         int64 // connections closed for idleness
	Triples      int64 // triples written (before the store drops duplicates)
	Findings     int64 // new findings the rules derived
	RuleMemory   int64 // triples in the rule engine's working memory
}

// SensorListener is the live side of the sensor protocol (6.2.3.5 "Data
// Receiving", 6.2.6.1 TCP data delivery): it accepts sensor connections,
// reads each with a streaming decoder in its own goroutine, buffers the
// messages per (SensorID, ResourceID), and one writer goroutine converts
// and applies them in batches with kb.Dataset.Apply (or reasoner
// Engine.Add when rules are given).
type SensorListener struct {
	ds   kb.Dataset
	opt  SensorOptions
	log  *slog.Logger
	msgs chan received
	gate *byteGate
	// largeRate paces the reading of large messages' bytes
	// (LargeMessageRate); nil: no bound.
	largeRate *byteRate
	dead      chan struct{} // closed when the writer has failed: readers stop
	engine    *reasoner.Engine
	watch     *findingWatch // the engine's view of ds, noting new findings

	connSeq atomic.Int64
	stats   struct {
		conns, open, rejected, evicted, slow, received, stored, invalid, partial, malformed, unauthorized, idle, triples, findings, ruleMemory atomic.Int64
	}

	mu    sync.Mutex
	conns map[net.Conn]*connState
	// draining is set at shutdown; drainUntil (unix nanoseconds) is the
	// read deadline connections get then.
	draining   atomic.Bool
	drainUntil atomic.Int64
}

type received struct {
	msg  *sensor.Message
	at   time.Time
	conn int64
	size int64 // msg.Footprint(), held in the gate until converted
}

// connState is what eviction looks at: when the connection last completed
// a message (or was accepted), in unix nanoseconds.
type connState struct {
	progress atomic.Int64
	evicted  atomic.Bool
}

// NewSensorListener prepares a listener writing into ds. With a Program it
// builds the reasoner engine, which reads the store once.
func NewSensorListener(ctx context.Context, ds kb.Dataset, opt SensorOptions) (*SensorListener, error) {
	if opt.Base.IsZero() {
		return nil, errors.New("sensor: a listener needs a base IRI")
	}
	if opt.Graph.IsZero() {
		opt.Graph = opt.Base.Graph()
	}
	if opt.Batch <= 0 {
		opt.Batch = 1000
	}
	if opt.FlushInterval <= 0 {
		opt.FlushInterval = 500 * time.Millisecond
	}
	if opt.MaxMessage <= 0 {
		opt.MaxMessage = 1 << 20
	}
	if opt.MaxConns <= 0 {
		opt.MaxConns = 256
	}
	if opt.IdleTimeout == 0 {
		opt.IdleTimeout = 5 * time.Minute
	}
	if opt.MessageTimeout == 0 {
		opt.MessageTimeout = time.Minute
	}
	if opt.EvictAfter <= 0 {
		opt.EvictAfter = 10 * time.Second
	}
	if opt.WriteShare <= 0 {
		opt.WriteShare = 0.25
	}
	if opt.MaxBatchBytes == 0 {
		opt.MaxBatchBytes = 16 << 20
	}
	if opt.LargeMessageRate == 0 {
		opt.LargeMessageRate = DefaultLargeMessageRate
	}
	if opt.MaxQueueBytes <= 0 {
		opt.MaxQueueBytes = 256 << 20
	}
	if opt.DrainTimeout <= 0 {
		opt.DrainTimeout = 500 * time.Millisecond
	}
	log := opt.Logger
	if log == nil {
		log = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	l := &SensorListener{ds: ds, opt: opt, log: log, msgs: make(chan received, 4*opt.Batch), dead: make(chan struct{}), conns: map[net.Conn]*connState{},
		gate: newByteGate(opt.MaxQueueBytes, max(opt.MaxQueueBytes/16, 1))}
	if opt.LargeMessageRate > 0 {
		l.largeRate = &byteRate{perSec: float64(opt.LargeMessageRate)}
	}
	if opt.Program != nil {
		l.watch = &findingWatch{Dataset: ds}
		e, err := reasoner.NewEngine(ctx, l.watch, opt.Program, opt.Reasoner)
		if err != nil {
			return nil, fmt.Errorf("sensor: starting the rules: %w", err)
		}
		l.engine = e
	}
	return l, nil
}

// Stats returns the counters so far.
func (l *SensorListener) Stats() SensorStats {
	s := &l.stats
	return SensorStats{Connections: s.conns.Load(), Open: s.open.Load(), Rejected: s.rejected.Load(),
		Evicted: s.evicted.Load(), Slow: s.slow.Load(), QueuedBytes: l.gate.bytes(),
		Received: s.received.Load(), Stored: s.stored.Load(), Invalid: s.invalid.Load(),
		Partial: s.partial.Load(), Malformed: s.malformed.Load(), Unauthorized: s.unauthorized.Load(), Idle: s.idle.Load(),
		Triples: s.triples.Load(), Findings: s.findings.Load(), RuleMemory: s.ruleMemory.Load()}
}

// Serve accepts connections on ln until ctx ends, then stops accepting,
// lets open connections deliver what they have sent for DrainTimeout,
// writes every received message and returns. It returns an error only
// when writing to the store fails (or ln fails for another reason than
// being closed).
func (l *SensorListener) Serve(ctx context.Context, ln net.Listener) error {
	writerDone := make(chan error, 1)
	wctx, cancelWriter := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelWriter()
	go func() {
		err := l.writer(wctx)
		if err != nil {
			close(l.dead)
			l.gate.close()
		}
		writerDone <- err
	}()

	var wg sync.WaitGroup
	acceptErr := make(chan error, 1)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				acceptErr <- err
				return
			}
			n := l.connSeq.Add(1)
			if l.stats.open.Load() >= int64(l.opt.MaxConns) && !l.evict(n) {
				l.stats.rejected.Add(1)
				l.log.Warn("connection refused: --max-conns reached", "conn", n, "remote", c.RemoteAddr().String(), "max", l.opt.MaxConns)
				c.Close()
				continue
			}
			l.stats.conns.Add(1)
			l.stats.open.Add(1)
			st := &connState{}
			st.progress.Store(time.Now().UnixNano())
			l.mu.Lock()
			l.conns[c] = st
			l.mu.Unlock()
			wg.Add(1)
			go func() {
				defer wg.Done()
				l.serveConn(c, n, st)
				l.mu.Lock()
				delete(l.conns, c)
				l.mu.Unlock()
				l.stats.open.Add(-1)
				c.Close()
			}()
		}
	}()

	var err error
	select {
	case <-ctx.Done():
		ln.Close()
		<-acceptErr
	case err = <-acceptErr:
		if errors.Is(err, net.ErrClosed) {
			err = nil
		}
	case err = <-writerDone:
		ln.Close()
		<-acceptErr
		l.closeConns(time.Now())
		wg.Wait()
		return err
	}
	// Drain: connections may deliver what is in flight, then are cut.
	l.closeConns(time.Now().Add(l.opt.DrainTimeout))
	wg.Wait()
	close(l.msgs)
	if werr := <-writerDone; werr != nil {
		return werr
	}
	if err != nil {
		return fmt.Errorf("sensor: accepting connections: %w", err)
	}
	return nil
}

// evict closes the open connection that has gone longest without
// completing a message, if that is at least EvictAfter, to make room for
// connection n. Slow and idle connections thus cannot keep sensors that
// deliver out; a connection that delivers within EvictAfter is never
// evicted.
func (l *SensorListener) evict(n int64) bool {
	cutoff := time.Now().Add(-l.opt.EvictAfter).UnixNano()
	l.mu.Lock()
	defer l.mu.Unlock()
	var victim net.Conn
	var vs *connState
	for c, st := range l.conns {
		p := st.progress.Load()
		if p <= cutoff && !st.evicted.Load() && (vs == nil || p < vs.progress.Load()) {
			victim, vs = c, st
		}
	}
	if victim == nil {
		return false
	}
	vs.evicted.Store(true)
	l.stats.evicted.Add(1)
	l.log.Warn("connection evicted for a new one: --max-conns reached", "remote", victim.RemoteAddr().String(), "since_last_message", time.Since(time.Unix(0, vs.progress.Load())).Round(time.Millisecond).String(), "new_conn", n)
	// The reader sees a deadline error and ends the connection; the slot
	// is counted free at once so that the new connection is admitted.
	victim.SetReadDeadline(time.Unix(1, 0))
	return true
}

func (l *SensorListener) closeConns(deadline time.Time) {
	l.drainUntil.Store(deadline.UnixNano())
	l.draining.Store(true)
	l.mu.Lock()
	defer l.mu.Unlock()
	for c := range l.conns {
		c.SetReadDeadline(deadline)
	}
}

// serveConn reads one connection's messages until it ends.
func (l *SensorListener) serveConn(c net.Conn, n int64, st *connState) {
	remote := c.RemoteAddr().String()
	log := l.log.With("conn", n, "remote", remote)
	log.Debug("sensor connected")
	src := fmt.Sprintf("connection #%d (%s)", n, remote)
	ir := &idleReader{c: c, l: l, st: st, last: time.Now()}
	var in io.Reader = ir
	if l.opt.Authorize != nil {
		br := bufio.NewReaderSize(ir, maxAuthLine+16)
		token, err := readAuthLine(br)
		user, ok := "", false
		if err == nil {
			user, ok = l.opt.Authorize(token)
		}
		if !ok {
			l.stats.unauthorized.Add(1)
			reason := "the token may not write this listener's graph"
			if err != nil {
				reason = err.Error()
			}
			log.Warn("connection refused: a sensor must begin with a token that may write the graph", "reason", reason)
			return
		}
		log = log.With("user", user)
		in = br
	}
	// A large message is parsed as bulk work (package timeslice), in
	// ParseGate when there is one.
	gate := func(n int) func() {
		if n <= largeMessageFree {
			return func() {}
		}
		release := func() {}
		if l.opt.ParseGate != nil {
			release = l.opt.ParseGate()
		}
		end := timeslice.Begin()
		return func() {
			end()
			release()
		}
	}
	rd := sensor.NewReader(in, sensor.ReaderOptions{
		Gate:       gate,
		Source:     src,
		Position:   func(_, _ int, off int64) string { return convert.StreamPosition(int(n), off) },
		MaxMessage: l.opt.MaxMessage,
	})
	count := 0
	for {
		msg, err := rd.Next()
		if err == io.EOF {
			log.Debug("sensor disconnected", "messages", count)
			return
		}
		if err != nil {
			off, sid, rid, partial := rd.Partial()
			switch {
			case st.evicted.Load() && !l.draining.Load():
				if partial {
					l.stats.partial.Add(1)
				}
				log.Warn("connection evicted", "messages", count, "partial", partial)
			case errors.Is(err, os.ErrDeadlineExceeded) && ir.slow():
				l.stats.slow.Add(1)
				if partial {
					l.stats.partial.Add(1)
				}
				log.Warn("connection closed: message not whole within --message-timeout", "timeout", l.opt.MessageTimeout, "sensor", sid, "resource", rid, "byte", off)
			case errors.Is(err, sensor.ErrTooLarge):
				l.stats.malformed.Add(1)
				log.Warn("message too large: connection closed", "max", l.opt.MaxMessage, "sensor", sid, "resource", rid, "byte", off)
			case errors.Is(err, os.ErrDeadlineExceeded) && !partial:
				l.stats.idle.Add(1)
				log.Info("connection closed: idle or shutting down", "messages", count)
			case errors.Is(err, sensor.ErrTruncated) || errors.Is(err, os.ErrDeadlineExceeded) || errors.Is(err, net.ErrClosed) || isConnReset(err):
				if partial {
					l.stats.partial.Add(1)
					log.Warn("partial message discarded", "sensor", sid, "resource", rid, "byte", off, "reason", err.Error())
				} else {
					log.Info("connection ended", "messages", count, "reason", err.Error())
				}
			default:
				l.stats.malformed.Add(1)
				log.Warn("malformed message: connection closed", "sensor", sid, "resource", rid, "error", err.Error())
			}
			return
		}
		count++
		ir.done()
		l.stats.received.Add(1)
		size := msg.Footprint()
		if !l.gate.acquire(n, size) {
			log.Error("store writes failed: connection closed", "messages", count)
			return
		}
		select {
		case l.msgs <- received{msg: msg, at: time.Now(), conn: n, size: size}:
		case <-l.dead:
			log.Error("store writes failed: connection closed", "messages", count)
			return
		}
	}
}

func isConnReset(err error) bool {
	var op *net.OpError
	return errors.As(err, &op)
}

// idleReader sets the read deadline before each read, or the drain
// deadline once the listener is shutting down. Between messages the
// deadline is IdleTimeout after the last message ended (whitespace does
// not move it); once a message has begun (its first byte other than
// whitespace), it is IdleTimeout from now but at most MessageTimeout after
// that first byte. Read is called by the sensor.Reader on the connection's
// goroutine, which also calls done, so the fields need no lock.
type idleReader struct {
	c     net.Conn
	l     *SensorListener
	st    *connState
	last  time.Time // the last message ended (or the connection opened)
	begun time.Time // the current message's first byte; zero between messages
	// inMessage counts the bytes read since the current message began
	// (LargeMessageRate applies past largeMessageFree).
	inMessage int64
}

// done notes that a message has arrived whole. Bytes of the next message
// already buffered by the decoder start its clock at the next read.
func (r *idleReader) done() {
	r.last, r.begun, r.inMessage = time.Now(), time.Time{}, 0
	r.st.progress.Store(r.last.UnixNano())
}

// slow reports whether the current message has outlived MessageTimeout.
func (r *idleReader) slow() bool {
	return r.l.opt.MessageTimeout > 0 && !r.begun.IsZero() && !r.l.draining.Load() &&
		!time.Now().Before(r.begun.Add(r.l.opt.MessageTimeout))
}

func (r *idleReader) Read(p []byte) (int, error) {
	if !r.l.draining.Load() {
		var deadline time.Time
		switch {
		case r.begun.IsZero() && r.l.opt.IdleTimeout > 0:
			deadline = r.last.Add(r.l.opt.IdleTimeout)
		case !r.begun.IsZero():
			if r.l.opt.IdleTimeout > 0 {
				deadline = time.Now().Add(r.l.opt.IdleTimeout)
			}
			if m := r.begun.Add(r.l.opt.MessageTimeout); r.l.opt.MessageTimeout > 0 && (deadline.IsZero() || m.Before(deadline)) {
				deadline = m
			}
		}
		r.c.SetReadDeadline(deadline)
	}
	// Checked after setting, as for draining: evict sets the flag before
	// the deadline.
	if r.st.evicted.Load() {
		return 0, os.ErrDeadlineExceeded
	}
	// Checked after setting: closeConns sets the flag before the deadlines,
	// so either this sees it or closeConns' deadline comes later.
	if r.l.draining.Load() {
		r.c.SetReadDeadline(time.Unix(0, r.l.drainUntil.Load()))
	}
	paced := r.l.largeRate != nil && r.inMessage >= largeMessageFree
	if paced && len(p) > rateChunk {
		p = p[:rateChunk]
	}
	n, err := r.c.Read(p)
	if r.begun.IsZero() && len(bytes.TrimLeft(p[:n], " \t\r\n")) > 0 {
		r.begun = time.Now()
	}
	if !r.begun.IsZero() {
		r.inMessage += int64(n)
	}
	if paced && n > 0 {
		// The bytes are parsed once Read returns: held here until the
		// rate allows them. An evicted connection or a shutdown stops
		// the wait; the message's deadline is seen at the next read.
		waitUntil(r.l.largeRate.reserve(n), func() bool { return r.st.evicted.Load() || r.l.draining.Load() })
	}
	return n, err
}
