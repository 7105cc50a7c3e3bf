package sensor

import (
	"crypto/sha256"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Report table names: one per message kind.
const (
	TableInit      = "sensorinit"
	TableFinal     = "sensorfinal"
	TableBandwidth = "path.bandwidth"
	TableHost      = "host"
	TableProfiling = "app.profiling"
	TableGeneric   = "generic"
)

// Emit receives one triple of a message kind (a report table name).
type Emit func(table string, s, p, o kb.Term) error

// Warn receives a problem the mapper worked around, at a position.
type Warn func(position, format string, args ...any)

// Options configure the mapping.
type Options struct {
	// Manager is the key of the Sensor Manager Service the instances are
	// managed by: <base>sensormanager/<Manager>. Default "default".
	Manager string
}

// Mapper turns messages into PERFONTO triples with the shapes of
// convert/sample (trace.go sensors(), experiment.go). It remembers which
// sensors, instances, resources and profiling entities it has written so
// each is described once, and the payloads seen at each instance's latest
// event time, for the sequence numbers of measurement IRIs. Not safe for
// concurrent use.
type Mapper struct {
	base convert.Base
	opt  Options
	warn Warn
	seen map[string]bool
	last map[[2]string]*timeState
}

type timeState struct {
	millis int64
	hashes [][32]byte
}

// NewMapper returns a Mapper minting IRIs under base. warn may be nil.
func NewMapper(base convert.Base, opt Options, warn Warn) *Mapper {
	if opt.Manager == "" {
		opt.Manager = "default"
	}
	if warn == nil {
		warn = func(string, string, ...any) {}
	}
	return &Mapper{base: base, opt: opt, warn: warn, seen: map[string]bool{}, last: map[[2]string]*timeState{}}
}

// knownSensors maps SensorIDs to the ontology's sensor individuals.
var knownSensors = map[string]string{
	"path.bandwidth.capacity.TCP":         ontology.SensorPathBandwidthCapacityTCP,
	"path.predict.bandwidth.capacity.TCP": ontology.SensorPathPredictBandwidthCapacityTCP,
	"host.cpu.used":                       ontology.SensorHostCPUUsed,
	"host.mem.used":                       ontology.SensorHostMemUsed,
	"app.profiling":                       ontology.SensorApplicationProfiling,
}

// Kind returns the report table a message is counted in.
func Kind(msg *Message) string {
	switch {
	case msg.Kind == KindInit:
		return TableInit
	case msg.Kind == KindFinal:
		return TableFinal
	case isProfiling(msg):
		return TableProfiling
	case strings.HasPrefix(msg.SensorID, "path.") && strings.Contains(msg.SensorID, "bandwidth"):
		return TableBandwidth
	case strings.HasPrefix(msg.SensorID, "host."):
		return TableHost
	}
	return TableGeneric
}

func isProfiling(msg *Message) bool {
	return msg.SensorID == "app.profiling" || (msg.Payload != nil && msg.Payload.Name == "profiling")
}

// Map emits the triples of one message. Bad data is a *convert.Error at
// the message's position naming its SensorID and ResourceID.
func (m *Mapper) Map(msg *Message, emit Emit) error {
	w := &writer{m: m, msg: msg, table: Kind(msg), emit: emit}
	si := w.instance()
	if w.err != nil {
		return w.err
	}
	switch w.table {
	case TableInit:
		w.init(si)
	case TableFinal:
		w.t(si, ontology.InstanceFinished, kb.Literal("true", ontology.XSDBoolean))
	case TableProfiling:
		w.profiling(si)
	case TableBandwidth:
		w.bandwidth(si)
	case TableHost:
		w.host(si)
	default:
		w.generic(si)
	}
	return w.err
}

// writer emits the triples of one message, keeping the first error.
type writer struct {
	m     *Mapper
	msg   *Message
	table string
	emit  Emit
	err   error
}

func (w *writer) t(s kb.Term, p string, o kb.Term) {
	if w.err != nil || o.IsZero() {
		return
	}
	w.err = w.emit(w.table, s, kb.IRI(p), o)
}

func (w *writer) typ(s kb.Term, class string) { w.t(s, ontology.RDFType, kb.IRI(class)) }

// once reports whether key is new, marking it seen.
func (w *writer) once(key string) bool {
	if w.m.seen[key] {
		return false
	}
	w.m.seen[key] = true
	return true
}

func (w *writer) fail(format string, args ...any) {
	if w.err == nil {
		w.err = &convert.Error{Position: w.msg.Position,
			Reason: fmt.Sprintf(format, args...) + fmt.Sprintf(" (SensorID %q, ResourceID %q)", w.msg.SensorID, w.msg.ResourceID)}
	}
}

// instance writes the sensor, the sensor manager, the sensor instance and
// its resource (once each) and returns the instance.
func (w *writer) instance() kb.Term {
	sid, rid := w.msg.SensorID, w.msg.ResourceID
	b := w.m.base
	sensor := kb.IRI(knownSensors[sid])
	if sensor.Value == "" {
		sensor = b.IRI("sensor", sid)
		if w.once("s\x00" + sid) {
			cls := ontology.Sensor
			switch {
			case strings.HasPrefix(sid, "path.") || strings.HasPrefix(sid, "host."):
				cls = ontology.SystemSensor
			case strings.HasPrefix(sid, "app."):
				cls = ontology.ApplicationSensor
			}
			w.typ(sensor, cls)
			w.t(sensor, ontology.SensorID, convert.String(sid))
		}
	}
	sm := b.IRI("sensormanager", w.m.opt.Manager)
	if w.once("m\x00") {
		w.typ(sm, ontology.SensorManager)
	}
	si := b.IRI("sensorinstance", sid, rid)
	if w.once("i\x00" + sid + "\x00" + rid) {
		w.typ(si, ontology.SensorInstance)
		w.t(si, ontology.InstanceOfSensor, sensor)
		w.t(si, ontology.SensorID, convert.String(sid))
		w.t(si, ontology.ResourceID, convert.String(rid))
		w.t(si, ontology.MonitorsResource, w.resource())
		w.t(si, ontology.ManagedBy, sm)
	}
	return si
}

// resource returns the monitored resource of the message's instance,
// describing it once: a NetworkPath for path.* sensors, a host for host.*,
// a generic MonitoredResource otherwise.
func (w *writer) resource() kb.Term {
	sid, rid := w.msg.SensorID, w.msg.ResourceID
	if strings.HasPrefix(sid, "path.") {
		path := w.m.base.IRI("path", rid)
		if w.once("r\x00path\x00" + rid) {
			w.typ(path, ontology.NetworkPath)
			w.t(path, ontology.ResourceID, convert.String(rid))
		}
		return path
	}
	res := w.m.base.IRI("resource", rid)
	if w.once("r\x00res\x00" + rid) {
		w.typ(res, ontology.MonitoredResource)
		w.t(res, ontology.ResourceID, convert.String(rid))
		if strings.HasPrefix(sid, "host.") {
			w.typ(res, ontology.ComputationalNode)
			w.t(res, ontology.HostName, convert.String(rid))
		}
	}
	return res
}

// init records the sensorinit message: lifetime, schema, description and
// parameters (Fig. 6.5's params: <param name=… value=…/> or text).
func (w *writer) init(si kb.Term) {
	e := w.msg.Elem
	w.t(si, ontology.InstanceStarted, kb.Literal("true", ontology.XSDBoolean))
	if v, ok := e.Value("lifetime"); ok && v != "" {
		lit, _, err := convert.MetricLiteral(ontology.XSDDouble, v)
		if err != nil {
			w.fail("<lifetime> %v", err)
			return
		}
		w.t(si, ontology.Lifetime, lit)
	}
	if c := e.Child("schema"); c != nil {
		w.t(si, ontology.SensorSchema, convert.String(schemaText(c)))
	}
	if v, ok := e.Value("description"); ok && v != "" {
		w.t(si, ontology.InstanceDescription, convert.String(v))
	} else if v, ok := e.Value("desc"); ok && v != "" {
		w.t(si, ontology.InstanceDescription, convert.String(v))
	}
	if ps := e.Child("params"); ps != nil {
		for i, p := range ps.Children {
			name, _ := p.Value("name")
			value, ok := p.AttrValue("value")
			if !ok {
				value = strings.TrimSpace(p.Text)
			}
			f := kb.IRI(si.Value + "/param/" + strconv.Itoa(i+1))
			w.t(si, ontology.HasSensorField, f)
			w.typ(f, ontology.SensorField)
			w.t(f, ontology.FieldName, convert.String("params/"+name))
			w.t(f, ontology.FieldValue, convert.String(value))
		}
	}
}

// schemaText is the schema as sent: its text (CDATA) or, for inline XML,
// the element names.
func schemaText(n *Node) string {
	if t := strings.TrimSpace(n.Text); t != "" {
		return t
	}
	var sb strings.Builder
	writeNode(&sb, n)
	return sb.String()
}

func writeNode(sb *strings.Builder, n *Node) {
	sb.WriteString("<" + n.Name)
	for _, a := range n.Attr {
		fmt.Fprintf(sb, " %s=%q", a.Name.Local, a.Value)
	}
	sb.WriteString(">")
	sb.WriteString(strings.TrimSpace(n.Text))
	for _, c := range n.Children {
		writeNode(sb, c)
	}
	sb.WriteString("</" + n.Name + ">")
}

// eventTime finds the message's eventtime (payload element or attribute,
// or the entry's attribute): the raw value and the time it means.
func (w *writer) eventTime() (raw string, t time.Time, ok bool) {
	var v string
	var found bool
	if p := w.msg.Payload; p != nil {
		if v, found = p.AttrValue("eventtime"); !found {
			if n := p.Find("eventtime"); n != nil {
				v, found = n.Text, true
			}
		}
	}
	if !found {
		v, found = w.msg.Elem.Value("eventtime")
	}
	if !found {
		return "", time.Time{}, false
	}
	v = strings.TrimSpace(v)
	n, err := strconv.ParseInt(strings.TrimPrefix(v, "+"), 10, 64)
	if err != nil {
		w.fail("<eventtime> %q is not an xsd:long (milliseconds since the Unix epoch)", v)
		return "", time.Time{}, false
	}
	// SCALEA-G is Java: System.currentTimeMillis(). Values below 10^11
	// (before 1973 in milliseconds, after 5138 in seconds) are seconds.
	if n > -1e11 && n < 1e11 {
		t = time.Unix(n, 0)
	} else {
		t = time.UnixMilli(n)
	}
	return strconv.FormatInt(n, 10), t.UTC(), true
}

// measurement returns the IRI of the message's measurement, from
// (SensorID, ResourceID, eventtime, sequence number among equal times), and
// writes the triples every measurement has.
func (w *writer) measurement(si kb.Term, class string, about kb.Term) kb.Term {
	raw, at, hasTime := w.eventTime()
	if w.err != nil {
		return kb.Term{}
	}
	h := hashNode(w.msg.Payload)
	var m kb.Term
	if hasTime {
		key := [2]string{w.msg.SensorID, w.msg.ResourceID}
		ms := at.UnixMilli()
		st := w.m.last[key]
		if st == nil || st.millis != ms {
			st = &timeState{millis: ms}
			w.m.last[key] = st
		}
		seq := 0
		for i, x := range st.hashes {
			if x == h {
				seq = i + 1
			}
		}
		if seq == 0 {
			st.hashes = append(st.hashes, h)
			seq = len(st.hashes)
		}
		m = w.m.base.IRI("measurement", w.msg.SensorID, w.msg.ResourceID, raw, strconv.Itoa(seq))
	} else {
		// No time: the payload itself identifies the measurement, so a
		// resent message is still stored once.
		m = w.m.base.IRI("measurement", w.msg.SensorID, w.msg.ResourceID, fmt.Sprintf("h%x", h[:8]))
	}
	w.typ(m, class)
	w.t(m, ontology.ProducedBy, si)
	w.t(m, ontology.AboutResource, about)
	if hasTime {
		w.t(m, ontology.MeasurementTime, kb.Literal(at.Format("2006-01-02T15:04:05.999Z07:00"), ontology.XSDDateTime))
		w.t(m, ontology.RawEventTime, kb.Literal(raw, ontology.XSDLong))
	}
	return m
}

// leaf returns the trimmed text of the payload element name (or the
// payload root's attribute name).
func (w *writer) leaf(name string) (string, bool) {
	p := w.msg.Payload
	if v, ok := p.AttrValue(name); ok {
		return strings.TrimSpace(v), true
	}
	if n := p.Find(name); n != nil {
		return strings.TrimSpace(n.Text), true
	}
	return "", false
}

// bandwidth maps Fig. 6.3's data: source, destination, eventtime,
// bandwidth (MB/s).
func (w *writer) bandwidth(si kb.Term) {
	path := w.resource()
	bw, ok := w.leaf("bandwidth")
	if !ok {
		w.fail("%s data has no <bandwidth> element", w.msg.SensorID)
		return
	}
	lit, _, err := convert.MetricLiteral(ontology.XSDDouble, bw)
	if err != nil || bw == "" {
		w.fail("element <bandwidth> = %q is not an xsd:double", bw)
		return
	}
	src, _ := w.leaf("source")
	dst, _ := w.leaf("destination")
	if src != "" && w.once("r\x00src\x00"+w.msg.ResourceID+"\x00"+src) {
		w.t(path, ontology.PathSource, convert.String(src))
	}
	if dst != "" && w.once("r\x00dst\x00"+w.msg.ResourceID+"\x00"+dst) {
		w.t(path, ontology.PathDestination, convert.String(dst))
	}
	m := w.measurement(si, ontology.PathBandwidthMeasurement, path)
	if w.err != nil {
		return
	}
	// Source and destination are stated on the path (as convert/sample
	// does), not repeated on every measurement.
	w.t(m, ontology.Bandwidth, lit)
	w.t(m, ontology.MeasurementUnit, convert.String("MB/s"))
}

// host maps host.cpu.used / host.mem.used data: a <value> with a unit
// (attribute unit="…" or a <unit> element).
func (w *writer) host(si kb.Term) {
	res := w.resource()
	p := w.msg.Payload
	vn := p.Find("value")
	if vn == nil {
		w.fail("%s data has no <value> element", w.msg.SensorID)
		return
	}
	v := strings.TrimSpace(vn.Text)
	lit, _, err := convert.MetricLiteral(ontology.XSDDouble, v)
	if err != nil || v == "" {
		w.fail("element <value> = %q is not an xsd:double", v)
		return
	}
	unit, ok := vn.AttrValue("unit")
	if !ok {
		unit, _ = w.leaf("unit")
	}
	m := w.measurement(si, ontology.HostMeasurement, res)
	if w.err != nil {
		return
	}
	w.t(m, ontology.MeasuredValue, lit)
	if unit = strings.TrimSpace(unit); unit != "" {
		w.t(m, ontology.MeasurementUnit, convert.String(unit))
	} else {
		w.m.warn(w.msg.Position, "%s value has no unit (SensorID %q, ResourceID %q)", w.msg.SensorID, w.msg.SensorID, w.msg.ResourceID)
	}
}

// generic keeps the data of a sensor without a specific mapping: a
// SensorMeasurement with every leaf (element text and attribute) as a
// name/value SensorField, in document order.
func (w *writer) generic(si kb.Term) {
	res := w.resource()
	m := w.measurement(si, ontology.SensorMeasurement, res)
	if w.err != nil {
		return
	}
	i := 0
	// path is the slash-separated path of n, extended and cut back in
	// place so that building every path costs time linear in the message.
	var path []byte
	var walk func(n *Node)
	walk = func(n *Node) {
		top := len(path) == 0
		for _, a := range n.Attr {
			if top && (a.Name.Local == "SensorID" || a.Name.Local == "ResourceID") {
				continue
			}
			i++
			w.field(m, i, string(path)+"@"+a.Name.Local, a.Value)
		}
		text := strings.TrimSpace(n.Text)
		if len(n.Children) == 0 && (text != "" || len(n.Attr) == 0) {
			name := string(path)
			if top {
				name = n.Name
			}
			i++
			w.field(m, i, name, text)
		}
		for _, c := range n.Children {
			if top && (c.Name == "SensorID" || c.Name == "ResourceID") {
				continue
			}
			mark := len(path)
			if !top {
				path = append(path, '/')
			}
			path = append(path, c.Name...)
			walk(c)
			path = path[:mark]
		}
	}
	walk(w.msg.Payload)
}

func (w *writer) field(m kb.Term, i int, name, value string) {
	f := kb.IRI(m.Value + "/field/" + strconv.Itoa(i))
	w.t(m, ontology.HasSensorField, f)
	w.typ(f, ontology.SensorField)
	w.t(f, ontology.FieldName, convert.String(name))
	w.t(f, ontology.FieldValue, convert.String(value))
}

// hashNode identifies a payload by its content.
func hashNode(n *Node) [32]byte {
	var sb strings.Builder
	if n != nil {
		writeNode(&sb, n)
	}
	return sha256.Sum256([]byte(sb.String()))
}
