package caliper

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"math"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Options configure a conversion.
type Options struct {
	// Experiment is the experiment IRI (default <base>exp/<file name>).
	Experiment string
	// TimeUnit is the unit of time.duration values without attribute.unit
	// metadata: "s", "ms", "us" or "ns". Empty: seconds in a .cali file
	// of Caliper 2 or later (cali.caliper.version), microseconds otherwise
	// (Caliper 1 and json-split files, which carry no version).
	TimeUnit string
}

// Converter converts one Caliper file.
type Converter struct {
	path string
	base convert.Base
	opts Options
}

// New returns a converter of the .cali or json-split file at path.
func New(path string, base convert.Base, opts Options) *Converter {
	return &Converter{path: path, base: base, opts: opts}
}

// ExperimentIRI returns the experiment IRI.
func (c *Converter) ExperimentIRI() string {
	return c.base.ExperimentIRI(c.opts.Experiment, c.path)
}

// Read reads a .cali or json-split file (told apart by a leading '{').
func Read(data []byte, name string) (*Profile, []string, error) {
	if t := bytes.TrimLeft(data, " \t\r\n"); len(t) > 0 && t[0] == '{' {
		return ReadJSONSplit(data, name)
	}
	p, err := ReadCali(bytes.NewReader(data), name)
	return p, nil, err
}

// unitScale returns the factor from a time unit to µs.
func unitScale(u string) (float64, bool) {
	switch strings.ToLower(strings.TrimSpace(u)) {
	case "s", "sec", "seconds", "second":
		return 1e6, true
	case "ms", "msec", "milliseconds":
		return 1e3, true
	case "us", "usec", "µs", "microseconds":
		return 1, true
	case "ns", "nsec", "nanoseconds":
		return 1e-3, true
	}
	return 0, false
}

// metricFor names the PERFONTO metric of a Caliper value attribute:
// the time.duration aggregates of a region profile become the catalog's
// wall-clock times (sum → excl_wtime, inclusive sum → wtime, min and max
// → min_wtime, max_wtime), others keep their Caliper name with '#', '.',
// '/' and other punctuation as '_'. timed says whether values are times.
func metricFor(attr string) (name string, timed bool) {
	base := strings.TrimPrefix(attr, "sum#avg#") // cross-rank average of a sum: a per-rank sum
	switch base {
	case "sum#time.duration", "time.duration":
		return "excl_wtime", true
	case "inclusive#sum#time.duration", "inclusive#time.duration", "time.inclusive.duration":
		return "wtime", true
	case "min#time.duration":
		return "min_wtime", true
	case "max#time.duration":
		return "max_wtime", true
	}
	return metricName(attr), strings.Contains(attr, "time.duration") && !strings.Contains(attr, "/") && !strings.HasPrefix(attr, "count") && !strings.Contains(attr, ".count#")
}

func metricName(s string) string {
	var b strings.Builder
	under := false
	for _, r := range s {
		if r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			b.WriteRune(r)
			under = false
		} else if !under && b.Len() > 0 {
			b.WriteByte('_')
			under = true
		}
	}
	out := strings.TrimSuffix(b.String(), "_")
	if out == "" {
		return "value"
	}
	return out
}

// rankAttr names the process of a record; a record without it is rank 0.
const rankAttr = "mpi.rank"

// summary is one (rank, region path) of the profile.
type summary struct {
	rank    int
	path    []Elem
	key     string // path names joined by " => "
	parent  *summary
	values  map[string]float64
	hasData bool
	records float64 // the count attribute summed over the merged records, weighting averages
}

// Convert implements convert.Converter.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	em := convert.NewEmitter("caliper", c.path, sink)
	data, err := os.ReadFile(c.path)
	if err != nil {
		return em.Report(), err
	}
	err = c.convert(ctx, em, data)
	return em.Report(), err
}

func (c *Converter) convert(ctx context.Context, em *convert.Emitter, data []byte) error {
	prof, ignored, err := Read(data, c.path)
	if err != nil {
		return err
	}
	if len(ignored) > 0 {
		em.Warn(c.path, "columns %s are not converted (only the region path and value columns are)", strings.Join(ignored, ", "))
	}
	timeScale, err := c.timeScale(prof)
	if err != nil {
		return err
	}

	recT := em.Table("record")
	sums := map[string]*summary{}
	var order []*summary
	get := func(rank int, path []Elem) *summary {
		var parent *summary
		var s *summary
		for i := range path {
			names := make([]string, i+1)
			for j := range names {
				names[j] = path[j].Name
			}
			key := strings.Join(names, " => ")
			id := strconv.Itoa(rank) + "\x00" + key
			s = sums[id]
			if s == nil {
				s = &summary{rank: rank, path: path[:i+1], key: key, parent: parent, values: map[string]float64{}}
				sums[id] = s
				order = append(order, s)
			}
			parent = s
		}
		return s
	}
	outside, otherChannel, dups := 0, 0, 0
	dropped := map[string]bool{} // averages that cannot be merged without counts
	var firstDup string
	metricUnits := map[string]float64{}
	for _, r := range prof.Records {
		recT.Row()
		if ch, ok := r.Strings["spot.channel"]; ok && ch != "regionprofile" {
			otherChannel++ // spot timeseries records, as Hatchet skips them
			continue
		}
		if len(r.Path) == 0 {
			outside++
			continue
		}
		rank := 0
		if v, ok := r.Values[rankAttr]; ok {
			rank = int(v)
			if float64(rank) != v || rank < 0 {
				return convert.Errorf(c.path, r.Pos, "mpi.rank %v is not a rank", v)
			}
		}
		s := get(rank, r.Path)
		merge := s.hasData
		if merge {
			dups++
			if firstDup == "" {
				firstDup = r.Pos
			}
		}
		s.hasData = true
		weight, prior := r.Values["count"], s.records
		s.records += weight
		for attr, v := range r.Values {
			if attr == rankAttr {
				continue
			}
			name, timed := metricFor(attr)
			sc := 1.0
			if timed {
				sc = timeScale
				if u, ok := prof.Units[attr]; ok {
					if f, ok := unitScale(u); ok {
						sc = f
					}
				}
			} else if u, ok := prof.Units[attr]; ok {
				if f, ok := unitScale(u); ok {
					sc = f
				}
			}
			metricUnits[name] = sc
			v *= sc
			old, had := s.values[name]
			switch op := strings.TrimPrefix(attr, "sum#avg#"); {
			case !merge || !had:
			case strings.HasPrefix(op, "min#"):
				v = min(old, v)
			case strings.HasPrefix(op, "max#"):
				v = max(old, v)
			case strings.HasPrefix(op, "avg#"):
				if prior+weight == 0 || math.IsNaN(old) {
					dropped[name] = true
					v = math.NaN() // removed below, whatever records follow
				} else {
					v = (old*prior + v*weight) / (prior + weight)
				}
			default:
				v += old
			}
			s.values[name] = v
		}
	}
	for _, s := range sums {
		maps.DeleteFunc(s.values, func(_ string, v float64) bool { return math.IsNaN(v) })
	}
	if outside > 0 {
		em.Warn(c.path, "%d records outside every region are not converted", outside)
	}
	if otherChannel > 0 {
		em.Warn(c.path, "%d records of spot.channel other than regionprofile (time series) are not converted", otherChannel)
	}
	if dups > 0 {
		em.Warn(firstDup, "%d records repeat a (rank, region path) already read, differing in columns that are not converted: their values are merged as Hatchet merges them (added; min and max kept; averages weighted by count)", dups)
	}
	if len(dropped) > 0 {
		em.Warn(c.path, "averages %s of merged records without a count are not converted", strings.Join(slices.Sorted(maps.Keys(dropped)), ", "))
	}
	if len(order) == 0 {
		return convert.Errorf(c.path, "", "no records inside a region: nothing to convert")
	}
	// A profile with exclusive times only (Caliper's default runtime
	// profile) gets inclusive times summed over each path's subtree.
	if _, incl := metricUnits["wtime"]; !incl {
		if _, excl := metricUnits["excl_wtime"]; excl {
			for _, s := range order {
				v, ok := s.values["excl_wtime"]
				if !ok {
					continue
				}
				for a := s; a != nil; a = a.parent {
					a.values["wtime"] += v
				}
			}
		}
	}

	exp := c.ExperimentIRI()
	b := c.base.String()
	nm := trace.Names{Base: b, Exp: exp}
	ranks := map[int]bool{}
	var locs []trace.Location
	for _, s := range order {
		if !ranks[s.rank] {
			ranks[s.rank] = true
			locs = append(locs, trace.Location{ID: len(locs), Process: s.rank})
		}
	}
	sort.Slice(locs, func(i, j int) bool { return locs[i].Process < locs[j].Process })
	defs := em.Table("globals")
	defs.Row()
	if _, err := trace.EmitDefs(ctx, tableSink{defs}, &trace.Defs{Locations: locs}, trace.EmitOptions{Base: b, Experiment: exp, ExperimentProps: c.globals(em, prof)}); err != nil {
		return err
	}

	regT := em.Table("region")
	regions := map[string]bool{}
	rsT := em.Table("region path")
	expT := kb.IRI(exp)
	emit := func(s kb.Term, p string, o kb.Term) error { return rsT.Emit(ctx, s, kb.IRI(p), o) }
	rsIRI := func(s *summary) kb.Term {
		return kb.IRI(exp + "/rs/" + strings.TrimPrefix(nm.PU(s.rank, 0), exp+"/pu/") + "/" + trace.Segment(s.key))
	}
	for i, s := range order {
		if i&1023 == 0 {
			if err := ctx.Err(); err != nil {
				return err
			}
		}
		leaf := s.path[len(s.path)-1]
		if !regions[leaf.Name] {
			regions[leaf.Name] = true
			regT.Row()
			mn := trace.Mnemonics(trace.Region{Name: leaf.Name})
			if leaf.Attr == "loop" {
				mn = []string{"CR_L"}
			}
			for _, err := range trace.EmitRegionTyped(ctx, tableSink{regT}, nm.Region(leaf.Name), leaf.Name, mn, nil) {
				if err != nil {
					return err
				}
			}
		}
		rsT.Row()
		rs := rsIRI(s)
		for _, e := range []error{
			emit(rs, ontology.RDFType, kb.IRI(ontology.RegionSummary)),
			emit(rs, ontology.OfCodeRegion, kb.IRI(nm.Region(leaf.Name))),
			emit(rs, ontology.InProcessingUnit, kb.IRI(nm.PU(s.rank, 0))),
			emit(rs, ontology.InExperiment, expT),
		} {
			if e != nil {
				return e
			}
		}
		if s.parent != nil {
			if err := emit(rsIRI(s.parent), ontology.HasChildRS, rs); err != nil {
				return err
			}
		}
		names := make([]string, 0, len(s.values))
		for n := range s.values {
			names = append(names, n)
		}
		sort.Strings(names)
		for _, n := range names {
			mi := kb.IRI(rs.Value + "/" + trace.Segment(n))
			for _, e := range []error{
				emit(rs, ontology.HasMetric, mi),
				emit(mi, ontology.RDFType, kb.IRI(ontology.PerformanceMetric)),
				emit(mi, ontology.HasMetricName, kb.String(n)),
				emit(mi, ontology.HasMetricValue, literal(n, s.values[n])),
			} {
				if e != nil {
					return e
				}
			}
		}
	}
	return nil
}

// literal is a metric value in the catalog's datatype: xsd:long for
// integer metrics when the value is whole, else xsd:double.
func literal(name string, v float64) kb.Term {
	if info, ok := ontology.LookupMetric(name); ok && info.ValueDatatype == ontology.XSDLong && v == float64(int64(v)) {
		return kb.Long(int64(v))
	}
	return kb.Double(v)
}

// timeScale returns the factor from time.duration values without unit
// metadata to µs.
func (c *Converter) timeScale(p *Profile) (float64, error) {
	if c.opts.TimeUnit != "" {
		f, ok := unitScale(c.opts.TimeUnit)
		if !ok {
			return 0, fmt.Errorf("time unit %q: want s, ms, us or ns", c.opts.TimeUnit)
		}
		return f, nil
	}
	for _, g := range p.Globals {
		if g.Name == "cali.caliper.version" {
			if major, _, _ := strings.Cut(g.Value, "."); major != "" && major != "0" && major != "1" {
				return 1e6, nil
			}
		}
	}
	return 1, nil
}

// globals maps run metadata to experiment statements: every global as
// experimentInfo "name=value"; Adiak's problem_size as problemSize,
// cmdline as commandLine, launchdate (Unix seconds) as startTime.
func (c *Converter) globals(em *convert.Emitter, p *Profile) []kb.Triple {
	var out []kb.Triple
	add := func(pred string, o kb.Term) {
		out = append(out, kb.Triple{P: kb.IRI(pred), O: o})
	}
	for _, g := range p.Globals {
		add(ontology.ExperimentInfo, kb.String(g.Name+"="+g.Value))
		switch g.Name {
		case "problem_size":
			add(ontology.ProblemSize, kb.String(g.Value))
		case "cmdline":
			add(ontology.CommandLine, kb.String(strings.Trim(strings.ReplaceAll(g.Value, ",", " "), "[]")))
		case "launchdate":
			if sec, err := strconv.ParseInt(g.Value, 10, 64); err == nil {
				add(ontology.StartTime, convert.DateTime(time.Unix(sec, 0).UTC()))
			} else {
				em.Warn(c.path, "launchdate %q is not Unix seconds: not converted to startTime", g.Value)
			}
		}
	}
	return out
}

// tableSink counts the statements of one report table.
type tableSink struct{ t *convert.Table }

func (s tableSink) Add(ctx context.Context, q kb.TermQuad) error { return s.t.Emit(ctx, q.S, q.P, q.O) }
