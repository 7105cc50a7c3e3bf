package pmnf

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/internal/oracle"
)

// writeExtraPText writes the cases in Extra-P's text input format (its
// docs/file-formats.md): the parameters, the points of the grid, and per
// call path one DATA line of repetitions per point, in the points' order.
// Values are written in plain decimal notation (the format's NUMBER has no
// exponent), exactly enough to read back the same float64.
func writeExtraPText(path string, d design, cases []synth) error {
	var b bytes.Buffer
	b.WriteString("# perfkb synthetic PMNF series: " + d.name + "\n")
	for _, p := range d.params {
		b.WriteString("PARAMETER " + p + "\n")
	}
	b.WriteString("POINTS")
	for _, pt := range cases[0].points {
		b.WriteString(" (")
		for i, x := range pt.X {
			if i > 0 {
				b.WriteByte(' ')
			}
			b.WriteString(strconv.FormatFloat(x, 'f', -1, 64))
		}
		b.WriteString(")")
	}
	b.WriteString("\nMETRIC time\n")
	for k, c := range cases {
		fmt.Fprintf(&b, "REGION case%03d\n", k)
		for _, pt := range c.points {
			b.WriteString("DATA")
			for _, v := range pt.Values {
				b.WriteString(" " + strconv.FormatFloat(v, 'f', -1, 64))
			}
			b.WriteByte('\n')
		}
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}

// parseExtraPModel reads a function as Extra-P's default output format
// prints it: "c0 + c1 * p^(3/4) * log2(p)^(1) + c2 * n^(1)", terms joined
// by " + " (a negative coefficient keeps its sign), the constant left out
// when it is zero and a coefficient when it is 1 (Function.to_string and
// CompoundTerm.to_string in extrap/entities).
func parseExtraPModel(s string, params []string) (*Model, error) {
	m := &Model{Params: params}
	index := map[string]int{}
	for i, p := range params {
		index[p] = i
	}
	for k, ts := range strings.Split(strings.TrimSpace(s), " + ") {
		parts := strings.Split(ts, " * ")
		c, err := strconv.ParseFloat(parts[0], 64)
		if err == nil {
			parts = parts[1:]
		} else if c = 1; !strings.Contains(parts[0], "^(") {
			return nil, fmt.Errorf("Extra-P model %q: coefficient %q: %w", s, parts[0], err)
		}
		if len(parts) == 0 {
			if k != 0 {
				return nil, fmt.Errorf("Extra-P model %q: constant %q is not the first term", s, ts)
			}
			m.Constant = c
			continue
		}
		t := Term{Coefficient: c}
		for _, f := range parts {
			name, exp, ok := strings.Cut(f, "^(")
			if !ok || !strings.HasSuffix(exp, ")") {
				return nil, fmt.Errorf("Extra-P model %q: factor %q", s, f)
			}
			exp = exp[:len(exp)-1]
			log := false
			if inner, ok := strings.CutPrefix(name, "log2("); ok {
				name, log = strings.TrimSuffix(inner, ")"), true
			}
			pi, ok := index[name]
			if !ok {
				return nil, fmt.Errorf("Extra-P model %q: unknown parameter %q", s, name)
			}
			j := slices.IndexFunc(t.Factors, func(f Factor) bool { return f.Param == pi })
			if j < 0 {
				t.Factors = append(t.Factors, Factor{Param: pi, Exp: Exponent{Den: 1}})
				j = len(t.Factors) - 1
			}
			num, den := exp, "1"
			if a, b, ok := strings.Cut(exp, "/"); ok {
				num, den = a, b
			}
			n, err1 := strconv.Atoi(num)
			dd, err2 := strconv.Atoi(den)
			if err1 != nil || err2 != nil || dd <= 0 {
				return nil, fmt.Errorf("Extra-P model %q: exponent %q", s, exp)
			}
			if log {
				if dd != 1 {
					return nil, fmt.Errorf("Extra-P model %q: log exponent %q", s, exp)
				}
				t.Factors[j].Exp.Log = n
			} else {
				t.Factors[j].Exp.Num, t.Factors[j].Exp.Den = n, dd
			}
		}
		m.Terms = append(m.Terms, t)
	}
	return m, nil
}

// TestParseExtraPModel reads functions as Extra-P 4.2.5 printed them
// (extrap --text FILE --print "{callpath}|{model}" on small series): two
// parameters with a shared factor, a negative coefficient, and a zero
// constant with a coefficient of 1, both left out.
func TestParseExtraPModel(t *testing.T) {
	for _, tc := range []struct {
		in     string
		params []string
		want   *Model
	}{
		{"5.022295506832856 + 0.0001376125881640787 * n^(1) * log2(n)^(1) + 0.009986677680800422 * p^(3/4) * n^(1) * log2(n)^(1)", []string{"p", "n"},
			&Model{Constant: 5.022295506832856, Terms: []Term{
				{0.0001376125881640787, []Factor{{1, Exponent{1, 1, 1}}}},
				{0.009986677680800422, []Factor{{0, Exponent{3, 4, 0}}, {1, Exponent{1, 1, 1}}}}}}},
		{"99964.82409340428", []string{"p", "n"}, &Model{Constant: 99964.82409340428}},
		{"109.99111111111128 + -9.994285714285734 * log2(p)^(1)", []string{"p"},
			&Model{Constant: 109.99111111111128, Terms: []Term{{-9.994285714285734, []Factor{{0, Exponent{0, 1, 1}}}}}}},
		{"-2.3415932700366667e-15 + p^(1)", []string{"p"},
			&Model{Constant: -2.3415932700366667e-15, Terms: []Term{{1, []Factor{{0, Exponent{1, 1, 0}}}}}}},
		{"p^(3/2) * log2(p)^(2)", []string{"p"},
			&Model{Terms: []Term{{1, []Factor{{0, Exponent{3, 2, 2}}}}}}},
	} {
		got, err := parseExtraPModel(tc.in, tc.params)
		if err != nil {
			t.Errorf("%q: %v", tc.in, err)
			continue
		}
		tc.want.Params = tc.params
		if !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%q:\n got %+v\nwant %+v", tc.in, got, tc.want)
		}
	}
	for _, bad := range []string{"1 + x^(1)", "1 + 2 * p^(a)", "1 + 2 * q", "p^(1) + 3"} {
		if m, err := parseExtraPModel(bad, []string{"p"}); err == nil {
			t.Errorf("%q: no error, got %s", bad, m)
		}
	}
}

// runExtraP models the text file with the Extra-P command line (default
// modeler: Basic for one parameter, Multi-Parameter for several) and
// returns each call path's model.
func runExtraP(t *testing.T, py, file string, params []string) map[string]*Model {
	t.Helper()
	// Extra-P's modelling is slow (about 20 CPU-seconds per design): its
	// run may take until shortly before the test binary's deadline.
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	if d, ok := t.Deadline(); ok {
		ctx, cancel = context.WithDeadline(context.Background(), d.Add(-10*time.Second))
	}
	defer cancel()
	models, err := extraPModels(ctx, py, file, params)
	if err != nil {
		t.Fatal(err)
	}
	return models
}

// termKey names a term by its factors, independent of their order.
func termKey(t Term) string {
	var ks []string
	for _, f := range t.Factors {
		e := norm(f.Exp)
		ks = append(ks, fmt.Sprintf("%d:%d/%d:%d", f.Param, e.Num, e.Den, e.Log))
	}
	slices.Sort(ks)
	return strings.Join(ks, "*")
}

// sameModel reports whether two models have the same hypothesis (the same
// set of terms) and, when coefs is set, every coefficient (the constant
// included) within tol of the other's relative to the larger one; a
// coefficient below 1e-9 of the data's scale counts as zero.
func sameModel(a, b *Model, scale, tol float64) (hyp, coefs bool) {
	if len(a.Terms) != len(b.Terms) {
		return false, false
	}
	bt := map[string]float64{}
	for _, t := range b.Terms {
		bt[termKey(t)] = t.Coefficient
	}
	near := func(x, y float64) bool {
		d := math.Abs(x - y)
		return d <= 1e-9*scale || d <= tol*math.Max(math.Abs(x), math.Abs(y))
	}
	coefs = near(a.Constant, b.Constant)
	for _, t := range a.Terms {
		c, ok := bt[termKey(t)]
		if !ok {
			return false, false
		}
		coefs = coefs && near(t.Coefficient, c)
	}
	return true, coefs
}

// TestAgainstExtraP models every design's synthetic series with the Extra-P
// 4.2 command line (from its text input format) and with Fit, and compares
// the chosen hypotheses and coefficients call path by call path; it also
// scores Extra-P's recovery of the generating exponents on the same
// inputs. It runs where internal/oracle finds Extra-P, on the issue's
// designs (6 values of p; a 5×5 grid); PERFKB_EXTRAP_FULL=1 adds the
// longer ones (p up to 4096; a 7×7 grid) and the two that follow the
// Extra-P authors' documented evaluation (see designs). On a loaded
// machine give it time (go test -timeout 30m).
func TestAgainstExtraP(t *testing.T) {
	py := oracle.Python(t, "extrap")
	s, _ := seed(t)
	dir := t.TempDir()
	for di, tc := range designs {
		if tc.extrap == 0 || (tc.extrap == 2 && os.Getenv("PERFKB_EXTRAP_FULL") == "") {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			cases := generate(s, tc.design)
			file := filepath.Join(dir, fmt.Sprintf("design%d.txt", di))
			if err := writeExtraPText(file, tc.design, cases); err != nil {
				t.Fatal(err)
			}
			theirs := runExtraP(t, py, file, tc.params)
			ours := fitAll(t, &Modeler{}, tc.design, cases)
			reps := fitAll(t, &Modeler{Select: SelectRepetitions}, tc.design, cases)
			var hyp, coef, repHyp, repCoef int
			var rOurs, rTheirs, rReps recovery
			for k, c := range cases {
				th, ok := theirs[fmt.Sprintf("case%03d", k)]
				if !ok {
					t.Fatalf("Extra-P printed no model for case%03d", k)
				}
				scale := 0.0
				for _, p := range c.points {
					scale = max(scale, math.Abs(p.Values[0]))
				}
				h, cf := sameModel(ours[k], th, scale, 0.01)
				if h {
					hyp++
				}
				if cf {
					coef++
				} else {
					t.Logf("case%03d (generated %v): perfkb %s, Extra-P %s", k, cases[k].want, ours[k], th)
				}
				rOurs.add(ours[k], c.want)
				rTheirs.add(th, c.want)
				rReps.add(reps[k], c.want)
				h, cf = sameModel(reps[k], th, scale, 0.01)
				if h {
					repHyp++
				}
				if cf {
					repCoef++
				}
			}
			n := float64(len(cases))
			oe, on := rOurs.pct()
			te, tn := rTheirs.pct()
			re, rn := rReps.pct()
			t.Logf("%s, seed %d: same hypothesis as Extra-P %.1f%%, same hypothesis and coefficients within 1%% %.1f%%; "+
				"generating exponents exact/within 1/4: perfkb %.1f%%/%.1f%%, Extra-P %.1f%%/%.1f%%",
				tc.name, s, 100*float64(hyp)/n, 100*float64(coef)/n, oe, on, te, tn)
			t.Logf("%s, seed %d, SelectRepetitions: exact/within 1/4 %.1f%%/%.1f%%; same hypothesis as Extra-P %.1f%%, and coefficients within 1%% %.1f%%",
				tc.name, s, re, rn, 100*float64(repHyp)/n, 100*float64(repCoef)/n)
			if float64(coef) < 0.95*n {
				t.Errorf("only %d of %d models equal Extra-P's (want >= 95%%)", coef, len(cases))
			}
		})
	}
}
