package shacl

import (
	"io"
	"sort"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// Report is a SHACL validation report.
type Report struct {
	// Conforms is true when validation produced no result (of any
	// severity).
	Conforms bool
	// Results are the validation results, in the order they were found.
	Results []Result
}

// Result is one validation result.
type Result struct {
	// Focus is the focus node that did not conform.
	Focus kb.Term
	// Path is the property path of the property shape (or, for
	// sh:closed, the offending predicate); nil for node shapes.
	Path *Path
	// Value is the value node that failed, zero when the constraint is
	// about the value nodes together (sh:minCount, sh:hasValue, …).
	Value kb.Term
	// SourceShape is the shape whose constraint failed.
	SourceShape kb.Term
	// Component is the IRI of the constraint component.
	Component string
	// SourceConstraint is the node of an sh:sparql constraint, zero for
	// the others.
	SourceConstraint kb.Term
	// Severity is the IRI of the shape's severity (sh:Violation unless
	// the shape says otherwise).
	Severity string
	// Messages are the shape's sh:message values, or one generated
	// message.
	Messages []kb.Term
}

// Violations counts the results of severity sh:Violation.
func (r *Report) Violations() int {
	n := 0
	for _, res := range r.Results {
		if res.Severity == shViolation {
			n++
		}
	}
	return n
}

// Quads writes the report as RDF (an sh:ValidationReport node with one
// sh:ValidationResult per result, fresh blank nodes) into graph (zero:
// the default graph), the statements of each subject together, so that
// Turtle encoders can group them.
func (r *Report) Quads(graph kb.Term) []kb.TermQuad {
	var out []kb.TermQuad
	n := 0
	blank := func() kb.Term { n++; return kb.Blank("r" + strconv.Itoa(n)) }
	emit := func(s, p, o kb.Term) { out = append(out, kb.TermQuad{S: s, P: p, O: o, G: graph}) }
	rep := blank()
	emit(rep, kb.IRI(rdfType), kb.IRI(shValidationReport))
	conforms := "false"
	if r.Conforms {
		conforms = "true"
	}
	emit(rep, kb.IRI(shConforms), kb.Literal(conforms, xsdBoolean))
	for _, res := range r.Results {
		node := blank()
		emit(rep, kb.IRI(shResult), node)
		emit(node, kb.IRI(rdfType), kb.IRI(shValidationResult))
		emit(node, kb.IRI(shFocusNode), res.Focus)
		if res.Path != nil {
			emit(node, kb.IRI(shResultPath), res.Path.quads(blank, emit))
		}
		if !res.Value.IsZero() {
			emit(node, kb.IRI(shValue), res.Value)
		}
		emit(node, kb.IRI(shSourceShape), res.SourceShape)
		emit(node, kb.IRI(shSourceComponent), kb.IRI(res.Component))
		if !res.SourceConstraint.IsZero() {
			emit(node, kb.IRI(shSourceConstraint), res.SourceConstraint)
		}
		emit(node, kb.IRI(shResultSeverity), kb.IRI(res.Severity))
		for _, m := range res.Messages {
			emit(node, kb.IRI(shResultMessage), m)
		}
	}
	order := map[kb.Term]int{}
	for i, q := range out {
		if _, ok := order[q.S]; !ok {
			order[q.S] = i
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return order[out[i].S] < order[out[j].S] })
	return out
}

// Prefixes are the namespace prefixes a report is best written with.
func Prefixes() []rdfio.Prefix {
	return append([]rdfio.Prefix{{Prefix: "sh", Namespace: ontology.SHNamespace}}, rdfio.CommonPrefixes...)
}

// WriteTurtle writes the report as Turtle.
func (r *Report) WriteTurtle(w io.Writer) error {
	enc := rdfio.NewTurtleEncoder(w, rdfio.EncoderOptions{Prefixes: Prefixes()})
	for _, q := range r.Quads(kb.Term{}) {
		if err := enc.Encode(q); err != nil {
			return err
		}
	}
	return enc.Close()
}
