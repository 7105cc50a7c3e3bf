package shacl

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"regexp"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"unicode/utf8"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/function"
)

// Options tune Validate.
type Options struct {
	// Graphs are the data graphs, validated as their merge; nil means
	// every graph of the dataset.
	Graphs []kb.Term
}

// ErrRecursion is returned when shapes refer to each other so deeply
// that validation would not end (SHACL leaves recursive shapes
// undefined).
var ErrRecursion = errors.New("shacl: shapes recurse more than 64 levels")

// Validate checks the data graphs of ds against shapes and returns the
// validation report. An error means validation could not finish (a store
// failure, a cancelled context, recursive shapes); a data graph that does
// not conform is a report with Conforms false, not an error.
func Validate(ctx context.Context, ds kb.Dataset, shapes *Shapes, opts Options) (*Report, error) {
	d, err := newView(ctx, ds, opts.Graphs)
	if err != nil {
		return nil, err
	}
	x := newValidator(d)
	// The focus nodes of every targeted shape, then their validation in
	// chunks shared by one worker per processor; results keep the order a
	// single worker would give.
	type job struct {
		s     *shape
		focus kb.ID
	}
	var jobs []job
	for _, s := range shapes.targeted {
		if s.deactivated {
			continue
		}
		for _, focus := range x.focusNodes(s) {
			jobs = append(jobs, job{s, focus})
		}
	}
	if d.err != nil {
		return nil, d.err
	}
	const chunk = 512
	chunks := make([][]Result, (len(jobs)+chunk-1)/chunk)
	workers := min(runtime.GOMAXPROCS(0), len(chunks))
	var next atomic.Int64
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := range workers {
		wx := x
		if w > 0 {
			wx = newValidator(d.fork())
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				c := int(next.Add(1) - 1)
				if c >= len(chunks) {
					return
				}
				if err := ctx.Err(); err != nil {
					errs[w] = err
					return
				}
				var out []Result
				for _, j := range jobs[c*chunk : min(len(jobs), (c+1)*chunk)] {
					wx.validateShape(j.s, j.focus, 0, &sink{results: &out})
				}
				chunks[c] = out
				if err := cmp.Or(wx.err, wx.d.err); err != nil {
					errs[w] = err
					next.Store(int64(len(chunks))) // stop the others
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	rep := &Report{}
	for _, c := range chunks {
		rep.Results = append(rep.Results, c...)
	}
	rep.Conforms = len(rep.Results) == 0
	return rep, nil
}

func newValidator(d *view) *validator {
	x := &validator{d: d, env: eval.NewFuncEnv(timeNow(), ""), classes: map[kb.ID]map[kb.ID]bool{}}
	x.rdfType = d.iri(rdfType)
	return x
}

type validator struct {
	d       *view
	env     *eval.FuncEnv
	rdfType kb.ID
	// classes caches, per class, the set of it and its subclasses.
	classes map[kb.ID]map[kb.ID]bool
	err     error
}

// focusNodes returns the targets of s in the data graph, each once.
func (x *validator) focusNodes(s *shape) []kb.ID {
	var out idSet
	for _, t := range s.targetNodes {
		out.add(x.d.id(t))
	}
	for _, c := range s.targetClasses {
		for sub := range x.subclasses(x.d.id(c)) {
			for _, n := range x.d.subjects(x.rdfType, sub) {
				out.add(n)
			}
		}
	}
	for _, p := range s.targetSubjectsOf {
		x.d.each(kb.Pattern{P: x.d.id(p)}, func(q kb.Quad) bool { out.add(q.S); return true })
	}
	for _, p := range s.targetObjectsOf {
		x.d.each(kb.Pattern{P: x.d.id(p)}, func(q kb.Quad) bool { out.add(q.O); return true })
	}
	return out.list
}

func (x *validator) subclasses(class kb.ID) map[kb.ID]bool {
	if set, ok := x.classes[class]; ok {
		return set
	}
	set := map[kb.ID]bool{}
	for _, c := range subclasses(x.d, class) {
		set[c] = true
	}
	x.classes[class] = set
	return set
}

// isInstance reports whether n is a SHACL instance of class.
func (x *validator) isInstance(n, class kb.ID) bool {
	set := x.subclasses(class)
	found := false
	x.d.each(kb.Pattern{S: n, P: x.rdfType}, func(q kb.Quad) bool {
		found = set[q.O]
		return !found
	})
	return found
}

// sink receives validation results; a probe (results nil) only notes
// that there was one, so conformance checks of nested shapes build no
// results and stop at the first.
type sink struct {
	results *[]Result
	failed  bool
}

func (o *sink) probe() bool { return o.results == nil }

// validateShape sends the results of validating focus against s to out.
func (x *validator) validateShape(s *shape, focus kb.ID, depth int, out *sink) {
	if s.deactivated || x.err != nil {
		return
	}
	if depth > maxDepth {
		x.err = ErrRecursion
		return
	}
	var values []kb.ID
	if s.path == nil {
		values = []kb.ID{focus}
	} else {
		values = x.eval(s.path, focus, false)
	}
	for _, c := range s.comps {
		x.check(s, c, focus, values, depth, out)
		if out.failed && out.probe() {
			return
		}
	}
}

// conforms reports whether focus conforms to s.
func (x *validator) conforms(s *shape, focus kb.ID, depth int) bool {
	var probe sink
	x.validateShape(s, focus, depth+1, &probe)
	return !probe.failed
}

func (x *validator) check(s *shape, c *component, focus kb.ID, values []kb.ID, depth int, out *sink) {
	d := x.d
	report := func(value kb.ID, detail func() string) {
		x.add(s, c, focus, value, nil, detail, out)
	}
	switch c.kind {
	case cClass:
		class := d.id(c.term)
		for _, v := range values {
			if !x.isInstance(v, class) {
				report(v, func() string { return "is not an instance of " + c.term.String() })
			}
		}
	case cDatatype:
		for _, v := range values {
			t := d.term(v)
			ok := t.IsLiteral() && t.Datatype == c.term.Value && (t.Lang == "") == (t.Datatype != rdfLangString) && x.wellFormed(t)
			if !ok {
				report(v, func() string { return "does not have datatype " + c.term.String() })
			}
		}
	case cNodeKind:
		for _, v := range values {
			if !nodeKindOK(d.term(v).Kind, c.term.Value) {
				report(v, func() string { return "is not of node kind " + c.term.String() })
			}
		}
	case cMinCount:
		if len(values) < c.n {
			report(0, func() string { return fmt.Sprintf("has %d values, fewer than %d", len(values), c.n) })
		}
	case cMaxCount:
		if len(values) > c.n {
			report(0, func() string { return fmt.Sprintf("has %d values, more than %d", len(values), c.n) })
		}
	case cMinExclusive, cMinInclusive, cMaxExclusive, cMaxInclusive:
		for _, v := range values {
			cmp, err := eval.Compare(d.term(v), c.term)
			ok := err == nil
			if ok {
				switch c.kind {
				case cMinExclusive:
					ok = cmp > 0
				case cMinInclusive:
					ok = cmp >= 0
				case cMaxExclusive:
					ok = cmp < 0
				case cMaxInclusive:
					ok = cmp <= 0
				}
			}
			if !ok {
				report(v, func() string { return "is out of range (" + localName(c.iri) + " " + c.term.String() + ")" })
			}
		}
	case cMinLength, cMaxLength:
		for _, v := range values {
			t := d.term(v)
			n := utf8.RuneCountInString(t.Value)
			ok := !t.IsBlank() && (c.kind == cMinLength && n >= c.n || c.kind == cMaxLength && n <= c.n)
			if !ok {
				report(v, func() string { return fmt.Sprintf("has length %d (%s %d)", n, localName(c.iri), c.n) })
			}
		}
	case cPattern:
		for _, v := range values {
			t := d.term(v)
			ok := false
			if !t.IsBlank() {
				m, err := eval.CallBuiltin(x.env, "REGEX", []kb.Term{kb.String(t.Value), kb.String(c.pattern), kb.String(c.flags)})
				if err != nil {
					x.err = fmt.Errorf("shape %s: sh:pattern %q: %w", s.term, c.pattern, err)
					return
				}
				ok = m.Value == "true"
			}
			if !ok {
				report(v, func() string { return fmt.Sprintf("does not match %q", c.pattern) })
			}
		}
	case cLanguageIn:
		for _, v := range values {
			t := d.term(v)
			ok := false
			for _, l := range c.terms {
				if t.Lang != "" && langMatches(t.Lang, l.Value) {
					ok = true
					break
				}
			}
			if !ok {
				report(v, func() string { return "is not in one of the allowed languages" })
			}
		}
	case cUniqueLang:
		count := map[string]int{}
		var order []string
		for _, v := range values {
			if l := strings.ToLower(d.term(v).Lang); l != "" {
				if count[l]++; count[l] == 2 {
					order = append(order, l)
				}
			}
		}
		for _, l := range order {
			report(0, func() string { return fmt.Sprintf("has more than one value in language %q", l) })
		}
	case cEquals, cDisjoint, cLessThan, cLessThanOrEquals:
		others := d.objects(focus, d.id(c.term))
		switch c.kind {
		case cEquals:
			for _, v := range values {
				if !contains(others, v) {
					report(v, func() string { return "is not a value of " + c.term.String() })
				}
			}
			for _, o := range others {
				if !contains(values, o) {
					report(o, func() string { return "is a value of " + c.term.String() + " but not of the path" })
				}
			}
		case cDisjoint:
			for _, v := range values {
				if contains(others, v) {
					report(v, func() string { return "is also a value of " + c.term.String() })
				}
			}
		default:
			for _, v := range values {
				for _, o := range others {
					cmp, err := eval.Compare(d.term(v), d.term(o))
					if err != nil || cmp > 0 || cmp == 0 && c.kind == cLessThan {
						report(v, func() string {
							return "is not " + map[compKind]string{cLessThan: "less than ", cLessThanOrEquals: "less than or equal to "}[c.kind] + d.term(o).String()
						})
					}
				}
			}
		}
	case cNot:
		for _, v := range values {
			if x.conforms(c.shapes[0], v, depth) {
				report(v, func() string { return "conforms to " + c.shapes[0].term.String() + ", which sh:not forbids" })
			}
		}
	case cAnd, cOr, cXone:
		for _, v := range values {
			n := 0
			for _, m := range c.shapes {
				if x.conforms(m, v, depth) {
					n++
				}
			}
			ok := c.kind == cAnd && n == len(c.shapes) || c.kind == cOr && n > 0 || c.kind == cXone && n == 1
			if !ok {
				report(v, func() string {
					return fmt.Sprintf("conforms to %d of the %d shapes of %s", n, len(c.shapes), localName(c.iri))
				})
			}
		}
	case cNode:
		for _, v := range values {
			if !x.conforms(c.shapes[0], v, depth) {
				report(v, func() string { return "does not conform to " + c.shapes[0].term.String() })
			}
		}
	case cProperty:
		for _, v := range values {
			x.validateShape(c.shapes[0], v, depth+1, out)
		}
	case cQualifiedMin, cQualifiedMax:
		n := 0
		for _, v := range values {
			if !x.conforms(c.shapes[0], v, depth) {
				continue
			}
			ok := true
			for _, sib := range c.siblings {
				if x.conforms(sib, v, depth) {
					ok = false
					break
				}
			}
			if ok {
				n++
			}
		}
		if c.kind == cQualifiedMin && n < c.n || c.kind == cQualifiedMax && n > c.n {
			report(0, func() string {
				return fmt.Sprintf("has %d values conforming to %s (%s %d)", n, c.shapes[0].term, localName(c.iri), c.n)
			})
		}
	case cClosed:
		for _, v := range values {
			d.each(kb.Pattern{S: v}, func(q kb.Quad) bool {
				p := d.term(q.P)
				if !c.allowed[p] {
					x.add(s, c, v, q.O, &Path{Kind: PathPredicate, Pred: p}, func() string { return "has " + p.String() + ", which the closed shape does not allow" }, out)
				}
				return true
			})
		}
	case cHasValue:
		if !contains(values, d.id(c.term)) {
			report(0, func() string { return "does not have the value " + c.term.String() })
		}
	case cIn:
		for _, v := range values {
			t := d.term(v)
			ok := false
			for _, m := range c.terms {
				if m == t {
					ok = true
					break
				}
			}
			if !ok {
				report(v, func() string { return "is not one of the allowed values" })
			}
		}
	case cSPARQL:
		x.checkSPARQL(s, c, focus, values, out)
	}
}

// add appends one result; path overrides the shape's path (sh:closed).
func (x *validator) add(s *shape, c *component, focus, value kb.ID, path *Path, detail func() string, out *sink) {
	out.failed = true
	if out.probe() {
		return
	}
	r := Result{
		Focus:       x.d.term(focus),
		Path:        s.path,
		SourceShape: s.term,
		Component:   c.iri,
		Severity:    s.severity.Value,
		Messages:    s.messages,
	}
	if path != nil {
		r.Path = path
	}
	if value != 0 {
		r.Value = x.d.term(value)
	}
	if len(r.Messages) == 0 {
		subject := "value " + r.Value.String()
		if value == 0 {
			subject = "focus node " + r.Focus.String()
			if r.Path != nil {
				subject += " at " + r.Path.String()
			}
		}
		r.Messages = []kb.Term{kb.String(subject + " " + detail())}
	}
	*out.results = append(*out.results, r)
}

func contains(ids []kb.ID, id kb.ID) bool {
	for _, x := range ids {
		if x == id {
			return true
		}
	}
	return false
}

func localName(iri string) string {
	if i := strings.LastIndexAny(iri, "#/"); i >= 0 {
		return iri[i+1:]
	}
	return iri
}

func nodeKindOK(k kb.TermKind, kind string) bool {
	switch kind {
	case shIRI:
		return k == kb.KindIRI
	case shBlankNode:
		return k == kb.KindBlank
	case shLiteral:
		return k == kb.KindLiteral
	case shBlankNodeOrIRI:
		return k == kb.KindBlank || k == kb.KindIRI
	case shBlankNodeOrLiteral:
		return k == kb.KindBlank || k == kb.KindLiteral
	case shIRIOrLiteral:
		return k == kb.KindIRI || k == kb.KindLiteral
	}
	return false
}

// langMatches is SPARQL's langMatches: basic filtering of RFC 4647.
func langMatches(tag, rng string) bool {
	tag, rng = strings.ToLower(tag), strings.ToLower(rng)
	if rng == "*" {
		return tag != ""
	}
	return tag == rng || strings.HasPrefix(tag, rng+"-")
}

// The lexical spaces of the XSD date and time types (XSD 1.1 Part 2,
// 3.3.7-3.3.9), without the day-of-month check against the month.
var (
	dateTimeLexical = regexp.MustCompile(`^-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])T(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|24:00:00(\.0+)?)(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)
	dateLexical     = regexp.MustCompile(`^-?([1-9][0-9]{3,}|0[0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)
	timeLexical     = regexp.MustCompile(`^(([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\.[0-9]+)?|24:00:00(\.0+)?)(Z|[+-]((0[0-9]|1[0-3]):[0-5][0-9]|14:00))?$`)
)

// wellFormed reports whether a literal's lexical form is valid for its
// datatype, for the XSD types perfkb knows; others are taken as valid.
func (x *validator) wellFormed(t kb.Term) bool {
	if function.IsIntegerType(t.Datatype) {
		// Lexical form and the type's range.
		_, ok := function.ParseNumeric(t)
		return ok
	}
	switch t.Datatype {
	case ontology.XSDDecimal, ontology.XSDDouble, ontology.XSDFloat:
		_, ok := function.ParseNumeric(t)
		return ok
	case xsdBoolean:
		switch t.Value {
		case "true", "false", "1", "0":
			return true
		}
		return false
	case ontology.XSDDateTime:
		return dateTimeLexical.MatchString(t.Value)
	case ontology.XSDDate:
		return dateLexical.MatchString(t.Value)
	case ontology.XSDTime:
		return timeLexical.MatchString(t.Value)
	}
	return true
}
