package convert

import (
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// ValueAnnotation returns the statements of an RDF 1.2 annotation on the
// metric value statement (metric, perfonto:hasMetricValue, value): a
// reifier that rdf:reifies its triple term, with each of props (predicate
// and object) about it. In Turtle 1.2 this is
//
//	metric perfonto:hasMetricValue value {| perfonto:measuredBy "TAU" |} .
//
// The reifier is an IRI made from the metric's, so converting the same
// input twice states the same annotation, as the converters' other IRIs do.
func ValueAnnotation(metric, value kb.Term, props []kb.Triple) [][3]kb.Term {
	if len(props) == 0 {
		return nil
	}
	r := kb.IRI(metric.Value + "#value")
	out := make([][3]kb.Term, 0, 1+len(props))
	out = append(out, [3]kb.Term{r, kb.IRI(ontology.RDFReifies), kb.TripleTerm(metric, kb.IRI(ontology.HasMetricValue), value)})
	for _, p := range props {
		out = append(out, [3]kb.Term{r, p.P, p.O})
	}
	return out
}

// MeasuredBy is the annotation naming the tool (and version) that
// measured a value.
func MeasuredBy(tool string) []kb.Triple {
	return []kb.Triple{{P: kb.IRI(ontology.MeasuredBy), O: kb.String(tool)}}
}
