package chrometrace

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/textpos"
)

// Resolution is the clock of the traces Read returns: nanoseconds, so the
// format's microsecond timestamps with three decimals are kept exactly.
const Resolution = 1_000_000_000

// Categories perfkb's export gives the measurement events of the common
// model; Read turns them back into those events instead of regions.
const (
	CatFlush       = "perfkb.flush"       // X: a buffer flush (Time .. Stop)
	CatMeasurement = "perfkb.measurement" // i: measurement switched on or off
	CatMessage     = "mpi.message"        // s, f: a point-to-point message
	CatCollective  = "mpi.collective"     // i: the end of a collective operation
)

// rawEvent is one element of traceEvents, with the fields perfkb reads
// kept raw so that their types are checked with a position.
type rawEvent struct {
	Name json.RawMessage `json:"name"`
	Cat  json.RawMessage `json:"cat"`
	Ph   json.RawMessage `json:"ph"`
	Ts   json.RawMessage `json:"ts"`
	Dur  json.RawMessage `json:"dur"`
	Pid  json.RawMessage `json:"pid"`
	Tid  json.RawMessage `json:"tid"`
	Args json.RawMessage `json:"args"`
}

// id is a pid or tid: a JSON integer, or a string naming a track.
type id struct {
	n     int64
	s     string
	isStr bool
}

func (a id) less(b id) bool {
	if a.isStr != b.isStr {
		return !a.isStr
	}
	if a.isStr {
		return a.s < b.s
	}
	return a.n < b.n
}

type threadKey struct{ pid, tid id }

// interval is one slice of a thread: an X event or a matched B/E pair.
type interval struct {
	start, end trace.Time
	name, cat  string
	index      int   // event index (of the B for a pair)
	offset     int64 // byte offset of that event
	flush      bool
}

type beEvent struct {
	begin     bool
	ts        trace.Time
	name, cat string
	index     int
	offset    int64
}

// point is an event inside slices: a message end, a collective end, a
// measurement switch (the categories perfkb's export writes).
type point struct {
	ev     trace.Event // Kind, Time and the kind's fields; Peer and Root are set in build
	peer   *threadKey
	root   *threadKey
	index  int
	offset int64
}

type thread struct {
	intervals []interval
	be        []beEvent
	points    []point
	name      string
}

// rawComm is a communicator of otherData.perfkb_comms.
type rawComm struct {
	ID      int        `json:"id"`
	Members [][2]int64 `json:"members"`
}

// reader holds the state of one Read.
type reader struct {
	data     []byte
	name     string
	threads  map[threadKey]*thread
	procName map[id]string
	comms    []rawComm
	commsOff int64
	ignored  map[string]int // phase → events ignored
	firstIgn map[string]int // phase → first ignored event index
	warnings []convert.Warning
}

// ReadFile reads a Chrome Trace Event JSON file (gzip-compressed files are
// recognised by their magic bytes; byte offsets in errors are then in the
// uncompressed text). Warnings are the problems worked around.
func ReadFile(path string) (*trace.Mem, []convert.Warning, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		zr, err := gzip.NewReader(bytes.NewReader(data))
		if err != nil {
			return nil, nil, convert.Errorf(path, "byte 0", "gzip: %w", err)
		}
		if data, err = io.ReadAll(zr); err != nil {
			return nil, nil, convert.Errorf(path, "", "gzip: %w", err)
		}
	}
	return Read(data, path)
}

// LooksLikeJSON reports whether data starts, after white space, like a
// Chrome trace (an object or an array) or is gzip-compressed.
func LooksLikeJSON(data []byte) bool {
	if len(data) >= 2 && data[0] == 0x1f && data[1] == 0x8b {
		return true
	}
	s := bytes.TrimLeft(data, " \t\r\n\ufeff")
	return len(s) > 0 && (s[0] == '{' || s[0] == '[')
}

// Read parses Chrome Trace Event JSON (the object form with traceEvents or
// the bare array form) into the common event model: one location per
// (pid, tid), one Enter/Leave pair per complete (X) event and per matched
// begin/end (B/E) pair, in nanosecond ticks. name labels errors and
// warnings. Errors are *convert.Error at FILE:LINE:COLUMN whose message
// gives the byte offset and the event index (traceEvents[i]).
func Read(data []byte, name string) (*trace.Mem, []convert.Warning, error) {
	r := &reader{data: data, name: name, threads: map[threadKey]*thread{}, procName: map[id]string{},
		ignored: map[string]int{}, firstIgn: map[string]int{}}
	if err := r.parse(); err != nil {
		return nil, r.warnings, err
	}
	m, err := r.build()
	return m, r.warnings, err
}

// errAt returns the positioned error of the byte offset off; index < 0
// when the error is not in an event.
func (r *reader) errAt(off int64, index int, format string, args ...any) *convert.Error {
	if off > int64(len(r.data)) {
		off = int64(len(r.data))
	}
	line := 1 + bytes.Count(r.data[:off], []byte{'\n'})
	col := int(off) - bytes.LastIndexByte(r.data[:off], '\n')
	where := fmt.Sprintf("byte %d", off)
	if index >= 0 {
		where = fmt.Sprintf("traceEvents[%d] (byte %d)", index, off)
	}
	return convert.TextErrorf(r.name, textpos.Position{Source: r.name, Line: line, Column: col}, "%s: %s", where, fmt.Sprintf(format, args...))
}

func (r *reader) warn(off int64, index int, format string, args ...any) {
	line := 1 + bytes.Count(r.data[:off], []byte{'\n'})
	col := int(off) - bytes.LastIndexByte(r.data[:off], '\n')
	r.warnings = append(r.warnings, convert.Warning{Position: convert.TextPosition(r.name, line, col),
		Message: fmt.Sprintf("traceEvents[%d] (byte %d): %s", index, off, fmt.Sprintf(format, args...))})
}

// syntaxErr turns a decoder error into a positioned error.
func (r *reader) syntaxErr(err error, dec *json.Decoder, index int) error {
	var se *json.SyntaxError
	switch {
	case errors.As(err, &se):
		return r.errAt(se.Offset, index, "invalid JSON: %v", err)
	case errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return r.errAt(int64(len(r.data)), index, "the JSON ends early (truncated file?)")
	}
	return r.errAt(dec.InputOffset(), index, "invalid JSON: %v", err)
}

// next skips white space and one comma after off: where the next value starts.
func (r *reader) next(off int64) int64 {
	for off < int64(len(r.data)) {
		switch r.data[off] {
		case ' ', '\t', '\r', '\n', ',':
			off++
			continue
		}
		break
	}
	return off
}

func (r *reader) parse() error {
	dec := json.NewDecoder(bytes.NewReader(r.data))
	dec.UseNumber()
	tok, err := dec.Token()
	if err != nil {
		return r.syntaxErr(err, dec, -1)
	}
	switch tok {
	case json.Delim('['):
		return r.events(dec, true)
	case json.Delim('{'):
	default:
		return r.errAt(0, -1, "expected a JSON object with traceEvents or an array of trace events")
	}
	seen := false
	for dec.More() {
		off := r.next(dec.InputOffset())
		tok, err := dec.Token()
		if err != nil {
			return r.syntaxErr(err, dec, -1)
		}
		key, _ := tok.(string)
		if key == "traceEvents" {
			if seen {
				return r.errAt(off, -1, "traceEvents appears twice")
			}
			seen = true
			off = r.next(dec.InputOffset())
			tok, err := dec.Token()
			if err != nil {
				return r.syntaxErr(err, dec, -1)
			}
			if tok != json.Delim('[') {
				return r.errAt(off, -1, "traceEvents must be an array")
			}
			if err := r.events(dec, false); err != nil {
				return err
			}
			continue
		}
		// displayTimeUnit, metadata, stackFrames, samples,
		// systemTraceEvents: nothing in them maps to the model; otherData
		// may hold the communicators of a perfkb export.
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			return r.syntaxErr(err, dec, -1)
		}
		if key == "otherData" {
			var od struct {
				Comms json.RawMessage `json:"perfkb_comms"`
			}
			if json.Unmarshal(skip, &od) == nil && len(od.Comms) > 0 {
				if err := json.Unmarshal(od.Comms, &r.comms); err != nil {
					return r.errAt(off, -1, "otherData.perfkb_comms: %v", err)
				}
				r.commsOff = off
			}
		}
	}
	if _, err := dec.Token(); err != nil {
		return r.syntaxErr(err, dec, -1)
	}
	if !seen {
		return r.errAt(0, -1, "the object has no traceEvents array")
	}
	if _, err := dec.Token(); err != io.EOF {
		return r.errAt(dec.InputOffset(), -1, "data after the end of the trace object")
	}
	return nil
}

// events reads the elements of a traceEvents array up to its closing
// bracket. In the bare array form the format lets the closing bracket be
// missing (a tracer that was killed), so the end of the data ends it.
func (r *reader) events(dec *json.Decoder, bare bool) error {
	index := 0
	for ; dec.More(); index++ {
		off := r.next(dec.InputOffset())
		var ev rawEvent
		if err := dec.Decode(&ev); err != nil {
			if bare && errors.Is(err, io.EOF) {
				return nil // "[…, {…}," at the end of the data
			}
			var te *json.UnmarshalTypeError
			if errors.As(err, &te) {
				return r.errAt(off, index, "an event must be a JSON object, got %s", te.Value)
			}
			return r.syntaxErr(err, dec, index)
		}
		if err := r.event(&ev, index, off); err != nil {
			return err
		}
	}
	_, err := dec.Token()
	if err == io.EOF && bare {
		return nil
	}
	if err != nil {
		return r.syntaxErr(err, dec, index)
	}
	if bare {
		if _, err := dec.Token(); err != io.EOF {
			return r.errAt(dec.InputOffset(), -1, "data after the end of the event array")
		}
	}
	return nil
}

func (r *reader) str(raw json.RawMessage, field string, off int64, index int) (string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return "", nil
	}
	// Most strings have no escapes: no need for the decoder.
	if n := len(raw); n >= 2 && raw[0] == '"' && raw[n-1] == '"' && bytes.IndexByte(raw[1:n-1], '\\') < 0 && bytes.IndexByte(raw[1:n-1], '"') < 0 && utf8.Valid(raw[1:n-1]) {
		return string(raw[1 : n-1]), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err != nil {
		return "", r.errAt(off, index, "%s must be a string, got %s", field, raw)
	}
	return s, nil
}

// idOf reads a pid or tid: an integer, or a string (a digit string is the
// integer, as Perfetto reads it).
func (r *reader) idOf(raw json.RawMessage, field string, off int64, index int) (id, bool, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return id{}, false, nil
	}
	if raw[0] == '"' {
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return id{}, false, r.errAt(off, index, "%s: %v", field, err)
		}
		if n, err := strconv.ParseInt(s, 10, 64); err == nil {
			return id{n: n}, true, nil
		}
		return id{s: s, isStr: true}, true, nil
	}
	n, err := strconv.ParseInt(string(raw), 10, 64)
	if err != nil {
		f, ferr := strconv.ParseFloat(string(raw), 64)
		if ferr != nil || f != float64(int64(f)) {
			return id{}, false, r.errAt(off, index, "%s must be an integer or a string, got %s", field, raw)
		}
		n = int64(f)
	}
	return id{n: n}, true, nil
}

// micros parses a time in microseconds (a JSON number, or a digit string)
// into nanoseconds, exactly for up to three decimals.
func (r *reader) micros(raw json.RawMessage, field string, off int64, index int) (trace.Time, error) {
	s := string(raw)
	if len(s) > 0 && s[0] == '"' {
		if err := json.Unmarshal(raw, &s); err != nil {
			return 0, r.errAt(off, index, "%s: %v", field, err)
		}
	}
	if ns, ok := decimalNanos(s); ok {
		return ns, nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != f || f > maxMicros || f < -maxMicros {
		return 0, r.errAt(off, index, "%s must be a number of microseconds, got %s", field, raw)
	}
	return trace.Time(roundHalfAway(f * 1000)), nil
}

// maxMicros bounds times so that nanoseconds fit an int64 (292 years).
const maxMicros = 9_000_000_000_000_000

func roundHalfAway(f float64) int64 {
	if f < 0 {
		return -int64(-f + 0.5)
	}
	return int64(f + 0.5)
}

// decimalNanos converts "123", "-4.5", "6.0001" (µs, no exponent) to ns,
// rounding beyond the third decimal half away from zero.
func decimalNanos(s string) (trace.Time, bool) {
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	ip, fp, _ := strings.Cut(s, ".")
	if ip == "" || strings.Trim(ip, "0123456789") != "" || strings.Trim(fp, "0123456789") != "" {
		return 0, false
	}
	n, err := strconv.ParseInt(ip, 10, 64)
	if err != nil || n > maxMicros {
		return 0, false
	}
	frac := (fp + "000")[:3]
	f, _ := strconv.ParseInt(frac, 10, 64)
	n = n*1000 + f
	if len(fp) > 3 && fp[3] >= '5' {
		n++
	}
	if neg {
		n = -n
	}
	return trace.Time(n), true
}

func (r *reader) thread(k threadKey) *thread {
	t := r.threads[k]
	if t == nil {
		t = &thread{}
		r.threads[k] = t
	}
	return t
}

func (r *reader) event(ev *rawEvent, index int, off int64) error {
	ph, err := r.str(ev.Ph, "ph", off, index)
	if err != nil {
		return err
	}
	if ph == "" {
		return r.errAt(off, index, "the event has no ph (phase)")
	}
	name, err := r.str(ev.Name, "name", off, index)
	if err != nil {
		return err
	}
	cat, err := r.str(ev.Cat, "cat", off, index)
	if err != nil {
		return err
	}
	pid, _, err := r.idOf(ev.Pid, "pid", off, index)
	if err != nil {
		return err
	}
	tid, hasTid, err := r.idOf(ev.Tid, "tid", off, index)
	if err != nil {
		return err
	}
	if !hasTid {
		tid = pid // as Perfetto does
	}
	key := threadKey{pid, tid}
	ts := func() (trace.Time, error) {
		if len(ev.Ts) == 0 {
			return 0, r.errAt(off, index, "a %q event needs ts", ph)
		}
		return r.micros(ev.Ts, "ts", off, index)
	}
	switch ph {
	case "X":
		start, err := ts()
		if err != nil {
			return err
		}
		if len(ev.Dur) == 0 {
			return r.errAt(off, index, "a complete (X) event needs dur")
		}
		dur, err := r.micros(ev.Dur, "dur", off, index)
		if err != nil {
			return err
		}
		if dur < 0 {
			return r.errAt(off, index, "dur is negative (%s)", ev.Dur)
		}
		t := r.thread(key)
		t.intervals = append(t.intervals, interval{start: start, end: start + dur, name: name, cat: cat,
			index: index, offset: off, flush: cat == CatFlush})
	case "B", "E":
		t0, err := ts()
		if err != nil {
			return err
		}
		t := r.thread(key)
		t.be = append(t.be, beEvent{begin: ph == "B", ts: t0, name: name, cat: cat, index: index, offset: off})
	case "M":
		if name != "process_name" && name != "thread_name" {
			return nil // sort indexes, labels: presentation only
		}
		var args struct {
			Name json.RawMessage `json:"name"`
		}
		if len(ev.Args) > 0 {
			if err := json.Unmarshal(ev.Args, &args); err != nil {
				return r.errAt(off, index, "args of %s must be an object", name)
			}
		}
		n, err := r.str(args.Name, "args.name", off, index)
		if err != nil {
			return err
		}
		if name == "process_name" {
			r.procName[pid] = n
		} else {
			r.thread(key).name = n
		}
	case "i", "I", "s", "f":
		if pt, ok, err := r.point(ev, ph, cat, name, index, off); ok || err != nil {
			if err != nil {
				return err
			}
			if pt.ev.Time, err = ts(); err != nil {
				return err
			}
			t := r.thread(key)
			t.points = append(t.points, pt)
			return nil
		}
		fallthrough
	default:
		if r.ignored[ph] == 0 {
			r.firstIgn[ph] = index
		}
		r.ignored[ph]++
	}
	return nil
}

var opByName = func() map[string]trace.CollOp {
	m := map[string]trace.CollOp{}
	for o := trace.OpBarrier; o <= trace.OpOther; o++ {
		m[o.String()] = o
	}
	return m
}()

// point reads the message flows, collective ends and measurement switches
// of perfkb's export; ok is false for other events.
func (r *reader) point(ev *rawEvent, ph, cat, name string, index int, off int64) (point, bool, error) {
	pt := point{index: index, offset: off}
	key := func(v *[2]int64) *threadKey {
		if v == nil {
			return nil
		}
		return &threadKey{id{n: v[0]}, id{n: v[1]}}
	}
	switch {
	case cat == CatMeasurement && (ph == "i" || ph == "I"):
		pt.ev = trace.Event{Kind: trace.MeasurementOnOff, On: name == "measurement on"}
	case cat == CatMessage && (ph == "s" || ph == "f"):
		var a struct {
			Peer  *[2]int64 `json:"peer"`
			Tag   int       `json:"tag"`
			Bytes int64     `json:"bytes"`
			Comm  int       `json:"comm"`
		}
		if err := json.Unmarshal(ev.Args, &a); err != nil || a.Peer == nil {
			return pt, true, r.errAt(off, index, "a %s message flow needs args {peer: [pid, tid], tag, bytes, comm}", CatMessage)
		}
		kind := trace.Send
		if ph == "f" {
			kind = trace.Recv
		}
		pt.ev = trace.Event{Kind: kind, Tag: a.Tag, Bytes: a.Bytes, Comm: a.Comm}
		pt.peer = key(a.Peer)
	case cat == CatCollective && (ph == "i" || ph == "I"):
		var a struct {
			Op    string    `json:"op"`
			Root  *[2]int64 `json:"root"`
			Comm  int       `json:"comm"`
			Sent  int64     `json:"bytes_sent"`
			Recvd int64     `json:"bytes_received"`
		}
		if err := json.Unmarshal(ev.Args, &a); err != nil {
			return pt, true, r.errAt(off, index, "a %s instant needs args {op, root, comm, bytes_sent, bytes_received}", CatCollective)
		}
		op, ok := opByName[a.Op]
		if !ok {
			return pt, true, r.errAt(off, index, "unknown collective operation %q", a.Op)
		}
		pt.ev = trace.Event{Kind: trace.CollectiveEnd, Op: op, Comm: a.Comm, Bytes: a.Sent, Recvd: a.Recvd, Root: -1}
		pt.root = key(a.Root)
	default:
		return pt, false, nil
	}
	return pt, true, nil
}

// build matches B/E pairs, orders each thread's slices into a properly
// nested Enter/Leave stream and numbers locations and regions.
func (r *reader) build() (*trace.Mem, error) {
	for _, ph := range slices.Sorted(func(yield func(string) bool) {
		for k := range r.ignored {
			if !yield(k) {
				return
			}
		}
	}) {
		r.warnings = append(r.warnings, convert.Warning{Position: r.name,
			Message: fmt.Sprintf("%d events of phase %q ignored (first: traceEvents[%d]); only X, B/E and M events map to the trace model", r.ignored[ph], ph, r.firstIgn[ph])})
	}
	keys := make([]threadKey, 0, len(r.threads))
	for k, t := range r.threads {
		if len(t.intervals)+len(t.be)+len(t.points) > 0 {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return nil, r.errAt(0, -1, "no complete (X) or begin/end (B/E) events: nothing to convert")
	}
	slices.SortFunc(keys, func(a, b threadKey) int {
		switch {
		case a.pid.less(b.pid):
			return -1
		case b.pid.less(a.pid):
			return 1
		case a.tid.less(b.tid):
			return -1
		case b.tid.less(a.tid):
			return 1
		}
		return 0
	})
	// Processes keep an integer pid; string pids are numbered after the
	// largest one, in sorted order. Threads are numbered within their
	// process in tid order (OS thread IDs are not thread numbers).
	var maxPid int64 = -1
	for _, k := range keys {
		if !k.pid.isStr {
			maxPid = max(maxPid, k.pid.n)
		}
	}
	procOf := map[id]int{}
	locOf := map[threadKey]int{}
	for i, k := range keys {
		locOf[k] = i
	}
	m := &trace.Mem{D: trace.Defs{Resolution: Resolution}}
	if err := r.buildComms(m, locOf); err != nil {
		return nil, err
	}
	regionID := map[string]int{}
	first := true
	threadNo := 0
	for i, k := range keys {
		if _, ok := procOf[k.pid]; !ok {
			if k.pid.isStr {
				maxPid++
				procOf[k.pid] = int(maxPid)
			} else {
				procOf[k.pid] = int(k.pid.n)
			}
			threadNo = 0
		} else {
			threadNo++
		}
		t := r.threads[k]
		name := t.name
		if name == "" {
			name = "tid " + tidString(k.tid)
		}
		if pn := r.procName[k.pid]; pn != "" {
			name = pn + " / " + name
		}
		m.D.Locations = append(m.D.Locations, trace.Location{ID: i, Process: procOf[k.pid], Thread: threadNo, Name: name})
		ivs, err := r.pair(t)
		if err != nil {
			return nil, err
		}
		// Parents first: by start, longer first, then file order.
		slices.SortStableFunc(ivs, func(a, b interval) int {
			switch {
			case a.start != b.start:
				return cmpTime(a.start, b.start)
			case a.end != b.end:
				return cmpTime(b.end, a.end)
			}
			return a.index - b.index
		})
		var evs []trace.Event
		var stack []interval
		points := t.points
		slices.SortStableFunc(points, func(a, b point) int { return cmpTime(a.ev.Time, b.ev.Time) })
		for j := range points {
			pt := &points[j]
			if pt.peer != nil {
				l, ok := locOf[*pt.peer]
				if !ok {
					return nil, r.errAt(pt.offset, pt.index, "the message's peer [%s, %s] has no events", tidString(pt.peer.pid), tidString(pt.peer.tid))
				}
				pt.ev.Peer = l
			}
			if pt.root != nil {
				l, ok := locOf[*pt.root]
				if !ok {
					return nil, r.errAt(pt.offset, pt.index, "the collective's root [%s, %s] has no events", tidString(pt.root.pid), tidString(pt.root.tid))
				}
				pt.ev.Root = l
			}
		}
		// A point at a slice's start belongs to the slice; one at its end
		// too.
		emitPoints := func(upTo trace.Time, inclusive bool) {
			for len(points) > 0 && (points[0].ev.Time < upTo || inclusive && points[0].ev.Time == upTo) {
				evs = append(evs, points[0].ev)
				points = points[1:]
			}
		}
		leave := func() {
			top := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			emitPoints(top.end, true)
			evs = append(evs, trace.Event{Kind: trace.Leave, Time: top.end, Region: regionID[top.name]})
		}
		for _, iv := range ivs {
			for len(stack) > 0 && stack[len(stack)-1].end <= iv.start {
				leave()
			}
			if len(stack) > 0 && iv.end > stack[len(stack)-1].end {
				top := stack[len(stack)-1]
				r.warn(iv.offset, iv.index, "%q (%s .. %s µs) overlaps the end of the enclosing %q (traceEvents[%d], ends %s µs); cut at that end",
					iv.name, usString(iv.start), usString(iv.end), top.name, top.index, usString(top.end))
				iv.end = top.end
			}
			if first || iv.start < m.D.Start {
				m.D.Start, first = iv.start, false
			}
			emitPoints(iv.start, false)
			if iv.flush {
				evs = append(evs, trace.Event{Kind: trace.BufferFlush, Time: iv.start, Stop: iv.end})
				continue
			}
			rid, ok := regionID[iv.name]
			if !ok {
				rid = len(m.D.Regions)
				regionID[iv.name] = rid
				m.D.Regions = append(m.D.Regions, regionOf(rid, iv.name, iv.cat))
			}
			evs = append(evs, trace.Event{Kind: trace.Enter, Time: iv.start, Region: rid})
			stack = append(stack, iv)
		}
		for len(stack) > 0 {
			leave()
		}
		emitPoints(trace.Time(1<<63-1), true)
		for j := range evs {
			evs[j].Loc = i
		}
		m.Stream = append(m.Stream, evs)
	}
	return m, nil
}

// buildComms gives the trace the communicators of a perfkb export.
func (r *reader) buildComms(m *trace.Mem, locOf map[threadKey]int) error {
	for i, c := range r.comms {
		if c.ID != i {
			return r.errAt(r.commsOff, -1, "otherData.perfkb_comms[%d] has id %d; want ids 0, 1, … in order", i, c.ID)
		}
		comm := trace.Comm{ID: i}
		for _, mem := range c.Members {
			l, ok := locOf[threadKey{id{n: mem[0]}, id{n: mem[1]}}]
			if !ok {
				return r.errAt(r.commsOff, -1, "otherData.perfkb_comms[%d]: member [%d, %d] has no events", i, mem[0], mem[1])
			}
			comm.Members = append(comm.Members, l)
		}
		m.D.Comms = append(m.D.Comms, comm)
	}
	return nil
}

func cmpTime(a, b trace.Time) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

func tidString(a id) string {
	if a.isStr {
		return a.s
	}
	return strconv.FormatInt(a.n, 10)
}

// usString renders ns as µs for messages.
func usString(t trace.Time) string { return strconv.FormatFloat(float64(t)/1000, 'f', -1, 64) }

// pair matches a thread's B and E events in time order (file order among
// equal times): an E closes the innermost open B. It returns the thread's
// slices, X events included.
func (r *reader) pair(t *thread) ([]interval, error) {
	ivs := append([]interval(nil), t.intervals...)
	be := t.be
	slices.SortStableFunc(be, func(a, b beEvent) int { return cmpTime(a.ts, b.ts) })
	var open []beEvent
	for _, e := range be {
		if e.begin {
			open = append(open, e)
			continue
		}
		if len(open) == 0 {
			return nil, r.errAt(e.offset, e.index, "end (E) event %q at %s µs has no open begin (B) event on its thread", e.name, usString(e.ts))
		}
		b := open[len(open)-1]
		if e.name != "" && e.name != b.name {
			return nil, r.errAt(e.offset, e.index, "end (E) event %q at %s µs does not match the open begin (B) event %q (traceEvents[%d])", e.name, usString(e.ts), b.name, b.index)
		}
		open = open[:len(open)-1]
		ivs = append(ivs, interval{start: b.ts, end: e.ts, name: b.name, cat: b.cat, index: b.index, offset: b.offset, flush: b.cat == CatFlush})
	}
	if len(open) > 0 {
		b := open[len(open)-1]
		return nil, r.errAt(b.offset, b.index, "begin (B) event %q at %s µs is never ended (no matching E event on its thread)", b.name, usString(b.ts))
	}
	return ivs, nil
}

// regionOf classifies a slice name: MPI_ names are MPI regions, OpenMP
// constructs OpenMP regions (so the C.1 mnemonics apply); the category is
// kept as the role.
func regionOf(rid int, name, cat string) trace.Region {
	r := trace.Region{ID: rid, Name: name, Role: cat}
	lower := strings.ToLower(name)
	switch {
	case strings.HasPrefix(lower, "mpi_") || cat == "mpi":
		r.Paradigm = trace.ParadigmMPI
	case strings.HasPrefix(lower, "!$omp") || strings.HasPrefix(lower, "omp ") || strings.HasPrefix(lower, "omp_") || cat == "openmp":
		r.Paradigm = trace.ParadigmOpenMP
	case cat == "measurement":
		r.Paradigm = trace.ParadigmMeasurement
	}
	return r
}
