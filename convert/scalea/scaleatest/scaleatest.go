// Package scaleatest fills a PostgreSQL database with a generated SCALEA
// experiment repository (the Appendix E schema, scalea.Schema) for the
// converter's tests and throughput measurements. The content is
// deterministic for a Config and covers every table, NULLs where the schema
// allows them, 22 Appendix C.1 code region types with nesting, a region
// summary tree per processing unit, all three metric tables, both ways of
// naming a code region and a parent summary, and the Fig. 6.29 case (wtime
// >= 3E8 on node gsr410).
package scaleatest

import (
	"context"
	"database/sql"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"

	"github.com/lib/pq"

	"github.com/perfkb/perfkb/convert/scalea"
)

// Config sizes a generated repository.
type Config struct {
	Applications    int // ≥ 1
	VersionsPerApp  int // ≥ 1
	Experiments     int // spread over the versions and clusters
	NodesPerCluster int // two clusters: gsr (gsr410…) and hpc (hpc01…)
	Processes       int // per experiment (the first two experiments use fewer)
	Threads         int // per process
	Seed            uint64
}

// Small is the test repository: 3 applications × 2 versions, 10
// experiments on 2 clusters, a few thousand metric rows.
func Small() Config {
	return Config{Applications: 3, VersionsPerApp: 2, Experiments: 10, NodesPerCluster: 4, Processes: 3, Threads: 2, Seed: 1}
}

// MetricRows estimates the number of metric rows Fill writes.
func (c Config) MetricRows() int64 {
	return int64(c.Experiments) * int64(c.Processes*c.Threads) * int64(len(regionTemplate)) * 7
}

// regionTemplate is the code region tree of every version: mnemonic and
// parent index (22 distinct Appendix C.1 types).
var regionTemplate = []struct {
	mnemonic string
	parent   int
}{
	{"CR_P", -1}, {"CR_MPISTARTUP", 0}, {"CR_U", 0}, {"CR_L", 2}, {"CR_B", 3}, {"CR_MPIP2P", 3},
	{"CR_MPISEND", 5}, {"CR_MPIRECV", 5}, {"CR_MPICOL", 2}, {"CR_MPIBA", 8}, {"CR_MPITP", 8},
	{"CR_OMPPA", 2}, {"CR_OMPDO", 11}, {"CR_OMPBA", 11}, {"CR_OMPCR", 11}, {"CR_OMPLO", 11},
	{"CR_O", 0}, {"CR_R", 0}, {"CR_W", 0}, {"CR_C", 0}, {"CR_S", 0}, {"CR_F", 20},
}

// Catalog metric names written per region summary, by table.
var (
	timingMetrics   = []string{"wtime", "utime", "stime"}
	hardwareMetrics = []string{"L2_TCM", "L2_TCA", "site_cache_events"}
)

// Fill creates the schema in the (empty) database db and writes the
// repository, with COPY for speed.
func Fill(ctx context.Context, db *sql.DB, c Config) error {
	if _, err := db.ExecContext(ctx, scalea.Schema); err != nil {
		return fmt.Errorf("create schema: %w", err)
	}
	g := &gen{ctx: ctx, db: db, c: c, rng: rand.New(rand.NewPCG(c.Seed, 7))}
	for _, step := range []func() error{g.resources, g.programs, g.experiments} {
		if err := step(); err != nil {
			return err
		}
	}
	_, err := db.ExecContext(ctx, "ANALYZE")
	return err
}

type gen struct {
	ctx context.Context
	db  *sql.DB
	c   Config
	rng *rand.Rand
	// hosts[cluster] are the node names of the two clusters.
	hosts [2][]string
}

// copyIn writes rows into table with COPY.
func (g *gen) copyIn(table string, columns []string, rows func(add func(...any) error) error) error {
	tx, err := g.db.BeginTx(g.ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	stmt, err := tx.PrepareContext(g.ctx, pq.CopyIn(table, columns...))
	if err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	if err := rows(func(v ...any) error { _, err := stmt.ExecContext(g.ctx, v...); return err }); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	if _, err := stmt.ExecContext(g.ctx); err != nil {
		return fmt.Errorf("copy %s: %w", table, err)
	}
	if err := stmt.Close(); err != nil {
		return err
	}
	return tx.Commit()
}

func null() any { return nil }

func (g *gen) resources() error {
	pmc := [][]any{
		{1, "wtime", "microsecond", "double", "Wall-clock time"},
		{2, "utime", "microsecond", "double", nil},
		{3, "L2_TCM", "counter", "int64", "Level 2 cache misses"},
		{4, "site_cache_events", "counter", "int64", "Cache events counted by the site's own tool"},
		{5, "site_ratio", nil, "double", nil},
		{6, nil, nil, nil, nil},
		{7, "wtime", "second", "double", "a second definition of wtime"},
	}
	if err := g.copyIn("pmc", []string{"pmcid", "pmcmetricname", "pmcmetricunit", "pmcmetricdatatype", "pmcmetricdesc"}, func(add func(...any) error) error {
		for _, r := range pmc {
			if err := add(r...); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := g.copyIn("cluster", []string{"clusterid", "name", "totalflops"}, func(add func(...any) error) error {
		if err := add(1, "gsr", 19200.5); err != nil {
			return err
		}
		return add(2, "hpc", nil)
	}); err != nil {
		return err
	}
	for k := 0; k < g.c.NodesPerCluster; k++ {
		g.hosts[0] = append(g.hosts[0], "gsr"+strconv.Itoa(410+k))
		g.hosts[1] = append(g.hosts[1], fmt.Sprintf("hpc%02d", k+1))
	}
	if err := g.copyIn("computationalnode", []string{"compnodeid", "hostname", "hostaliases", "hostaddresses", "systemmodel", "physmem", "virtmem",
		"numcpu", "cputype", "cpuspeed", "osname", "osversion", "harddisksize", "datacachesize", "cachemisspenalty", "clusterid"}, func(add func(...any) error) error {
		id := 0
		for c := range g.hosts {
			for k, host := range g.hosts[c] {
				id++
				aliases := pq.Array([]string{host + ".site.example", "n" + strconv.Itoa(id)})
				addrs := pq.Array([]string{"10.0." + strconv.Itoa(c) + "." + strconv.Itoa(k+1), "fe80::" + strconv.Itoa(id)})
				phys, virt, speed := any("1024 MB"), any("2 GB"), any("2.4 GHz")
				caches, penalties := any(pq.Array([]int64{16, 512})), any(pq.Array([]int64{7, 120}))
				switch k {
				case 1:
					phys, speed = "512MB", "800 MHz"
				case 2:
					phys, virt, speed, caches, penalties = "lots", nil, nil, nil, nil
				case 3:
					speed = "fast"
				}
				if err := add(id, host, aliases, addrs, "Pentium 4 PC", phys, virt, 2, "Intel Xeon", speed, "Linux", "2.6.8", 40960, caches, penalties, c+1); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := g.copyIn("network", []string{"networkid", "name", "bandwidth", "latency", "clusterid"}, func(add func(...any) error) error {
		if err := add(1, "gsr Myrinet 2000", 2000, 6.5, 1); err != nil {
			return err
		}
		return add(2, "hpc Gigabit Ethernet", 1000, nil, 2)
	}); err != nil {
		return err
	}
	if err := g.copyIn("networkmpp2pperf", []string{"colmpicommid", "mpilibname", "numnode", "mpibarrier", "mpibcast", "networkid"}, func(add func(...any) error) error {
		if err := add(1, "MPICH 1.2.6", 4, 35.5, pq.Array([]float64{12.5, 20, 41.25, 80, 160}), 1); err != nil {
			return err
		}
		return add(2, "LAM 7.0", nil, 120, "{50,NULL,150,200,400}", 2)
	}); err != nil {
		return err
	}
	if err := g.copyIn("networkmpcolperf", []string{"perfmpicompnodeid", "mpilibname", "mpisync", "mpiasync", "mpissend", "networkid"}, func(add func(...any) error) error {
		six := func(base float64) any {
			return pq.Array([]float64{base, base * 1.5, base * 2, base * 4, base * 8, base * 16})
		}
		if err := add(1, "MPICH 1.2.6", six(7.5), six(3.25), six(9), 1); err != nil {
			return err
		}
		return add(2, "LAM 7.0", six(55), nil, six(60.5), 2)
	}); err != nil {
		return err
	}
	if err := g.copyIn("nodesharedmemoryperf", []string{"perfompcompnodeid", "omplibname", "clusterid"}, func(add func(...any) error) error {
		if err := add(1, "Intel OpenMP 8.1", 1); err != nil {
			return err
		}
		return add(2, nil, nil)
	}); err != nil {
		return err
	}
	if err := g.copyIn("virtualmachine", []string{"virtualmachineid", "name"}, func(add func(...any) error) error {
		if err := add(1, "gsr-vm"); err != nil {
			return err
		}
		return add(2, nil)
	}); err != nil {
		return err
	}
	return g.copyIn("virtualnode", []string{"virtualnodeid", "name", "numcpu", "virtualmachineid"}, func(add func(...any) error) error {
		for i := 1; i <= 4; i++ {
			var vm any = 1 + (i-1)/2
			if i == 4 {
				vm = nil
			}
			if err := add(i, "vnode"+strconv.Itoa(i), 2, vm); err != nil {
				return err
			}
		}
		return nil
	})
}

// Keys of the program tables are computed, so later tables can refer to
// them without reading back.
func (g *gen) versionID(app, v int) int  { return app*g.c.VersionsPerApp + v + 1 }
func (g *gen) fileID(version, f int) int { return (version-1)*2 + f + 1 }
func (g *gen) regionID(version, i int) int {
	return (version-1)*len(regionTemplate) + i + 1
}

// regionIdentifier is CodeRegion.codeRegion: the same identifiers in every
// version, so lookups must stay within the experiment's version.
func regionIdentifier(i int) int { return 100 + i }

func (g *gen) programs() error {
	names := []string{"jacobi", "lapw0", "mm5", "stencil", "wien2k"}
	if err := g.copyIn("application", []string{"applicationid", "name"}, func(add func(...any) error) error {
		for a := 0; a < g.c.Applications; a++ {
			if err := add(a+1, names[a%len(names)]+strconv.Itoa(a/len(names)+1)); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	nVersions := g.c.Applications * g.c.VersionsPerApp
	if err := g.copyIn("version", []string{"versionid", "versioninfo", "applicationid"}, func(add func(...any) error) error {
		for a := 0; a < g.c.Applications; a++ {
			for v := 0; v < g.c.VersionsPerApp; v++ {
				var info any = fmt.Sprintf("%d.0", v+1)
				if v == 1 {
					info = nil
				}
				if err := add(g.versionID(a, v), info, a+1); err != nil {
					return err
				}
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := g.copyIn("sourcefile", []string{"sourcefileid", "name", "contents", "location", "versionid"}, func(add func(...any) error) error {
		for v := 1; v <= nVersions; v++ {
			if err := add(g.fileID(v, 0), "main.f90", "program main\n  call solve()\nend program", "/home/perf/src/main.f90", v); err != nil {
				return err
			}
			if err := add(g.fileID(v, 1), "solver.f90", nil, nil, v); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	return g.copyIn("coderegion", []string{"coderegionid", "startpos_x", "startpos_y", "endpos_x", "endpos_y", "coderegiontype", "coderegionunit",
		"coderegion", "sourcefileid", "parentcoderegionid"}, func(add func(...any) error) error {
		for v := 1; v <= nVersions; v++ {
			for i, r := range regionTemplate {
				var parent any
				if r.parent >= 0 {
					parent = g.regionID(v, r.parent)
				}
				typ, unit := any(r.mnemonic), any("unit_"+strconv.Itoa(i))
				if v == 1 && i == len(regionTemplate)-1 {
					typ = "CR_SITE_SPECIFIC" // not in Appendix C.1
				}
				if v == 2 && i == 4 {
					typ, unit = nil, nil
				}
				line := 10 + 5*i
				if err := add(g.regionID(v, i), line, 7+i%5, line+3, 20, typ, unit, regionIdentifier(i), g.fileID(v, i%2), parent); err != nil {
					return err
				}
			}
		}
		return nil
	})
}

func (g *gen) experiments() error {
	nVersions := g.c.Applications * g.c.VersionsPerApp
	type pu struct {
		node         string
		proc, thread int
		id           int
	}
	// ProcessingUnit rows: the distinct (node, process, thread) triples,
	// shared by the experiments (the table has no experiment).
	pus := map[[3]any]int{}
	var puRows [][]any
	puOf := func(node string, proc, thread int) int {
		k := [3]any{node, proc, thread}
		if id, ok := pus[k]; ok {
			return id
		}
		id := len(pus) + 1
		pus[k] = id
		puRows = append(puRows, []any{id, node, proc, thread})
		return id
	}
	var exps [][]any
	type summary struct {
		id, exp, version int
		pu               pu
	}
	// The summaries and metrics are streamed by COPY in one pass each, so
	// the plan is recomputed per table from the experiment number.
	plan := func(e int) (version, cluster, procs, threads int) {
		version = e%nVersions + 1
		cluster = e % 2
		procs, threads = g.c.Processes, g.c.Threads
		if e < 2 {
			procs, threads = 2, 1
		}
		return
	}
	for e := 0; e < g.c.Experiments; e++ {
		version, cluster, procs, threads := plan(e)
		var end, compiler any = "2005-03-0" + strconv.Itoa(e%9+1) + " 11:30:00.25", "mpif90 (ifort 8.1)"
		if e == 3 {
			end, compiler = nil, nil
		}
		exps = append(exps, []any{e + 1, fmt.Sprintf("experiment %d on %s", e+1, []string{"gsr", "hpc"}[cluster]),
			"2005-03-0" + strconv.Itoa(e%9+1) + " 10:00:00", end, "mpirun -np " + strconv.Itoa(procs) + " ./app", compiler, "-O3", version})
		for p := 0; p < procs; p++ {
			for t := 0; t < threads; t++ {
				puOf(g.hosts[cluster][p%len(g.hosts[cluster])], p, t)
			}
		}
	}
	if err := g.copyIn("experiment", []string{"experimentid", "info", "starttime", "endtime", "commandline", "compiler", "compileroptions", "versionid"}, func(add func(...any) error) error {
		for _, e := range exps {
			if err := add(e...); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	if err := g.copyIn("processingunit", []string{"puid", "computationalnode", "processid", "threadid"}, func(add func(...any) error) error {
		for _, r := range puRows {
			if err := add(r...); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return err
	}
	// walk calls fn for every region summary in key order.
	walk := func(fn func(s summary, region int, first int) error) error {
		id := 0
		for e := 0; e < g.c.Experiments; e++ {
			version, cluster, procs, threads := plan(e)
			for p := 0; p < procs; p++ {
				for t := 0; t < threads; t++ {
					first := id + 1
					u := pu{node: g.hosts[cluster][p%len(g.hosts[cluster])], proc: p, thread: t}
					u.id = pus[[3]any{u.node, p, t}]
					for i := range regionTemplate {
						id++
						if err := fn(summary{id: id, exp: e + 1, version: version, pu: u}, i, first); err != nil {
							return err
						}
					}
				}
			}
		}
		return nil
	}
	if err := g.copyIn("regionsummary", []string{"regionsummaryid", "computationalnode", "processid", "threadid", "coderegion", "puid", "parentregion",
		"coderegiongroup", "numbercalls", "numbersubs", "coderegionid", "regionsummaryidparent", "experimentid"}, func(add func(...any) error) error {
		return walk(func(s summary, i, first int) error {
			var parent, parentRegion, crID, crIdent, puID, group any
			if p := regionTemplate[i].parent; p >= 0 {
				parent = first + p
			}
			// Odd experiments name the code region by identifier and the
			// parent by parentRegion; even ones use the ID columns.
			if s.exp%2 == 1 {
				crIdent, parentRegion, parent = regionIdentifier(i), parent, nil
			} else {
				crID = g.regionID(s.version, i)
			}
			if s.exp%3 != 0 {
				puID = s.pu.id
			}
			if i%4 != 0 {
				group = i % 4
			}
			var subs any = len(regionTemplate) - 1
			if i != 0 {
				subs = nil
			}
			return add(s.id, s.pu.node, s.pu.proc, s.pu.thread, crIdent, puID, parentRegion, group, 1+i*10, subs, crID, parent, s.exp)
		})
	}); err != nil {
		return err
	}
	value := func(s summary, i int, name string) any {
		base := 1e6 * float64(1+i) * (1 + float64(s.pu.proc)/10)
		switch name {
		case "wtime":
			if i == 0 && s.exp == 1 && s.pu.node == "gsr410" {
				return 3.5e8 + float64(s.pu.thread)
			}
			return math.Round(base*100) / 100
		case "utime":
			return base * 0.75
		case "stime":
			return 4.75
		case "ncalls":
			return float64(1 + i*10)
		case "L2_TCM":
			if s.id == 5 {
				return 12.5 // not integral: written as xsd:double with a warning
			}
			return float64(1000 + s.id)
		case "L2_TCA":
			return float64(10000 + s.id)
		case "site_cache_events":
			return float64(s.id % 97)
		}
		return g.rng.Float64() * base
	}
	if err := g.copyIn("timingmetrics", []string{"name", "value", "regionsummaryid"}, func(add func(...any) error) error {
		return walk(func(s summary, i, _ int) error {
			names := timingMetrics
			if s.exp%2 == 0 {
				names = append(names[:len(names):len(names)], "ncalls")
			}
			for _, n := range names {
				if err := add(n, value(s, i, n), s.id); err != nil {
					return err
				}
			}
			return nil
		})
	}); err != nil {
		return err
	}
	if err := g.copyIn("hardwaremetrics", []string{"name", "value", "regionsummaryid"}, func(add func(...any) error) error {
		return walk(func(s summary, i, _ int) error {
			for _, n := range hardwareMetrics {
				if err := add(n, value(s, i, n), s.id); err != nil {
					return err
				}
			}
			if regionTemplate[i].mnemonic == "CR_MPIP2P" {
				// Big messages (rule 1, Fig. 6.30) on process 0 only.
				length := 1024.0
				if s.pu.proc == 0 {
					length = 131072
				}
				return add("AvgMessageLength", length, s.id)
			}
			return nil
		})
	}); err != nil {
		return err
	}
	return g.copyIn("temporaloverheadmetrics", []string{"name", "value", "regionsummaryid"}, func(add func(...any) error) error {
		return walk(func(s summary, i, _ int) error {
			var names []string
			switch regionTemplate[i].mnemonic {
			case "CR_P":
				names = []string{"odata_p2p", "odata_col", "oall"}
			case "CR_MPIP2P", "CR_MPISEND", "CR_MPIRECV":
				names = []string{"odata_p2p"}
			case "CR_MPIBA":
				names = []string{"osync_mpbar"}
			default:
				names = []string{"oall"}
			}
			if s.id == 7 {
				names = append(names, names[0]) // a duplicate (summary, name)
			}
			for k, n := range names {
				if err := add(n, float64(100+k)+float64(s.id)/8, s.id); err != nil {
					return err
				}
			}
			return nil
		})
	})
}
