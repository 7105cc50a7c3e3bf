package chrometrace

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"iter"
	"math"
	"slices"
	"strconv"

	"github.com/perfkb/perfkb/convert/trace"
)

// WriteStats counts what Write wrote and what it could not.
type WriteStats struct {
	Events   int64 // trace events read
	Slices   int64 // complete (X) events written
	Flows    int64 // message flow events (s, f) written
	Instants int64 // instant (i) events written
	// Unclosed counts regions still open at the end (written as B events
	// without E); Stray counts Leave events that matched no open Enter
	// (not written).
	Unclosed, Stray int64
}

type openFrame struct {
	region int
	start  trace.Time
}

// Write writes the events (in any order; trace.Merge's global order, or
// a compensated stream) of a trace with definitions d as Chrome Trace
// Event JSON in the object form, for Perfetto's UI and chrome://tracing:
//
//   - one process per rank (pid = Process) and one thread per location
//     (tid = 1 + the location's rank in (process, thread) order, so tids
//     are unique across processes as Perfetto expects), named by
//     process_name/thread_name metadata events;
//   - each region execution as a complete event (X) with ts and dur in
//     microseconds since the trace start (nanosecond precision), cat the
//     region's paradigm;
//   - each point-to-point message as a flow of category mpi.message (s at
//     the send, f with bp "e" at the receive, matched first-in first-out
//     per channel) with peer ([pid, tid]), tag, bytes and comm in args;
//   - collective ends as thread-scoped instants (i) of category
//     mpi.collective with op, root, comm and bytes in args, the
//     communicators in otherData.perfkb_comms;
//   - measurement switches as instants of category perfkb.measurement,
//     buffer flushes as X events of category perfkb.flush.
//
// Read turns these back into the model's events, so an exported trace
// re-imports with the same region summaries, message statistics and
// waiting times.
func Write(ctx context.Context, w io.Writer, d *trace.Defs, events iter.Seq2[trace.Event, error]) (WriteStats, error) {
	var st WriteStats
	bw := bufio.NewWriterSize(w, 256<<10)
	tid := make([]int, len(d.Locations))
	order := make([]int, len(d.Locations))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int {
		la, lb := d.Locations[a], d.Locations[b]
		if la.Process != lb.Process {
			return la.Process - lb.Process
		}
		return la.Thread - lb.Thread
	})
	for rank, loc := range order {
		tid[loc] = rank + 1
	}
	var buf []byte
	n := 0
	begin := func(ph string, loc int) {
		if n > 0 {
			buf = append(buf, ",\n"...)
		}
		n++
		buf = append(buf, `{"ph":"`...)
		buf = append(buf, ph...)
		buf = append(buf, `","pid":`...)
		buf = strconv.AppendInt(buf, int64(d.Locations[loc].Process), 10)
		buf = append(buf, `,"tid":`...)
		buf = strconv.AppendInt(buf, int64(tid[loc]), 10)
	}
	str := func(key, v string) {
		buf = append(buf, `,"`...)
		buf = append(buf, key...)
		buf = append(buf, `":`...)
		b, _ := json.Marshal(v)
		buf = append(buf, b...)
	}
	num := func(key string, v int64) {
		buf = append(buf, `,"`...)
		buf = append(buf, key...)
		buf = append(buf, `":`...)
		buf = strconv.AppendInt(buf, v, 10)
	}
	us := func(key string, t trace.Time) {
		buf = append(buf, `,"`...)
		buf = append(buf, key...)
		buf = append(buf, `":`...)
		buf = appendMicros(buf, t)
	}
	ns := func(t trace.Time) trace.Time { return toNanos(t-d.Start, d.Resolution) }
	flush := func() error {
		_, err := bw.Write(buf)
		buf = buf[:0]
		return err
	}
	// Communicators go into otherData (members as [pid, tid]), so Read
	// can give collective ends their groups back.
	buf = append(buf, `{"displayTimeUnit":"ns","otherData":{"generator":"perfkb trace export","perfkb_comms":[`...)
	for i, c := range d.Comms {
		if i > 0 {
			buf = append(buf, ',')
		}
		buf = append(buf, `{"id":`...)
		buf = strconv.AppendInt(buf, int64(c.ID), 10)
		buf = append(buf, `,"members":[`...)
		for j, m := range c.Members {
			if j > 0 {
				buf = append(buf, ',')
			}
			buf = appendPidTid(buf, d, tid, m)
		}
		buf = append(buf, "]}"...)
	}
	buf = append(buf, `]},"traceEvents":[`+"\n"...)
	seenProc := map[int]bool{}
	for _, loc := range order {
		l := d.Locations[loc]
		if !seenProc[l.Process] {
			seenProc[l.Process] = true
			name := "rank " + strconv.Itoa(l.Process)
			if l.Node != "" {
				name += " on " + l.Node
			}
			begin("M", loc)
			str("name", "process_name")
			buf = append(buf, `,"args":{"name":`...)
			b, _ := json.Marshal(name)
			buf = append(append(buf, b...), `}}`...)
			begin("M", loc)
			str("name", "process_sort_index")
			buf = append(buf, `,"args":{"sort_index":`...)
			buf = append(strconv.AppendInt(buf, int64(l.Process), 10), `}}`...)
		}
		name := l.Name
		if name == "" {
			name = "thread " + strconv.Itoa(l.Thread)
		}
		begin("M", loc)
		str("name", "thread_name")
		buf = append(buf, `,"args":{"name":`...)
		b, _ := json.Marshal(name)
		buf = append(append(buf, b...), `}}`...)
		begin("M", loc)
		str("name", "thread_sort_index")
		buf = append(buf, `,"args":{"sort_index":`...)
		buf = append(strconv.AppendInt(buf, int64(tid[loc]), 10), `}}`...)
	}
	regionName := func(r int) (string, string) {
		if r >= 0 && r < len(d.Regions) {
			return d.Regions[r].Name, d.Regions[r].Paradigm.String()
		}
		return "region " + strconv.Itoa(r), "user"
	}
	stacks := make([][]openFrame, len(d.Locations))
	type channel struct{ comm, src, dst, tag int }
	pendSend := map[channel][]int64{} // flow ids sent, not yet received
	pendRecv := map[channel][]int64{} // flow ids received before their send was seen
	var nextFlow int64
	flow := func(ch channel, send bool) int64 {
		mine, theirs := pendSend, pendRecv
		if !send {
			mine, theirs = pendRecv, pendSend
		}
		if q := theirs[ch]; len(q) > 0 {
			theirs[ch] = q[1:]
			return q[0]
		}
		nextFlow++
		mine[ch] = append(mine[ch], nextFlow)
		return nextFlow
	}
	for e, err := range events {
		if err != nil {
			return st, err
		}
		st.Events++
		if st.Events&4095 == 0 {
			if err := ctx.Err(); err != nil {
				return st, err
			}
		}
		if e.Loc < 0 || e.Loc >= len(d.Locations) {
			continue
		}
		switch e.Kind {
		case trace.Enter:
			stacks[e.Loc] = append(stacks[e.Loc], openFrame{e.Region, e.Time})
		case trace.Leave:
			s := stacks[e.Loc]
			if len(s) == 0 || s[len(s)-1].region != e.Region {
				st.Stray++
				continue
			}
			f := s[len(s)-1]
			stacks[e.Loc] = s[:len(s)-1]
			name, cat := regionName(f.region)
			begin("X", e.Loc)
			str("name", name)
			str("cat", cat)
			us("ts", ns(f.start))
			us("dur", ns(e.Time)-ns(f.start))
			buf = append(buf, '}')
			st.Slices++
		case trace.Send, trace.Isend, trace.Recv, trace.Irecv:
			send := e.Kind == trace.Send || e.Kind == trace.Isend
			ch := channel{e.Comm, e.Loc, e.Peer, e.Tag}
			ph := "s"
			if !send {
				ch = channel{e.Comm, e.Peer, e.Loc, e.Tag}
				ph = "f"
			}
			begin(ph, e.Loc)
			str("name", "message")
			str("cat", CatMessage)
			num("id", flow(ch, send))
			us("ts", ns(e.Time))
			if !send {
				str("bp", "e")
			}
			buf = append(buf, `,"args":{"peer":`...)
			buf = appendPidTid(buf, d, tid, e.Peer)
			buf = append(buf, `,"tag":`...)
			buf = strconv.AppendInt(buf, int64(e.Tag), 10)
			buf = append(buf, `,"bytes":`...)
			buf = strconv.AppendInt(buf, e.Bytes, 10)
			buf = append(buf, `,"comm":`...)
			buf = strconv.AppendInt(buf, int64(e.Comm), 10)
			buf = append(buf, `}}`...)
			st.Flows++
		case trace.CollectiveEnd:
			begin("i", e.Loc)
			str("name", e.Op.String()+" end")
			str("cat", CatCollective)
			str("s", "t")
			us("ts", ns(e.Time))
			buf = append(buf, `,"args":{"op":"`...)
			buf = append(buf, e.Op.String()...)
			buf = append(buf, `","root":`...)
			buf = appendPidTid(buf, d, tid, e.Root)
			buf = append(buf, `,"comm":`...)
			buf = strconv.AppendInt(buf, int64(e.Comm), 10)
			buf = append(buf, `,"bytes_sent":`...)
			buf = strconv.AppendInt(buf, e.Bytes, 10)
			buf = append(buf, `,"bytes_received":`...)
			buf = strconv.AppendInt(buf, e.Recvd, 10)
			buf = append(buf, `}}`...)
			st.Instants++
		case trace.BufferFlush:
			begin("X", e.Loc)
			str("name", "buffer flush")
			str("cat", CatFlush)
			us("ts", ns(e.Time))
			us("dur", ns(e.Stop)-ns(e.Time))
			buf = append(buf, '}')
			st.Slices++
		case trace.MeasurementOnOff:
			name := "measurement off"
			if e.On {
				name = "measurement on"
			}
			begin("i", e.Loc)
			str("name", name)
			str("cat", CatMeasurement)
			str("s", "t")
			us("ts", ns(e.Time))
			buf = append(buf, '}')
			st.Instants++
		}
		if len(buf) > 200<<10 {
			if err := flush(); err != nil {
				return st, err
			}
		}
	}
	for loc, s := range stacks {
		for _, f := range s {
			name, cat := regionName(f.region)
			begin("B", loc)
			str("name", name)
			str("cat", cat)
			us("ts", ns(f.start))
			buf = append(buf, '}')
			st.Unclosed++
		}
	}
	buf = append(buf, "\n]}\n"...)
	if err := flush(); err != nil {
		return st, err
	}
	return st, bw.Flush()
}

// appendPidTid writes a location as [pid, tid], or null for none.
func appendPidTid(b []byte, d *trace.Defs, tid []int, loc int) []byte {
	if loc < 0 || loc >= len(d.Locations) {
		return append(b, "null"...)
	}
	b = append(b, '[')
	b = strconv.AppendInt(b, int64(d.Locations[loc].Process), 10)
	b = append(b, ',')
	b = strconv.AppendInt(b, int64(tid[loc]), 10)
	return append(b, ']')
}

// toNanos converts ticks at res ticks per second to nanoseconds.
func toNanos(t trace.Time, res uint64) trace.Time {
	switch {
	case res == 0 || res == Resolution:
		return t
	case Resolution%res == 0:
		return t * trace.Time(Resolution/res)
	}
	return trace.Time(math.Round(float64(t) * (1e9 / float64(res))))
}

// appendMicros writes ns as a decimal number of microseconds with at most
// three decimals, exactly.
func appendMicros(b []byte, ns trace.Time) []byte {
	if ns < 0 {
		b = append(b, '-')
		ns = -ns
	}
	b = strconv.AppendInt(b, int64(ns/1000), 10)
	if f := int64(ns % 1000); f != 0 {
		b = append(b, '.')
		s := strconv.FormatInt(f+1000, 10)[1:]
		for s[len(s)-1] == '0' {
			s = s[:len(s)-1]
		}
		b = append(b, s...)
	}
	return b
}
