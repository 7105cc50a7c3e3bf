package pmnf

import (
	"fmt"
	"math"
	"strconv"
	"strings"
)

// Formula writes the model in full precision as a text that ParseFormula
// reads back exactly, with its parameters first:
//
//	f(p) = 12.5 + 0.003*p^(1)*log2(p)^(1)
//	f(p,n) = 1 + 2*p^(1/2)*n^(1)*log2(n)^(0)
//
// Each factor is name^(i)*log2(name)^(j) with i a fraction; a factor with
// j = 0 omits the logarithm, one with i = 0 the power.
func (m *Model) Formula() string {
	var b strings.Builder
	b.WriteString("f(" + strings.Join(m.Params, ",") + ") = ")
	b.WriteString(strconv.FormatFloat(m.Constant, 'g', -1, 64))
	for _, t := range m.Terms {
		b.WriteString(" + ")
		b.WriteString(strconv.FormatFloat(t.Coefficient, 'g', -1, 64))
		for _, f := range t.Factors {
			p := m.Params[f.Param]
			if f.Exp.Num != 0 {
				b.WriteString("*" + p + "^(" + f.Exp.PolyString() + ")")
			}
			if f.Exp.Log != 0 {
				b.WriteString("*log2(" + p + ")^(" + strconv.Itoa(f.Exp.Log) + ")")
			}
		}
	}
	return b.String()
}

// ParseFormula reads a model written by Formula (its coefficients and
// exponents; the quality measures are zero).
func ParseFormula(s string) (*Model, error) {
	head, body, ok := strings.Cut(s, "=")
	head = strings.TrimSpace(head)
	if !ok || !strings.HasPrefix(head, "f(") || !strings.HasSuffix(head, ")") {
		return nil, fmt.Errorf("pmnf: formula %q: want f(PARAMS) = ...", s)
	}
	m := &Model{}
	index := map[string]int{}
	for _, p := range strings.Split(head[2:len(head)-1], ",") {
		p = strings.TrimSpace(p)
		if p == "" {
			return nil, fmt.Errorf("pmnf: formula %q: empty parameter name", s)
		}
		index[p] = len(m.Params)
		m.Params = append(m.Params, p)
	}
	terms := strings.Split(body, " + ")
	c, err := strconv.ParseFloat(strings.TrimSpace(terms[0]), 64)
	if err != nil {
		return nil, fmt.Errorf("pmnf: formula %q: constant: %w", s, err)
	}
	m.Constant = c
	for _, ts := range terms[1:] {
		parts := strings.Split(strings.TrimSpace(ts), "*")
		c, err := strconv.ParseFloat(parts[0], 64)
		if err != nil {
			return nil, fmt.Errorf("pmnf: formula %q: coefficient: %w", s, err)
		}
		t := Term{Coefficient: c}
		for _, f := range parts[1:] {
			name, exp, ok := strings.Cut(f, "^(")
			if !ok || !strings.HasSuffix(exp, ")") {
				return nil, fmt.Errorf("pmnf: formula %q: factor %q: want x^(i) or log2(x)^(j)", s, f)
			}
			exp = exp[:len(exp)-1]
			log := false
			if inner, ok := strings.CutPrefix(name, "log2("); ok && strings.HasSuffix(inner, ")") {
				name, log = inner[:len(inner)-1], true
			}
			pi, ok := index[name]
			if !ok {
				return nil, fmt.Errorf("pmnf: formula %q: factor %q: unknown parameter %q", s, f, name)
			}
			// Merge with this parameter's factor when there is one.
			k := -1
			for i := range t.Factors {
				if t.Factors[i].Param == pi {
					k = i
				}
			}
			if k < 0 {
				t.Factors = append(t.Factors, Factor{Param: pi, Exp: Exponent{Den: 1}})
				k = len(t.Factors) - 1
			}
			if log {
				j, err := strconv.Atoi(exp)
				if err != nil {
					return nil, fmt.Errorf("pmnf: formula %q: factor %q: %w", s, f, err)
				}
				t.Factors[k].Exp.Log = j
				continue
			}
			num, den := exp, "1"
			if a, b, ok := strings.Cut(exp, "/"); ok {
				num, den = a, b
			}
			n, err1 := strconv.Atoi(num)
			d, err2 := strconv.Atoi(den)
			if err1 != nil || err2 != nil || d <= 0 {
				return nil, fmt.Errorf("pmnf: formula %q: factor %q: exponent %q is not a fraction", s, f, exp)
			}
			t.Factors[k].Exp.Num, t.Factors[k].Exp.Den = n, d
		}
		m.Terms = append(m.Terms, t)
	}
	if math.IsNaN(m.Constant) {
		return nil, fmt.Errorf("pmnf: formula %q: constant is NaN", s)
	}
	return m, nil
}
