package fuzzy

import (
	"math"
	"testing"
)

const eps = 1e-12

// TestFig67 checks the five states of Fig. 6.7's bandwidth variable
// against degrees computed by hand from F.3, F.4 and ABLE's Shoulder.
func TestFig67(t *testing.T) {
	tests := []struct {
		x                                 float64
		veryLow, low, medium, high, vHigh float64
	}{
		{0, 1, 0, 0, 0, 0},
		{0.5, 0.5, 0, 0, 0, 0},
		{1, 0, 0, 0, 0, 0},
		{1.25, 0, 0.5, 0, 0, 0},
		{1.5, 0, 1, 0, 0, 0},
		{2.1, 0, 0, 0.5, 0, 0},
		{2.5, 0, 0, 1, 0, 0},
		{3.5, 0, 0, 0, 1, 0},
		{4.5, 0, 0, 0, 0, 0.5},
		{5, 0, 0, 0, 0, 1},
		{7, 0, 0, 0, 0, 1},  // beyond the universe: the right shoulder stays 1
		{-1, 1, 0, 0, 0, 0}, // and the left one stays 1
		{1.75, 0, 0.5, 0, 0, 0},
		{2.9, 0, 0, 0.5, 0, 0},
	}
	for _, tc := range tests {
		got := []float64{
			ShoulderLeft(tc.x, 0, 1),
			Triangle(tc.x, 1, 1.5, 2),
			Trapezoid(tc.x, 2, 2.2, 2.8, 3),
			Triangle(tc.x, 3, 3.5, 4),
			ShoulderRight(tc.x, 4, 5),
		}
		want := []float64{tc.veryLow, tc.low, tc.medium, tc.high, tc.vHigh}
		names := []string{"VERYLOW", "LOW", "MEDIUM", "HIGH", "VERYHIGH"}
		for i := range got {
			if math.Abs(got[i]-want[i]) > eps {
				t.Errorf("%s(%g) = %g, want %g", names[i], tc.x, got[i], want[i])
			}
		}
	}
}

func TestFunctions(t *testing.T) {
	tests := []struct {
		name string
		got  float64
		want float64
	}{
		{"Triangle left edge", Triangle(0.5, 0, 1, 3), 0.5},
		{"Triangle right edge", Triangle(2.5, 0, 1, 3), 0.25},
		{"Triangle outside", Triangle(3.5, 0, 1, 3), 0},
		{"Triangle vertical left edge at peak", Triangle(1, 1, 1, 2), 1},
		{"Triangle vertical left edge below", Triangle(0.99, 1, 1, 2), 0},
		{"Triangle vertical right edge", Triangle(2, 1, 2, 2), 1},
		{"Trapezoid rise", Trapezoid(0.5, 0, 1, 3, 4), 0.5},
		{"Trapezoid plateau", Trapezoid(2, 0, 1, 3, 4), 1},
		{"Trapezoid fall", Trapezoid(3.75, 0, 1, 3, 4), 0.25},
		{"Trapezoid outside", Trapezoid(4, 0, 1, 3, 4), 0},
		{"ShoulderLeft below", ShoulderLeft(-3, 0, 2), 1},
		{"ShoulderLeft slope", ShoulderLeft(1.5, 0, 2), 0.25},
		{"ShoulderRight slope", ShoulderRight(1.5, 0, 2), 0.75},
		{"ShoulderRight below", ShoulderRight(-1, 0, 2), 0},
		// S(x; 0, 4): 2(1/4)² = 0.125 at 1, 0.5 at the midpoint, 1-2(1/4)² at 3.
		{"S at a", S(0, 0, 4), 0},
		{"S first half", S(1, 0, 4), 0.125},
		{"S midpoint", S(2, 0, 4), 0.5},
		{"S second half", S(3, 0, 4), 0.875},
		{"S at b", S(4, 0, 4), 1},
		{"S step", S(1, 1, 1), 1},
		{"S step below", S(0.5, 1, 1), 0},
		{"Z at a", Z(0, 0, 4), 1},
		{"Z first half", Z(1, 0, 4), 0.875},
		{"Z midpoint", Z(2, 0, 4), 0.5},
		{"Z second half", Z(3, 0, 4), 0.125},
		{"Z beyond b", Z(5, 0, 4), 0},
		{"Bell centre", Bell(2, 1, 3, 2), 1},
		{"Bell at c+a", Bell(3, 1, 3, 2), 0.5},
		{"Bell at c+2a, b=1", Bell(4, 1, 1, 2), 0.2},
		{"Sigmoid centre", Sigmoid(2, 5, 2), 0.5},
		{"Sigmoid ln3", Sigmoid(math.Log(3), 1, 0), 0.75},
		{"Gaussian centre", Gaussian(1, 2, 1), 1},
		{"Gaussian one sigma", Gaussian(3, 2, 1), math.Exp(-0.5)},
		{"And", And(0.3, 0.6), 0.3},
		{"Or", Or(0.3, 0.6), 0.6},
		{"Not", Not(0.25), 0.75},
		{"Very", Very(0.5), 0.25},
		{"Very of full", Very(1), 1},
	}
	for _, tc := range tests {
		if math.Abs(tc.got-tc.want) > eps {
			t.Errorf("%s = %g, want %g", tc.name, tc.got, tc.want)
		}
	}
}

func TestBadParameters(t *testing.T) {
	for name, v := range map[string]float64{
		"Triangle b<a":   Triangle(1, 2, 1, 3),
		"Triangle c<b":   Triangle(1, 0, 3, 2),
		"Trapezoid c<b":  Trapezoid(1, 0, 3, 2, 4),
		"ShoulderLeft":   ShoulderLeft(1, 2, 1),
		"ShoulderRight":  ShoulderRight(1, 2, 1),
		"S b<a":          S(1, 2, 1),
		"Z b<a":          Z(1, 2, 1),
		"Bell a=0":       Bell(1, 0, 1, 1),
		"Gaussian sigma": Gaussian(1, 0, 1),
	} {
		if !math.IsNaN(v) {
			t.Errorf("%s = %g, want NaN", name, v)
		}
	}
}
