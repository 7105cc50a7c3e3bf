package hpctoolkit

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"math"

	"github.com/perfkb/perfkb/convert"
)

// file is one *.db file of a database with bounds-checked little-endian
// reads; every failed read is a *convert.Error at the byte offset and
// the structure field being read.
type file struct {
	name string // for errors: the path
	b    []byte
}

func (f *file) errf(off uint64, what, format string, args ...any) error {
	return convert.Errorf(f.name, fmt.Sprintf("byte %d (%s)", off, what), format, args...)
}

// need checks that n bytes at off lie in the file.
func (f *file) need(off, n uint64, what string) error {
	if off > uint64(len(f.b)) || n > uint64(len(f.b))-off {
		return f.errf(off, what, "%d bytes run past the end of the file (%d bytes): truncated or not an HPCToolkit database", n, len(f.b))
	}
	return nil
}

func (f *file) u8(off uint64, what string) (uint8, error) {
	if err := f.need(off, 1, what); err != nil {
		return 0, err
	}
	return f.b[off], nil
}

func (f *file) u16(off uint64, what string) (uint16, error) {
	if err := f.need(off, 2, what); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint16(f.b[off:]), nil
}

func (f *file) u32(off uint64, what string) (uint32, error) {
	if err := f.need(off, 4, what); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint32(f.b[off:]), nil
}

func (f *file) u64(off uint64, what string) (uint64, error) {
	if err := f.need(off, 8, what); err != nil {
		return 0, err
	}
	return binary.LittleEndian.Uint64(f.b[off:]), nil
}

func (f *file) f64(off uint64, what string) (float64, error) {
	v, err := f.u64(off, what)
	return math.Float64frombits(v), err
}

// str reads the NUL-terminated string at off.
func (f *file) str(off uint64, what string) (string, error) {
	if err := f.need(off, 1, what); err != nil {
		return "", err
	}
	i := bytes.IndexByte(f.b[off:], 0)
	if i < 0 {
		return "", f.errf(off, what, "string without its terminating NUL byte")
	}
	return string(f.b[off : off+uint64(i)]), nil
}

// section is a {sz,p} pair of a file header.
type section struct{ off, size uint64 }

func (s section) contains(off, n uint64) bool {
	return off >= s.off && off-s.off <= s.size && n <= s.size-(off-s.off)
}

// header checks the common file header (magic, format, major version 4)
// and the footer, and returns the n sections listed.
func (f *file) header(format, footer string, n int) ([]section, error) {
	if len(f.b) < 16 || string(f.b[:10]) != "HPCTOOLKIT" {
		return nil, f.errf(0, "magic", "not an HPCToolkit database file (no HPCTOOLKIT magic)")
	}
	if got := string(f.b[10:14]); got != format {
		return nil, f.errf(10, "format", "format %q, want %q", got, format)
	}
	if major := f.b[14]; major != 4 {
		return nil, f.errf(14, "majorVersion", "major version %d: only version 4 (FORMATS.md v4.x) is read", major)
	}
	if len(f.b) < 8 || string(f.b[len(f.b)-8:]) != footer {
		return nil, f.errf(uint64(max(len(f.b)-8, 0)), "footer", "no %q footer: the file is truncated", footer)
	}
	secs := make([]section, n)
	for i := range secs {
		at := uint64(0x10 + 0x10*i)
		sz, err := f.u64(at, fmt.Sprintf("section %d size", i+1))
		if err != nil {
			return nil, err
		}
		p, err := f.u64(at+8, fmt.Sprintf("section %d pointer", i+1))
		if err != nil {
			return nil, err
		}
		if err := f.need(p, sz, fmt.Sprintf("section %d", i+1)); err != nil {
			return nil, err
		}
		secs[i] = section{p, sz}
	}
	return secs, nil
}

// Scope types of a propagation scope (meta.db Performance Metrics section).
const (
	scopeCustom    = 0
	scopePoint     = 1
	scopeExecution = 2
	scopeTransit   = 3
)

// Lexical types of a context.
const (
	lexFunction    = 0
	lexLoop        = 1
	lexLine        = 2
	lexInstruction = 3
)

// PropMetric is one propagated metric of meta.db: a metric name and a
// propagation scope, identified in profile.db by its propMetricId.
type PropMetric struct {
	ID        uint16
	Metric    string // canonical metric name, e.g. "cycles", "REALTIME (sec)"
	Scope     string // "execution", "function", "point" …
	ScopeType uint8
}

// Function is a function specification.
type Function struct {
	Name   string // "" for an anonymous function
	Module string // load module path, or ""
	Offset uint64
	File   string // source file path, or ""
	Line   uint32
}

// Context is one node of the context tree (an entry point or a {Ctx}).
type Context struct {
	ID       uint32
	Parent   uint32 // 0 for entry points
	Entry    string // an entry point's pretty name; "" for a {Ctx}
	Relation uint8  // 0 lexical, 1 call, 2 inlined call
	Lexical  uint8  // lexFunction … lexInstruction
	Function *Function
	File     string
	Line     uint32
	Module   string
	Offset   uint64
	HasPoint bool
}

// Meta is what the converter needs of a meta.db.
type Meta struct {
	Title    string
	Kinds    []string // identifier kind names, indexed by kind
	Metrics  []PropMetric
	Contexts []*Context // in depth-first order, parents before children
	byID     map[uint32]*Context
}

// Context returns the context with the given id, or nil.
func (m *Meta) Context(id uint32) *Context { return m.byID[id] }

// ReadMeta decodes a meta.db (FORMATS.md v4.x). name labels errors.
func ReadMeta(data []byte, name string) (*Meta, error) {
	f := &file{name: name, b: data}
	secs, err := f.header("meta", "_meta.db", 8)
	if err != nil {
		return nil, err
	}
	general, idNames, metrics, ctxSec := secs[0], secs[1], secs[2], secs[3]
	m := &Meta{byID: map[uint32]*Context{}}
	if general.size >= 8 {
		p, err := f.u64(general.off, "General.pTitle")
		if err != nil {
			return nil, err
		}
		if m.Title, err = f.str(p, "General title"); err != nil {
			return nil, err
		}
	}
	if err := m.readKinds(f, idNames); err != nil {
		return nil, err
	}
	if err := m.readMetrics(f, metrics); err != nil {
		return nil, err
	}
	if err := m.readContexts(f, ctxSec); err != nil {
		return nil, err
	}
	return m, nil
}

func (m *Meta) readKinds(f *file, s section) error {
	if s.size < 9 {
		return f.errf(s.off, "IdNames", "section of %d bytes, want at least 9", s.size)
	}
	pp, err := f.u64(s.off, "IdNames.ppNames")
	if err != nil {
		return err
	}
	n, err := f.u8(s.off+8, "IdNames.nKinds")
	if err != nil {
		return err
	}
	for k := range uint64(n) {
		p, err := f.u64(pp+8*k, fmt.Sprintf("IdNames.ppNames[%d]", k))
		if err != nil {
			return err
		}
		name, err := f.str(p, fmt.Sprintf("IdNames name %d", k))
		if err != nil {
			return err
		}
		m.Kinds = append(m.Kinds, name)
	}
	return nil
}

func (m *Meta) readMetrics(f *file, s section) error {
	if s.size < 0x1b {
		return f.errf(s.off, "Metrics", "section of %d bytes, want at least 27", s.size)
	}
	pMetrics, _ := f.u64(s.off, "Metrics.pMetrics")
	nMetrics, _ := f.u32(s.off+8, "Metrics.nMetrics")
	szMetric, _ := f.u8(s.off+0xc, "Metrics.szMetric")
	szScopeInst, _ := f.u8(s.off+0xd, "Metrics.szScopeInst")
	if szMetric < 0x1c || szScopeInst < 0x0a {
		return f.errf(s.off+0xc, "Metrics.szMetric", "structure sizes %d and %d are smaller than version 4.0's (32, 16)", szMetric, szScopeInst)
	}
	if !s.contains(pMetrics, uint64(nMetrics)*uint64(szMetric)) {
		return f.errf(s.off, "Metrics.pMetrics", "%d metrics of %d bytes at byte %d lie outside the section", nMetrics, szMetric, pMetrics)
	}
	seen := map[uint16]bool{}
	for i := range uint64(nMetrics) {
		md := pMetrics + i*uint64(szMetric)
		what := fmt.Sprintf("metric %d", i)
		pName, _ := f.u64(md, what+" pName")
		name, err := f.str(pName, what+" name")
		if err != nil {
			return err
		}
		pInsts, _ := f.u64(md+8, what+" pScopeInsts")
		nInsts, _ := f.u16(md+0x18, what+" nScopeInsts")
		if !s.contains(pInsts, uint64(nInsts)*uint64(szScopeInst)) {
			return f.errf(md+8, what+" pScopeInsts", "%d scope instances at byte %d lie outside the Metrics section", nInsts, pInsts)
		}
		for j := range uint64(nInsts) {
			psi := pInsts + j*uint64(szScopeInst)
			w := fmt.Sprintf("%s (%s) scope %d", what, name, j)
			pScope, _ := f.u64(psi, w+" pScope")
			id, _ := f.u16(psi+8, w+" propMetricId")
			if !s.contains(pScope, 0x09) {
				return f.errf(psi, w+" pScope", "scope pointer %d lies outside the Metrics section", pScope)
			}
			pScopeName, _ := f.u64(pScope, w+" pScopeName")
			scopeName, err := f.str(pScopeName, w+" scope name")
			if err != nil {
				return err
			}
			typ, _ := f.u8(pScope+8, w+" scope type")
			if seen[id] {
				return f.errf(psi+8, w+" propMetricId", "propMetricId %d is given twice", id)
			}
			seen[id] = true
			m.Metrics = append(m.Metrics, PropMetric{ID: id, Metric: name, Scope: scopeName, ScopeType: typ})
		}
	}
	return nil
}

// ctxFrame is a pending child array of the context tree walk.
type ctxFrame struct {
	parent    uint32
	off, size uint64
}

func (m *Meta) readContexts(f *file, s section) error {
	if s.size < 0x0b {
		return f.errf(s.off, "Context", "section of %d bytes, want at least 11", s.size)
	}
	pEntries, _ := f.u64(s.off, "Context.pEntryPoints")
	nEntries, _ := f.u16(s.off+8, "Context.nEntryPoints")
	szEntry, _ := f.u8(s.off+0xa, "Context.szEntryPoint")
	if szEntry < 0x20 {
		return f.errf(s.off+0xa, "Context.szEntryPoint", "entry point size %d, want at least 32", szEntry)
	}
	if !s.contains(pEntries, uint64(nEntries)*uint64(szEntry)) {
		return f.errf(s.off, "Context.pEntryPoints", "%d entry points at byte %d lie outside the Context section", nEntries, pEntries)
	}
	var stack []ctxFrame
	funcs := map[uint64]*Function{}
	arrays := map[uint64]bool{}
	add := func(c *Context, at uint64) error {
		if c.ID == 0 {
			return f.errf(at+0x10, "ctxId", "context id 0 is reserved for the global context")
		}
		if m.byID[c.ID] != nil {
			return f.errf(at+0x10, "ctxId", "context id %d is given twice", c.ID)
		}
		m.byID[c.ID] = c
		m.Contexts = append(m.Contexts, c)
		return nil
	}
	for i := range uint64(nEntries) {
		e := pEntries + i*uint64(szEntry)
		what := fmt.Sprintf("entry point %d", i)
		szChildren, _ := f.u64(e, what+" szChildren")
		pChildren, _ := f.u64(e+8, what+" pChildren")
		id, _ := f.u32(e+0x10, what+" ctxId")
		pPretty, _ := f.u64(e+0x18, what+" pPrettyName")
		pretty, err := f.str(pPretty, what+" pretty name")
		if err != nil {
			return err
		}
		c := &Context{ID: id, Entry: pretty}
		if err := add(c, e); err != nil {
			return err
		}
		if szChildren > 0 {
			if arrays[pChildren] {
				return f.errf(e+8, what+" pChildren", "child array at byte %d is another context's too", pChildren)
			}
			arrays[pChildren] = true
			stack = append(stack, ctxFrame{id, pChildren, szChildren})
		}
		// Depth first: walk this entry's tree before the next entry.
		for len(stack) > 0 {
			fr := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			if !s.contains(fr.off, fr.size) {
				return f.errf(fr.off, fmt.Sprintf("children of context %d", fr.parent), "%d bytes of child contexts lie outside the Context section", fr.size)
			}
			var kids []ctxFrame
			for at := fr.off; at < fr.off+fr.size; {
				c, next, err := readCtx(f, at, fr.parent, funcs)
				if err != nil {
					return err
				}
				if next > fr.off+fr.size {
					return f.errf(at, fmt.Sprintf("context %d", c.ID), "context runs past its parent's child array (ends at byte %d)", fr.off+fr.size)
				}
				if err := add(c, at); err != nil {
					return err
				}
				szc, _ := f.u64(at, "szChildren")
				pc, _ := f.u64(at+8, "pChildren")
				if szc > 0 {
					// A child array read twice would make the tree a
					// graph, or loop for ever.
					if arrays[pc] {
						return f.errf(at+8, fmt.Sprintf("context %d pChildren", c.ID), "child array at byte %d is another context's too", pc)
					}
					arrays[pc] = true
					kids = append(kids, ctxFrame{c.ID, pc, szc})
				}
				at = next
			}
			for k := len(kids) - 1; k >= 0; k-- {
				stack = append(stack, kids[k])
			}
		}
	}
	return nil
}

// readCtx decodes the {Ctx} at off and returns it and the offset of the
// next one.
func readCtx(f *file, off uint64, parent uint32, funcs map[uint64]*Function) (*Context, uint64, error) {
	if err := f.need(off, 0x20, "context"); err != nil {
		return nil, 0, err
	}
	id, _ := f.u32(off+0x10, "ctxId")
	what := fmt.Sprintf("context %d", id)
	flags, _ := f.u8(off+0x14, what+" flags")
	rel, _ := f.u8(off+0x15, what+" relation")
	lex, _ := f.u8(off+0x16, what+" lexicalType")
	nFlex, _ := f.u8(off+0x17, what+" nFlexWords")
	end := off + 0x20 + 8*uint64(nFlex)
	if err := f.need(off+0x20, 8*uint64(nFlex), what+" flex"); err != nil {
		return nil, 0, err
	}
	c := &Context{ID: id, Parent: parent, Relation: rel, Lexical: lex}
	// flex packing: a u64 takes the next whole word; a u32 takes the
	// free half of a word an earlier u32 started, else a new word.
	word, half := uint64(0), uint64(0) // next free word; a free half-word's offset (0: none)
	next64 := func(field string) (uint64, error) {
		if word >= uint64(nFlex) {
			return 0, f.errf(off+0x20+8*word, what+" "+field, "flex has %d words; the flags need more", nFlex)
		}
		v, err := f.u64(off+0x20+8*word, what+" "+field)
		word++
		return v, err
	}
	next32 := func(field string) (uint32, error) {
		if half != 0 {
			v, err := f.u32(half, what+" "+field)
			half = 0
			return v, err
		}
		if word >= uint64(nFlex) {
			return 0, f.errf(off+0x20+8*word, what+" "+field, "flex has %d words; the flags need more", nFlex)
		}
		at := off + 0x20 + 8*word
		word++
		half = at + 4
		return f.u32(at, what+" "+field)
	}
	if flags&1 != 0 {
		p, err := next64("pFunction")
		if err != nil {
			return nil, 0, err
		}
		fn, err := readFunction(f, p, funcs)
		if err != nil {
			return nil, 0, err
		}
		c.Function = fn
	}
	if flags&2 != 0 {
		p, err := next64("pFile")
		if err != nil {
			return nil, 0, err
		}
		if c.File, err = readPath(f, p, "source file"); err != nil {
			return nil, 0, err
		}
		if c.Line, err = next32("line"); err != nil {
			return nil, 0, err
		}
	}
	if flags&4 != 0 {
		p, err := next64("pModule")
		if err != nil {
			return nil, 0, err
		}
		if c.Module, err = readPath(f, p, "load module"); err != nil {
			return nil, 0, err
		}
		if c.Offset, err = next64("offset"); err != nil {
			return nil, 0, err
		}
		c.HasPoint = true
	}
	return c, end, nil
}

// readPath reads the pPath of a load module or source file specification
// (both have flags u32, then char* pPath at 0x08).
func readPath(f *file, p uint64, what string) (string, error) {
	pp, err := f.u64(p+8, what+" pPath")
	if err != nil {
		return "", err
	}
	return f.str(pp, what+" path")
}

func readFunction(f *file, p uint64, funcs map[uint64]*Function) (*Function, error) {
	if fn := funcs[p]; fn != nil {
		return fn, nil
	}
	if err := f.need(p, 0x28, "function"); err != nil {
		return nil, err
	}
	fn := &Function{}
	pName, _ := f.u64(p, "function pName")
	pModule, _ := f.u64(p+8, "function pModule")
	fn.Offset, _ = f.u64(p+0x10, "function offset")
	pFile, _ := f.u64(p+0x18, "function pFile")
	fn.Line, _ = f.u32(p+0x20, "function line")
	var err error
	if pName != 0 {
		if fn.Name, err = f.str(pName, "function name"); err != nil {
			return nil, err
		}
	}
	if pModule != 0 {
		if fn.Module, err = readPath(f, pModule, "function load module"); err != nil {
			return nil, err
		}
	}
	if pFile != 0 {
		if fn.File, err = readPath(f, pFile, "function source file"); err != nil {
			return nil, err
		}
	}
	funcs[p] = fn
	return fn, nil
}

// Identifier is one identification of a hierarchical identifier tuple.
type Identifier struct {
	Kind       uint8
	Physical   bool
	LogicalID  uint32
	PhysicalID uint64
}

// Value is one non-zero value of a profile: a context, a propagated
// metric and the value.
type Value struct {
	Ctx    uint32
	Metric uint16
	V      float64
}

// Profiles reads profile.db: its profile headers, and each profile's
// values on demand.
type Profiles struct {
	f     *file
	infos []profInfo
}

type profInfo struct {
	at        uint64 // byte offset of the {PI}
	nValues   uint64
	pValues   uint64
	nCtxs     uint32
	pIdx      uint64
	summary   bool
	tuple     []Identifier
	tupleByte uint64
}

// ReadProfiles decodes the header and profile infos of a profile.db.
func ReadProfiles(data []byte, name string) (*Profiles, error) {
	f := &file{name: name, b: data}
	secs, err := f.header("prof", "_prof.db", 2)
	if err != nil {
		return nil, err
	}
	s := secs[0]
	if s.size < 0x0d {
		return nil, f.errf(s.off, "ProfileInfos", "section of %d bytes, want at least 13", s.size)
	}
	pProfiles, _ := f.u64(s.off, "ProfileInfos.pProfiles")
	n, _ := f.u32(s.off+8, "ProfileInfos.nProfiles")
	sz, _ := f.u8(s.off+0xc, "ProfileInfos.szProfile")
	if sz < 0x2c {
		return nil, f.errf(s.off+0xc, "ProfileInfos.szProfile", "profile info size %d, want at least 44", sz)
	}
	if !s.contains(pProfiles, uint64(n)*uint64(sz)) {
		return nil, f.errf(s.off, "ProfileInfos.pProfiles", "%d profile infos at byte %d lie outside the section", n, pProfiles)
	}
	ps := &Profiles{f: f}
	for i := range uint64(n) {
		at := pProfiles + i*uint64(sz)
		what := fmt.Sprintf("profile %d", i)
		pi := profInfo{at: at}
		pi.nValues, _ = f.u64(at, what+" nValues")
		pi.pValues, _ = f.u64(at+8, what+" pValues")
		pi.nCtxs, _ = f.u32(at+0x10, what+" nCtxs")
		pi.pIdx, _ = f.u64(at+0x18, what+" pCtxIndices")
		pTuple, _ := f.u64(at+0x20, what+" pIdTuple")
		flags, _ := f.u32(at+0x28, what+" flags")
		pi.summary = flags&1 != 0
		if err := f.need(pi.pValues, pi.nValues*10, what+" values"); err != nil || pi.nValues > uint64(len(data))/10 {
			return nil, f.errf(at+8, what+" pValues", "%d values at byte %d run past the end of the file", pi.nValues, pi.pValues)
		}
		if err := f.need(pi.pIdx, uint64(pi.nCtxs)*12, what+" context indices"); err != nil {
			return nil, err
		}
		if pTuple != 0 {
			pi.tupleByte = pTuple
			nIds, err := f.u16(pTuple, what+" identifier tuple nIds")
			if err != nil {
				return nil, err
			}
			for k := range uint64(nIds) {
				id := pTuple + 8 + 16*k
				w := fmt.Sprintf("%s identifier %d", what, k)
				if err := f.need(id, 16, w); err != nil {
					return nil, err
				}
				kind, _ := f.u8(id, w+" kind")
				fl, _ := f.u16(id+2, w+" flags")
				lid, _ := f.u32(id+4, w+" logicalId")
				pid, _ := f.u64(id+8, w+" physicalId")
				pi.tuple = append(pi.tuple, Identifier{Kind: kind, Physical: fl&1 != 0, LogicalID: lid, PhysicalID: pid})
			}
		} else if !pi.summary {
			return nil, f.errf(at+0x20, what+" pIdTuple", "a thread profile without an identifier tuple")
		}
		ps.infos = append(ps.infos, pi)
	}
	return ps, nil
}

// Len returns the number of profiles (the summary profile included).
func (ps *Profiles) Len() int { return len(ps.infos) }

// Summary reports whether profile i is a summary profile.
func (ps *Profiles) Summary(i int) bool { return ps.infos[i].summary }

// Tuple returns profile i's identifier tuple.
func (ps *Profiles) Tuple(i int) []Identifier { return ps.infos[i].tuple }

// Values decodes profile i's values, calling fn for each in context
// order.
func (ps *Profiles) Values(i int, fn func(Value) error) error {
	f, pi := ps.f, ps.infos[i]
	what := fmt.Sprintf("profile %d", i)
	for c := range uint64(pi.nCtxs) {
		at := pi.pIdx + 12*c
		ctx, _ := f.u32(at, what+" ctxId")
		start, _ := f.u64(at+4, what+" startIndex")
		end := pi.nValues
		if c+1 < uint64(pi.nCtxs) {
			end, _ = f.u64(at+12+4, what+" startIndex")
		}
		if start > end || end > pi.nValues {
			return f.errf(at+4, what+" startIndex", "values [%d, %d) of context %d are not within the profile's %d values", start, end, ctx, pi.nValues)
		}
		for v := start; v < end; v++ {
			vat := pi.pValues + 10*v
			mid, _ := f.u16(vat, what+" metricId")
			val, _ := f.f64(vat+2, what+" value")
			if err := fn(Value{Ctx: ctx, Metric: mid, V: val}); err != nil {
				return err
			}
		}
	}
	return nil
}
