package fuzzy

import "math"

// The hedges below complete Very (F.14) with the other modifiers of Zadeh's
// linguistic hedges that F.13 admits (any f(mu) mapping [0,1] to [0,1]).

// Somewhat is the hedge "somewhat" (more or less), mu^(1/2): it widens a
// fuzzy set where Very narrows it.
func Somewhat(mu float64) float64 { return math.Sqrt(mu) }

// Extremely is the hedge "extremely", mu³, stronger than Very.
func Extremely(mu float64) float64 { return mu * mu * mu }
