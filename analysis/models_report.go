package analysis

import (
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/internal/pmnf"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/rules"
)

// KindModels is the report kind of the performance models.
const KindModels = "models"

// SuperLinearLimit is how far a speedup may exceed the number of
// processing units before the report calls it implausible: a super-linear
// speedup beyond 10% is more often a measurement or baseline problem
// (a different problem size, a cold cache in the baseline) than a cache
// effect.
const SuperLinearLimit = 1.1

// modelTables renders the models of the series of the experiments kept,
// and the series too short to model.
func (r *Result) modelTables(keep func(string) bool) []Table {
	t := Table{Name: "performance models", Columns: []string{"series", "problem_size", "call_path", "metric", "model", "smape_pct", "adj_r2", "points", "growth_in_p", "formula"}, Hide: []string{"formula"}}
	notes := Table{Name: "series not modelled", Columns: []string{"version", "series", "reason"}}
	if r.Models == nil {
		return []Table{t, notes}
	}
	for _, rm := range r.Models.Models {
		s := rm.Series
		if !seriesKept(s, keep) {
			continue
		}
		growth := "-"
		for pi, p := range rm.Model.Params {
			if p == "p" {
				if g, ok := rm.Model.Growth(pi); ok {
					growth = g.Format("p")
				}
			}
		}
		t.Rows = append(t.Rows, []any{s.Version, s.ProblemSize, rm.Name, rm.Metric, modelText(rm), num(rm.Model.SMAPE), num(rm.Model.AR2), rm.Model.Points, growth, rm.Model.Formula()})
	}
	for _, i := range r.Models.Skipped {
		notes.Rows = append(notes.Rows, []any{i.Experiment, i.Subject, i.Reason})
	}
	// The MODELS findings, and the advice of their classes.
	found := Table{Name: "model findings", Columns: []string{"problem", "series", "problem_size", "call_path", "severity", "description", "model"}, Hide: []string{"model"}}
	classes := map[string]bool{}
	models := map[string]*RegionModel{}
	for _, rm := range r.Models.Models {
		models[rm.IRI] = rm
	}
	for _, f := range r.Findings {
		rm := models[f.Subject.Value]
		if rm == nil || !seriesKept(rm.Series, keep) {
			continue
		}
		classes[f.Type] = true
		found.Rows = append(found.Rows, []any{localName(f.Type), rm.Series.Version, rm.Series.ProblemSize, rm.Name, f.SeverityClass, f.Description, f.Subject.Value})
	}
	advice := Table{Name: "advice", Columns: []string{"problem", "advice"}}
	if all, err := rules.ShippedAdvice(); err == nil {
		for _, a := range all {
			if classes[a.Class] {
				advice.Rows = append(advice.Rows, []any{localName(a.Class), strings.Join(strings.Fields(a.Text), " ")})
			}
		}
	}
	return []Table{t, found, advice, notes}
}

func seriesKept(s *Series, keep func(string) bool) bool {
	for _, e := range s.Experiments {
		if keep(e.IRI) {
			return true
		}
	}
	return false
}

// modelText is the model for people: a time model in the unit (s, ms, µs)
// of its largest measured value, with 4 significant digits.
func modelText(rm *RegionModel) string {
	info, ok := ontology.LookupMetric(rm.Metric)
	if !ok || info.Unit != "microsecond" {
		return rm.Model.String()
	}
	x := make([]float64, len(rm.Model.Params))
	for _, c := range rm.Series.coord {
		for i := range c {
			x[i] = max(x[i], c[i])
		}
	}
	scale, unit := 1.0, "µs"
	switch v := rm.Model.Eval(x); {
	case v >= 1e6:
		scale, unit = 1e-6, "s"
	case v >= 1e3:
		scale, unit = 1e-3, "ms"
	}
	m := *rm.Model
	m.Constant *= scale
	m.Terms = append([]pmnf.Term{}, m.Terms...)
	for i := range m.Terms {
		m.Terms[i].Coefficient *= scale
	}
	return m.String() + " " + unit
}

// implausible lists results that are more likely wrong than true.
func (r *Result) implausible(keep func(string) bool) Table {
	t := Table{Name: "implausible results", Columns: []string{"experiment", "what", "why"}}
	for _, e := range r.Experiments {
		if !keep(e.Exp.IRI) || !e.Scaled || e.Group == nil || e.Group.Baseline == nil {
			continue
		}
		base := e.Group.Baseline.Exp.Units
		if base <= 0 {
			continue
		}
		ideal := float64(e.Exp.Units) / float64(base)
		if e.Speedup > ideal*SuperLinearLimit {
			t.Rows = append(t.Rows, []any{e.Exp.IRI, "speedup " + sig4(e.Speedup),
				fmt.Sprintf("super-linear: %s times the baseline's processing units, more than %s%% above ideal; check the baseline (problem size, warm-up) before trusting it", sig4(ideal), sig4((SuperLinearLimit-1)*100))})
		}
	}
	for _, g := range r.Groups {
		if len(g.Members) == 1 && keep(g.Members[0].Exp.IRI) {
			t.Rows = append(t.Rows, []any{g.Members[0].Exp.IRI, "scaling group of one experiment",
				"a series with one point: no speedup, efficiency or scaling model can be computed"})
		}
	}
	return t
}
