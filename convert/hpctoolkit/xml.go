package hpctoolkit

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
)

// xmlMetric is one <MetricDB> of experiment.xml: a column of every
// metric-db file.
type xmlMetric struct {
	name      string // as written: "CPUTIME (usec) (I)"
	inclusive bool
	column    int // db-id
	out       metricOut
}

// Experiment is what the converter needs of an experiment.xml database:
// the metric-db columns and the calling-context tree.
type Experiment struct {
	metrics  []xmlMetric
	columns  int        // db-num-metrics
	Contexts []*Context // procedure frames, inlined procedures, loops and statements, parents first
	byID     map[uint32]*Context
	// lexKids lists, per context, the children whose exclusive values are
	// part of its own (loops, statements, inlined procedures: everything
	// not reached through a call site).
	lexKids   map[uint32][]uint32
	callSites []uint32 // <C> ids: not contexts, their children hang below the caller
	maxID     uint32
}

// Context returns the context with the given id, or nil.
func (e *Experiment) Context(id uint32) *Context { return e.byID[id] }

// ReadExperiment parses experiment.xml (HPCToolkit's XML database,
// version 2.x, as hpcprof wrote it before 2020), named name in errors.
func ReadExperiment(data []byte, name string) (*Experiment, error) {
	fail := func(off int64, format string, args ...any) error {
		l, c := lineCol(data, off)
		return convert.Errorf(name, fmt.Sprintf("%s:%d:%d", name, l, c), format, args...)
	}
	e := &Experiment{byID: map[uint32]*Context{}, lexKids: map[uint32][]uint32{}}
	files, procs, modules := map[string]string{}, map[string]string{}, map[string]string{}
	// open is the stack of open elements in the profile data: a context,
	// or nil for a call site (and for <M> and unknown elements, popped
	// at once).
	type open struct {
		cx   *Context
		tag  string
		file string // the source file statements below it are in
	}
	var stack []open
	inData, sawRoot, sawData := false, false, false
	dec := xml.NewDecoder(bytes.NewReader(data))
	dec.Strict = true
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, convert.Errorf(name, fmt.Sprintf("%s:%d", name, se.Line), "XML syntax: %s", se.Msg)
			}
			return nil, fail(dec.InputOffset(), "XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			at := func(k string) (string, bool) {
				for _, a := range t.Attr {
					if a.Name.Local == k {
						return a.Value, true
					}
				}
				return "", false
			}
			num := func(k string) (int, error) {
				s, ok := at(k)
				if !ok {
					return 0, fail(off, "<%s> has no %s attribute", t.Name.Local, k)
				}
				n, err := strconv.Atoi(strings.TrimSpace(s))
				if err != nil || n < 0 {
					return 0, fail(off, "<%s %s=%q>: expected a non-negative integer", t.Name.Local, k, s)
				}
				return n, nil
			}
			if !sawRoot {
				if t.Name.Local != "HPCToolkitExperiment" {
					return nil, fail(off, "expected an <HPCToolkitExperiment> root element (HPCToolkit experiment.xml), got <%s>", t.Name.Local)
				}
				if v, _ := at("version"); !strings.HasPrefix(v, "2.") && !strings.HasPrefix(v, "1.") {
					return nil, fail(off, "experiment.xml version %q: only versions 1.x and 2.x are read", v)
				}
				sawRoot = true
				continue
			}
			if !inData {
				switch t.Name.Local {
				case "MetricDB":
					id, err := num("db-id")
					if err != nil {
						return nil, err
					}
					cols, err := num("db-num-metrics")
					if err != nil {
						return nil, err
					}
					if id >= cols {
						return nil, fail(off, "<MetricDB db-id=%d> is not below db-num-metrics=%d", id, cols)
					}
					if e.columns != 0 && cols != e.columns {
						return nil, fail(off, "<MetricDB db-num-metrics=%d> differs from an earlier %d", cols, e.columns)
					}
					e.columns = cols
					n, _ := at("n")
					typ, _ := at("t")
					base, ok := strings.CutSuffix(n, " (I)")
					if !ok {
						base, _ = strings.CutSuffix(n, " (E)")
					}
					m := xmlMetric{name: n, column: id, inclusive: typ == "inclusive"}
					if typ != "inclusive" && typ != "exclusive" {
						return nil, fail(off, "<MetricDB n=%q t=%q>: expected t=\"inclusive\" or \"exclusive\"", n, typ)
					}
					m.out.name, m.out.scale = catalogName(base)
					if !m.inclusive {
						m.out.name = "excl_" + m.out.name
					}
					e.metrics = append(e.metrics, m)
				case "File", "Procedure", "LoadModule":
					i, _ := at("i")
					n, _ := at("n")
					map[string]map[string]string{"File": files, "Procedure": procs, "LoadModule": modules}[t.Name.Local][i] = n
				case "SecCallPathProfileData":
					if sawData {
						return nil, fail(off, "a second <SecCallPathProfileData>: only one call-path profile is read")
					}
					inData, sawData = true, true
				}
				continue
			}
			tag := t.Name.Local
			if tag == "M" {
				stack = append(stack, open{tag: tag})
				continue
			}
			var parent *open
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k].tag != "M" {
					parent = &stack[k]
					break
				}
			}
			file := ""
			if parent != nil {
				file = parent.file
			}
			if tag != "PF" && tag != "Pr" && tag != "L" && tag != "S" && tag != "C" {
				return nil, fail(off, "unexpected <%s> in the call-path profile data (expected PF, Pr, L, S, C or M)", tag)
			}
			id, err := num("i")
			if err != nil {
				return nil, err
			}
			if id == 0 || id > math.MaxInt32 {
				return nil, fail(off, "<%s i=%d>: context ids are positive", tag, id)
			}
			line, _ := num("l")
			if f, ok := at("f"); ok {
				if _, known := files[f]; !known {
					return nil, fail(off, "<%s f=%q>: no such <File> in the FileTable", tag, f)
				}
				file = files[f]
			}
			if tag == "C" {
				e.callSites = append(e.callSites, uint32(id))
				stack = append(stack, open{tag: tag, file: file})
				e.maxID = max(e.maxID, uint32(id))
				continue
			}
			if _, dup := e.byID[uint32(id)]; dup || slices.Contains(e.callSites, uint32(id)) {
				return nil, fail(off, "<%s i=%d>: context id used twice", tag, id)
			}
			cx := &Context{ID: uint32(id), File: file, Line: uint32(line)}
			switch tag {
			case "PF", "Pr":
				n, _ := at("n")
				pname, known := procs[n]
				if !known {
					return nil, fail(off, "<%s n=%q>: no such <Procedure> in the ProcedureTable", tag, n)
				}
				lm, _ := at("lm")
				cx.Lexical = lexFunction
				cx.Function = &Function{Name: pname, Module: modules[lm], File: file, Line: uint32(line)}
				if tag == "Pr" {
					cx.Relation = 2
				}
			case "L":
				cx.Lexical = lexLoop
			case "S":
				cx.Lexical = lexLine
			}
			// The parent context: the nearest enclosing one, across call sites.
			viaCall := false
			for k := len(stack) - 1; k >= 0; k-- {
				if stack[k].tag == "C" {
					viaCall = true
				}
				if stack[k].cx != nil {
					cx.Parent = stack[k].cx.ID
					if tag == "PF" {
						cx.Relation = 1
					}
					if !viaCall && tag != "PF" {
						e.lexKids[cx.Parent] = append(e.lexKids[cx.Parent], cx.ID)
					}
					break
				}
			}
			e.byID[cx.ID] = cx
			e.Contexts = append(e.Contexts, cx)
			e.maxID = max(e.maxID, cx.ID)
			stack = append(stack, open{cx: cx, tag: tag, file: file})
		case xml.EndElement:
			if !inData {
				continue
			}
			if t.Name.Local == "SecCallPathProfileData" {
				inData = false
				continue
			}
			stack = stack[:len(stack)-1]
		}
	}
	if !sawRoot {
		return nil, fail(0, "no <HPCToolkitExperiment> element: not an HPCToolkit experiment.xml")
	}
	if !sawData {
		return nil, fail(int64(len(data)), "no <SecCallPathProfileData>: experiment.xml has no call-path profile")
	}
	if len(e.metrics) == 0 {
		return nil, fail(int64(len(data)), "no <MetricDB> in the MetricDBTable: the database has no metric-db columns")
	}
	if len(e.Contexts) == 0 {
		return nil, fail(int64(len(data)), "the call-path profile has no contexts")
	}
	return e, nil
}

// lineCol returns the 1-based line and column of a byte offset.
func lineCol(b []byte, off int64) (int, int) {
	off = min(max(off, 0), int64(len(b)))
	line := 1 + bytes.Count(b[:off], []byte{'\n'})
	return line, int(off) - bytes.LastIndexByte(b[:off], '\n')
}

// metricDBMagic starts every metric-db file, followed by a 5-byte version
// and the byte order ('b': big-endian).
const metricDBMagic = "HPCPROF-metricdb__"

// metricDBHeader is the header's size: magic, version, byte order, the
// number of contexts and the number of metrics (int32 each).
const metricDBHeader = 32

// readMetricDB checks a metric-db file's header against the experiment
// and returns its values: one row of e.columns float64 per context id
// 1 … nodes.
func readMetricDB(b []byte, name string, e *Experiment) (values []byte, nodes int, err error) {
	errAt := func(off int, what, format string, args ...any) error {
		return convert.Errorf(name, fmt.Sprintf("byte %d (%s)", off, what), format, args...)
	}
	if len(b) < metricDBHeader {
		return nil, 0, errAt(len(b), "header", "%d bytes, shorter than the %d-byte metric-db header: truncated or not a metric-db file", len(b), metricDBHeader)
	}
	if string(b[:len(metricDBMagic)]) != metricDBMagic {
		return nil, 0, errAt(0, "magic", "expected %q: not an HPCToolkit metric-db file", metricDBMagic)
	}
	if b[23] != 'b' {
		return nil, 0, errAt(23, "byte order", "byte order %q: only big-endian ('b') metric-db files are written by hpcprof", b[23])
	}
	n := int32(binary.BigEndian.Uint32(b[24:]))
	m := int32(binary.BigEndian.Uint32(b[28:]))
	if n < 0 || uint32(n) < e.maxID {
		return nil, 0, errAt(24, "number of contexts", "%d contexts, but experiment.xml has context id %d", n, e.maxID)
	}
	if int(m) != e.columns {
		return nil, 0, errAt(28, "number of metrics", "%d metrics, but experiment.xml's MetricDBTable says db-num-metrics=%d", m, e.columns)
	}
	size := int64(n) * int64(m) * 8
	if int64(len(b)-metricDBHeader) < size {
		return nil, 0, errAt(len(b), "values", "%d contexts × %d metrics need %d bytes of values, the file has %d: truncated", n, m, size, len(b)-metricDBHeader)
	}
	return b[metricDBHeader : metricDBHeader+size], int(n), nil
}

// metricDBName matches the metric-db file names hpcprof writes:
// <program>-<rank>-<thread>-<host id>-<pid>-<generation>.metric-db, thread
// ids from 500 on being GPU streams.
var metricDBName = regexp.MustCompile(`-(\d+)-(\d+)-([0-9a-fA-F]+)-(\d+)-(\d+)\.metric-db$`)

// namedFile is a file's path and contents.
type namedFile struct {
	name string
	b    []byte
}

// convertXMLDir reads experiment.xml and the metric-db files of dir.
func (c *Converter) convertXMLDir(ctx context.Context, em *convert.Emitter) error {
	xmlPath := filepath.Join(c.dir, "experiment.xml")
	data, err := os.ReadFile(xmlPath)
	if err != nil {
		return err
	}
	paths, err := filepath.Glob(filepath.Join(c.dir, "*.metric-db"))
	if err != nil {
		return err
	}
	slices.Sort(paths)
	var dbs []namedFile
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		dbs = append(dbs, namedFile{p, b})
	}
	return c.convertXML(ctx, em, xmlPath, data, dbs)
}

// convertXML converts experiment.xml and its metric-db files.
func (c *Converter) convertXML(ctx context.Context, em *convert.Emitter, xmlPath string, data []byte, dbs []namedFile) error {
	e, err := ReadExperiment(data, xmlPath)
	if err != nil {
		return err
	}
	if len(dbs) == 0 {
		return convert.Errorf(xmlPath, "", "no *.metric-db files beside experiment.xml: only the layout with one metric-db file per thread (hpcprof before 2020) is read")
	}
	exp := c.ExperimentIRI()
	nm := trace.Names{Base: c.base.String(), Exp: exp}
	var ps []prof
	rows := make([][]byte, 0, len(dbs))
	var rowNames []string
	seen := map[string]string{}
	for _, db := range dbs {
		mt := metricDBName.FindStringSubmatch(filepath.Base(db.name))
		if mt == nil {
			return convert.Errorf(db.name, "", "file name does not end in -RANK-THREAD-HOSTID-PID-GEN.metric-db: cannot tell its rank and thread")
		}
		rank, err1 := strconv.Atoi(mt[1])
		thread, err2 := strconv.Atoi(mt[2])
		host, err3 := strconv.ParseUint(mt[3], 16, 64)
		if err := errors.Join(err1, err2, err3); err != nil {
			return convert.Errorf(db.name, "", "file name: rank, thread or host id out of range: %w", err)
		}
		if thread >= 500 {
			em.Warn(db.name, "thread %d is a GPU stream, which has no PERFONTO processing unit: profile not converted", thread)
			continue
		}
		vals, _, err := readMetricDB(db.b, db.name, e)
		if err != nil {
			return err
		}
		l := trace.Location{Node: "hostid " + strconv.FormatUint(host, 16), Process: rank, Thread: thread}
		key := nm.PUOf(l)
		if other, dup := seen[key]; dup {
			em.Warn(db.name, "same rank and thread as %s: profile not converted", filepath.Base(other))
			continue
		}
		seen[key] = db.name
		l.ID = len(ps)
		ps = append(ps, prof{len(rows), l})
		rows = append(rows, vals)
		rowNames = append(rowNames, db.name)
	}
	if len(ps) == 0 {
		return convert.Errorf(xmlPath, "", "no thread profiles to convert (%d metric-db files, all GPU streams)", len(dbs))
	}
	cols := e.columns
	at := func(vals []byte, id uint32, col int) float64 {
		return math.Float64frombits(binary.BigEndian.Uint64(vals[((int(id)-1)*cols+col)*8:]))
	}
	return c.emit(ctx, em, exp, e.Contexts, e.Context, ps, func(p prof, valT *convert.Table) (map[uint32][]val, error) {
		vals := rows[p.index]
		out := map[uint32][]val{}
		for _, cx := range e.Contexts {
			valT.Row()
			for _, m := range e.metrics {
				v := at(vals, cx.ID, m.column)
				if !m.inclusive {
					// HPCToolkit's exclusive value of a procedure or loop
					// includes its loops' and statements' own: the
					// summary's is what none of its children has.
					for _, k := range e.lexKids[cx.ID] {
						v -= at(vals, k, m.column)
					}
				}
				if v != 0 {
					out[cx.ID] = append(out[cx.ID], val{m.out.name, v * m.out.scale})
				}
			}
		}
		callSite := 0
		for _, id := range e.callSites {
			for _, m := range e.metrics {
				if !m.inclusive && at(vals, id, m.column) != 0 {
					callSite++
				}
			}
		}
		if callSite > 0 {
			em.Warn(rowNames[p.index], "%d exclusive values of call sites (<C>) are not converted: call sites are not regions (Hatchet drops them too)", callSite)
		}
		return out, nil
	})
}
