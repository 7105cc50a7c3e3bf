package trace

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// The text trace format is a line-oriented rendering of the common model,
// used for crafted test traces, for `perfkb trace merge` output and as a
// converter input when no OTF2 library is at hand. Definitions:
//
//	resolution TICKS_PER_SECOND
//	start TIME
//	location ID NODE PROCESS THREAD
//	region ID PARADIGM NAME...        (paradigm: user, mpi, openmp, measurement)
//	comm ID LOCATION...
//	offset LOCATION TIME OFFSET
//
// Events, "LOCATION TIME KIND ARGS", in each location's stream order:
//
//	enter REGION | leave REGION
//	send PEER TAG BYTES [COMM] | recv PEER TAG BYTES [COMM]
//	isend PEER TAG BYTES REQUEST [COMM] | isend-complete REQUEST
//	irecv-request REQUEST | irecv PEER TAG BYTES REQUEST [COMM]
//	coll-begin | coll-end OP ROOT COMM SENT RECEIVED
//	flush STOP | measurement on|off
//
// Blank lines and lines starting with # are ignored.

// ReadText parses a text trace. Errors name the line: "NAME:LINE: ...".
func ReadText(r io.Reader, name string) (*Mem, error) {
	m := &Mem{D: Defs{Resolution: 1_000_000}}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	line := 0
	fail := func(format string, args ...any) error {
		return fmt.Errorf("%s:%d: %s", name, line, fmt.Sprintf(format, args...))
	}
	for sc.Scan() {
		line++
		f := strings.Fields(sc.Text())
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		ints := func(from, n int) ([]int64, error) {
			if len(f) < from+n {
				return nil, fail("%q needs %d numeric fields, got %d", f[0], n, len(f)-from)
			}
			out := make([]int64, n)
			for i := range n {
				v, err := strconv.ParseInt(f[from+i], 10, 64)
				if err != nil {
					return nil, fail("field %d (%q) is not an integer", from+i+1, f[from+i])
				}
				out[i] = v
			}
			return out, nil
		}
		switch f[0] {
		case "resolution", "start":
			v, err := ints(1, 1)
			if err != nil {
				return nil, err
			}
			if f[0] == "resolution" {
				if v[0] <= 0 {
					return nil, fail("resolution must be positive")
				}
				m.D.Resolution = uint64(v[0])
			} else {
				m.D.Start = Time(v[0])
			}
			continue
		case "location":
			if len(f) != 5 {
				return nil, fail("expected: location ID NODE PROCESS THREAD")
			}
			id, err := ints(1, 1)
			if err != nil {
				return nil, err
			}
			pt, err := ints(3, 2)
			if err != nil {
				return nil, err
			}
			if int(id[0]) != len(m.D.Locations) {
				return nil, fail("location IDs must be 0, 1, 2, … in order; expected %d", len(m.D.Locations))
			}
			m.D.Locations = append(m.D.Locations, Location{ID: int(id[0]), Node: f[2], Process: int(pt[0]), Thread: int(pt[1])})
			m.Stream = append(m.Stream, nil)
			continue
		case "region":
			if len(f) < 4 {
				return nil, fail("expected: region ID PARADIGM NAME")
			}
			id, err := ints(1, 1)
			if err != nil {
				return nil, err
			}
			if int(id[0]) != len(m.D.Regions) {
				return nil, fail("region IDs must be 0, 1, 2, … in order; expected %d", len(m.D.Regions))
			}
			p := -1
			for i, n := range paradigmNames {
				if n == f[2] {
					p = i
				}
			}
			if p < 0 {
				return nil, fail("unknown paradigm %q (expected user, mpi, openmp or measurement)", f[2])
			}
			m.D.Regions = append(m.D.Regions, Region{ID: int(id[0]), Name: strings.Join(f[3:], " "), Paradigm: Paradigm(p)})
			continue
		case "comm":
			if len(f) < 2 {
				return nil, fail("expected: comm ID MEMBER…")
			}
			v, err := ints(1, len(f)-1)
			if err != nil {
				return nil, err
			}
			if int(v[0]) != len(m.D.Comms) {
				return nil, fail("communicator IDs must be 0, 1, 2, … in order; expected %d", len(m.D.Comms))
			}
			c := Comm{ID: int(v[0])}
			for _, x := range v[1:] {
				c.Members = append(c.Members, int(x))
			}
			m.D.Comms = append(m.D.Comms, c)
			continue
		case "offset":
			v, err := ints(1, 3)
			if err != nil {
				return nil, err
			}
			if v[0] < 0 || v[0] >= int64(len(m.D.Locations)) {
				return nil, fail("offset for unknown location %d (declare it with location first)", v[0])
			}
			for len(m.D.Offsets) <= int(v[0]) {
				m.D.Offsets = append(m.D.Offsets, nil)
			}
			m.D.Offsets[v[0]] = append(m.D.Offsets[v[0]], ClockOffset{Time: Time(v[1]), Offset: v[2]})
			continue
		}
		head, err := ints(0, 2)
		if err != nil {
			return nil, fail("expected a definition or LOCATION TIME KIND …")
		}
		if len(f) < 3 {
			return nil, fail("event without a kind")
		}
		loc := int(head[0])
		if loc < 0 || loc >= len(m.D.Locations) {
			return nil, fail("location %d is not defined", loc)
		}
		e := Event{Loc: loc, Time: Time(head[1]), Root: -1}
		args := func(n, opt int) ([]int64, error) {
			if len(f)-3 < n || len(f)-3 > n+opt {
				return nil, fail("%s takes %d arguments", f[2], n)
			}
			return ints(3, len(f)-3)
		}
		var a []int64
		switch f[2] {
		case "enter", "leave":
			e.Kind = map[string]Kind{"enter": Enter, "leave": Leave}[f[2]]
			if a, err = args(1, 0); err == nil {
				e.Region = int(a[0])
				if e.Region < 0 || e.Region >= len(m.D.Regions) {
					err = fail("region %d is not defined", e.Region)
				}
			}
		case "send", "recv":
			e.Kind = map[string]Kind{"send": Send, "recv": Recv}[f[2]]
			if a, err = args(3, 1); err == nil {
				e.Peer, e.Tag, e.Bytes = int(a[0]), int(a[1]), a[2]
				if len(a) > 3 {
					e.Comm = int(a[3])
				}
			}
		case "isend", "irecv":
			e.Kind = map[string]Kind{"isend": Isend, "irecv": Irecv}[f[2]]
			if a, err = args(4, 1); err == nil {
				e.Peer, e.Tag, e.Bytes, e.Request = int(a[0]), int(a[1]), a[2], uint64(a[3])
				if len(a) > 4 {
					e.Comm = int(a[4])
				}
			}
		case "isend-complete", "irecv-request":
			e.Kind = map[string]Kind{"isend-complete": IsendComplete, "irecv-request": IrecvRequest}[f[2]]
			if a, err = args(1, 0); err == nil {
				e.Request = uint64(a[0])
			}
		case "coll-begin":
			e.Kind = CollectiveBegin
			_, err = args(0, 0)
		case "coll-end":
			e.Kind = CollectiveEnd
			if len(f) != 8 {
				return nil, fail("coll-end takes OP ROOT COMM SENT RECEIVED")
			}
			op := -1
			for i, n := range opNames {
				if n == f[3] {
					op = i
				}
			}
			if op < 0 {
				return nil, fail("unknown collective operation %q", f[3])
			}
			e.Op = CollOp(op)
			if a, err = ints(4, 4); err == nil {
				e.Root, e.Comm, e.Bytes, e.Recvd = int(a[0]), int(a[1]), a[2], a[3]
			}
		case "flush":
			e.Kind = BufferFlush
			if a, err = args(1, 0); err == nil {
				e.Stop = Time(a[0])
			}
		case "measurement":
			e.Kind = MeasurementOnOff
			if len(f) != 4 || f[3] != "on" && f[3] != "off" {
				return nil, fail("expected: measurement on|off")
			}
			e.On = f[3] == "on"
		default:
			return nil, fail("unknown event kind %q", f[2])
		}
		if err != nil {
			return nil, err
		}
		e.Seq = int64(len(m.Stream[loc]))
		m.Stream[loc] = append(m.Stream[loc], e)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s:%d: %w", name, line, err)
	}
	for len(m.D.Offsets) < len(m.D.Locations) {
		m.D.Offsets = append(m.D.Offsets, nil)
	}
	return m, nil
}

// WriteTextDefs writes the definitions of d in the text format.
func WriteTextDefs(w io.Writer, d *Defs) error {
	bw := bufio.NewWriter(w)
	fmt.Fprintf(bw, "resolution %d\nstart %d\n", d.Resolution, d.Start)
	for _, l := range d.Locations {
		node := l.Node
		if node == "" {
			node = "-"
		}
		fmt.Fprintf(bw, "location %d %s %d %d\n", l.ID, node, l.Process, l.Thread)
	}
	for _, r := range d.Regions {
		fmt.Fprintf(bw, "region %d %s %s\n", r.ID, r.Paradigm, r.Name)
	}
	for _, c := range d.Comms {
		fmt.Fprintf(bw, "comm %d", c.ID)
		for _, m := range c.Members {
			fmt.Fprintf(bw, " %d", m)
		}
		bw.WriteString("\n")
	}
	return bw.Flush()
}

// FormatText renders one event as a text-format line (without newline).
func FormatText(e *Event) string {
	h := fmt.Sprintf("%d %d ", e.Loc, e.Time)
	switch e.Kind {
	case Enter:
		return h + "enter " + strconv.Itoa(e.Region)
	case Leave:
		return h + "leave " + strconv.Itoa(e.Region)
	case Send, Recv:
		return h + fmt.Sprintf("%s %d %d %d %d", strings.ToLower(e.Kind.String()), e.Peer, e.Tag, e.Bytes, e.Comm)
	case Isend, Irecv:
		return h + fmt.Sprintf("%s %d %d %d %d %d", strings.ToLower(e.Kind.String()), e.Peer, e.Tag, e.Bytes, e.Request, e.Comm)
	case IsendComplete:
		return h + fmt.Sprintf("isend-complete %d", e.Request)
	case IrecvRequest:
		return h + fmt.Sprintf("irecv-request %d", e.Request)
	case CollectiveBegin:
		return h + "coll-begin"
	case CollectiveEnd:
		return h + fmt.Sprintf("coll-end %s %d %d %d %d", e.Op, e.Root, e.Comm, e.Bytes, e.Recvd)
	case BufferFlush:
		return h + fmt.Sprintf("flush %d", e.Stop)
	case MeasurementOnOff:
		if e.On {
			return h + "measurement on"
		}
		return h + "measurement off"
	}
	return h + e.Kind.String()
}
