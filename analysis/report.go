package analysis

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/perfkb/perfkb/reasoner"
)

// The report kinds of Result.Tables.
const (
	KindSummary  = "summary"
	KindScaling  = "scaling"
	KindOverhead = "overhead"
	KindDiff     = "diff"
	KindClasses  = "classes"
)

// Table is one section of a report. A cell is a string (empty when there
// is no value), an int or a Number.
type Table struct {
	Name    string   `json:"name"`
	Columns []string `json:"columns"`
	Rows    [][]any  `json:"rows"`
	// Hide names columns the text table leaves out (machine-readable
	// ones, such as a model's full-precision formula).
	Hide []string `json:"-"`
}

// Number is a numeric cell: JSON and CSV write it in full precision, the
// text table with 4 significant digits, a time (Unit "us", microseconds as
// the metrics catalog has them) scaled to s, ms or µs.
type Number struct {
	Value float64
	Unit  string
}

// MarshalJSON writes the number as a JSON number in full precision.
func (n Number) MarshalJSON() ([]byte, error) {
	if !finite(n.Value) {
		return []byte("null"), nil
	}
	return strconv.AppendFloat(nil, n.Value, 'g', -1, 64), nil
}

// String is the full-precision text of the number (CSV).
func (n Number) String() string { return strconv.FormatFloat(n.Value, 'g', -1, 64) }

// Humane is the number for people: 4 significant digits, times scaled.
func (n Number) Humane() string {
	if n.Unit == "us" {
		return HumaneMicros(n.Value)
	}
	return sig4(n.Value)
}

// HumaneMicros writes a time in microseconds in s, ms or µs with 4
// significant digits.
func HumaneMicros(us float64) string {
	a := math.Abs(us)
	switch {
	case a >= 1e6:
		return sig4(us/1e6) + " s"
	case a >= 1e3:
		return sig4(us/1e3) + " ms"
	case a == 0:
		return "0 s"
	}
	return sig4(us) + " µs"
}

// sig4 writes v with 4 significant digits.
func sig4(v float64) string { return strconv.FormatFloat(v, 'g', 4, 64) }

func num(v float64) Number { return Number{Value: v} }

// micros is a time cell.
func micros(v float64) Number { return Number{Value: v, Unit: "us"} }

func pick(experiments []string) func(string) bool {
	if len(experiments) == 0 {
		return func(string) bool { return true }
	}
	set := map[string]bool{}
	for _, e := range experiments {
		set[e] = true
	}
	return func(iri string) bool { return set[iri] }
}

// Tables renders the results of one kind; experiments restricts them
// (nil: all; region and per-process rows only for the named ones).
func (r *Result) Tables(kind string, experiments []string) ([]Table, error) {
	keep := pick(experiments)
	detail := len(experiments) > 0
	switch kind {
	case KindScaling:
		t := Table{Name: "scaling", Columns: []string{"experiment", "region", "version", "problem_size", "processes", "threads", "units", "baseline", "time_us", "speedup", "efficiency"}}
		for _, e := range r.Experiments {
			if !keep(e.Exp.IRI) || e.Group == nil {
				continue
			}
			base := ""
			if e.Group.Baseline != nil {
				base = e.Group.Baseline.Exp.IRI
			}
			row := []any{e.Exp.IRI, "(program)", e.Exp.Version, e.Exp.ProblemSize, e.Exp.Processes, e.Exp.Threads, e.Exp.Units, base, micros(e.Time), "", ""}
			if e.Scaled {
				row[9], row[10] = num(e.Speedup), num(e.Efficiency)
			}
			t.Rows = append(t.Rows, row)
			if !detail {
				continue
			}
			for _, rr := range e.Regions {
				if !rr.HasTime || rr.Region.Path == e.Exp.Program {
					continue
				}
				row := []any{e.Exp.IRI, readablePath(e.Exp, rr.Region), "", "", "", "", "", "", micros(rr.Time), "", ""}
				if rr.Scaled {
					row[9], row[10] = num(rr.Speedup), num(rr.Efficiency)
				}
				t.Rows = append(t.Rows, row)
			}
		}
		return []Table{t}, nil
	case KindOverhead:
		t := Table{Name: "overhead", Columns: []string{"experiment", "region", "level", "oall_min", "oall_max", "oall_mean", "oall_ident_mean", "oall_unid_mean", "olopa_mean", "identified_metrics"}}
		row := func(exp, region, level string, st map[string]Stat, ident []string) []any {
			mean := func(k string) any {
				if s, ok := st[k]; ok && s.N > 0 {
					return micros(s.Mean)
				}
				return ""
			}
			o := st["oall"]
			return []any{exp, region, level, micros(o.Min), micros(o.Max), mean("oall"), mean("oall_ident"), mean("oall_unid"), mean("olopa"), strings.Join(ident, " ")}
		}
		for _, e := range r.Experiments {
			if !keep(e.Exp.IRI) {
				continue
			}
			for _, rr := range e.Regions {
				if rr.Overhead == nil || rr.Overhead["oall"].N == 0 || (!detail && rr.Region.Path != e.Exp.Program) {
					continue
				}
				label := readablePath(e.Exp, rr.Region)
				t.Rows = append(t.Rows, row(e.Exp.IRI, label, "experiment", rr.Overhead, rr.Identified))
				if !detail {
					continue
				}
				procs := make([]int, 0, len(rr.Process))
				for p := range rr.Process {
					procs = append(procs, p)
				}
				sort.Ints(procs)
				for _, p := range procs {
					t.Rows = append(t.Rows, row(e.Exp.IRI, label, "process "+strconv.Itoa(p), rr.Process[p], nil))
				}
			}
		}
		return []Table{t}, nil
	case KindDiff:
		var out []Table
		for _, df := range r.Diffs {
			t := Table{Name: "diff " + df.Base + " -> " + df.Trial, Columns: []string{"region", "metric", "base", "trial", "difference", "ratio", "only_in"}}
			for _, row := range df.Rows {
				cells := []any{row.Region, row.Metric, "", "", "", "", row.OnlyIn}
				if row.HasBase {
					cells[2] = num(row.BaseVal)
				}
				if row.HasTrial {
					cells[3] = num(row.TrialVal)
				}
				if row.HasBase && row.HasTrial {
					cells[4] = num(row.Diff)
				}
				if row.HasRatio {
					cells[5] = num(row.Ratio)
				}
				t.Rows = append(t.Rows, cells)
			}
			out = append(out, t)
		}
		return out, nil
	case KindClasses:
		s := r.Soft
		classes := Table{Name: "performance classes", Columns: []string{"experiment", "region", "metric", "value", "term", "degree"}}
		bottle := Table{Name: "fuzzy bottlenecks", Columns: []string{"experiment", "region", "value", "degrees", "negligible"}}
		rank := Table{Name: "OWA ranking", Columns: []string{"experiment", "region", "owa_score", "rank"}}
		groups := Table{Name: "processing unit similarity groups", Columns: []string{"experiment", "region", "group", "linking_similarity", "members"}}
		for _, m := range s.Memberships {
			if keep(m.Experiment) && !m.bottleneck {
				classes.Rows = append(classes.Rows, []any{m.Experiment, orProgram(m.Region), m.Expr, num(m.Value), m.Term, num(m.Degree)})
			}
		}
		for _, b := range s.Bottlenecks {
			if !keep(b.Experiment) {
				continue
			}
			terms := make([]string, 0, len(b.Degrees))
			for term, d := range b.Degrees {
				terms = append(terms, term+"="+num(d).String())
			}
			sort.Strings(terms)
			bottle.Rows = append(bottle.Rows, []any{b.Experiment, b.Region, num(b.Value), strings.Join(terms, " "), strconv.FormatBool(b.Negligible)})
		}
		for _, sc := range s.Scores {
			if keep(sc.Experiment) && (detail || sc.Rank <= 5) {
				rank.Rows = append(rank.Rows, []any{sc.Experiment, orProgram(sc.Region), num(sc.OWA), sc.Rank})
			}
		}
		for _, g := range s.PUGroups {
			if !keep(g.Experiment) {
				continue
			}
			for i, members := range g.Groups {
				groups.Rows = append(groups.Rows, []any{g.Experiment, g.Region, i + 1, num(g.Linking[i]), strings.Join(members, " ")})
			}
		}
		factors := Table{Name: "experiment factor similarity", Columns: []string{"experiment", "base", "factor", "value", "base_value", "similarity"}}
		for _, fc := range s.Factors {
			if !keep(fc.Experiment) {
				continue
			}
			for _, f := range fc.Factors {
				factors.Rows = append(factors.Rows, []any{fc.Experiment, fc.Base, f.Factor, f.Value, f.BaseValue, num(f.Similarity)})
			}
			factors.Rows = append(factors.Rows, []any{fc.Experiment, fc.Base, "all factors", "", "", num(fc.Overall)})
			if fc.HasPerformance {
				factors.Rows = append(factors.Rows, []any{fc.Experiment, fc.Base, "program performance (sim_o)", "", "", num(fc.Performance)})
			}
		}
		clusters := Table{Name: "fuzzy clusters of region summaries", Columns: []string{"experiment", "cluster", "center", "members_mostly_in_it", "filtered_out"}}
		for _, c := range s.Clusters {
			if !keep(c.Experiment) {
				continue
			}
			most := make([]int, len(c.Centers))
			for _, m := range c.Members {
				best := 0
				for i, d := range m.Degrees {
					if d > m.Degrees[best] {
						best = i
					}
				}
				most[best]++
			}
			for i, center := range c.Centers {
				parts := make([]string, len(center))
				for l, v := range center {
					parts[l] = c.Metrics[l] + "=" + num(v).String()
				}
				clusters.Rows = append(clusters.Rows, []any{c.Experiment, i + 1, strings.Join(parts, " "), most[i], c.Filtered})
			}
		}
		return []Table{classes, bottle, rank, groups, factors, clusters}, nil
	case KindSummary, "":
		t := Table{Name: "summary", Columns: []string{"what", "count"}}
		scaled := 0
		for _, e := range r.Experiments {
			if e.Scaled {
				scaled++
			}
		}
		models := 0
		if r.Models != nil {
			models = len(r.Models.Models)
		}
		t.Rows = [][]any{
			{"experiments", len(r.Experiments)},
			{"scaling groups", len(r.Groups)},
			{"experiments with speedup and efficiency", scaled},
			{"class memberships", len(r.Soft.Memberships)},
			{"fuzzy bottlenecks", len(r.Soft.Bottlenecks)},
			{"regions with dissimilar processing units", len(r.Soft.PUGroups)},
			{"performance models", models},
			{"findings", len(r.Findings)},
			{"quads in " + GraphIRI, r.Quads},
			{"issues (experiments skipped or partly analysed)", len(r.Issues)},
		}
		f := Table{Name: "findings", Columns: []string{"problem", "about", "severity", "description", "subject"}, Hide: []string{"subject"}}
		names := r.subjectNames()
		findings := append([]reasoner.Finding{}, r.Findings...)
		sort.SliceStable(findings, func(i, j int) bool {
			if findings[i].Type != findings[j].Type {
				return findings[i].Type < findings[j].Type
			}
			return findings[i].Subject.Value < findings[j].Subject.Value
		})
		for _, fd := range findings {
			about, ok := names[fd.Subject.Value]
			if !ok {
				about = localName(fd.Subject.Value)
			}
			f.Rows = append(f.Rows, []any{localName(fd.Type), about, fd.SeverityClass, fd.Description, fd.Subject.Value})
		}
		iss := Table{Name: "issues", Columns: []string{"experiment", "subject", "reason"}}
		for _, i := range r.Issues {
			if keep(i.Experiment) {
				iss.Rows = append(iss.Rows, []any{i.Experiment, i.Subject, i.Reason})
			}
		}
		sc, _ := r.Tables(KindScaling, experiments)
		return []Table{t, sc[0], r.implausible(keep), f, iss}, nil
	case KindModels:
		return r.modelTables(keep), nil
	}
	return nil, fmt.Errorf("unknown analysis %q (want scaling, overhead, diff, classes or models)", kind)
}

// subjectNames names the subjects findings are about for people: an
// experiment by its name (iriNames: its local name, with as much of its
// IRI before it as tells it from the other experiments), a region
// aggregate as "experiment: call path", a model as "version problem size:
// call path (metric)". Hash IRIs say nothing to a reader.
func (r *Result) subjectNames() map[string]string {
	var iris []string
	for _, e := range r.Experiments {
		iris = append(iris, e.Exp.IRI, e.Exp.Version)
	}
	if r.Models != nil {
		for _, rm := range r.Models.Models {
			iris = append(iris, rm.Series.Version)
		}
	}
	short := iriNames(iris)
	names := map[string]string{}
	for _, e := range r.Experiments {
		exp := short[e.Exp.IRI]
		names[e.Exp.IRI] = exp
		for _, rr := range e.Regions {
			names[RegionIRI(e.Exp.IRI, rr.Region.Path)] = exp + ": " + readablePath(e.Exp, rr.Region)
		}
	}
	if r.Models != nil {
		for _, rm := range r.Models.Models {
			names[rm.IRI] = strings.TrimSpace(short[rm.Series.Version]+" "+rm.Series.ProblemSize) + ": " + rm.Name + " (" + rm.Metric + ")"
		}
	}
	return names
}

// cellText writes a cell: for people (humane) numbers with 4 significant
// digits, times scaled, IRIs by their names (names, from iriNames; the
// local name where names has none); else in full.
func cellText(c any, humane bool, names map[string]string) string {
	switch v := c.(type) {
	case string:
		if humane {
			return longDecimals.ReplaceAllStringFunc(shortIRIs(v, names), func(d string) string {
				f, err := strconv.ParseFloat(d, 64)
				if err != nil {
					return d
				}
				return sig4(f)
			})
		}
		return v
	case Number:
		if humane {
			return v.Humane()
		}
		return v.String()
	case int:
		return strconv.Itoa(v)
	case float64:
		return cellText(Number{Value: v}, humane, names)
	}
	return fmt.Sprint(c)
}

// longDecimals are numbers in text (rule findings' descriptions) with more
// digits than people read.
var longDecimals = regexp.MustCompile(`\b[0-9]+\.[0-9]{5,}(?:[eE][+-]?[0-9]+)?\b`)

// shortIRIs replaces every absolute IRI in a space-separated cell by its
// name in names, else by its local name (the part after the last '/' or
// '#').
func shortIRIs(s string, names map[string]string) string {
	if !strings.Contains(s, "://") && !strings.HasPrefix(s, "urn:") {
		return s
	}
	parts := strings.Split(s, " ")
	for i, p := range parts {
		if isIRI(p) {
			if n, ok := names[p]; ok {
				parts[i] = n
			} else {
				parts[i] = localName(p)
			}
		}
	}
	return strings.Join(parts, " ")
}

// localName is the part of an IRI after its last '/' or '#' (the IRI when
// that is empty).
func localName(iri string) string {
	if i := strings.LastIndexAny(iri, "/#"); i >= 0 && i+1 < len(iri) {
		return iri[i+1:]
	}
	return iri
}

func orProgram(s string) string {
	if s == "" {
		return "(program)"
	}
	return s
}

// WriteTables writes tables as "table" (aligned text), "csv" (one block per
// table, after a "# name" line) or "json" (an array of tables).
func WriteTables(w io.Writer, format string, tables []Table) error {
	switch format {
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(tables)
	case "csv":
		for i, t := range tables {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "# %s\n", t.Name)
			cw := csv.NewWriter(w)
			if err := cw.Write(t.Columns); err != nil {
				return err
			}
			rec := make([]string, len(t.Columns))
			for _, row := range t.Rows {
				rec = rec[:0]
				for _, c := range row {
					rec = append(rec, cellText(c, false, nil))
				}
				if err := cw.Write(rec); err != nil {
					return err
				}
			}
			cw.Flush()
			if err := cw.Error(); err != nil {
				return err
			}
		}
		return nil
	case "table", "":
		// One naming for all tables, so a run is called the same in each.
		var iris []string
		for _, t := range tables {
			for _, row := range t.Rows {
				for i, c := range row {
					if i < len(t.Columns) && slices.Contains(t.Hide, t.Columns[i]) {
						continue
					}
					if s, ok := c.(string); ok {
						for _, tok := range strings.Split(s, " ") {
							if isIRI(tok) {
								iris = append(iris, tok)
							}
						}
					}
				}
			}
		}
		names := iriNames(iris)
		for i, t := range tables {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s (%d rows)\n", t.Name, len(t.Rows))
			if len(t.Rows) == 0 {
				continue
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			var cols []string
			show := make([]bool, len(t.Columns))
			for i, c := range t.Columns {
				if show[i] = !slices.Contains(t.Hide, c); show[i] {
					// A time column's cells carry their unit.
					cols = append(cols, strings.TrimSuffix(c, "_us"))
				}
			}
			fmt.Fprintln(tw, strings.Join(cols, "\t"))
			cells := make([]string, 0, len(t.Columns))
			for _, row := range t.Rows {
				cells = cells[:0]
				for i, c := range row {
					if i >= len(show) || show[i] {
						cells = append(cells, cellText(c, true, names))
					}
				}
				fmt.Fprintln(tw, strings.Join(cells, "\t"))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown format %q (want table, json or csv)", format)
}
