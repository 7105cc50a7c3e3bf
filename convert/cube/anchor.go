package cube

import (
	"bytes"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Metric is a <metric> of anchor.xml.
type Metric struct {
	ID       int    // names its files: <ID>.index, <ID>.data (-1: none, a derived metric)
	UniqName string // uniq_name
	DispName string
	DType    string // data type: DOUBLE, UINT64, MINDOUBLE …
	UOM      string // unit of measurement: sec, occ, bytes …
	Type     string // INCLUSIVE, EXCLUSIVE, or a derived kind (PREDERIVED_EXCLUSIVE …)
	Parent   int    // index in Anchor.Metrics, -1 for a root
	Line     int    // line of the element in anchor.xml
}

// Region is a <region> (a code region, de-duplicated over call paths).
type Region struct {
	ID             int
	Name, Mangled  string
	Paradigm, Role string
	Mod            string
	Begin, End     int
	Line           int
}

// CNode is a <cnode>: a call path. CNodes are kept in document order,
// which is the depth-first preorder of the call tree.
type CNode struct {
	ID       int
	Callee   int // region ID
	Parent   int // index in Anchor.CNodes, -1 for a root
	Children []int
	Line     int
}

// Location is a <location>: where values are measured (a thread, a GPU
// stream …), with the system tree above it.
type Location struct {
	ID      int
	Name    string
	Rank    int
	Type    string
	Process int    // rank of its <locationgroup>
	Group   string // name of its <locationgroup>
	Node    string // name of the nearest <systemtreenode> of class node (else the nearest one)
	Line    int
}

// Anchor is the metadata of a CUBE4 file (anchor.xml).
type Anchor struct {
	Version   string
	Attrs     map[string]string
	Metrics   []Metric
	Regions   map[int]*Region
	CNodes    []CNode
	Locations []Location // ordered by ID (0 … L-1): the order of values in .data rows
}

// xmlError is a problem at a line of anchor.xml.
type xmlError struct {
	line, col int
	msg       string
}

func (e *xmlError) Error() string { return fmt.Sprintf("anchor.xml:%d:%d: %s", e.line, e.col, e.msg) }

type lineIndex []int // offsets of line starts

func newLineIndex(b []byte) lineIndex {
	li := lineIndex{0}
	for i, c := range b {
		if c == '\n' {
			li = append(li, i+1)
		}
	}
	return li
}

func (li lineIndex) pos(off int64) (int, int) {
	lo, hi := 0, len(li)
	for hi-lo > 1 {
		m := (lo + hi) / 2
		if int64(li[m]) <= off {
			lo = m
		} else {
			hi = m
		}
	}
	return lo + 1, int(off) - li[lo] + 1
}

type sysNode struct {
	name, class string
}

// parseAnchor reads anchor.xml.
func parseAnchor(b []byte) (*Anchor, error) {
	li := newLineIndex(b)
	dec := xml.NewDecoder(bytes.NewReader(b))
	dec.Strict = true
	a := &Anchor{Attrs: map[string]string{}, Regions: map[int]*Region{}}
	var (
		stack     []string // element names
		elemOff   []int64  // start offsets of open elements
		text      strings.Builder
		metricIdx []int // open <metric>s
		cnodeIdx  []int // open <cnode>s
		region    *Region
		sys       []sysNode
		group     *Location // the open <locationgroup> (Process, Group)
		loc       *Location
		cnodeIDs  = map[int]bool{}
		locIDs    = map[int]bool{}
		sawRoot   bool
	)
	fail := func(off int64, format string, args ...any) error {
		l, c := li.pos(off)
		return &xmlError{line: l, col: c, msg: fmt.Sprintf(format, args...)}
	}
	attr := func(se xml.StartElement, names ...string) (string, bool) {
		for _, at := range se.Attr {
			for _, n := range names {
				if at.Name.Local == n {
					return at.Value, true
				}
			}
		}
		return "", false
	}
	intAttr := func(off int64, se xml.StartElement, def int, names ...string) (int, error) {
		s, ok := attr(se, names...)
		if !ok {
			if def != missing {
				return def, nil
			}
			return 0, fail(off, "<%s> has no %s attribute", se.Name.Local, names[0])
		}
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil {
			return 0, fail(off, "<%s %s=%q>: expected an integer", se.Name.Local, names[0], s)
		}
		return n, nil
	}
	parent := func() string {
		if len(stack) < 2 {
			return ""
		}
		return stack[len(stack)-2]
	}
	for {
		off := dec.InputOffset()
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			var se *xml.SyntaxError
			if errors.As(err, &se) {
				return nil, &xmlError{line: se.Line, col: 0, msg: "XML syntax: " + se.Msg}
			}
			return nil, fail(dec.InputOffset(), "XML: %v", err)
		}
		switch t := tok.(type) {
		case xml.StartElement:
			stack = append(stack, t.Name.Local)
			elemOff = append(elemOff, off)
			text.Reset()
			if len(stack) == 1 {
				if t.Name.Local != "cube" {
					return nil, fail(off, "expected a <cube> root element (CUBE4 anchor.xml), got <%s>", t.Name.Local)
				}
				sawRoot = true
				a.Version, _ = attr(t, "version")
				continue
			}
			switch t.Name.Local {
			case "attr":
				if parent() == "cube" {
					k, _ := attr(t, "key")
					v, _ := attr(t, "value")
					a.Attrs[k] = v
				}
			case "metric":
				id, err := intAttr(off, t, -1, "id")
				if err != nil {
					return nil, err
				}
				typ, _ := attr(t, "type")
				p := -1
				if n := len(metricIdx); n > 0 {
					p = metricIdx[n-1]
				}
				l, _ := li.pos(off)
				a.Metrics = append(a.Metrics, Metric{ID: id, Type: strings.ToUpper(typ), Parent: p, Line: l})
				metricIdx = append(metricIdx, len(a.Metrics)-1)
			case "region":
				id, err := intAttr(off, t, missing, "id")
				if err != nil {
					return nil, err
				}
				if a.Regions[id] != nil {
					return nil, fail(off, "region id %d defined twice", id)
				}
				l, _ := li.pos(off)
				mod, _ := attr(t, "mod")
				begin, _ := intAttr(off, t, -1, "begin")
				end, _ := intAttr(off, t, -1, "end")
				region = &Region{ID: id, Mod: mod, Begin: begin, End: end, Line: l}
				a.Regions[id] = region
			case "cnode":
				id, err := intAttr(off, t, missing, "id")
				if err != nil {
					return nil, err
				}
				callee, err := intAttr(off, t, missing, "calleeId")
				if err != nil {
					return nil, err
				}
				if cnodeIDs[id] {
					return nil, fail(off, "cnode id %d defined twice", id)
				}
				cnodeIDs[id] = true
				p := -1
				if n := len(cnodeIdx); n > 0 {
					p = cnodeIdx[n-1]
				}
				l, _ := li.pos(off)
				a.CNodes = append(a.CNodes, CNode{ID: id, Callee: callee, Parent: p, Line: l})
				i := len(a.CNodes) - 1
				if p >= 0 {
					a.CNodes[p].Children = append(a.CNodes[p].Children, i)
				}
				cnodeIdx = append(cnodeIdx, i)
			case "systemtreenode", "machine", "node":
				sys = append(sys, sysNode{})
			case "locationgroup", "process":
				group = &Location{Process: -1}
			case "location", "thread":
				id, err := intAttr(off, t, missing, "Id", "id")
				if err != nil {
					return nil, err
				}
				if locIDs[id] {
					return nil, fail(off, "location Id %d defined twice", id)
				}
				locIDs[id] = true
				l, _ := li.pos(off)
				loc = &Location{ID: id, Rank: -1, Line: l}
				if group != nil {
					loc.Process, loc.Group = group.Process, group.Group
				}
				loc.Node = nodeName(sys)
			}
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			name := t.Name.Local
			val := strings.TrimSpace(text.String())
			text.Reset()
			off := elemOff[len(elemOff)-1]
			stack, elemOff = stack[:len(stack)-1], elemOff[:len(elemOff)-1]
			up := ""
			if len(stack) > 0 {
				up = stack[len(stack)-1]
			}
			switch {
			case name == "metric":
				metricIdx = metricIdx[:len(metricIdx)-1]
			case up == "metric" && len(metricIdx) > 0:
				m := &a.Metrics[metricIdx[len(metricIdx)-1]]
				switch name {
				case "uniq_name":
					m.UniqName = val
				case "disp_name":
					m.DispName = val
				case "dtype":
					m.DType = strings.ToUpper(val)
				case "uom":
					m.UOM = val
				}
			case name == "region":
				region = nil
			case up == "region" && region != nil:
				switch name {
				case "name":
					region.Name = val
				case "mangled_name":
					region.Mangled = val
				case "paradigm":
					region.Paradigm = val
				case "role":
					region.Role = val
				}
			case name == "cnode":
				cnodeIdx = cnodeIdx[:len(cnodeIdx)-1]
			case name == "systemtreenode" || name == "machine" || name == "node":
				sys = sys[:len(sys)-1]
			case (up == "systemtreenode" || up == "machine" || up == "node") && len(sys) > 0:
				switch name {
				case "name":
					sys[len(sys)-1].name = val
				case "class":
					sys[len(sys)-1].class = val
				}
			case name == "location" || name == "thread":
				if loc != nil {
					a.Locations = append(a.Locations, *loc)
				}
				loc = nil
			case up == "location" || up == "thread":
				if loc == nil {
					break
				}
				switch name {
				case "name":
					loc.Name = val
				case "rank":
					r, err := strconv.Atoi(val)
					if err != nil {
						return nil, fail(off, "location rank %q: expected an integer", val)
					}
					loc.Rank = r
				case "type":
					loc.Type = val
				}
			case name == "locationgroup" || name == "process":
				group = nil
			case up == "locationgroup" || up == "process":
				if group == nil {
					break
				}
				switch name {
				case "name":
					group.Group = val
				case "rank":
					r, err := strconv.Atoi(val)
					if err != nil {
						return nil, fail(off, "location group rank %q: expected an integer", val)
					}
					group.Process = r
				}
			}
		}
	}
	if !sawRoot {
		return nil, &xmlError{line: 1, col: 1, msg: "no <cube> element: not a CUBE4 anchor.xml"}
	}
	if len(stack) > 0 {
		return nil, fail(int64(len(b)), "unexpected end of anchor.xml inside <%s>", stack[len(stack)-1])
	}
	if len(a.CNodes) == 0 {
		return nil, fail(int64(len(b)), "anchor.xml defines no <cnode> (call tree)")
	}
	if len(a.Locations) == 0 {
		return nil, fail(int64(len(b)), "anchor.xml defines no <location> (system tree)")
	}
	for _, c := range a.CNodes {
		if a.Regions[c.Callee] == nil {
			return nil, &xmlError{line: c.Line, col: 1, msg: fmt.Sprintf("cnode %d calls region %d, which is not defined", c.ID, c.Callee)}
		}
	}
	// Values are stored in location ID order; IDs must be 0 … L-1.
	byID := make([]Location, len(a.Locations))
	for _, l := range a.Locations {
		if l.ID < 0 || l.ID >= len(byID) {
			return nil, &xmlError{line: l.Line, col: 1, msg: fmt.Sprintf("location Id %d out of range: %d locations have Ids 0 to %d", l.ID, len(byID), len(byID)-1)}
		}
		byID[l.ID] = l
	}
	a.Locations = byID
	return a, nil
}

const missing = -1 << 31

// nodeName is the name of the innermost system tree node of class "node",
// else of the innermost one.
func nodeName(sys []sysNode) string {
	for i := len(sys) - 1; i >= 0; i-- {
		if strings.EqualFold(sys[i].class, "node") && sys[i].name != "" {
			return sys[i].name
		}
	}
	for i := len(sys) - 1; i >= 0; i-- {
		if sys[i].name != "" {
			return sys[i].name
		}
	}
	return ""
}

// Tool names what wrote the values of the report, for their annotation:
// the CUBE library version the anchor states ("Cube Version", else the
// anchor syntax version), and the measurement system when the anchor
// names one (Score-P writes a "Creator" attribute).
func (a *Anchor) Tool() string {
	tool := "CUBE"
	if v := a.Attrs["Cube Version"]; v != "" {
		tool += " " + v
	} else if a.Version != "" {
		tool += " (anchor " + a.Version + ")"
	}
	if c := a.Attrs["Creator"]; c != "" {
		tool += " (" + c + ")"
	}
	return tool
}
