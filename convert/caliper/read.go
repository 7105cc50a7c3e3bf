package caliper

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/textpos"
)

// Elem is one entry of a region path: the nested attribute ("function",
// "loop", "annotation", "region" …) and its value.
type Elem struct{ Attr, Name string }

// Record is one profile record: a region path (root first, empty outside
// every region), the attributes of the record and its numeric values.
type Record struct {
	Path    []Elem
	Strings map[string]string  // non-numeric attributes (spot.channel …)
	Values  map[string]float64 // numeric attributes (metrics, mpi.rank …)
	Pos     string             // "FILE:LINE" or "FILE record N", for warnings
}

// Profile is what a Caliper file holds: records, per-attribute metadata
// and the run's global attributes (Caliper and Adiak metadata).
type Profile struct {
	Records []Record
	// Units gives attribute.unit metadata ("sec") by attribute name.
	Units map[string]string
	// Globals are the run metadata, in file order.
	Globals []Global
	// Format is "cali" or "json-split".
	Format string
}

// Global is one global (run metadata) attribute.
type Global struct{ Name, Value string }

// Caliper attribute properties (cali_attr_properties).
const (
	propAsValue = 1
	propHidden  = 128
	propNested  = 256
	propGlobal  = 512
)

// Bootstrap node ids of the .cali metadata tree.
const (
	attrName = 8
	attrType = 9
	attrProp = 10
)

type node struct {
	id, attr, parent int64 // parent -1 for none
	data             string
}

// bootstrap returns the predefined nodes every .cali stream starts from:
// the type nodes and the three meta-attributes.
func bootstrap() map[int64]*node {
	types := []string{"usr", "int", "uint", "string", "addr", "double", "bool", "type"}
	nodes := map[int64]*node{}
	for i, t := range types {
		nodes[int64(i)] = &node{id: int64(i), attr: attrType, parent: -1, data: t}
	}
	nodes[11] = &node{id: 11, attr: attrType, parent: -1, data: "ptr"}
	nodes[attrName] = &node{id: attrName, attr: attrName, parent: 3, data: "cali.attribute.name"}
	nodes[attrType] = &node{id: attrType, attr: attrName, parent: 7, data: "cali.attribute.type"}
	nodes[attrProp] = &node{id: attrProp, attr: attrName, parent: 1, data: "cali.attribute.prop"}
	return nodes
}

// calidb is the metadata tree of a .cali stream.
type calidb struct {
	nodes map[int64]*node
}

// meta returns the value of the first ancestor-or-self of n whose
// attribute is attr.
func (db *calidb) meta(n *node, attr int64) (string, bool) {
	for k := 0; n != nil && k < len(db.nodes)+1; k++ {
		if n.attr == attr {
			return n.data, true
		}
		n = db.nodes[n.parent]
	}
	return "", false
}

// attribute describes the attribute whose node is id.
type attribute struct {
	name, typ string
	prop      int
	unit      string
}

func (db *calidb) attribute(id int64) (attribute, bool) {
	n := db.nodes[id]
	if n == nil || n.attr != attrName {
		return attribute{}, false
	}
	a := attribute{name: n.data}
	a.typ, _ = db.meta(n, attrType)
	if p, ok := db.meta(n, attrProp); ok {
		a.prop, _ = strconv.Atoi(p)
	}
	// attribute.unit is an attribute like any other: find its node by
	// name on the way up.
	for p, k := db.nodes[n.parent], 0; p != nil && k <= len(db.nodes); p, k = db.nodes[p.parent], k+1 {
		if an := db.nodes[p.attr]; an != nil && an.attr == attrName && an.data == "attribute.unit" {
			a.unit = p.data
			break
		}
	}
	return a, true
}

func numericType(t string) bool { return t == "int" || t == "uint" || t == "double" }

// splitEscaped splits s at sep outside a backslash escape; unescape
// drops the escapes.
func splitEscaped(s string, sep byte, unescape bool) []string {
	var out []string
	var b strings.Builder
	esc := false
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case esc:
			b.WriteByte(c)
			esc = false
		case c == '\\':
			esc = true
			if !unescape {
				b.WriteByte(c)
			}
		case c == sep:
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, b.String())
}

// maxLine bounds a .cali line (a record); Caliper writes short lines.
const maxLine = 16 << 20

// ReadCali reads a .cali stream (Caliper's text record format). name
// labels errors: a *convert.Error at "FILE:LINE:COLUMN".
func ReadCali(r io.Reader, name string) (*Profile, error) {
	db := &calidb{nodes: bootstrap()}
	p := &Profile{Units: map[string]string{}, Format: "cali"}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxLine)
	line := 0
	for sc.Scan() {
		line++
		text := strings.TrimRight(sc.Text(), "\r")
		if strings.TrimSpace(text) == "" {
			continue
		}
		errAt := func(col int, format string, args ...any) error {
			return convert.TextErrorf(name, textpos.Position{Source: name, Line: line, Column: col}, format, args...)
		}
		// entries: key → values and the column each entry starts at.
		entries := map[string][]string{}
		cols := map[string]int{}
		col := 1
		for _, e := range splitEscaped(text, ',', false) {
			kv := splitEscaped(e, '=', true)
			if len(kv) < 2 {
				return nil, errAt(col, "expected KEY=VALUE, got %q", e)
			}
			entries[kv[0]] = kv[1:]
			cols[kv[0]] = col
			col += len(e) + 1
		}
		kind := entries["__rec"]
		if len(kind) != 1 {
			return nil, errAt(1, "expected a __rec=KIND entry (a Caliper .cali record)")
		}
		integer := func(key string, i int) (int64, error) {
			v, ok := entries[key]
			if !ok || i >= len(v) {
				return 0, errAt(1, "%s record without %s", kind[0], key)
			}
			n, err := strconv.ParseInt(v[i], 10, 64)
			if err != nil || n < 0 {
				return 0, errAt(cols[key], "%s: expected a node id, got %q", key, v[i])
			}
			return n, nil
		}
		switch kind[0] {
		case "node":
			id, err := integer("id", 0)
			if err != nil {
				return nil, err
			}
			attr, err := integer("attr", 0)
			if err != nil {
				return nil, err
			}
			data, ok := entries["data"]
			if !ok || len(data) != 1 {
				return nil, errAt(1, "node record without a single data value")
			}
			parent := int64(-1)
			if _, ok := entries["parent"]; ok {
				if parent, err = integer("parent", 0); err != nil {
					return nil, err
				}
				if db.nodes[parent] == nil {
					return nil, errAt(cols["parent"], "parent node %d is not defined before this record", parent)
				}
			}
			if db.nodes[attr] == nil || db.nodes[attr].attr != attrName && attr != attrName {
				return nil, errAt(cols["attr"], "attr %d is not an attribute node defined before this record", attr)
			}
			if db.nodes[id] != nil {
				return nil, errAt(cols["id"], "node %d is defined twice", id)
			}
			db.nodes[id] = &node{id: id, attr: attr, parent: parent, data: data[0]}
		case "ctx", "globals":
			rec := Record{Strings: map[string]string{}, Values: map[string]float64{}, Pos: fmt.Sprintf("%s:%d", name, line)}
			for i, ref := range entries["ref"] {
				id, err := strconv.ParseInt(ref, 10, 64)
				if err != nil || db.nodes[id] == nil {
					return nil, errAt(cols["ref"], "ref %d: %q is not a node defined before this record", i+1, ref)
				}
				if err := expand(db, db.nodes[id], &rec, p); err != nil {
					return nil, errAt(cols["ref"], "ref %d: %v", i+1, err)
				}
			}
			attrs, data := entries["attr"], entries["data"]
			if len(attrs) != len(data) && (entries["attr"] != nil || entries["data"] != nil) {
				return nil, errAt(cols["data"], "%d attr ids for %d data values", len(attrs), len(data))
			}
			for i, a := range attrs {
				id, err := strconv.ParseInt(a, 10, 64)
				at, ok := db.attribute(id)
				if err != nil || !ok {
					return nil, errAt(cols["attr"], "attr %d: %q is not an attribute node", i+1, a)
				}
				if at.prop&propHidden != 0 {
					continue
				}
				if at.unit != "" {
					p.Units[at.name] = at.unit
				}
				if numericType(at.typ) {
					v, err := strconv.ParseFloat(data[i], 64)
					if err != nil {
						return nil, errAt(cols["data"], "data %d of %s (%s): expected a number, got %q", i+1, at.name, at.typ, data[i])
					}
					rec.Values[at.name] = v
				} else {
					rec.Strings[at.name] = data[i]
				}
			}
			if kind[0] == "globals" {
				p.Globals = append(p.Globals, globalsOf(db, entries["ref"], attrs, data)...)
			} else {
				p.Records = append(p.Records, rec)
			}
		default:
			// Other record kinds (old "attr" records …) carry no profile
			// data.
		}
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, convert.TextErrorf(name, textpos.Position{Source: name, Line: line + 1}, "line longer than %d bytes: not a .cali file", maxLine)
		}
		return nil, err
	}
	if line == 0 {
		return nil, convert.Errorf(name, "", "empty file: not a Caliper file")
	}
	return p, nil
}

// expand adds the attributes of node n and its ancestors to rec: nested
// ones to the path (root first), numeric ones to the values, others to
// the strings.
func expand(db *calidb, n *node, rec *Record, p *Profile) error {
	var chain []*node
	for k := 0; n != nil; k++ {
		if k > len(db.nodes) {
			return fmt.Errorf("node %d is its own ancestor", n.id)
		}
		chain = append(chain, n)
		n = db.nodes[n.parent]
	}
	for i := len(chain) - 1; i >= 0; i-- {
		n := chain[i]
		at, ok := db.attribute(n.attr)
		if !ok || at.prop&propHidden != 0 || n.attr == attrName || n.attr == attrType || n.attr == attrProp {
			continue
		}
		switch {
		case at.prop&propNested != 0:
			rec.Path = append(rec.Path, Elem{at.name, n.data})
		case numericType(at.typ):
			v, err := strconv.ParseFloat(n.data, 64)
			if err != nil {
				return fmt.Errorf("node %d: %s (%s): expected a number, got %q", n.id, at.name, at.typ, n.data)
			}
			rec.Values[at.name] = v
		default:
			rec.Strings[at.name] = n.data
		}
		if at.unit != "" {
			p.Units[at.name] = at.unit
		}
	}
	return nil
}

// globalsOf lists the attributes of a globals record in file order: the
// ref nodes' chains, root first, then the immediate entries.
func globalsOf(db *calidb, refs, attrs, data []string) []Global {
	var out []Global
	for _, ref := range refs {
		id, _ := strconv.ParseInt(ref, 10, 64)
		var chain []*node
		for n, k := db.nodes[id], 0; n != nil && k <= len(db.nodes); n, k = db.nodes[n.parent], k+1 {
			chain = append(chain, n)
		}
		for i := len(chain) - 1; i >= 0; i-- {
			at, ok := db.attribute(chain[i].attr)
			if ok && at.prop&propHidden == 0 && chain[i].attr > attrProp {
				out = append(out, Global{at.name, chain[i].data})
			}
		}
	}
	for i, a := range attrs {
		id, _ := strconv.ParseInt(a, 10, 64)
		if at, ok := db.attribute(id); ok && at.prop&propHidden == 0 {
			out = append(out, Global{at.name, data[i]})
		}
	}
	return out
}

// jsonSplit is cali-query's json-split output (what Hatchet reads).
type jsonSplit struct {
	Data           [][]json.RawMessage `json:"data"`
	Columns        []string            `json:"columns"`
	ColumnMetadata []struct {
		IsValue bool `json:"is_value"`
	} `json:"column_metadata"`
	Nodes []struct {
		Label  json.RawMessage `json:"label"`
		Column string          `json:"column"`
		Parent *int            `json:"parent"`
	} `json:"nodes"`
}

// ReadJSONSplit reads cali-query's json-split format: "data" rows of
// "columns", value columns holding numbers and the others indices into
// "nodes" (label, column, parent). The region path comes from the "path"
// column, else from the one non-value column whose nodes have parents
// (a sampled call stack such as source.function#callpath.address).
func ReadJSONSplit(data []byte, name string) (*Profile, []string, error) {
	var js jsonSplit
	dec := json.NewDecoder(bytes.NewReader(data))
	if err := dec.Decode(&js); err != nil {
		pos := dec.InputOffset()
		var se *json.SyntaxError
		var te *json.UnmarshalTypeError
		switch {
		case errors.As(err, &se):
			pos = se.Offset - 1 // the offending byte: the decoder read past it
		case errors.As(err, &te):
			pos = te.Offset
		}
		return nil, nil, convert.TextErrorf(name, offsetPosition(data, name, pos), "not Caliper json-split: %v", err)
	}
	if js.Columns == nil || js.Data == nil || js.Nodes == nil {
		return nil, nil, convert.Errorf(name, "byte 0", `not Caliper json-split: expected an object with "data", "columns" and "nodes"`)
	}
	if len(js.ColumnMetadata) != len(js.Columns) {
		return nil, nil, convert.Errorf(name, "column_metadata", "%d column metadata for %d columns", len(js.ColumnMetadata), len(js.Columns))
	}
	for i, n := range js.Nodes {
		if n.Parent != nil && (*n.Parent < 0 || *n.Parent >= i) {
			return nil, nil, convert.Errorf(name, fmt.Sprintf("nodes[%d]", i), "parent %d is not an earlier node", *n.Parent)
		}
	}
	tree := -1
	var ignored []string
	for c, col := range js.Columns {
		if js.ColumnMetadata[c].IsValue {
			continue
		}
		if col == "path" {
			tree = c
		}
	}
	if tree < 0 {
		for c, col := range js.Columns {
			if js.ColumnMetadata[c].IsValue {
				continue
			}
			for _, n := range js.Nodes {
				if n.Column == col && n.Parent != nil {
					tree = c
					break
				}
			}
			if tree >= 0 {
				break
			}
		}
	}
	for c, col := range js.Columns {
		if !js.ColumnMetadata[c].IsValue && c != tree {
			ignored = append(ignored, col)
		}
	}
	label := func(i int) string {
		var s string
		if json.Unmarshal(js.Nodes[i].Label, &s) == nil {
			return s
		}
		return string(js.Nodes[i].Label)
	}
	p := &Profile{Units: map[string]string{}, Format: "json-split"}
	for r, row := range js.Data {
		pos := fmt.Sprintf("%s data[%d]", name, r)
		if len(row) != len(js.Columns) {
			return nil, nil, convert.Errorf(name, fmt.Sprintf("data[%d]", r), "%d values for %d columns", len(row), len(js.Columns))
		}
		rec := Record{Strings: map[string]string{}, Values: map[string]float64{}, Pos: pos}
		for c, raw := range row {
			if string(raw) == "null" {
				continue
			}
			if js.ColumnMetadata[c].IsValue {
				var v float64
				if err := json.Unmarshal(raw, &v); err != nil {
					var s string
					if json.Unmarshal(raw, &s) == nil {
						rec.Strings[js.Columns[c]] = s
						continue
					}
					return nil, nil, convert.Errorf(name, fmt.Sprintf("data[%d][%d]", r, c), "%s: expected a number, got %s", js.Columns[c], raw)
				}
				rec.Values[js.Columns[c]] = v
				continue
			}
			if c != tree {
				continue
			}
			var idx int
			if err := json.Unmarshal(raw, &idx); err != nil || idx < 0 || idx >= len(js.Nodes) {
				return nil, nil, convert.Errorf(name, fmt.Sprintf("data[%d][%d]", r, c), "%s: expected an index into the %d nodes, got %s", js.Columns[c], len(js.Nodes), raw)
			}
			for i := idx; ; {
				rec.Path = append(rec.Path, Elem{js.Nodes[i].Column, label(i)})
				if js.Nodes[i].Parent == nil {
					break
				}
				i = *js.Nodes[i].Parent
			}
			for a, b := 0, len(rec.Path)-1; a < b; a, b = a+1, b-1 {
				rec.Path[a], rec.Path[b] = rec.Path[b], rec.Path[a]
			}
		}
		p.Records = append(p.Records, rec)
	}
	return p, ignored, nil
}

// offsetPosition turns a byte offset into a line and column.
func offsetPosition(data []byte, name string, off int64) textpos.Position {
	off = min(max(off, 0), int64(len(data)))
	line := 1 + bytes.Count(data[:off], []byte("\n"))
	col := int(off) - bytes.LastIndexByte(data[:off], '\n')
	return textpos.Position{Source: name, Line: line, Column: col}
}
