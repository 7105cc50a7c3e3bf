// Package modelfn offers the performance models of perfkb analyze
// (internal/pmnf, Extra-P's Performance Model Normal Form) to SPARQL:
// pf:predict evaluates a model's perfonto:modelFormula at parameter
// values, so a query can extrapolate:
//
//	PREFIX pf: <urn:x-perfkb:function#>
//	SELECT ?path ?t WHERE {
//	  ?m perfonto:modelledMetric "wtime" ; perfonto:callPath ?path ;
//	     perfonto:modelFormula ?model .
//	  BIND (pf:predict(?model, 4096) AS ?t) } ORDER BY DESC(?t)
//
// The arguments after the model are its parameter values in the order of
// the formula's head (f(p) or f(p,n)). A model that is not a formula
// literal, a non-numeric value or the wrong number of values is an
// expression error: a FILTER on it is false, a BIND leaves its variable
// unbound.
package modelfn

import (
	"math"
	"sync"

	"github.com/perfkb/perfkb/internal/pmnf"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/function"
)

// Predict is the IRI of pf:predict.
const Predict = function.Namespace + "predict"

// Register declares pf:predict in r (a clone: the shared registries are
// frozen).
func Register(r *function.Registry) error {
	return r.Register(function.Def{Name: Predict, Min: 2, Max: function.Variadic,
		Doc: "value of a performance model (its perfonto:modelFormula) at the parameter values that follow it", Call: predict})
}

// parsed caches formulas: a query calls pf:predict once per row with the
// same few models.
var parsed sync.Map // string → *pmnf.Model

func predict(args []kb.Term) (kb.Term, error) {
	f := args[0]
	if f.Kind != kb.KindLiteral {
		return kb.Term{}, function.Errorf("pf:predict: the model must be a perfonto:modelFormula literal, not %s", f)
	}
	var m *pmnf.Model
	if v, ok := parsed.Load(f.Value); ok {
		m = v.(*pmnf.Model)
	} else {
		pm, err := pmnf.ParseFormula(f.Value)
		if err != nil {
			return kb.Term{}, function.Errorf("pf:predict: %v", err)
		}
		parsed.Store(f.Value, pm)
		m = pm
	}
	if len(args)-1 != len(m.Params) {
		return kb.Term{}, function.Errorf("pf:predict: the model has %d parameters, %d values given", len(m.Params), len(args)-1)
	}
	var buf [4]float64
	x := buf[:0]
	for i, a := range args[1:] {
		n, ok := function.ParseNumeric(a)
		if !ok {
			return kb.Term{}, function.Errorf("pf:predict: argument %d is not a number: %s", i+2, a)
		}
		x = append(x, n.Float64())
	}
	v := m.Eval(x)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return kb.Term{}, function.Errorf("pf:predict: no finite value at %v", x)
	}
	return function.Double(v), nil
}
