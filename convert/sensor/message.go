package sensor

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/textpos"
)

// Message kinds: the three messages of the protocol of 6.2.3.6 and a bare
// <sensordata> document (the Fig. 6.3 data without its envelope), which is
// read as a data entry.
const (
	KindInit  = "sensorinit"
	KindEntry = "sensordataentry"
	KindFinal = "sensorfinal"
	KindData  = "sensordata"
)

// Message is one protocol message.
type Message struct {
	// Kind is KindInit, KindEntry or KindFinal (a bare <sensordata> is
	// KindEntry with Bare set).
	Kind string
	// Bare is true for a <sensordata> document outside an envelope.
	Bare bool
	// SensorID and ResourceID identify the sensor instance (6.2.3.1); every
	// message carries both, as attributes or child elements.
	SensorID, ResourceID string
	// Elem is the message element itself (for init: schema, lifetime,
	// description, params children; attributes as sent).
	Elem *Node
	// Payload is the measurement data of a data entry: the XML inside the
	// entry's <![CDATA[…]]>, parsed, or the inline element, or Elem itself
	// for a bare <sensordata>. Nil for init and final messages.
	Payload *Node
	// Position is where the message starts ("FILE:LINE:COLUMN" or
	// "connection #N byte B").
	Position string
	// Offset is the byte offset of the message start in its stream and
	// Size the bytes it took, up to its closing tag.
	Offset, Size int64
}

// Node is an XML element of a message or payload: its local name,
// attributes, child elements and the text directly inside it.
type Node struct {
	Name     string
	Attr     []xml.Attr
	Children []*Node
	Text     string
	Line     int
	Column   int
}

// AttrValue returns the value of the attribute with the given local name.
func (n *Node) AttrValue(name string) (string, bool) {
	for _, a := range n.Attr {
		if a.Name.Local == name {
			return a.Value, true
		}
	}
	return "", false
}

// Child returns the first child element with the given local name.
func (n *Node) Child(name string) *Node {
	for _, c := range n.Children {
		if c.Name == name {
			return c
		}
	}
	return nil
}

// Find returns the first element named name in n's subtree (n included),
// depth first.
func (n *Node) Find(name string) *Node {
	if n.Name == name {
		return n
	}
	for _, c := range n.Children {
		if f := c.Find(name); f != nil {
			return f
		}
	}
	return nil
}

// Value returns a field given as an attribute of n or as the text of a
// child element (SensorID="x" or <SensorID>x</SensorID>), trimmed.
func (n *Node) Value(name string) (string, bool) {
	if v, ok := n.AttrValue(name); ok {
		return strings.TrimSpace(v), true
	}
	if c := n.Child(name); c != nil {
		return strings.TrimSpace(c.Text), true
	}
	return "", false
}

// MaxDepth bounds the element nesting of a message and of its payload.
// Sensor data is a few levels deep; without a bound one message nested
// 100,000 deep costs memory quadratic in its depth downstream (each level's
// field path repeats its parent's).
const MaxDepth = 256

// ReaderOptions configure a Reader.
type ReaderOptions struct {
	// Source names the input in errors (a file name, a connection).
	Source string
	// Position formats a position from a 1-based line and column and a
	// 0-based byte offset; the default is convert.TextPosition(Source, …).
	Position func(line, column int, offset int64) string
	// MaxMessage bounds the bytes of one message; 0 means no bound.
	MaxMessage int64
	// Gate, when set, is called with the bytes of a message's measurement
	// data before they are parsed and returns a function called once
	// they are: a server parsing sensor messages beside queries bounds
	// how many large ones are parsed at once (perfkb sensor-listen
	// --http).
	Gate func(payloadBytes int) (done func())
}

// Reader reads the messages of a sensor data stream: messages as sent over
// TCP (concatenated top-level elements), messages wrapped in one root
// element such as <sensordatastream>, or a bare <sensordata> document.
type Reader struct {
	d    *xml.Decoder
	opt  ReaderOptions
	text bool   // positions are lines and columns of a file (no opt.Position)
	wrap string // the open wrapping root element, if any
	done bool
	// boundary is the byte offset where the current message started or
	// the last one ended, for limitReader.
	boundary int64

	// the message being read, for Partial
	inMsg               bool
	msgOffset           int64
	msgLine, msgCol     int
	msgSensor, msgResrc string
}

// NewReader returns a Reader over r.
func NewReader(r io.Reader, opt ReaderOptions) *Reader {
	rd := &Reader{opt: opt}
	if opt.MaxMessage > 0 {
		r = &limitReader{r: r, rd: rd}
	}
	d := xml.NewDecoder(r)
	d.Strict = true
	if opt.Position == nil {
		rd.text = true
		src := opt.Source
		opt.Position = func(line, col int, _ int64) string { return convert.TextPosition(src, line, col) }
	}
	rd.d, rd.opt = d, opt
	return rd
}

// limitReader stops a stream that sends more than MaxMessage bytes (plus
// the decoder's read-ahead) without completing a message, so one huge
// token cannot exhaust memory before the per-token check sees it.
type limitReader struct {
	r     io.Reader
	rd    *Reader
	total int64
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.total-l.rd.boundary > l.rd.opt.MaxMessage+64<<10 {
		return 0, ErrTooLarge
	}
	n, err := l.r.Read(p)
	l.total += int64(n)
	return n, err
}

// Partial describes the message being read when Next failed: its start
// offset and the SensorID and ResourceID seen so far ("" when unknown).
// ok is false when the failure was between messages.
func (r *Reader) Partial() (offset int64, sensorID, resourceID string, ok bool) {
	return r.msgOffset, r.msgSensor, r.msgResrc, r.inMsg
}

// Offset returns the number of bytes consumed so far.
func (r *Reader) Offset() int64 { return r.d.InputOffset() }

// errorf returns a positioned *convert.Error at the decoder's position,
// naming the message's sensor instance when known.
func (r *Reader) errorAt(line, col int, off int64, format string, args ...any) *convert.Error {
	reason := fmt.Sprintf(format, args...)
	if r.inMsg && (r.msgSensor != "" || r.msgResrc != "") {
		reason += fmt.Sprintf(" (SensorID %q, ResourceID %q)", r.msgSensor, r.msgResrc)
	}
	if r.text {
		return convert.TextErrorf(r.opt.Source, textpos.Position{Source: r.opt.Source, Line: line, Column: col}, "%s", reason)
	}
	return &convert.Error{Source: r.opt.Source, Position: r.opt.Position(line, col, off), Reason: reason}
}

func (r *Reader) here(format string, args ...any) *convert.Error {
	line, col := r.d.InputPos()
	return r.errorAt(line, col, r.d.InputOffset(), format, args...)
}

// ErrTruncated is wrapped by the error of a stream that ends inside a
// message (a sensor that disconnected mid-message).
var ErrTruncated = errors.New("stream ends inside a message")

// ErrTooLarge is wrapped by the error of a message above
// ReaderOptions.MaxMessage.
var ErrTooLarge = errors.New("message too large")

// xmlError turns a decoder error into a positioned error. Errors of the
// underlying reader (a closed connection, a deadline) stay reachable
// through errors.Is.
func (r *Reader) xmlError(err error) error {
	var se *xml.SyntaxError
	switch {
	case err == io.EOF || err == io.ErrUnexpectedEOF || (errors.As(err, &se) && strings.Contains(se.Msg, "unexpected EOF")):
		e := r.here("unexpected end of input inside a message (want its closing tag)")
		e.WithCause(ErrTruncated)
		return e
	case se != nil:
		e := r.here("malformed XML: %s", se.Msg)
		e.WithCause(se)
		return e
	}
	e := r.here("reading XML: %v", err)
	e.WithCause(err)
	return e
}

// Next returns the next message; io.EOF after the last one. Errors are
// *convert.Error with the position; after one, the stream is unusable.
func (r *Reader) Next() (*Message, error) {
	if r.done {
		return nil, io.EOF
	}
	for {
		line, col := r.d.InputPos()
		off := r.d.InputOffset()
		tok, err := r.d.Token()
		if err == io.EOF {
			r.done = true
			if r.wrap != "" {
				return nil, r.errorAt(line, col, off, "unexpected end of input: <%s> is not closed", r.wrap)
			}
			return nil, io.EOF
		}
		if err != nil {
			r.done = true
			var se *xml.SyntaxError
			if errors.As(err, &se) && strings.Contains(se.Msg, "unexpected EOF") && r.wrap != "" {
				return nil, r.errorAt(line, col, off, "unexpected end of input: <%s> is not closed", r.wrap)
			}
			return nil, r.xmlError(err)
		}
		switch t := tok.(type) {
		case xml.ProcInst, xml.Comment, xml.Directive:
			continue
		case xml.CharData:
			if len(bytes.TrimSpace(t)) != 0 {
				r.done = true
				return nil, r.errorAt(line, col, off, "text %q outside a message (want <sensorinit>, <sensordataentry>, <sensorfinal> or <sensordata>)", clip(string(bytes.TrimSpace(t))))
			}
		case xml.EndElement:
			// only the wrapper can end here
			r.wrap = ""
			continue
		case xml.StartElement:
			kind := t.Name.Local
			switch kind {
			case KindInit, KindEntry, KindFinal, KindData:
				msg, err := r.message(t, line, col, off)
				if err != nil {
					r.done = true
					return nil, err
				}
				return msg, nil
			}
			if r.wrap != "" {
				r.done = true
				return nil, r.errorAt(line, col, off, "unexpected element <%s> in <%s> (want <sensorinit>, <sensordataentry>, <sensorfinal> or <sensordata>)", kind, r.wrap)
			}
			r.wrap = kind // a wrapping root such as <sensordatastream>
		}
	}
}

// message reads the element started by start into a Message.
func (r *Reader) message(start xml.StartElement, line, col int, off int64) (*Message, error) {
	r.inMsg, r.msgOffset, r.msgLine, r.msgCol = true, off, line, col
	r.boundary = off
	r.msgSensor, r.msgResrc = "", ""
	for _, a := range start.Attr {
		switch a.Name.Local {
		case "SensorID":
			r.msgSensor = a.Value
		case "ResourceID":
			r.msgResrc = a.Value
		}
	}
	elem, err := r.element(start, line, col, 1)
	if err != nil {
		return nil, err
	}
	msg := &Message{Kind: start.Name.Local, Elem: elem, Position: r.opt.Position(line, col, off),
		Offset: off, Size: r.d.InputOffset() - off}
	if msg.Kind == KindData {
		msg.Kind, msg.Bare, msg.Payload = KindEntry, true, elem
	}
	msg.SensorID, _ = elem.Value("SensorID")
	msg.ResourceID, _ = elem.Value("ResourceID")
	if msg.Kind == KindEntry && !msg.Bare {
		if err := r.payload(msg); err != nil {
			return nil, err
		}
	}
	if msg.Payload != nil {
		// A payload may carry the identifiers the envelope lacks.
		if msg.SensorID == "" {
			msg.SensorID, _ = msg.Payload.Value("SensorID")
		}
		if msg.ResourceID == "" {
			msg.ResourceID, _ = msg.Payload.Value("ResourceID")
		}
	}
	r.msgSensor, r.msgResrc = msg.SensorID, msg.ResourceID
	switch {
	case msg.SensorID == "":
		return nil, r.errorAt(line, col, off, "<%s> has no SensorID (want a SensorID attribute or child element)", start.Name.Local)
	case msg.ResourceID == "":
		return nil, r.errorAt(line, col, off, "<%s> has no ResourceID (want a ResourceID attribute or child element)", start.Name.Local)
	}
	r.inMsg = false
	r.boundary = r.d.InputOffset()
	return msg, nil
}

// element reads the rest of an element whose start tag was just read.
func (r *Reader) element(start xml.StartElement, line, col, depth int) (*Node, error) {
	n := &Node{Name: start.Name.Local, Attr: start.Attr, Line: line, Column: col}
	var text strings.Builder
	for {
		if r.opt.MaxMessage > 0 && r.d.InputOffset()-r.msgOffset > r.opt.MaxMessage {
			e := r.here("message exceeds the maximum size of %d bytes", r.opt.MaxMessage)
			e.WithCause(ErrTooLarge)
			return nil, e
		}
		l, c := r.d.InputPos()
		tok, err := r.d.Token()
		if err != nil {
			return nil, r.xmlError(err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if depth >= MaxDepth {
				return nil, r.errorAt(l, c, r.d.InputOffset(), "<%s> is nested more than %d elements deep", t.Name.Local, MaxDepth)
			}
			child, err := r.element(t, l, c, depth+1)
			if err != nil {
				return nil, err
			}
			if depth == 1 {
				switch child.Name {
				case "SensorID":
					r.msgSensor = strings.TrimSpace(child.Text)
				case "ResourceID":
					r.msgResrc = strings.TrimSpace(child.Text)
				}
			}
			n.Children = append(n.Children, child)
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			n.Text = text.String()
			return n, nil
		}
	}
}

// payload finds and parses the measurement data of a data entry: the text
// (CDATA) directly inside the entry or inside a child <data>, else an
// inline child element other than the identifiers.
func (r *Reader) payload(msg *Message) error {
	src := msg.Elem
	if d := src.Child("data"); d != nil {
		src = d
	}
	text := strings.TrimSpace(src.Text)
	if text == "" {
		for _, c := range src.Children {
			switch c.Name {
			case "SensorID", "ResourceID", "eventtime":
				continue
			}
			msg.Payload = c
			return nil
		}
		return r.errorAt(msg.Elem.Line, msg.Elem.Column, msg.Offset, "<sensordataentry> has no measurement data (want <![CDATA[<sensordata>…</sensordata>]]>)")
	}
	done := func() {}
	if r.opt.Gate != nil {
		done = r.opt.Gate(len(text))
	}
	root, err := parsePayload(text)
	done()
	if err != nil {
		return r.errorAt(msg.Elem.Line, msg.Elem.Column, msg.Offset, "measurement data of <sensordataentry> is not well-formed XML: %v", err)
	}
	msg.Payload = root
	return nil
}

// parsePayload parses the XML of a CDATA payload: one root element.
func parsePayload(text string) (*Node, error) {
	d := xml.NewDecoder(strings.NewReader(text))
	d.Strict = true
	var root *Node
	var stack []*Node
	var texts []*strings.Builder
	for {
		line, col := d.InputPos()
		tok, err := d.Token()
		if err == io.EOF {
			if len(stack) != 0 {
				return nil, fmt.Errorf("payload line %d: <%s> is not closed", line, stack[len(stack)-1].Name)
			}
			if root == nil {
				return nil, fmt.Errorf("no element")
			}
			return root, nil
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, fmt.Errorf("payload line %d: %s", se.Line, se.Msg)
			}
			return nil, err
		}
		switch t := tok.(type) {
		case xml.StartElement:
			if len(stack) >= MaxDepth {
				return nil, fmt.Errorf("payload line %d column %d: <%s> is nested more than %d elements deep", line, col, t.Name.Local, MaxDepth)
			}
			n := &Node{Name: t.Name.Local, Attr: t.Copy().Attr, Line: line, Column: col}
			if len(stack) == 0 {
				if root != nil {
					return nil, fmt.Errorf("payload line %d: a second root element <%s>", line, n.Name)
				}
				root = n
			} else {
				p := stack[len(stack)-1]
				p.Children = append(p.Children, n)
			}
			stack = append(stack, n)
			texts = append(texts, &strings.Builder{})
		case xml.CharData:
			if len(stack) == 0 {
				if len(bytes.TrimSpace(t)) != 0 {
					return nil, fmt.Errorf("payload line %d: text %q outside the root element", line, clip(string(t)))
				}
				continue
			}
			texts[len(texts)-1].Write(t)
		case xml.EndElement:
			stack[len(stack)-1].Text = texts[len(texts)-1].String()
			stack, texts = stack[:len(stack)-1], texts[:len(texts)-1]
		}
	}
}

func clip(s string) string {
	if len(s) > 40 {
		return s[:40] + "…"
	}
	return s
}

// Footprint estimates the memory a parsed message holds, in bytes: the
// element trees of the message and its payload, with a per-element and
// per-attribute overhead. A parsed message takes many times its size on
// the wire, so queues of messages are bounded by this, not by the count.
func (m *Message) Footprint() int64 {
	const msgOverhead = 256
	n := int64(msgOverhead + len(m.Kind) + len(m.SensorID) + len(m.ResourceID) + len(m.Position))
	n += m.Elem.footprint()
	if m.Payload != m.Elem {
		n += m.Payload.footprint()
	}
	return n
}

func (n *Node) footprint() int64 {
	if n == nil {
		return 0
	}
	// A Node is about 120 bytes; an xml.Attr about 64 plus its strings; a
	// child pointer 8.
	size := int64(120 + len(n.Name) + len(n.Text) + 8*cap(n.Children))
	for _, a := range n.Attr {
		size += int64(64 + len(a.Name.Space) + len(a.Name.Local) + len(a.Value))
	}
	for _, c := range n.Children {
		size += c.footprint()
	}
	return size
}
