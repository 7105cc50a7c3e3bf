// Package analysis is perfkb's performance analysis over the knowledge
// base: what SCALEA (dissertation 5.2, 5.4, 5.5.3.2, 5.6), TAU PerfExplorer
// or Hatchet give an analyst who loads a scaling study.
//
//	store ──Read──▶ experiments, processing units, region summaries (DRG) with metrics
//	        │
//	        ├─ factors: version, problem size, machine, processes × threads = n
//	        ├─ scaling groups (version, problem size, machine) and baselines
//	        ├─ speedup and efficiency: program (largest CR_P wtime) and per call path
//	        ├─ overheads per region summary against a sequential run (5.2, 5.4, Fig. 5.2):
//	        │     oall = T_p − T_s/n, oall_ident = identified metrics + loss of
//	        │     parallelism + the children's identified classes (bottom-up),
//	        │     oall_unid = oall − oall_ident; min/max/mean per
//	        │     process (over threads) and per experiment (over processes)
//	        ├─ soft analysis (5.6, App. F): performance classes with degrees,
//	        │     OWA scores and ranks, PU similarity groups, similarity to the
//	        │     baseline, fuzzy bottleneck search with a negligible range,
//	        │     experiment factor similarity against the version's base
//	        │     (5.6.5.2), fuzzy c-means clusters of region summaries with
//	        │     a fuzzy data-reduction rule (5.6.11, 5.6.12); classified
//	        │     values perfonto:hasPerformanceClass their classes (Def. 3.23)
//	        ├─ differences between two experiments (Compare)
//	        ├─ performance models (internal/pmnf, Extra-P 4.2's modeler) per
//	        │     experiment series (version and machine; parameters p and/or
//	        │     a numeric problem size n; repeated runs are repetitions),
//	        │     call path and metric, with predictions of wtime at larger p
//	        └─ SCALABILITY and MODELS rules (rules/scalability.rules,
//	                rules/models.rules): PoorScalability, PoorScalingModel and
//	                ExtrapolatedHotspot findings
//	                ▼
//	      graph urn:x-perfkb:analysis, replaced in one atomic Apply per Run
//
// Results are PERFONTO triples. Program-level speedup and efficiency hang
// off the experiment (?exp perfonto:hasMetric ?m . ?m perfonto:hasMetricName
// "speedup"); region-level results off a perfonto:RegionAggregate node per
// call path (perfonto:ofCodeRegion, perfonto:inExperiment,
// perfonto:hasBaseline), per process with perfonto:inProcessingUnit.
// Aggregated metrics carry perfonto:metricStatistic "min", "max" or "mean".
// The overhead classification (rdfs:subClassOf below TemporalOverhead and
// the catalog's perfonto:measuresOverhead) is copied into the graph, so
// "all communication overhead" is one query:
//
//	?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName ?n .
//	?def perfonto:metricMnemonic ?n ; perfonto:measuresOverhead ?c .
//	?c rdfs:subClassOf* perfonto:CommunicationOverhead .
//
// A performance model is a perfonto:PerformanceModel (perfonto:inSeries,
// perfonto:callPath, perfonto:modelledMetric; its code region points to
// it with perfonto:hasPerformanceModel; its perfonto:ExperimentSeries has
// perfonto:seriesVersion, perfonto:seriesCluster and
// perfonto:seriesProblemSize, not the experiments' properties, whose domain
// Experiment would make RDFS count the series as an experiment) with
// its constant, its perfonto:ModelTerm nodes (coefficient and one
// perfonto:TermFactor per parameter: perfonto:polynomialExponent,
// perfonto:logarithmExponent), quality measures (perfonto:modelSMAPE,
// perfonto:modelRSS, perfonto:modelAdjustedR2), the growth in p
// (perfonto:growthExponent, perfonto:growthLogExponent,
// perfonto:growthShare), perfonto:fittedFrom its experiments, a
// perfonto:modelFormula that SPARQL's pf:predict evaluates, and for wtime
// perfonto:ModelPrediction nodes. Series with fewer than 5 distinct values
// of a parameter (Extra-P's minimum) are not modelled and listed in
// ModelResult.Skipped.
//
// Bad input — an experiment without a program region, a baseline with zero
// time, the only experiment of its version, non-numeric metric values — is
// reported per experiment in Result.Issues and skipped; no value that is not
// finite is ever written.
//
// # The call tree
//
// BuildCallTree computes an experiment's dynamic call tree (one node per
// call path, inclusive and exclusive times and every metric combined over
// the processing units with mean, min or max). It is the one tree perfkb
// has: perfkb tree prints it, GET /analysis/tree serves it as JSON, and the
// query page's call-tree view draws that answer.
//
// # How to add an analysis
//
// 1. A file analysis/<name>.go with a function over the store that
// computes without writing and returns a struct with JSON tags (it is
// served as it is):
//
//	// Hotspots lists the call paths of exp whose exclusive time is above
//	// share of the program's.
//	func Hotspots(ctx context.Context, ds kb.Dataset, exp string, opts HotspotOptions) (*HotspotReport, error)
//
// Read with Read/ReadMetrics (experiments, units, region summaries by call
// path) or, for one experiment, with BuildCallTree or a SPARQL query
// through package query; IRIs come from package ontology. Options that a
// request can get wrong are checked by a Validate method returning an
// error with InvalidInput() true (the server answers 400), and a name
// that matches nothing says so (the server answers 404), as TreeError
// does. Bad data (a missing program region, a non-numeric value) is an
// Issue, not an error.
//
// 2. Results that belong in the analysis graph are added to Run: compute
// them from the Data Run reads, add their quads to what Run writes, so
// they are replaced with everything else in one atomic Apply; a table of
// them is a new Kind in report.go and an entry in the subcommand list of
// cmd/perfkb/analyze.go (perfkb analyze KIND prints it).
//
// 3. Tests in analysis/: hand-built data in testdata/*.ttl with the
// expected values worked out in the test's comment, and a check against an
// independent SPARQL query over convert/sample data (as sample_test.go
// does for Compare).
//
// 4. The HTTP route: a method on server.AnalysisService
// (server/analysis.go: the interface, the handler, its parameters), the
// route in Server.routes(), the adapter in server/backend/analysis.go
// that calls this package and wraps not-found errors with
// server.ErrNotFound, and a case in server/analysis_test.go's route
// table.
//
// 5. The CLI: a subcommand of perfkb analyze (cmd/perfkb/analyze.go) or a
// command of its own (cmd/perfkb/tree.go) that only parses flags, calls
// the function and prints; a test that the CLI and the route give the
// same result (cmd/perfkb/tree_http_test.go).
package analysis
