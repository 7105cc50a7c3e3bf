// Package ontology holds PERFONTO, the ontology for describing performance
// data of parallel and Grid applications (H.-L. Truong's dissertation,
// section 6.5.4), and Go constants for its IRIs.
//
// The ontology is OWL 2 in Turtle (perfonto.ttl, embedded; see Turtle). It
// covers:
//
//   - experiment-related concepts: Application, Version, SourceFile,
//     CodeRegion with the code region classification of 3.6.3 (one class per
//     Appendix C.1 mnemonic, the mnemonic attached with crMnemonic and carried
//     by instances with hasCrType), Experiment, ProcessingUnit,
//     RegionSummary and RegionInstance (the DRG, with hasChildRS/hasParentRS
//     and transitive ancestry), PerformanceMetric, events and messages;
//   - resource-related concepts: Site, Cluster, ComputationalNode, Network,
//     their benchmarked performance, and SCALEA-G sensors and measurements;
//   - the performance metrics catalog (Appendix C.2/C.3 plus ratio metrics)
//     as MetricDefinition individuals with unit, data type, meaning, class
//     and utility, and the temporal overhead classification of 5.2;
//   - the PerformanceProblem hierarchy that analysis rules assert with
//     hasProblem.
//
// Data follow the dissertation's shape, so its RDQL query (Fig. 6.29) and
// rule (Fig. 6.30) run unchanged:
//
//	rs perfonto:ofCodeRegion cr ; perfonto:inProcessingUnit pu ; perfonto:hasMetric m .
//	cr a perfonto:MPCodeRegion ; perfonto:hasCrType "CR_MPIP2P" .
//	pu perfonto:inNode "gsr410" .
//	m perfonto:hasMetricName "AvgMessageLength" ; perfonto:hasMetricValue "131072"^^xsd:double .
//
// The Turtle file, vocab.go and catalog_gen.go are generated from the tables
// in internal/vocabgen (go generate); sub-package sample generates realistic
// PERFONTO data.
package ontology
