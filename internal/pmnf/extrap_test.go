package pmnf

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// extrapScript models each case with Extra-P's own Basic single-parameter
// modeler (extrap.modelers.single_parameter.basic, Extra-P 4.2 defaults)
// and prints the constant and its terms' exponents and coefficients.
const extrapScript = `
import json, sys
from extrap.entities.coordinate import Coordinate
from extrap.entities.measurement import Measurement
from extrap.modelers.single_parameter.basic import SingleParameterModeler
cases = json.load(open(sys.argv[1]))
out = []
for c in cases:
    ms = [Measurement(Coordinate(x), None, None, vs) for x, vs in zip(c["x"], c["values"])]
    f = SingleParameterModeler().create_model(ms).hypothesis.function
    terms = []
    for t in f.compound_terms:
        poly, log = 0.0, 0
        for s in t.simple_terms:
            if s.term_type == "polynomial":
                poly = float(s.exponent)
            else:
                log = int(s.exponent)
        terms.append({"poly": poly, "log": log, "coef": float(t.coefficient)})
    out.append({"c0": float(f.constant_coefficient), "terms": terms})
json.dump(out, sys.stdout)
`

// TestAgainstExtraP compares Fit with Extra-P 4.2 itself on synthetic
// series; it runs only where Python can import extrap (pip install
// extrap), which this build machine cannot (PyPI is unreachable).
func TestAgainstExtraP(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skipf("Extra-P comparison: no python3: %v", err)
	}
	if out, err := exec.Command(py, "-c", "import extrap").CombinedOutput(); err != nil {
		t.Skipf("Extra-P comparison: Extra-P is not installed (pip install extrap): %v: %s", err, out)
	}
	type tcase struct {
		X      []float64   `json:"x"`
		Values [][]float64 `json:"values"`
	}
	rng := rand.New(rand.NewPCG(7, 7))
	ps := []float64{2, 4, 8, 16, 32, 64}
	var cases []tcase
	for k := 0; k < 100; k++ {
		e := DefaultExponents[rng.IntN(len(DefaultExponents))]
		c0 := 1 + rng.Float64()*99
		c1 := c0 * (2 + rng.Float64()*18) / e.eval(ps[len(ps)-1])
		nz := 0.01 + rng.Float64()*0.04
		c := tcase{X: ps}
		for _, p := range ps {
			c.Values = append(c.Values, noisy(rng, c0+c1*e.eval(p), nz))
		}
		cases = append(cases, c)
	}
	dir := t.TempDir()
	in := filepath.Join(dir, "cases.json")
	data, _ := json.Marshal(cases)
	if err := os.WriteFile(in, data, 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(dir, "model.py")
	if err := os.WriteFile(script, []byte(extrapScript), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command(py, script, in).Output()
	if err != nil {
		t.Fatalf("Extra-P: %v", err)
	}
	var theirs []struct {
		C0    float64 `json:"c0"`
		Terms []struct {
			Poly float64 `json:"poly"`
			Log  int     `json:"log"`
			Coef float64 `json:"coef"`
		} `json:"terms"`
	}
	if err := json.Unmarshal(out, &theirs); err != nil || len(theirs) != len(cases) {
		t.Fatalf("Extra-P output: %v (%d models for %d cases)", err, len(theirs), len(cases))
	}
	md := &Modeler{}
	same := 0
	for i, c := range cases {
		var pts []Point
		for j, x := range c.X {
			pts = append(pts, Point{X: []float64{x}, Values: c.Values[j]})
		}
		m, err := md.Fit([]string{"p"}, pts)
		if err != nil {
			t.Fatal(err)
		}
		th := theirs[i]
		ok := len(m.Terms) == len(th.Terms) && math.Abs(m.Constant-th.C0) <= 1e-6*math.Max(1, math.Abs(th.C0))
		for j := 0; ok && j < len(th.Terms); j++ {
			f := m.Terms[0].Factors[0].Exp
			ok = f.Poly() == th.Terms[j].Poly && f.Log == th.Terms[j].Log &&
				math.Abs(m.Terms[0].Coefficient-th.Terms[j].Coef) <= 1e-6*math.Max(1, math.Abs(th.Terms[j].Coef))
		}
		if ok {
			same++
		} else {
			t.Errorf("case %d: perfkb %s, Extra-P %+v", i, m, th)
		}
	}
	t.Logf("%d of %d models identical to Extra-P's", same, len(cases))
}
