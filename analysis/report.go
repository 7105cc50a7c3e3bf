package analysis

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"
)

// The report kinds of Result.Tables.
const (
	KindSummary  = "summary"
	KindScaling  = "scaling"
	KindOverhead = "overhead"
	KindDiff     = "diff"
	KindClasses  = "classes"
)

// Table is one section of a report.
type Table struct {
	Name    string     `json:"name"`
	Columns []string   `json:"columns"`
	Rows    [][]string `json:"rows"`
}

func num(v float64) string { return strconv.FormatFloat(v, 'g', 8, 64) }

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
			row := []string{e.Exp.IRI, "(program)", e.Exp.Version, e.Exp.ProblemSize, strconv.Itoa(e.Exp.Processes), strconv.Itoa(e.Exp.Threads), strconv.Itoa(e.Exp.Units), base, num(e.Time), "", ""}
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
				row := []string{e.Exp.IRI, readablePath(e.Exp, rr.Region), "", "", "", "", "", "", num(rr.Time), "", ""}
				if rr.Scaled {
					row[9], row[10] = num(rr.Speedup), num(rr.Efficiency)
				}
				t.Rows = append(t.Rows, row)
			}
		}
		return []Table{t}, nil
	case KindOverhead:
		t := Table{Name: "overhead", Columns: []string{"experiment", "region", "level", "oall_min", "oall_max", "oall_mean", "oall_ident_mean", "oall_unid_mean", "olopa_mean", "identified_metrics"}}
		row := func(exp, region, level string, st map[string]Stat, ident []string) []string {
			mean := func(k string) string {
				if s, ok := st[k]; ok && s.N > 0 {
					return num(s.Mean)
				}
				return ""
			}
			o := st["oall"]
			return []string{exp, region, level, num(o.Min), num(o.Max), mean("oall"), mean("oall_ident"), mean("oall_unid"), mean("olopa"), strings.Join(ident, " ")}
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
				cells := []string{row.Region, row.Metric, "", "", "", "", row.OnlyIn}
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
				classes.Rows = append(classes.Rows, []string{m.Experiment, orProgram(m.Region), m.Expr, num(m.Value), m.Term, num(m.Degree)})
			}
		}
		for _, b := range s.Bottlenecks {
			if !keep(b.Experiment) {
				continue
			}
			terms := make([]string, 0, len(b.Degrees))
			for term, d := range b.Degrees {
				terms = append(terms, term+"="+num(d))
			}
			sort.Strings(terms)
			bottle.Rows = append(bottle.Rows, []string{b.Experiment, b.Region, num(b.Value), strings.Join(terms, " "), strconv.FormatBool(b.Negligible)})
		}
		for _, sc := range s.Scores {
			if keep(sc.Experiment) && (detail || sc.Rank <= 5) {
				rank.Rows = append(rank.Rows, []string{sc.Experiment, orProgram(sc.Region), num(sc.OWA), strconv.Itoa(sc.Rank)})
			}
		}
		for _, g := range s.PUGroups {
			if !keep(g.Experiment) {
				continue
			}
			for i, members := range g.Groups {
				groups.Rows = append(groups.Rows, []string{g.Experiment, g.Region, strconv.Itoa(i + 1), num(g.Linking[i]), strings.Join(members, " ")})
			}
		}
		return []Table{classes, bottle, rank, groups}, nil
	case KindSummary, "":
		t := Table{Name: "summary", Columns: []string{"what", "count"}}
		scaled := 0
		for _, e := range r.Experiments {
			if e.Scaled {
				scaled++
			}
		}
		t.Rows = [][]string{
			{"experiments", strconv.Itoa(len(r.Experiments))},
			{"scaling groups", strconv.Itoa(len(r.Groups))},
			{"experiments with speedup and efficiency", strconv.Itoa(scaled)},
			{"class memberships", strconv.Itoa(len(r.Soft.Memberships))},
			{"fuzzy bottlenecks", strconv.Itoa(len(r.Soft.Bottlenecks))},
			{"regions with dissimilar processing units", strconv.Itoa(len(r.Soft.PUGroups))},
			{"PoorScalability findings", strconv.Itoa(len(r.Findings))},
			{"quads in " + GraphIRI, strconv.Itoa(r.Quads)},
			{"issues (experiments skipped or partly analysed)", strconv.Itoa(len(r.Issues))},
		}
		f := Table{Name: "PoorScalability findings", Columns: []string{"subject", "severity", "description"}}
		for _, fd := range r.Findings {
			f.Rows = append(f.Rows, []string{fd.Subject.Value, fd.SeverityClass, fd.Description})
		}
		sort.Slice(f.Rows, func(i, j int) bool { return f.Rows[i][0] < f.Rows[j][0] })
		iss := Table{Name: "issues", Columns: []string{"experiment", "subject", "reason"}}
		for _, i := range r.Issues {
			if keep(i.Experiment) {
				iss.Rows = append(iss.Rows, []string{i.Experiment, i.Subject, i.Reason})
			}
		}
		sc, _ := r.Tables(KindScaling, experiments)
		return []Table{t, sc[0], f, iss}, nil
	}
	return nil, fmt.Errorf("unknown analysis %q (want scaling, overhead, diff or classes)", kind)
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
			if err := cw.WriteAll(t.Rows); err != nil {
				return err
			}
		}
		return nil
	case "table", "":
		for i, t := range tables {
			if i > 0 {
				fmt.Fprintln(w)
			}
			fmt.Fprintf(w, "%s (%d rows)\n", t.Name, len(t.Rows))
			if len(t.Rows) == 0 {
				continue
			}
			tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, strings.Join(t.Columns, "\t"))
			for _, row := range t.Rows {
				fmt.Fprintln(tw, strings.Join(row, "\t"))
			}
			if err := tw.Flush(); err != nil {
				return err
			}
		}
		return nil
	}
	return fmt.Errorf("unknown format %q (want table, json or csv)", format)
}
