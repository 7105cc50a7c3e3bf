// Package rules ships perfkb's rule files, written in Apache Jena's rule
// syntax and embedded in the binary:
//
//   - rdfs.rules: the RDFS entailment rules that matter for PERFONTO data
//     (subClassOf and subPropertyOf transitivity and inheritance, domain,
//     range);
//   - owl-rl.rules: the OWL 2 RL rules for the constructs PERFONTO uses
//     (inverseOf, TransitiveProperty, SymmetricProperty, equivalentClass,
//     equivalentProperty, sameAs);
//   - perfonto.rules: analysis rules that flag performance problems
//     (Fig. 6.30's big messages and eleven more), each asserting a
//     perfonto:hasProblem finding with a severity and the triggering metric.
//
// A rule file includes them with @include <RDFS>, <OWL> or <PERFONTO>;
// `perfkb reason` runs all three when no --rules is given, and `perfkb rules
// show PERFONTO` prints one.
//
// # Writing rules
//
// A rule file is Jena's syntax (reasoner/rulelang documents the grammar):
//
//	@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>.
//	@define BIG_MESSAGES_THRESHOLD 65536.
//	[rule_detect_bigmessages:
//	  (?rs perfonto:ofCodeRegion ?cr), (?cr rdf:type perfonto:MPCodeRegion),
//	  (?cr perfonto:hasCrType "CR_MPIP2P"), (?rs perfonto:hasMetric ?m),
//	  (?m perfonto:hasMetricName "AvgMessageLength"), (?m perfonto:hasMetricValue ?len),
//	  greaterThan(?len, BIG_MESSAGES_THRESHOLD)
//	  -> print(?rs, "Big message hold!")]
//
// @define NAME value. is perfkb's one extension: a named constant, usable
// wherever a term is, later in the same file, so a threshold is written
// once. `perfkb reason --define NAME=VALUE` (and ParseOptions.Defines)
// overrides it without editing the file. Jena itself would read a bare
// NAME as a relative IRI; to run such a file under Jena, substitute the
// values first.
//
// The prefixes rdf, rdfs, owl, xsd and perfonto are predefined. Only
// forward rules (->) run; a backward rule (<-) is a positioned error. The
// builtins are Jena's (equal, notEqual, lessThan, greaterThan, le, ge, sum,
// difference, product, quotient, min, max, addOne, strConcat, uriConcat,
// regex, isLiteral, notLiteral, isBNode, notBNode, isDType, notDType,
// isFunctor, notFunctor, bound, unbound, noValue, makeTemp, makeSkolem,
// makeInstance, now, print, remove, drop); numbers compare by value across
// the XSD numeric types.
//
// A finding is asserted as
//
//	?subject perfonto:hasProblem ?f .
//	?f a perfonto:BigMessage ; perfonto:severity "0.5"^^xsd:decimal ;
//	   perfonto:severityClass "medium" ; perfonto:triggeredByMetric ?m ;
//	   perfonto:problemDescription "…" .
//
// with ?f from makeSkolem(?f, ?subject, perfonto:BigMessage), so the same
// problem found twice is one finding; reasoner.Findings reads them back.
//
// The data-driven tests in testdata/ run every rule on small graphs, once
// where it must fire and once where it must not (see rules_test.go for the
// script format).
package rules
