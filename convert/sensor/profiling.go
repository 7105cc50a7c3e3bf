package sensor

import (
	"bufio"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// profiling maps application profiling data (Fig. 6.4; the concrete shape
// is testdata/appprofile.xsd):
//
//	<profiling SensorID="app.profiling" ResourceID="jacobi@gsr410">
//	  <exp>exp-17</exp>
//	  <pu node="gsr410" process="0" thread="0"/>
//	  <cr type="CR_L" id="jacobi-3" file="jacobi.f90" line="12" column="7" endline="40" endcolumn="9"/>
//	  <eventtime>1100000000000</eventtime>
//	  <metric name="wtime" value="1234.5"/>
//	  <metrics>L2_TCM=1200
//	  ncalls=4</metrics>
//	</profiling>
//
// to an Experiment, the processing unit graph (NodeUnit, ProcessUnit,
// ThreadUnit with hasParentPU, as convert/sample builds it), a
// CodeRegion with its specific and family class, a SourceFile, and one
// RegionSummary per (exp, pu, cr) with one PerformanceMetric per name.
// A later message for the same region summary adds its metrics to the
// same summary (a metric sent again with another value gets both values).
func (w *writer) profiling(si kb.Term) {
	p := w.msg.Payload
	b := w.m.base
	exp, _ := w.leaf("exp")
	if exp == "" {
		w.fail("profiling data has no <exp> (experiment identifier)")
		return
	}
	pu := p.Find("pu")
	if pu == nil {
		w.fail("profiling data has no <pu> (processing unit)")
		return
	}
	node, _ := pu.Value("node")
	proc, _ := pu.Value("process")
	thread, _ := pu.Value("thread")
	if node == "" {
		w.fail("<pu> has no node")
		return
	}
	if proc == "" {
		proc = "0"
	}
	if thread == "" {
		thread = "0"
	}
	pid, err1 := strconv.ParseInt(proc, 10, 64)
	tid, err2 := strconv.ParseInt(thread, 10, 64)
	if err1 != nil || err2 != nil {
		w.fail("<pu> process %q and thread %q must be integers", proc, thread)
		return
	}
	cr := p.Find("cr")
	if cr == nil {
		w.fail("profiling data has no <cr> (code region)")
		return
	}
	file, _ := cr.Value("file")
	line, _ := cr.Value("line")
	col, _ := cr.Value("column")
	crID, _ := cr.Value("id")
	crKey := crID
	if crKey == "" {
		if file == "" || line == "" {
			w.fail("<cr> needs an id or a file and line")
			return
		}
		crKey = file + ":" + line + ":" + col
	}

	x := b.IRI("experiment", exp)
	if w.once("x\x00" + exp) {
		w.typ(x, ontology.Experiment)
		w.t(x, ontology.RDFSLabel, convert.String(exp))
		w.t(x, ontology.ExperimentInfo, convert.String("application profiling data of sensor "+w.msg.SensorID+" for "+w.msg.ResourceID))
	}

	nodeUnit := b.IRI("experiment", exp, "pu", node)
	procUnit := b.IRI("experiment", exp, "pu", node, proc)
	threadUnit := b.IRI("experiment", exp, "pu", node, proc, thread)
	if w.once("pn\x00" + nodeUnit.Value) {
		w.typ(nodeUnit, ontology.NodeUnit)
		w.t(nodeUnit, ontology.InExperiment, x)
		w.t(nodeUnit, ontology.InNode, convert.String(node))
	}
	if w.once("pp\x00" + procUnit.Value) {
		w.typ(procUnit, ontology.ProcessUnit)
		w.t(procUnit, ontology.InExperiment, x)
		w.t(procUnit, ontology.InNode, convert.String(node))
		w.t(procUnit, ontology.ProcessID, kb.Integer(pid))
		w.t(procUnit, ontology.HasParentPU, nodeUnit)
	}
	if w.once("pt\x00" + threadUnit.Value) {
		w.typ(threadUnit, ontology.ThreadUnit)
		w.t(threadUnit, ontology.InExperiment, x)
		w.t(threadUnit, ontology.InNode, convert.String(node))
		w.t(threadUnit, ontology.ProcessID, kb.Integer(pid))
		w.t(threadUnit, ontology.ThreadID, kb.Integer(tid))
		w.t(threadUnit, ontology.HasParentPU, procUnit)
	}

	region := b.IRI("experiment", exp, "cr", crKey)
	if w.once("c\x00" + region.Value) {
		typ, _ := cr.Value("type")
		if ct, ok := ontology.LookupCodeRegionType(typ); ok {
			w.typ(region, ct.Class)
			if ct.Family != ct.Class {
				w.typ(region, ct.Family)
			}
		} else {
			w.typ(region, ontology.CodeRegion)
			if typ != "" {
				w.m.warn(w.msg.Position, "unknown code region type %q: written as a plain CodeRegion (SensorID %q, ResourceID %q)", typ, w.msg.SensorID, w.msg.ResourceID)
			}
		}
		if typ != "" {
			w.t(region, ontology.HasCrType, convert.String(typ))
		}
		if crID != "" {
			w.t(region, ontology.RegionIdentifier, convert.String(crID))
		}
		for _, f := range []struct{ attr, prop string }{
			{"line", ontology.StartLine}, {"column", ontology.StartColumn},
			{"endline", ontology.EndLine}, {"endcolumn", ontology.EndColumn}} {
			v, _ := cr.Value(f.attr)
			if v == "" {
				continue
			}
			n, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				w.fail("<cr> %s %q is not an integer", f.attr, v)
				return
			}
			w.t(region, f.prop, kb.Integer(n))
		}
		if file != "" {
			src := b.IRI("experiment", exp, "src", file)
			if w.once("f\x00" + src.Value) {
				w.typ(src, ontology.SourceFile)
				w.t(src, ontology.FileName, convert.String(file))
			}
			w.t(region, ontology.InSourceFile, src)
		}
	}

	rs := b.IRI("experiment", exp, "rs", node, proc, thread, crKey)
	if w.once("rs\x00" + rs.Value) {
		w.typ(rs, ontology.RegionSummary)
		w.t(rs, ontology.OfCodeRegion, region)
		w.t(rs, ontology.InProcessingUnit, threadUnit)
		w.t(rs, ontology.InExperiment, x)
	}
	n := 0
	metric := func(name, value string) {
		name, value = strings.TrimSpace(name), strings.TrimSpace(value)
		if name == "" {
			w.fail("a metric has no name")
			return
		}
		lit, warning, err := convert.MetricLiteral(convert.MetricDatatype(name), value)
		if err != nil {
			w.fail("metric %s: %v", name, err)
			return
		}
		if warning != "" {
			w.m.warn(w.msg.Position, "metric %s: %s", name, warning)
		}
		n++
		mi := b.IRI("experiment", exp, "rs", node, proc, thread, crKey, "metric", name)
		w.t(rs, ontology.HasMetric, mi)
		w.typ(mi, ontology.PerformanceMetric)
		w.t(mi, ontology.HasMetricName, convert.String(name))
		w.t(mi, ontology.HasMetricValue, lit)
		if info, ok := ontology.LookupMetric(name); ok {
			w.t(mi, ontology.HasMetricDefinition, kb.IRI(info.IRI))
		}
	}
	for _, c := range p.Children {
		switch c.Name {
		case "metric":
			name, _ := c.Value("name")
			value, ok := c.AttrValue("value")
			if !ok {
				value = c.Text
			}
			metric(name, value)
		case "metrics":
			sc := bufio.NewScanner(strings.NewReader(c.Text))
			for sc.Scan() {
				l := strings.TrimSpace(sc.Text())
				if l == "" {
					continue
				}
				name, value, ok := strings.Cut(l, "=")
				if !ok {
					w.fail("metric line %q is not name=value", l)
					return
				}
				metric(name, value)
			}
		}
	}
	if n == 0 && w.err == nil {
		w.m.warn(w.msg.Position, "profiling data without metrics (SensorID %q, ResourceID %q)", w.msg.SensorID, w.msg.ResourceID)
	}
}
