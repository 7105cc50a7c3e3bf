package reasoner

import (
	"context"
	"encoding/json"
	"sort"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner/builtins"
)

// Finding is one performance problem a rule asserted:
// Subject perfonto:hasProblem Problem, with the problem's class, severity
// and triggering metric, and where it was found.
//
// Its JSON (MarshalJSON) is the one findings shape of perfkb: `perfkb
// reason --format json`, POST /rules/run and GET /findings all write it.
// Resources are written as their IRI, or _:label for a blank node (the
// forms --explain and /explain?iri= take); the metric value as its
// lexical form:
//
//	{"subject": IRI, "problem": class IRI, "finding": the finding node,
//	 "severity": 0.8, "severityClass": "high", "metric": "AvgMessageLength",
//	 "value": "131072", "metricNode": IRI, "experiment": IRI, "region": IRI,
//	 "rule": "rule_detect_bigmessages", "description": "…"}
//
// Members without a value are left out.
type Finding struct {
	Subject       kb.Term
	Problem       kb.Term // the finding node (or the problem class itself, as Fig. 6.30 writes it)
	Type          string  // IRI of the problem class
	Severity      float64
	HasSeverity   bool
	SeverityClass string
	Metric        kb.Term
	MetricName    string
	MetricValue   kb.Term
	Description   string
	// Experiment and Region are the subject's perfonto:inExperiment and
	// perfonto:ofCodeRegion (zero when it has none).
	Experiment, Region kb.Term
	// Rule is the label of the rule that derived the finding, from its
	// derivation record ("" when asserted or run without records).
	Rule string
}

// TypeName is the local name of the problem class (BigMessage).
func (f Finding) TypeName() string { return localName(f.Type) }

func localName(iri string) string {
	if i := strings.LastIndexAny(iri, "#/"); i >= 0 {
		return iri[i+1:]
	}
	return iri
}

// findingJSON is the wire form of a Finding.
type findingJSON struct {
	Subject       string   `json:"subject"`
	Problem       string   `json:"problem"`
	Finding       string   `json:"finding,omitempty"`
	Severity      *float64 `json:"severity,omitempty"`
	SeverityClass string   `json:"severityClass,omitempty"`
	Metric        string   `json:"metric,omitempty"`
	Value         string   `json:"value,omitempty"`
	MetricNode    string   `json:"metricNode,omitempty"`
	Experiment    string   `json:"experiment,omitempty"`
	Region        string   `json:"region,omitempty"`
	Rule          string   `json:"rule,omitempty"`
	Description   string   `json:"description,omitempty"`
}

// resourceString writes an IRI as itself and a blank node as _:label.
func resourceString(t kb.Term) string {
	switch {
	case t.IsZero():
		return ""
	case t.IsBlank():
		return "_:" + t.Value
	}
	return t.Value
}

// parseResource reads what resourceString wrote.
func parseResource(s string) kb.Term {
	switch {
	case s == "":
		return kb.Term{}
	case strings.HasPrefix(s, "_:"):
		return kb.Blank(s[2:])
	}
	return kb.IRI(s)
}

// MarshalJSON writes the findings shape (see Finding).
func (f Finding) MarshalJSON() ([]byte, error) {
	o := findingJSON{
		Subject: resourceString(f.Subject), Problem: f.Type, Finding: resourceString(f.Problem),
		SeverityClass: f.SeverityClass, Metric: f.MetricName, Value: f.MetricValue.Value,
		MetricNode: resourceString(f.Metric), Experiment: resourceString(f.Experiment),
		Region: resourceString(f.Region), Rule: f.Rule, Description: f.Description,
	}
	if o.Problem == "" {
		o.Problem = resourceString(f.Problem)
	}
	if f.HasSeverity {
		o.Severity = &f.Severity
	}
	return marshal(o)
}

// UnmarshalJSON reads the findings shape back (for clients of the HTTP
// API). The metric value comes back as a plain literal: the JSON holds
// its lexical form only.
func (f *Finding) UnmarshalJSON(b []byte) error {
	var o findingJSON
	if err := json.Unmarshal(b, &o); err != nil {
		return err
	}
	*f = Finding{
		Subject: parseResource(o.Subject), Problem: parseResource(o.Finding), Type: o.Problem,
		SeverityClass: o.SeverityClass, Metric: parseResource(o.MetricNode), MetricName: o.Metric,
		Experiment: parseResource(o.Experiment), Region: parseResource(o.Region), Rule: o.Rule, Description: o.Description,
	}
	if o.Value != "" {
		f.MetricValue = kb.String(o.Value)
	}
	if o.Severity != nil {
		f.Severity, f.HasSeverity = *o.Severity, true
	}
	return nil
}

// FindingFilter selects findings; zero fields match everything.
type FindingFilter struct {
	// Type is a problem class IRI or local name (BigMessage).
	Type    string
	Subject kb.Term
	// Experiment is the IRI or local name of the subject's experiment.
	Experiment  string
	MinSeverity float64
	Limit       int
}

// Findings lists the performance problems in ds (asserted or inferred),
// most severe first.
func Findings(ctx context.Context, ds kb.Dataset, filter FindingFilter) ([]Finding, error) {
	ids := map[string]kb.ID{}
	for _, iri := range []string{ontology.HasProblem, ontology.Severity, ontology.SeverityClass, ontology.TriggeredByMetric,
		ontology.ProblemDescription, ontology.HasMetricName, ontology.HasMetricValue, ontology.RDFType, kb.DerivationsGraphIRI,
		ontology.InExperiment, ontology.OfCodeRegion} {
		id, _, err := ds.Lookup(ctx, kb.IRI(iri))
		if err != nil {
			return nil, err
		}
		ids[iri] = id
	}
	if ids[ontology.HasProblem] == kb.Any {
		return nil, nil
	}
	pat := kb.Pattern{P: ids[ontology.HasProblem]}
	if !filter.Subject.IsZero() {
		id, ok, err := ds.Lookup(ctx, filter.Subject)
		if err != nil || !ok {
			return nil, err
		}
		pat.S = id
	}
	quads, err := kb.Collect(ds.Match(ctx, pat))
	if err != nil {
		return nil, err
	}
	first := func(s, p kb.ID) (kb.Term, error) {
		if p == kb.Any {
			return kb.Term{}, nil
		}
		qs, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: s, P: p}))
		if err != nil || len(qs) == 0 {
			return kb.Term{}, err
		}
		return ds.Resolve(ctx, qs[0].O)
	}
	classes, err := loadProblemClasses(ctx, ds)
	if err != nil {
		return nil, err
	}
	// The rule of each finding comes from its derivation record.
	x, err := newExplainer(ctx, ds)
	if err != nil {
		return nil, err
	}
	seen := map[[2]kb.ID]bool{}
	var out []Finding
	for _, q := range quads {
		if seen[[2]kb.ID{q.S, q.O}] || q.G == ids[kb.DerivationsGraphIRI] {
			continue
		}
		seen[[2]kb.ID{q.S, q.O}] = true
		var f Finding
		if f.Subject, err = ds.Resolve(ctx, q.S); err != nil {
			return nil, err
		}
		if f.Problem, err = ds.Resolve(ctx, q.O); err != nil {
			return nil, err
		}
		types, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: q.O, P: ids[ontology.RDFType]}))
		if err != nil {
			return nil, err
		}
		var candidates []kb.ID
		for _, tq := range types {
			if classes.isProblem(tq.O) {
				candidates = append(candidates, tq.O)
				continue
			}
			if _, inHierarchy := classes.parents[tq.O]; inHierarchy || tq.O == classes.root {
				continue
			}
			// A store without the ontology: PERFONTO's own classes still
			// name findings.
			t, err := ds.Resolve(ctx, tq.O)
			if err != nil {
				return nil, err
			}
			if t.IsIRI() && strings.HasPrefix(t.Value, ontology.Namespace) && t.Value != ontology.PerformanceProblem {
				candidates = append(candidates, tq.O)
			}
		}
		var names []string
		for _, c := range classes.mostSpecific(candidates) {
			t, err := ds.Resolve(ctx, c)
			if err != nil {
				return nil, err
			}
			if t.IsIRI() {
				names = append(names, t.Value)
			}
		}
		sort.Strings(names)
		switch {
		case len(names) > 0:
			f.Type = names[0]
		case f.Problem.IsIRI():
			f.Type = f.Problem.Value
		default:
			f.Type = ontology.PerformanceProblem
		}
		if filter.Type != "" && filter.Type != f.Type && filter.Type != localName(f.Type) {
			continue
		}
		if sev, err := first(q.O, ids[ontology.Severity]); err != nil {
			return nil, err
		} else if n, ok := builtins.NumberOf(sev); ok {
			f.Severity, f.HasSeverity = n.AsFloat(), true
		}
		if f.Severity < filter.MinSeverity {
			continue
		}
		if f.Experiment, err = first(q.S, ids[ontology.InExperiment]); err != nil {
			return nil, err
		}
		if filter.Experiment != "" && filter.Experiment != f.Experiment.Value && filter.Experiment != localName(f.Experiment.Value) {
			continue
		}
		if f.Region, err = first(q.S, ids[ontology.OfCodeRegion]); err != nil {
			return nil, err
		}
		if x != nil {
			if rec, found, err := x.findRecord([3]kb.ID{q.S, q.P, q.O}, kb.Triple{S: f.Subject, P: kb.IRI(ontology.HasProblem), O: f.Problem}); err != nil {
				return nil, err
			} else if found {
				f.Rule = rec.rule
			}
		}
		if c, err := first(q.O, ids[ontology.SeverityClass]); err != nil {
			return nil, err
		} else {
			f.SeverityClass = c.Value
		}
		if d, err := first(q.O, ids[ontology.ProblemDescription]); err != nil {
			return nil, err
		} else {
			f.Description = d.Value
		}
		if f.Metric, err = first(q.O, ids[ontology.TriggeredByMetric]); err != nil {
			return nil, err
		}
		if !f.Metric.IsZero() {
			mid, _, err := ds.Lookup(ctx, f.Metric)
			if err != nil {
				return nil, err
			}
			name, err := first(mid, ids[ontology.HasMetricName])
			if err != nil {
				return nil, err
			}
			f.MetricName = name.Value
			if f.MetricValue, err = first(mid, ids[ontology.HasMetricValue]); err != nil {
				return nil, err
			}
		}
		out = append(out, f)
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.Severity != b.Severity {
			return a.Severity > b.Severity
		}
		if a.Type != b.Type {
			return a.Type < b.Type
		}
		if a.Subject.Value != b.Subject.Value {
			return a.Subject.Value < b.Subject.Value
		}
		return a.Problem.Value < b.Problem.Value
	})
	if filter.Limit > 0 && len(out) > filter.Limit {
		out = out[:filter.Limit]
	}
	return out, nil
}
