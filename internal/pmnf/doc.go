// Package pmnf fits performance models in Extra-P's Performance Model
// Normal Form,
//
//	f(x) = c0 + Σ ck · Π x_l^(i_kl) · log2(x_l)^(j_kl),
//
// the way Extra-P 4.2 (github.com/extra-p/extrap) does, so its results can
// be compared with Extra-P's:
//
//   - one parameter (Basic modeler): the constant model (the mean) first;
//     then every single-term hypothesis c0 + c1·x^i·log2(x)^j of the search
//     space (DefaultExponents, in Extra-P's order; NegativeExponents added
//     for strong scaling) is fitted by least squares and scored by
//     leave-one-out cross-validation: each point in turn is predicted from
//     the others (with a constant below 0.05% of the smallest value set to
//     0), SMAPE and RSS summed over the held-out points. A hypothesis whose
//     term contributes less than 0.05% of the value at every point is
//     dropped; the smallest SMAPE wins, ties going to the earlier
//     hypothesis (the constant model first). Logarithms are used only when
//     every x is at least 1 (above 1 with negative exponents);
//   - several parameters (Multi-Parameter modeler): a single-parameter
//     model per parameter along its longest measurement lines (averaged
//     over the other parameters' values); parameters whose model is
//     constant are dropped; the kept terms are combined as a·b, a+b, a·b+a
//     and a·b+b, each fitted to all points, and the smallest SMAPE (not
//     cross-validated) wins;
//   - repetitions of a point are aggregated by their mean (Extra-P 4.2's
//     default) or median (Modeler.Median).
//
// Modeler.Select = SelectRepetitions replaces Extra-P's selection by one
// that uses the repetitions' spread: every hypothesis (for two parameters
// every pair of exponents in each of the four combinations, fitted to all
// points rather than along lines) is fitted by least squares weighted by
// the inverse variance of each point's mean (one relative variance pooled
// over the points), and the smallest Bayesian information criterion
// χ² + k·ln n wins. It recovers generating exponents more often than
// Extra-P's selection where the points are few or there are two
// parameters (docs/analysis.md has the figures), at the price of models
// that differ from Extra-P's.
//
// Model.Formula writes a model as text that ParseFormula reads back
// exactly; SPARQL's pf:predict (query/function/modelfn) evaluates it.
package pmnf
