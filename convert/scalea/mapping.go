package scalea

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/lib/pq"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

var (
	rdfType = kb.IRI(ontology.RDFType)
	p       = kb.IRI // a vocabulary term, p(ontology.X)
)

// out emits one table's triples and keeps the first error, so mapping
// code reads as a list of triples.
type out struct {
	ctx context.Context
	t   *convert.Table
	err error
}

func (r *run) out(ctx context.Context, table string) *out {
	return &out{ctx: ctx, t: r.em.Table(table)}
}

func (o *out) add(s kb.Term, pred string, obj kb.Term) {
	if o.err == nil {
		o.err = o.t.Emit(o.ctx, s, kb.IRI(pred), obj)
	}
}

func str(s sql.NullString) kb.Term {
	if !s.Valid {
		return kb.Term{}
	}
	return kb.String(s.String)
}

func integer(n sql.NullInt64) kb.Term {
	if !n.Valid {
		return kb.Term{}
	}
	return kb.Integer(n.Int64)
}

func id(n int64) string { return strconv.FormatInt(n, 10) }

// double converts a REAL/DOUBLE column read as text.
func (r *run) double(s sql.NullString, table string, key int64, column string) (kb.Term, error) {
	if !s.Valid {
		return kb.Term{}, nil
	}
	v, _, err := convert.MetricLiteral(ontology.XSDDouble, s.String)
	if err != nil {
		return kb.Term{}, convert.Errorf(r.source, convert.SQLPosition(table, id(key), column), "%w", err)
	}
	return v, nil
}

// metricInfo is what a metric name maps to.
type metricInfo struct {
	datatype string  // XSD datatype of values
	def      kb.Term // catalog entry or site-local MetricDefinition
	segment  string  // the name escaped as an IRI segment
	warned   bool
}

// catalog reads PMC: catalog names link to the catalog, others become
// site-local MetricDefinitions.
func (r *run) catalog(ctx context.Context) error {
	r.metrics = map[string]metricInfo{}
	o := r.out(ctx, "PMC")
	return r.each(ctx, `SELECT pmcID, pmcMetricName, pmcMetricUnit, pmcMetricDataType, pmcMetricDesc FROM PMC ORDER BY pmcID`, func(rows *sql.Rows) error {
		var key int64
		var name, unit, dt, desc sql.NullString
		if err := rows.Scan(&key, &name, &unit, &dt, &desc); err != nil {
			return err
		}
		o.t.Row()
		if !name.Valid {
			return nil // a nameless row defines nothing
		}
		if _, dup := r.metrics[name.String]; dup {
			r.em.Warn(convert.SQLPosition("PMC", id(key), "pmcMetricName"), "metric %q is defined again; the first definition is used", name.String)
			return nil
		}
		if m, ok := ontology.LookupMetric(name.String); ok {
			r.metrics[name.String] = metricInfo{datatype: m.ValueDatatype, def: kb.IRI(m.IRI), segment: convert.EscapeSegment(name.String)}
			return nil
		}
		info := metricInfo{datatype: ontology.XSDDouble, def: r.opt.Base.IRI("metric", name.String), segment: convert.EscapeSegment(name.String)}
		switch strings.ToLower(strings.TrimSpace(dt.String)) {
		case "int64", "int", "integer", "long", "bigint", "int32", "counter":
			info.datatype = ontology.XSDLong
		}
		r.metrics[name.String] = info
		d := info.def
		o.add(d, ontology.RDFType, p(ontology.MetricDefinition))
		o.add(d, ontology.MetricMnemonic, kb.String(name.String))
		o.add(d, ontology.MetricUnit, str(unit))
		o.add(d, ontology.MetricDataType, str(dt))
		o.add(d, ontology.MetricDescription, str(desc))
		return o.err
	})
}

// metric returns what a metric name maps to; names in neither the catalog
// nor PMC get a site-local definition IRI and one warning.
func (r *run) metric(name, table string, rsID int64) metricInfo {
	if m, ok := r.metrics[name]; ok {
		return m
	}
	info := metricInfo{datatype: ontology.XSDDouble, def: r.opt.Base.IRI("metric", name), segment: convert.EscapeSegment(name)}
	if m, ok := ontology.LookupMetric(name); ok {
		info = metricInfo{datatype: m.ValueDatatype, def: kb.IRI(m.IRI), segment: info.segment}
	} else {
		r.em.Warn(convert.SQLPosition(table, "regionSummaryID="+id(rsID), "name"), "metric %q is in neither the metrics catalog nor table PMC; its values are written as xsd:double", name)
	}
	r.metrics[name] = info
	return info
}

// nodeNames maps host names and aliases to computational nodes, for
// onComputationalNode.
func (r *run) nodeNames(ctx context.Context) error {
	r.nodes = map[string]int64{}
	return r.each(ctx, `SELECT compNodeID, hostName, hostAliases FROM ComputationalNode ORDER BY compNodeID`, func(rows *sql.Rows) error {
		var key int64
		var host sql.NullString
		var aliases []sql.NullString
		if err := rows.Scan(&key, &host, pq.Array(&aliases)); err != nil {
			return err
		}
		for _, n := range append([]sql.NullString{host}, aliases...) {
			if _, seen := r.nodes[n.String]; n.Valid && !seen {
				r.nodes[n.String] = key
			}
		}
		return nil
	})
}

func (r *run) siteIRI() kb.Term { return r.opt.Base.IRI("site") }

func (r *run) site(ctx context.Context) error {
	o := r.out(ctx, "Site")
	o.t.Row()
	s := r.siteIRI()
	o.add(s, ontology.RDFType, p(ontology.Site))
	o.add(s, ontology.SiteName, kb.String(r.opt.Site))
	return o.err
}

func (r *run) clusters(ctx context.Context) error {
	o := r.out(ctx, "Cluster")
	return r.each(ctx, `SELECT clusterID, name, totalFlops::text FROM Cluster ORDER BY clusterID`, func(rows *sql.Rows) error {
		var key int64
		var name, flops sql.NullString
		if err := rows.Scan(&key, &name, &flops); err != nil {
			return err
		}
		o.t.Row()
		c := r.key("cluster", key)
		f, err := r.double(flops, "Cluster", key, "totalFlops")
		if err != nil {
			return err
		}
		o.add(c, ontology.RDFType, p(ontology.Cluster))
		o.add(c, ontology.ClusterName, str(name))
		o.add(c, ontology.TotalFlops, f)
		o.add(c, ontology.ClusterAtSite, r.siteIRI())
		o.add(r.siteIRI(), ontology.HasCluster, c)
		return o.err
	})
}

// ref checks a nullable reference read with "target IS NOT NULL AS ok";
// it returns the target's IRI (zero for NULL) and whether the row stays.
func (r *run) ref(table string, key int64, column string, value sql.NullInt64, ok bool, target, segment string) (kb.Term, bool, error) {
	if !value.Valid {
		return kb.Term{}, true, nil
	}
	if !ok {
		_, err := r.dangling(table, key, column, target, value.Int64)
		return kb.Term{}, false, err
	}
	if r.isDropped(target, value.Int64) {
		r.drop(table, key)
		return kb.Term{}, false, nil
	}
	return r.key(segment, value.Int64), true, nil
}

func (r *run) computationalNodes(ctx context.Context) error {
	o := r.out(ctx, "ComputationalNode")
	return r.each(ctx, `SELECT n.compNodeID, n.hostName, n.hostAliases, n.hostAddresses, n.systemModel, n.physMem, n.virtMem, n.numCpu, n.cpuType, n.cpuSpeed,
		n.osName, n.osVersion, n.hardDiskSize, n.dataCacheSize, n.cacheMissPenalty, n.clusterID, c.clusterID IS NOT NULL
		FROM ComputationalNode n LEFT JOIN Cluster c ON c.clusterID = n.clusterID ORDER BY n.compNodeID`, func(rows *sql.Rows) error {
		var key int64
		var host, model, phys, virt, cpuType, speed, osName, osVersion sql.NullString
		var aliases, addrs []sql.NullString
		var ncpu, disk, cluster sql.NullInt64
		var caches, penalties []sql.NullInt64
		var clusterOK bool
		if err := rows.Scan(&key, &host, pq.Array(&aliases), pq.Array(&addrs), &model, &phys, &virt, &ncpu, &cpuType, &speed,
			&osName, &osVersion, &disk, pq.Array(&caches), pq.Array(&penalties), &cluster, &clusterOK); err != nil {
			return err
		}
		o.t.Row()
		cl, keep, err := r.ref("ComputationalNode", key, "clusterID", cluster, clusterOK, "Cluster", "cluster")
		if err != nil || !keep {
			return err
		}
		n := r.key("node", key)
		o.add(n, ontology.RDFType, p(ontology.ComputationalNode))
		o.add(n, ontology.HostName, str(host))
		for _, a := range aliases {
			o.add(n, ontology.HostAlias, str(a))
		}
		for _, a := range addrs {
			o.add(n, ontology.HostAddress, str(a))
		}
		o.add(n, ontology.SystemModel, str(model))
		o.add(n, ontology.PhysicalMemory, r.megabytes(phys, key, "physMem"))
		o.add(n, ontology.VirtualMemory, r.megabytes(virt, key, "virtMem"))
		o.add(n, ontology.NumCpu, integer(ncpu))
		o.add(n, ontology.CpuType, str(cpuType))
		if speed.Valid {
			if mhz, ok := parseMegahertz(speed.String); ok {
				o.add(n, ontology.CpuSpeed, kb.Double(mhz))
			} else {
				r.em.Warn(convert.SQLPosition("ComputationalNode", id(key), "cpuSpeed"), "cannot read %q as a clock speed (want e.g. 2.4 GHz or 800 MHz); kept as a string", speed.String)
				o.add(n, ontology.CpuSpeed, kb.String(speed.String))
			}
		}
		o.add(n, ontology.OsName, str(osName))
		o.add(n, ontology.OsVersion, str(osVersion))
		if disk.Valid {
			o.add(n, ontology.HardDiskSize, kb.Long(disk.Int64))
		}
		o.add(n, ontology.DataCacheSize, intList(caches))
		o.add(n, ontology.CacheMissPenalty, intList(penalties))
		if !cl.IsZero() {
			o.add(n, ontology.InCluster, cl)
			o.add(cl, ontology.HasNode, n)
		}
		return o.err
	})
}

// megabytes converts a TEXT size; an unreadable one stays a string, with
// a warning.
func (r *run) megabytes(s sql.NullString, key int64, column string) kb.Term {
	if !s.Valid {
		return kb.Term{}
	}
	if mb, ok := parseMegabytes(s.String); ok {
		return kb.Long(mb)
	}
	r.em.Warn(convert.SQLPosition("ComputationalNode", id(key), column), "cannot read %q as a size (want e.g. 512 MB or 2 GB); kept as a string", s.String)
	return kb.String(s.String)
}

// intList renders an INTEGER[] as the comma-separated list the ontology
// uses for per-level cache figures ("16,512"); NULL elements are empty.
func intList(v []sql.NullInt64) kb.Term {
	if v == nil {
		return kb.Term{}
	}
	s := make([]string, len(v))
	for i, n := range v {
		if n.Valid {
			s[i] = id(n.Int64)
		}
	}
	return kb.String(strings.Join(s, ","))
}

func (r *run) networks(ctx context.Context) error {
	o := r.out(ctx, "Network")
	return r.each(ctx, `SELECT n.networkID, n.name, n.bandwidth::text, n.latency::text, n.clusterID, c.clusterID IS NOT NULL
		FROM Network n LEFT JOIN Cluster c ON c.clusterID = n.clusterID ORDER BY n.networkID`, func(rows *sql.Rows) error {
		var key int64
		var name, bw, lat sql.NullString
		var cluster sql.NullInt64
		var ok bool
		if err := rows.Scan(&key, &name, &bw, &lat, &cluster, &ok); err != nil {
			return err
		}
		o.t.Row()
		cl, keep, err := r.ref("Network", key, "clusterID", cluster, ok, "Cluster", "cluster")
		if err != nil || !keep {
			return err
		}
		n := r.key("network", key)
		b, err := r.double(bw, "Network", key, "bandwidth")
		if err != nil {
			return err
		}
		l, err := r.double(lat, "Network", key, "latency")
		if err != nil {
			return err
		}
		o.add(n, ontology.RDFType, p(ontology.Network))
		o.add(n, ontology.NetworkName, str(name))
		o.add(n, ontology.NetworkBandwidth, b)
		o.add(n, ontology.NetworkLatency, l)
		if !cl.IsZero() {
			o.add(n, ontology.NetworkOf, cl)
			o.add(cl, ontology.HasNetwork, n)
		}
		return o.err
	})
}

// benchArray writes every element of a REAL[] column as an indexed
// BenchmarkValue node of perf.
func (r *run) benchArray(o *out, perf kb.Term, column string, values []sql.NullString, table string, key int64) error {
	for i, v := range values {
		if !v.Valid {
			continue
		}
		t, err := r.double(v, table, key, column+"["+strconv.Itoa(i+1)+"]")
		if err != nil {
			return err
		}
		node := kb.IRI(perf.Value + "/" + column + "/" + strconv.Itoa(i+1))
		o.add(perf, ontology.HasBenchmarkValue, node)
		o.add(node, ontology.RDFType, p(ontology.BenchmarkValue))
		o.add(node, ontology.BenchmarkColumn, kb.String(column))
		o.add(node, ontology.BenchmarkIndex, kb.Integer(int64(i+1)))
		o.add(node, ontology.BenchmarkTime, t)
	}
	return o.err
}

// collectiveBench reads NetworkMPP2PPerf, whose columns (mpiBarrier,
// mpiBcast, numNode) are collective operations: it is mapped to
// NetworkMPColPerf.
func (r *run) collectiveBench(ctx context.Context) error {
	o := r.out(ctx, "NetworkMPP2PPerf")
	return r.each(ctx, `SELECT b.colMPICommID, b.mpilibName, b.numNode, b.mpiBarrier::text, b.mpiBcast::text[], b.networkID, n.networkID IS NOT NULL
		FROM NetworkMPP2PPerf b LEFT JOIN Network n ON n.networkID = b.networkID ORDER BY b.colMPICommID`, func(rows *sql.Rows) error {
		var key int64
		var lib, barrier sql.NullString
		var nodes, network sql.NullInt64
		var bcast []sql.NullString
		var ok bool
		if err := rows.Scan(&key, &lib, &nodes, &barrier, pq.Array(&bcast), &network, &ok); err != nil {
			return err
		}
		o.t.Row()
		net, keep, err := r.ref("NetworkMPP2PPerf", key, "networkID", network, ok, "Network", "network")
		if err != nil || !keep {
			return err
		}
		b := r.key("NetworkMPP2PPerf", key)
		bt, err := r.double(barrier, "NetworkMPP2PPerf", key, "mpiBarrier")
		if err != nil {
			return err
		}
		o.add(b, ontology.RDFType, p(ontology.NetworkMPColPerf))
		o.add(b, ontology.MpiLibName, str(lib))
		o.add(b, ontology.NumNode, integer(nodes))
		o.add(b, ontology.MpiBarrierTime, bt)
		if err := r.benchArray(o, b, "mpiBcast", bcast, "NetworkMPP2PPerf", key); err != nil {
			return err
		}
		if !net.IsZero() {
			o.add(net, ontology.HasMPColPerf, b)
		}
		return o.err
	})
}

// p2pBench reads NetworkMPColPerf, whose columns (mpiSync, mpiAsync,
// mpiSsend) are point-to-point sends: it is mapped to NetworkMPP2PPerf.
func (r *run) p2pBench(ctx context.Context) error {
	o := r.out(ctx, "NetworkMPColPerf")
	return r.each(ctx, `SELECT b.perfMPICompNodeID, b.mpilibName, b.mpiSync::text[], b.mpiAsync::text[], b.mpiSsend::text[], b.networkID, n.networkID IS NOT NULL
		FROM NetworkMPColPerf b LEFT JOIN Network n ON n.networkID = b.networkID ORDER BY b.perfMPICompNodeID`, func(rows *sql.Rows) error {
		var key int64
		var lib sql.NullString
		var network sql.NullInt64
		var syncs, asyncs, ssends []sql.NullString
		var ok bool
		if err := rows.Scan(&key, &lib, pq.Array(&syncs), pq.Array(&asyncs), pq.Array(&ssends), &network, &ok); err != nil {
			return err
		}
		o.t.Row()
		net, keep, err := r.ref("NetworkMPColPerf", key, "networkID", network, ok, "Network", "network")
		if err != nil || !keep {
			return err
		}
		b := r.key("NetworkMPColPerf", key)
		o.add(b, ontology.RDFType, p(ontology.NetworkMPP2PPerf))
		o.add(b, ontology.MpiLibName, str(lib))
		for _, col := range []struct {
			name string
			v    []sql.NullString
		}{{"mpiSync", syncs}, {"mpiAsync", asyncs}, {"mpiSsend", ssends}} {
			if err := r.benchArray(o, b, col.name, col.v, "NetworkMPColPerf", key); err != nil {
				return err
			}
		}
		if !net.IsZero() {
			o.add(net, ontology.HasMPP2PPerf, b)
		}
		return o.err
	})
}

// sharedMemoryBench reads NodeSharedMemoryPerf; it references a cluster
// (not a node), so the cluster has the benchmark.
func (r *run) sharedMemoryBench(ctx context.Context) error {
	o := r.out(ctx, "NodeSharedMemoryPerf")
	return r.each(ctx, `SELECT b.perfOMPCompNodeID, b.omplibName, b.clusterID, c.clusterID IS NOT NULL
		FROM NodeSharedMemoryPerf b LEFT JOIN Cluster c ON c.clusterID = b.clusterID ORDER BY b.perfOMPCompNodeID`, func(rows *sql.Rows) error {
		var key int64
		var lib sql.NullString
		var cluster sql.NullInt64
		var ok bool
		if err := rows.Scan(&key, &lib, &cluster, &ok); err != nil {
			return err
		}
		o.t.Row()
		cl, keep, err := r.ref("NodeSharedMemoryPerf", key, "clusterID", cluster, ok, "Cluster", "cluster")
		if err != nil || !keep {
			return err
		}
		b := r.key("NodeSharedMemoryPerf", key)
		o.add(b, ontology.RDFType, p(ontology.NodeSharedMemoryPerf))
		o.add(b, ontology.OmpLibName, str(lib))
		if !cl.IsZero() {
			o.add(cl, ontology.HasSharedMemoryPerf, b)
		}
		return o.err
	})
}

func (r *run) virtualMachines(ctx context.Context) error {
	o := r.out(ctx, "VirtualMachine")
	return r.each(ctx, `SELECT virtualMachineID, name FROM VirtualMachine ORDER BY virtualMachineID`, func(rows *sql.Rows) error {
		var key int64
		var name sql.NullString
		if err := rows.Scan(&key, &name); err != nil {
			return err
		}
		o.t.Row()
		vm := r.key("vm", key)
		o.add(vm, ontology.RDFType, p(ontology.VirtualMachine))
		o.add(vm, ontology.VirtualMachineName, str(name))
		return o.err
	})
}

func (r *run) virtualNodes(ctx context.Context) error {
	o := r.out(ctx, "VirtualNode")
	return r.each(ctx, `SELECT n.virtualNodeID, n.name, n.numCpu, n.virtualMachineID, m.virtualMachineID IS NOT NULL
		FROM VirtualNode n LEFT JOIN VirtualMachine m ON m.virtualMachineID = n.virtualMachineID ORDER BY n.virtualNodeID`, func(rows *sql.Rows) error {
		var key int64
		var name sql.NullString
		var ncpu, vmID sql.NullInt64
		var ok bool
		if err := rows.Scan(&key, &name, &ncpu, &vmID, &ok); err != nil {
			return err
		}
		o.t.Row()
		vm, keep, err := r.ref("VirtualNode", key, "virtualMachineID", vmID, ok, "VirtualMachine", "vm")
		if err != nil || !keep {
			return err
		}
		n := r.key("vnode", key)
		o.add(n, ontology.RDFType, p(ontology.VirtualNode))
		o.add(n, ontology.VirtualNodeName, str(name))
		o.add(n, ontology.NumCpu, integer(ncpu))
		if !vm.IsZero() {
			o.add(vm, ontology.HasVirtualNode, n)
		}
		return o.err
	})
}

// versionFilter restricts a version id column to the selected
// experiments' versions.
func (r *run) versionFilter(col string) string {
	if r.filter == "" {
		return ""
	}
	return " WHERE " + col + " IN (SELECT versionID FROM Experiment WHERE experimentID IN (" + r.filter + "))"
}

func (r *run) applications(ctx context.Context) error {
	o := r.out(ctx, "Application")
	where := ""
	if r.filter != "" {
		where = " WHERE applicationID IN (SELECT v.applicationID FROM Version v JOIN Experiment e ON e.versionID = v.versionID WHERE e.experimentID IN (" + r.filter + "))"
	}
	return r.each(ctx, `SELECT applicationID, name FROM Application`+where+` ORDER BY applicationID`, func(rows *sql.Rows) error {
		var key int64
		var name sql.NullString
		if err := rows.Scan(&key, &name); err != nil {
			return err
		}
		o.t.Row()
		a := r.key("app", key)
		o.add(a, ontology.RDFType, p(ontology.Application))
		o.add(a, ontology.ApplicationName, str(name))
		return o.err
	})
}

func (r *run) versions(ctx context.Context) error {
	o := r.out(ctx, "Version")
	return r.each(ctx, `SELECT v.versionID, v.versionInfo, v.applicationID, a.applicationID IS NOT NULL
		FROM Version v LEFT JOIN Application a ON a.applicationID = v.applicationID`+r.versionFilter("v.versionID")+` ORDER BY v.versionID`, func(rows *sql.Rows) error {
		var key int64
		var info sql.NullString
		var app sql.NullInt64
		var ok bool
		if err := rows.Scan(&key, &info, &app, &ok); err != nil {
			return err
		}
		o.t.Row()
		a, keep, err := r.ref("Version", key, "applicationID", app, ok, "Application", "app")
		if err != nil || !keep {
			return err
		}
		v := r.key("version", key)
		o.add(v, ontology.RDFType, p(ontology.Version))
		o.add(v, ontology.VersionInfo, str(info))
		o.add(v, ontology.VersionOf, a)
		o.add(a, ontology.HasVersion, v)
		return o.err
	})
}

func (r *run) sourceFiles(ctx context.Context) error {
	o := r.out(ctx, "SourceFile")
	return r.each(ctx, `SELECT f.sourceFileID, f.name, f.contents, f.location, f.versionID, v.versionID IS NOT NULL
		FROM SourceFile f LEFT JOIN Version v ON v.versionID = f.versionID`+r.versionFilter("f.versionID")+` ORDER BY f.sourceFileID`, func(rows *sql.Rows) error {
		var key int64
		var name, contents, location sql.NullString
		var version sql.NullInt64
		var ok bool
		if err := rows.Scan(&key, &name, &contents, &location, &version, &ok); err != nil {
			return err
		}
		o.t.Row()
		v, keep, err := r.ref("SourceFile", key, "versionID", version, ok, "Version", "version")
		if err != nil || !keep {
			return err
		}
		f := r.key("file", key)
		o.add(f, ontology.RDFType, p(ontology.SourceFile))
		o.add(f, ontology.FileName, str(name))
		o.add(f, ontology.FileContents, str(contents))
		o.add(f, ontology.FileLocation, str(location))
		o.add(f, ontology.SourceFileOf, v)
		o.add(v, ontology.HasSourceFile, f)
		return o.err
	})
}

func (r *run) codeRegions(ctx context.Context) error {
	o := r.out(ctx, "CodeRegion")
	where := ""
	if r.filter != "" {
		where = " WHERE f.versionID IN (SELECT versionID FROM Experiment WHERE experimentID IN (" + r.filter + "))"
	}
	return r.each(ctx, `SELECT c.codeRegionID, c.startPos_x, c.startPos_y, c.endPos_x, c.endPos_y, c.CodeRegionType, c.CodeRegionUnit, c.codeRegion,
		c.sourceFileID, f.sourceFileID IS NOT NULL, c.parentCodeRegionID, pc.codeRegionID IS NOT NULL
		FROM CodeRegion c LEFT JOIN SourceFile f ON f.sourceFileID = c.sourceFileID LEFT JOIN CodeRegion pc ON pc.codeRegionID = c.parentCodeRegionID`+where+` ORDER BY c.codeRegionID`, func(rows *sql.Rows) error {
		var key, sx, sy, ex, ey, ident int64
		var typ, unit sql.NullString
		var file, parent sql.NullInt64
		var fileOK, parentOK bool
		if err := rows.Scan(&key, &sx, &sy, &ex, &ey, &typ, &unit, &ident, &file, &fileOK, &parent, &parentOK); err != nil {
			return err
		}
		o.t.Row()
		f, keep, err := r.ref("CodeRegion", key, "sourceFileID", file, fileOK, "SourceFile", "file")
		if err != nil || !keep {
			return err
		}
		pc, keep, err := r.ref("CodeRegion", key, "parentCodeRegionID", parent, parentOK, "CodeRegion", "cr")
		if err != nil || !keep {
			return err
		}
		if parent.Valid {
			if err := r.setParent("CodeRegion", key, "parentCodeRegionID", parent.Int64); err != nil {
				return err
			}
		}
		c := r.key("cr", key)
		switch ct, known := ontology.LookupCodeRegionType(typ.String); {
		case !typ.Valid:
			o.add(c, ontology.RDFType, p(ontology.CodeRegion))
		case known:
			o.add(c, ontology.RDFType, p(ct.Class))
			if ct.Family != ct.Class {
				o.add(c, ontology.RDFType, p(ct.Family))
			}
			o.add(c, ontology.HasCrType, kb.String(typ.String))
		default:
			r.em.Warn(convert.SQLPosition("CodeRegion", id(key), "CodeRegionType"), "unknown code region type %q (not in Appendix C.1); typed as plain CodeRegion", typ.String)
			o.add(c, ontology.RDFType, p(ontology.CodeRegion))
			o.add(c, ontology.HasCrType, kb.String(typ.String))
		}
		o.add(c, ontology.RegionIdentifier, kb.String(id(ident)))
		line, col, endLine, endCol := sx, sy, ex, ey
		if r.opt.ColumnLine {
			line, col, endLine, endCol = sy, sx, ey, ex
		}
		o.add(c, ontology.StartLine, kb.Integer(line))
		o.add(c, ontology.StartColumn, kb.Integer(col))
		o.add(c, ontology.EndLine, kb.Integer(endLine))
		o.add(c, ontology.EndColumn, kb.Integer(endCol))
		o.add(c, ontology.CodeRegionUnit, str(unit))
		if !f.IsZero() {
			o.add(c, ontology.InSourceFile, f)
			o.add(f, ontology.HasCodeRegion, c)
		}
		o.add(c, ontology.HasParentCodeRegion, pc)
		return o.err
	})
}

func (r *run) experiments(ctx context.Context) error {
	o := r.out(ctx, "Experiment")
	where := ""
	if r.filter != "" {
		where = " WHERE " + r.where("e.experimentID")
	}
	return r.each(ctx, `SELECT e.experimentID, e.info, e.startTime, e.endTime, e.commandLine, e.compiler, e.compilerOptions, e.versionID, v.versionID IS NOT NULL
		FROM Experiment e LEFT JOIN Version v ON v.versionID = e.versionID`+where+` ORDER BY e.experimentID`, func(rows *sql.Rows) error {
		var key int64
		var info, cmd, compiler, opts sql.NullString
		var start, end sql.NullTime
		var version sql.NullInt64
		var ok bool
		if err := rows.Scan(&key, &info, &start, &end, &cmd, &compiler, &opts, &version, &ok); err != nil {
			return err
		}
		o.t.Row()
		v, keep, err := r.ref("Experiment", key, "versionID", version, ok, "Version", "version")
		if err != nil || !keep {
			return err
		}
		e := r.key("exp", key)
		o.add(e, ontology.RDFType, p(ontology.Experiment))
		o.add(e, ontology.OfVersion, v)
		o.add(v, ontology.HasExperiment, e)
		o.add(e, ontology.ExperimentInfo, str(info))
		o.add(e, ontology.StartTime, dateTime(start))
		o.add(e, ontology.EndTime, dateTime(end))
		o.add(e, ontology.CommandLine, str(cmd))
		o.add(e, ontology.Compiler, str(compiler))
		o.add(e, ontology.CompilerOptions, str(opts))
		o.add(e, ontology.AtSite, r.siteIRI())
		o.add(e, ontology.ExperimentIdentifier, kb.String(id(key)))
		return o.err
	})
}

// dateTime writes a TIMESTAMP (without time zone) as xsd:dateTime without
// a zone; lib/pq returns it as a UTC time.
func dateTime(t sql.NullTime) kb.Term {
	if !t.Valid {
		return kb.Term{}
	}
	return convert.DateTime(t.Time.In(time.UTC))
}

// puIRI names the processing units of an experiment: the node unit
// exp/E/pu/NODE, the process unit …/NODE/P, the thread unit …/NODE/P/T.
func (r *run) puIRI(exp int64, node string, proc, thread int64, level int) kb.Term {
	switch level {
	case 0:
		return r.opt.Base.IRI("exp", id(exp), "pu", node)
	case 1:
		return r.opt.Base.IRI("exp", id(exp), "pu", node, id(proc))
	}
	return r.opt.Base.IRI("exp", id(exp), "pu", node, id(proc), id(thread))
}

// processingUnits writes one thread-level processing unit per distinct
// (experiment, node, process, thread) of RegionSummary, with the node and
// process levels of the dynamic processing unit graph above it.
// puQuery lists the distinct processing units of the region summaries.
func (r *run) puQuery() string {
	where := ""
	if r.filter != "" {
		where = " WHERE " + r.where("rs.experimentID")
	}
	return `SELECT DISTINCT rs.experimentID, rs.computationalNode, rs.processID, rs.threadID
		FROM RegionSummary rs JOIN Experiment e ON e.experimentID = rs.experimentID` + where + ` ORDER BY 1, 2, 3, 4`
}

func (r *run) processingUnits(ctx context.Context) error {
	o := r.out(ctx, "ProcessingUnit")
	var lastExp, lastProc int64 = -1, -1
	lastNode := ""
	warned := map[string]bool{}
	return r.copyRows(ctx, "ProcessingUnit", func(cols [][]byte) error {
		if err := columns(cols, 4); err != nil {
			return err
		}
		exp, err := mustInt(cols[0])
		if err != nil {
			return err
		}
		node := lastNode
		if string(cols[1]) != lastNode {
			node = text(cols[1])
		}
		proc, err := mustInt(cols[2])
		if err != nil {
			return err
		}
		thread, err := mustInt(cols[3])
		if err != nil {
			return err
		}
		if r.isDropped("Experiment", exp) {
			return nil
		}
		o.t.Row()
		e := r.key("exp", exp)
		var cn kb.Term
		if key, ok := r.nodes[node]; ok {
			cn = r.key("node", key)
		} else if !warned[node] {
			warned[node] = true
			r.em.Warn(convert.SQLPosition("RegionSummary", "experimentID="+id(exp), "computationalNode"), "node %q is neither a hostName nor a hostAlias of ComputationalNode; its processing units have no onComputationalNode", node)
		}
		common := func(pu kb.Term) {
			o.add(pu, ontology.InExperiment, e)
			o.add(pu, ontology.InNode, kb.String(node))
			o.add(pu, ontology.OnComputationalNode, cn)
		}
		nodeUnit := r.puIRI(exp, node, 0, 0, 0)
		if exp != lastExp || node != lastNode {
			o.add(nodeUnit, ontology.RDFType, p(ontology.NodeUnit))
			common(nodeUnit)
			lastProc = -1
		}
		procUnit := r.puIRI(exp, node, proc, 0, 1)
		if exp != lastExp || node != lastNode || proc != lastProc {
			o.add(procUnit, ontology.RDFType, p(ontology.ProcessUnit))
			common(procUnit)
			o.add(procUnit, ontology.ProcessID, kb.Integer(proc))
			o.add(procUnit, ontology.HasParentPU, nodeUnit)
			o.add(nodeUnit, ontology.HasChildPU, procUnit)
		}
		lastExp, lastNode, lastProc = exp, node, proc
		tu := r.puIRI(exp, node, proc, thread, 2)
		o.add(tu, ontology.RDFType, p(ontology.ThreadUnit))
		common(tu)
		o.add(tu, ontology.ProcessID, kb.Integer(proc))
		o.add(tu, ontology.ThreadID, kb.Integer(thread))
		o.add(tu, ontology.HasParentPU, procUnit)
		o.add(procUnit, ontology.HasChildPU, tu)
		o.add(e, ontology.HasProcessingUnit, tu)
		return o.err
	})
}

const summaryQuery = `SELECT rs.regionSummaryID, rs.experimentID, e.experimentID IS NOT NULL, e.versionID,
	rs.computationalNode, rs.processID, rs.threadID,
	rs.puID, pu.puID IS NOT NULL, pu.computationalNode, pu.processID, pu.threadID,
	rs.codeRegionID, cr.codeRegionID IS NOT NULL, rs.codeRegion, crx.id,
	rs.regionSummaryIDParent, p1.regionSummaryID IS NOT NULL, rs.parentRegion, p2.regionSummaryID IS NOT NULL,
	rs.codeRegionGroup, rs.numberCalls, rs.numberSubs, COALESCE(mc.has_ncalls, false), COALESCE(mc.has_nsubs, false)
FROM RegionSummary rs
LEFT JOIN Experiment e ON e.experimentID = rs.experimentID
LEFT JOIN ProcessingUnit pu ON pu.puID = rs.puID
LEFT JOIN CodeRegion cr ON cr.codeRegionID = rs.codeRegionID
LEFT JOIN (SELECT c.codeRegion AS ident, f.versionID, MIN(c.codeRegionID) AS id
           FROM CodeRegion c JOIN SourceFile f ON f.sourceFileID = c.sourceFileID GROUP BY 1, 2) crx
       ON rs.codeRegionID IS NULL AND crx.ident = rs.codeRegion AND crx.versionID = e.versionID
LEFT JOIN RegionSummary p1 ON p1.regionSummaryID = rs.regionSummaryIDParent
LEFT JOIN RegionSummary p2 ON rs.regionSummaryIDParent IS NULL AND p2.regionSummaryID = rs.parentRegion
LEFT JOIN (SELECT regionSummaryID, bool_or(name = 'ncalls') AS has_ncalls, bool_or(name = 'nsubs') AS has_nsubs
           FROM (SELECT regionSummaryID, name FROM TimingMetrics WHERE name IN ('ncalls', 'nsubs')
                 UNION ALL SELECT regionSummaryID, name FROM HardwareMetrics WHERE name IN ('ncalls', 'nsubs')
                 UNION ALL SELECT regionSummaryID, name FROM TemporalOverheadMetrics WHERE name IN ('ncalls', 'nsubs')) m
           GROUP BY 1) mc ON mc.regionSummaryID = rs.regionSummaryID`

// summaryQuery reads the region summaries with what their references
// resolve to.
func (r *run) summaryQuery() string {
	where := ""
	if r.filter != "" {
		where = " WHERE " + r.where("rs.experimentID")
	}
	return summaryQuery + where + ` ORDER BY rs.regionSummaryID`
}

func (r *run) regionSummaries(ctx context.Context) error {
	o := r.out(ctx, "RegionSummary")
	const T = "RegionSummary"
	var lastNode string
	return r.copyRows(ctx, T, func(cols [][]byte) error {
		if err := columns(cols, 25); err != nil {
			return err
		}
		var key, exp, proc, thread int64
		var version, pu, puProc, puThread, crID, crIdent, crLookup, parent1, parent2, group, ncalls, nsubs sql.NullInt64
		var err error
		for _, c := range []struct {
			dst *int64
			at  int
		}{{&key, 0}, {&exp, 1}, {&proc, 5}, {&thread, 6}} {
			if *c.dst, err = mustInt(cols[c.at]); err != nil {
				return err
			}
		}
		for _, c := range []struct {
			dst *sql.NullInt64
			at  int
		}{{&version, 3}, {&pu, 7}, {&puProc, 10}, {&puThread, 11}, {&crID, 12}, {&crIdent, 14}, {&crLookup, 15},
			{&parent1, 16}, {&parent2, 18}, {&group, 20}, {&ncalls, 21}, {&nsubs, 22}} {
			if *c.dst, err = nullInt(cols[c.at]); err != nil {
				return err
			}
		}
		expOK, puOK, crOK, p1OK, p2OK, hasNcalls, hasNsubs := boolCol(cols[2]), boolCol(cols[8]), boolCol(cols[13]),
			boolCol(cols[17]), boolCol(cols[19]), boolCol(cols[23]), boolCol(cols[24])
		node := lastNode
		if string(cols[4]) != lastNode {
			node = text(cols[4])
			lastNode = node
		}
		var puNode sql.NullString
		if !isNull(cols[9]) {
			puNode = sql.NullString{String: text(cols[9]), Valid: true}
		}
		o.t.Row()
		if !expOK {
			_, err := r.dangling(T, key, "experimentID", "Experiment", exp)
			return err
		}
		if r.isDropped("Experiment", exp) {
			r.drop(T, key)
			return nil
		}
		if _, keep, err := r.ref(T, key, "puID", pu, puOK, "ProcessingUnit", "pu"); err != nil || !keep {
			return err
		}
		if pu.Valid && (puNode.String != node || puProc.Int64 != proc || puThread.Int64 != thread) {
			r.em.Warn(convert.SQLPosition(T, id(key), "puID"), "puID %d is (%s, %d, %d) but the row says (%s, %d, %d); the row's columns are used",
				pu.Int64, puNode.String, puProc.Int64, puThread.Int64, node, proc, thread)
		}
		var cr kb.Term
		switch {
		case crID.Valid:
			c, keep, err := r.ref(T, key, "codeRegionID", crID, crOK, "CodeRegion", "cr")
			if err != nil || !keep {
				return err
			}
			cr = c
		case crIdent.Valid:
			// codeRegion is CodeRegion.codeRegion (the region identifier),
			// resolved in SQL within the experiment's version.
			if !crLookup.Valid {
				_, err := r.dangling(T, key, "codeRegion", "CodeRegion (by codeRegion within version "+id(version.Int64)+")", crIdent.Int64)
				return err
			}
			if r.isDropped("CodeRegion", crLookup.Int64) {
				r.drop(T, key)
				return nil
			}
			cr = r.key("cr", crLookup.Int64)
		}
		var parent kb.Term
		switch {
		case parent1.Valid:
			pt, keep, err := r.ref(T, key, "regionSummaryIDParent", parent1, p1OK, "RegionSummary", "rs")
			if err != nil || !keep {
				return err
			}
			if err := r.setParent(T, key, "regionSummaryIDParent", parent1.Int64); err != nil {
				return err
			}
			parent = pt
		case parent2.Valid:
			pt, keep, err := r.ref(T, key, "parentRegion", parent2, p2OK, "RegionSummary", "rs")
			if err != nil || !keep {
				return err
			}
			if err := r.setParent(T, key, "parentRegion", parent2.Int64); err != nil {
				return err
			}
			parent = pt
		}
		for _, c := range []struct {
			v      sql.NullInt64
			column string
		}{{ncalls, "numberCalls"}, {nsubs, "numberSubs"}} {
			if c.v.Valid && c.v.Int64 < 0 {
				return convert.Errorf(r.source, convert.SQLPosition(T, id(key), c.column), "%s is %d: a count cannot be negative", c.column, c.v.Int64)
			}
		}
		s := r.key("rs", key)
		e := r.key("exp", exp)
		o.add(s, ontology.RDFType, p(ontology.RegionSummary))
		o.add(s, ontology.OfCodeRegion, cr)
		o.add(s, ontology.InProcessingUnit, r.puIRI(exp, node, proc, thread, 2))
		o.add(s, ontology.InExperiment, e)
		if !parent.IsZero() {
			o.add(s, ontology.HasParentRS, parent)
			o.add(parent, ontology.HasChildRS, s)
		}
		o.add(s, ontology.NumberCalls, integer(ncalls))
		o.add(s, ontology.NumberSubs, integer(nsubs))
		o.add(s, ontology.CodeRegionGroup, integer(group))
		// The metric tables usually carry ncalls/nsubs; when they do not,
		// the summary's columns become the metrics the rules read.
		if ncalls.Valid && !hasNcalls {
			r.counterMetric(o, s, "ncalls", ncalls.Int64)
		}
		if nsubs.Valid && !hasNsubs {
			r.counterMetric(o, s, "nsubs", nsubs.Int64)
		}
		return o.err
	})
}

func (r *run) counterMetric(o *out, rs kb.Term, name string, v int64) {
	info := r.metric(name, "RegionSummary", 0)
	m := kb.IRI(rs.Value + "/summary/" + info.segment)
	o.add(rs, ontology.HasMetric, m)
	o.add(m, ontology.RDFType, p(ontology.PerformanceMetric))
	o.add(m, ontology.HasMetricName, kb.String(name))
	lit, _, _ := convert.MetricLiteral(info.datatype, id(v))
	o.add(m, ontology.HasMetricValue, lit)
	o.add(m, ontology.HasMetricDefinition, info.def)
}

// metricQuery reads a metric table ordered by region summary, name and
// value, with whether the summary exists.
func (r *run) metricQuery(table string) string {
	where := ""
	if r.filter != "" {
		where = " WHERE " + r.where("rs.experimentID")
	}
	return `SELECT m.regionSummaryID, m.name, m.value::text, rs.regionSummaryID IS NOT NULL
		FROM ` + table + ` m LEFT JOIN RegionSummary rs ON rs.regionSummaryID = m.regionSummaryID` + where + `
		ORDER BY m.regionSummaryID, m.name, m.value`
}

// metricTable converts one metric table, ordered by region summary; a
// repeated (summary, name) gets an ordinal in its IRI and a warning.
func (r *run) metricTable(table, segment string) func(context.Context) error {
	return func(ctx context.Context) error {
		o := r.out(ctx, table)
		var lastRS int64 = -1
		var rsIRI kb.Term
		lastName, ordinal := "", 1
		if r.names == nil {
			r.names = map[string]string{}
		}
		return r.copyRows(ctx, table, func(cols [][]byte) error {
			if err := columns(cols, 4); err != nil {
				return err
			}
			rsID, err := mustInt(cols[0])
			if err != nil {
				return err
			}
			// Names repeat: keep one string per name.
			name, seen := r.names[string(cols[1])]
			if !seen {
				name = text(cols[1])
				r.names[string(cols[1])] = name
			}
			value := string(cols[2])
			ok := boolCol(cols[3])
			o.t.Row()
			pos := func() string {
				return convert.SQLPosition(table, fmt.Sprintf("(regionSummaryID=%d,name=%s)", rsID, name), "")
			}
			if !ok {
				if !r.opt.Lenient {
					return convert.Errorf(r.source, pos()+" column=regionSummaryID", "dangling reference: regionSummaryID %d is not in table RegionSummary (--lenient drops such rows with a warning)", rsID)
				}
				r.em.Warn(pos()+" column=regionSummaryID", "dangling reference: regionSummaryID %d is not in table RegionSummary; row dropped", rsID)
				return nil
			}
			if r.isDropped("RegionSummary", rsID) {
				return nil
			}
			if rsID != lastRS {
				lastRS, lastName, ordinal = rsID, "", 1
				rsIRI = r.key("rs", rsID)
			}
			if name == lastName {
				ordinal++
			} else {
				lastName, ordinal = name, 1
			}
			info := r.metric(name, table, rsID)
			mIRI := rsIRI.Value + "/" + segment + "/" + info.segment
			if ordinal > 1 {
				mIRI += "/" + strconv.Itoa(ordinal)
				r.em.Warn(pos(), "metric %q appears %d times for this region summary; this value's IRI gets ordinal %d", name, ordinal, ordinal)
			}
			if f, err := strconv.ParseFloat(value, 64); err == nil && (math.IsNaN(f) || math.IsInf(f, 0)) {
				return convert.Errorf(r.source, pos()+" column=value", "value %s is not a finite number", value)
			}
			val, warn, err := convert.MetricLiteral(info.datatype, value)
			if err != nil {
				return convert.Errorf(r.source, pos()+" column=value", "%w", err)
			}
			if warn != "" {
				r.em.Warn(pos()+" column=value", "%s", warn)
			}
			m := kb.IRI(mIRI)
			o.add(rsIRI, ontology.HasMetric, m)
			o.add(m, ontology.RDFType, p(ontology.PerformanceMetric))
			o.add(m, ontology.HasMetricName, kb.String(name))
			o.add(m, ontology.HasMetricValue, val)
			o.add(m, ontology.HasMetricDefinition, info.def)
			return o.err
		})
	}
}
