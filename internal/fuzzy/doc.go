// Package fuzzy implements the fuzzy-set membership functions and
// modifiers of Appendix F of Truong's dissertation (the formulas numbered
// F.3–F.14 there), plus the Shoulder set of IBM's ABLE toolkit that
// Fig. 6.7 uses for the outer states of the bandwidth variable.
//
// Every function maps a crisp value x to a membership degree in [0, 1].
// They are pure and allocation-free so that rule builtins
// (reasoner/builtins/fuzzy.go) and analysis code can call them per
// measurement.
//
// A vertical edge (a == b) is a step instead of a division by zero: a
// value on the edge is a full member. Parameters out of order (b < a and
// so on) make a function return NaN, which compares false with every
// threshold, so a rule with a mistyped set never fires by accident.
package fuzzy
