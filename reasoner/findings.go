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

// The findings vocabulary (declared in ontology/perfonto.ttl).
const (
	PerformanceProblemIRI = ontology.PerformanceProblem
	HasProblemIRI         = ontology.HasProblem
	SeverityIRI           = ontology.Severity
	SeverityClassIRI      = ontology.SeverityClass
	TriggeredByMetricIRI  = ontology.TriggeredByMetric
	ProblemDescriptionIRI = ontology.ProblemDescription
	HasMetricNameIRI      = ontology.HasMetricName
	HasMetricValueIRI     = ontology.HasMetricValue
	rdfType               = ontology.RDFType
)

// Finding is one performance problem a rule asserted:
// Subject perfonto:hasProblem Problem, with the problem's class, severity
// and triggering metric.
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
}

// TypeName is the local name of the problem class (BigMessage).
func (f Finding) TypeName() string { return localName(f.Type) }

func localName(iri string) string {
	if i := strings.LastIndexAny(iri, "#/"); i >= 0 {
		return iri[i+1:]
	}
	return iri
}

// MarshalJSON writes terms as N-Triples strings.
func (f Finding) MarshalJSON() ([]byte, error) {
	type out struct {
		Subject       string   `json:"subject"`
		Problem       string   `json:"problem"`
		Type          string   `json:"type"`
		Severity      *float64 `json:"severity,omitempty"`
		SeverityClass string   `json:"severityClass,omitempty"`
		Metric        string   `json:"metric,omitempty"`
		MetricName    string   `json:"metricName,omitempty"`
		MetricValue   string   `json:"metricValue,omitempty"`
		Description   string   `json:"description,omitempty"`
	}
	o := out{Subject: f.Subject.String(), Problem: f.Problem.String(), Type: f.Type,
		SeverityClass: f.SeverityClass, MetricName: f.MetricName, Description: f.Description}
	if f.HasSeverity {
		o.Severity = &f.Severity
	}
	if !f.Metric.IsZero() {
		o.Metric = f.Metric.String()
	}
	if !f.MetricValue.IsZero() {
		o.MetricValue = f.MetricValue.Value
	}
	return json.Marshal(o)
}

// FindingFilter selects findings; zero fields match everything.
type FindingFilter struct {
	// Type is a problem class IRI or local name (BigMessage).
	Type        string
	Subject     kb.Term
	MinSeverity float64
	Limit       int
}

// Findings lists the performance problems in ds (asserted or inferred),
// most severe first.
func Findings(ctx context.Context, ds kb.Dataset, filter FindingFilter) ([]Finding, error) {
	ids := map[string]kb.ID{}
	for _, iri := range []string{HasProblemIRI, SeverityIRI, SeverityClassIRI, TriggeredByMetricIRI,
		ProblemDescriptionIRI, HasMetricNameIRI, HasMetricValueIRI, rdfType, DerivationsGraphIRI} {
		id, _, err := ds.Lookup(ctx, kb.IRI(iri))
		if err != nil {
			return nil, err
		}
		ids[iri] = id
	}
	if ids[HasProblemIRI] == kb.Any {
		return nil, nil
	}
	pat := kb.Pattern{P: ids[HasProblemIRI]}
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
	seen := map[[2]kb.ID]bool{}
	var out []Finding
	for _, q := range quads {
		if seen[[2]kb.ID{q.S, q.O}] || q.G == ids[DerivationsGraphIRI] {
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
		types, err := kb.Collect(ds.Match(ctx, kb.Pattern{S: q.O, P: ids[rdfType]}))
		if err != nil {
			return nil, err
		}
		var names []string
		for _, tq := range types {
			t, err := ds.Resolve(ctx, tq.O)
			if err != nil {
				return nil, err
			}
			if t.IsIRI() && strings.HasPrefix(t.Value, ontology.Namespace) && t.Value != PerformanceProblemIRI {
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
			f.Type = PerformanceProblemIRI
		}
		if filter.Type != "" && filter.Type != f.Type && filter.Type != localName(f.Type) {
			continue
		}
		if sev, err := first(q.O, ids[SeverityIRI]); err != nil {
			return nil, err
		} else if n, ok := builtins.NumberOf(sev); ok {
			f.Severity, f.HasSeverity = n.AsFloat(), true
		}
		if f.Severity < filter.MinSeverity {
			continue
		}
		if c, err := first(q.O, ids[SeverityClassIRI]); err != nil {
			return nil, err
		} else {
			f.SeverityClass = c.Value
		}
		if d, err := first(q.O, ids[ProblemDescriptionIRI]); err != nil {
			return nil, err
		} else {
			f.Description = d.Value
		}
		if f.Metric, err = first(q.O, ids[TriggeredByMetricIRI]); err != nil {
			return nil, err
		}
		if !f.Metric.IsZero() {
			mid, _, err := ds.Lookup(ctx, f.Metric)
			if err != nil {
				return nil, err
			}
			name, err := first(mid, ids[HasMetricNameIRI])
			if err != nil {
				return nil, err
			}
			f.MetricName = name.Value
			if f.MetricValue, err = first(mid, ids[HasMetricValueIRI]); err != nil {
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
		return a.Subject.Value < b.Subject.Value
	})
	if filter.Limit > 0 && len(out) > filter.Limit {
		out = out[:filter.Limit]
	}
	return out, nil
}
