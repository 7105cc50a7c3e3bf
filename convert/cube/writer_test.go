package cube

import (
	"archive/tar"
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"html"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// This file writes CUBE4 files for tests, with the standard library's tar
// writer and the layout the CUBE documentation and pycubexr describe: it
// shares no code with the reader.

type wRegion struct {
	id             int
	name, paradigm string
}

type wCNode struct {
	id, callee int
	kids       []*wCNode
}

type wMetric struct {
	id          int // -1: derived (CubePL), no files
	uniq, typ   string
	dtype       string
	zlib        bool
	kids        []*wMetric
	excl        map[[2]int]float64 // (cnode id, location) → exclusive value
	inclusiveOf bool               // store inclusive sums (typ INCLUSIVE)
}

type wLocation struct {
	node          string
	process, rank int
}

type wCube struct {
	regions []wRegion
	root    *wCNode
	metrics []*wMetric
	locs    []wLocation
	// corrupt, when set, edits a member's bytes before they are archived.
	corrupt func(name string, b []byte) []byte
}

// preorder lists the cnodes depth first.
func (w *wCube) preorder() []*wCNode {
	var out []*wCNode
	var walk func(n *wCNode)
	walk = func(n *wCNode) {
		out = append(out, n)
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(w.root)
	return out
}

// childrenFirst lists the cnodes in the order cubelib numbers them for
// inclusive metrics: a node's children all at once, then the first
// child's subtree.
func (w *wCube) childrenFirst() []*wCNode {
	out := []*wCNode{w.root}
	var walk func(n *wCNode)
	walk = func(n *wCNode) {
		out = append(out, n.kids...)
		for _, k := range n.kids {
			walk(k)
		}
	}
	walk(w.root)
	return out
}

// inclusive sums a metric's exclusive values over the subtree of n.
func (w *wCube) inclusive(m *wMetric, n *wCNode, loc int) float64 {
	v := m.excl[[2]int{n.id, loc}]
	for _, k := range n.kids {
		v += w.inclusive(m, k, loc)
	}
	return v
}

func (w *wCube) anchor() string {
	var b strings.Builder
	b.WriteString("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n\n<cube version=\"4.4\">\n<attr key=\"Creator\" value=\"perfkb test writer\"/>\n<metrics>\n")
	var metric func(m *wMetric)
	metric = func(m *wMetric) {
		typ := m.typ
		if m.id < 0 {
			fmt.Fprintf(&b, "<metric type=%q>\n", typ)
		} else {
			fmt.Fprintf(&b, "<metric id=\"%d\" type=%q>\n", m.id, typ)
		}
		fmt.Fprintf(&b, "<disp_name>%s</disp_name>\n<uniq_name>%s</uniq_name>\n<dtype>%s</dtype>\n<uom>sec</uom>\n<url></url>\n<descr></descr>\n", m.uniq, m.uniq, m.dtype)
		for _, k := range m.kids {
			metric(k)
		}
		b.WriteString("</metric>\n")
	}
	for _, m := range w.metrics {
		metric(m)
	}
	b.WriteString("</metrics>\n<program>\n")
	for _, r := range w.regions {
		fmt.Fprintf(&b, "<region id=\"%d\" mod=\"app.c\" begin=\"1\" end=\"2\">\n<name>%s</name>\n<mangled_name>%s</mangled_name>\n<paradigm>%s</paradigm>\n<role>function</role>\n<url></url>\n<descr></descr>\n</region>\n",
			r.id, html.EscapeString(r.name), html.EscapeString(r.name), r.paradigm)
	}
	var cnode func(n *wCNode)
	cnode = func(n *wCNode) {
		fmt.Fprintf(&b, "<cnode id=\"%d\" calleeId=\"%d\">\n", n.id, n.callee)
		for _, k := range n.kids {
			cnode(k)
		}
		b.WriteString("</cnode>\n")
	}
	cnode(w.root)
	b.WriteString("</program>\n<system>\n<systemtreenode Id=\"0\">\n<name>machine test</name>\n<class>machine</class>\n")
	byNode := map[string][]int{}
	var nodes []string
	for i, l := range w.locs {
		if byNode[l.node] == nil {
			nodes = append(nodes, l.node)
		}
		byNode[l.node] = append(byNode[l.node], i)
	}
	for ni, n := range nodes {
		fmt.Fprintf(&b, "<systemtreenode Id=\"%d\">\n<name>%s</name>\n<class>node</class>\n", ni+1, n)
		lastProc := -1
		for _, i := range byNode[n] {
			l := w.locs[i]
			if l.process != lastProc {
				if lastProc >= 0 {
					b.WriteString("</locationgroup>\n")
				}
				fmt.Fprintf(&b, "<locationgroup Id=\"%d\">\n<name>MPI Rank %d</name>\n<rank>%d</rank>\n<type>process</type>\n", l.process, l.process, l.process)
				lastProc = l.process
			}
			fmt.Fprintf(&b, "<location Id=\"%d\">\n<name>Master thread</name>\n<rank>%d</rank>\n<type>thread</type>\n</location>\n", i, l.rank)
		}
		b.WriteString("</locationgroup>\n</systemtreenode>\n")
	}
	b.WriteString("</systemtreenode>\n</system>\n</cube>\n")
	return b.String()
}

// files returns the archive members: <id>.index and <id>.data of every
// stored metric (only the cnodes with a non-zero value are listed, as
// Score-P writes them), then anchor.xml.
func (w *wCube) files() [][2]string {
	var out [][2]string
	L := len(w.locs)
	var metric func(m *wMetric)
	metric = func(m *wMetric) {
		for _, k := range m.kids {
			metric(k)
		}
		if m.id < 0 {
			return
		}
		order := w.preorder()
		if m.typ == "INCLUSIVE" {
			order = w.childrenFirst()
		}
		var idx bytes.Buffer
		var rows [][]byte
		var tree []int32
		for ti, n := range order {
			row := make([]byte, 8*L)
			any := false
			for l := 0; l < L; l++ {
				v := m.excl[[2]int{n.id, l}]
				if m.typ == "INCLUSIVE" {
					v = w.inclusive(m, n, l)
				}
				if v != 0 {
					any = true
				}
				if m.dtype == "UINT64" {
					binary.LittleEndian.PutUint64(row[8*l:], uint64(v))
				} else {
					binary.LittleEndian.PutUint64(row[8*l:], math.Float64bits(v))
				}
			}
			if any {
				tree = append(tree, int32(ti))
				rows = append(rows, row)
			}
		}
		idx.WriteString("CUBEX.INDEX")
		binary.Write(&idx, binary.LittleEndian, int32(1))
		binary.Write(&idx, binary.LittleEndian, int16(0))
		idx.WriteByte(1)
		binary.Write(&idx, binary.LittleEndian, int32(len(tree)))
		binary.Write(&idx, binary.LittleEndian, tree)
		var data bytes.Buffer
		if m.zlib {
			data.WriteString("ZCUBEX.DATA")
			binary.Write(&data, binary.LittleEndian, int64(len(rows)))
			var segs [][]byte
			var upos, cpos int64
			for _, r := range rows {
				var z bytes.Buffer
				zw := zlib.NewWriter(&z)
				zw.Write(r)
				zw.Close()
				segs = append(segs, z.Bytes())
				binary.Write(&data, binary.LittleEndian, []int64{upos, cpos, int64(z.Len())})
				upos += int64(len(r))
				cpos += int64(z.Len())
			}
			for _, s := range segs {
				data.Write(s)
			}
		} else {
			data.WriteString("CUBEX.DATA")
			for _, r := range rows {
				data.Write(r)
			}
		}
		out = append(out, [2]string{fmt.Sprintf("%d.index", m.id), idx.String()}, [2]string{fmt.Sprintf("%d.data", m.id), data.String()})
	}
	for _, m := range w.metrics {
		metric(m)
	}
	return append(out, [2]string{"anchor.xml", w.anchor()})
}

// write writes the archive to dir/name and returns its path.
func (w *wCube) write(t testing.TB, dir, name string) string {
	t.Helper()
	var buf bytes.Buffer
	tw := tar.NewWriter(&buf)
	for _, f := range w.files() {
		b := []byte(f[1])
		if w.corrupt != nil {
			b = w.corrupt(f[0], b)
		}
		if err := tw.WriteHeader(&tar.Header{Name: f[0], Mode: 0o600, Size: int64(len(b)), Typeflag: tar.TypeReg, Format: tar.FormatUSTAR}); err != nil {
			t.Fatal(err)
		}
		if _, err := tw.Write(b); err != nil {
			t.Fatal(err)
		}
	}
	if err := tw.Close(); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// scalasca returns a small Scalasca-style trace analysis report: two MPI
// ranks on two nodes, Late Sender time on receives, Wait at Barrier and
// Wait at N x N on collectives, and a derived metric without data.
func scalasca() *wCube {
	const (
		rMain = iota
		rInit
		rCompute
		rSend
		rRecv
		rBarrier
		rAllreduce
		rExchange
		rIrecv
		rWait
	)
	w := &wCube{
		regions: []wRegion{{rMain, "main", "user"}, {rInit, "MPI_Init", "mpi"}, {rCompute, "compute", "user"},
			{rSend, "MPI_Send", "mpi"}, {rRecv, "MPI_Recv", "mpi"}, {rBarrier, "MPI_Barrier", "mpi"},
			{rAllreduce, "MPI_Allreduce", "mpi"}, {rExchange, "exchange<double>", "user"}, {rIrecv, "MPI_Irecv", "mpi"}, {rWait, "MPI_Wait", "mpi"}},
		locs: []wLocation{{"node n01", 0, 0}, {"node n02", 1, 0}},
	}
	w.root = &wCNode{id: 0, callee: rMain, kids: []*wCNode{
		{id: 1, callee: rInit}, {id: 2, callee: rCompute}, {id: 3, callee: rSend}, {id: 4, callee: rRecv},
		{id: 5, callee: rBarrier}, {id: 6, callee: rAllreduce},
		{id: 7, callee: rExchange, kids: []*wCNode{{id: 8, callee: rIrecv}, {id: 9, callee: rWait}}},
	}}
	// Exclusive seconds per (cnode, rank).
	time := map[[2]int]float64{
		{0, 0}: 0.25, {0, 1}: 0.5,
		{1, 0}: 0.125, {1, 1}: 0.125,
		{2, 0}: 6.0, {2, 1}: 4.0,
		{3, 0}: 0.5, {3, 1}: 0.25,
		{4, 0}: 0.75, {4, 1}: 1.0,
		{5, 0}: 0.0625, {5, 1}: 2.5,
		{6, 0}: 1.5, {6, 1}: 0.03125,
		{7, 0}: 0.375, {7, 1}: 0.375,
		{8, 0}: 0.0078125, {8, 1}: 0.0078125,
		{9, 0}: 0.5, {9, 1}: 2.0,
	}
	visits := map[[2]int]float64{}
	for k := range time {
		visits[k] = float64(10 + k[0])
	}
	w.metrics = []*wMetric{
		{id: 0, uniq: "time", typ: "INCLUSIVE", dtype: "DOUBLE", excl: time, kids: []*wMetric{
			{id: -1, uniq: "execution", typ: "PREDERIVED_EXCLUSIVE", dtype: "DOUBLE", kids: []*wMetric{
				{id: 2, uniq: "mpi_latesender", typ: "EXCLUSIVE", dtype: "DOUBLE", zlib: true, excl: map[[2]int]float64{
					{4, 0}: 0.0005, // below the 1000 µs floor
					{4, 1}: 0.8,    // 80 % of MPI_Recv's time
					{9, 0}: 0.4,    // 80 % of MPI_Wait's time
					{9, 1}: 0.1,    // 5 %: too small a share
				}, kids: []*wMetric{
					{id: 3, uniq: "mpi_latesender_wo", typ: "EXCLUSIVE", dtype: "DOUBLE", excl: map[[2]int]float64{{4, 1}: 0.2}},
				}},
				{id: 4, uniq: "mpi_barrier_wait", typ: "EXCLUSIVE", dtype: "DOUBLE", zlib: true, excl: map[[2]int]float64{{5, 1}: 2.25}},
				{id: 5, uniq: "mpi_wait_nxn", typ: "EXCLUSIVE", dtype: "DOUBLE", excl: map[[2]int]float64{{6, 0}: 1.25}},
				{id: 6, uniq: "mpi_latereceiver", typ: "EXCLUSIVE", dtype: "DOUBLE", excl: map[[2]int]float64{{3, 0}: 0.25}},
			}},
		}},
		{id: 1, uniq: "visits", typ: "EXCLUSIVE", dtype: "UINT64", excl: visits},
	}
	return w
}
