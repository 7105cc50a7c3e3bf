package main

import "strings"

// Terms added for the converters (SCALEA repository, SCALEA-G sensors, fuzzy monitoring).
// Each area keeps its additions in its own file so that work on different
// areas never edits the same table; main.go reads the merged tables.
func init() {
	coreClasses = append(coreClasses, []class{
		{Name: "BenchmarkValue", Comment: "One element of an array-valued benchmark column of the SCALEA repository (Appendix E: NetworkMPP2PPerf.mpiBcast REAL[5], NetworkMPColPerf.mpiSync/mpiAsync/mpiSsend REAL[6]), kept with its 1-based index because the seed does not say what the elements stand for."},
	}...)
	properties = append(properties, []property{
		{Name: "experimentIdentifier", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:string", Functional: true, Comment: "The key of the experiment in the repository it was converted from (Appendix E Experiment.experimentID)."},
		{Name: "codeRegionGroup", Kind: datatypeProp, Domain: "RegionSummary", Range: "xsd:integer", Comment: "The code region group of the region summary (Appendix E RegionSummary.codeRegionGroup)."},
		{Name: "virtualNodeName", Kind: datatypeProp, Domain: "VirtualNode", Range: "xsd:string", Comment: "The name of the virtual node (Appendix E VirtualNode.name)."},
		{Name: "hasBenchmarkValue", Kind: objectProp, Range: "BenchmarkValue", Comment: "An element of an array-valued benchmark column of the benchmark result."},
		{Name: "benchmarkColumn", Kind: datatypeProp, Domain: "BenchmarkValue", Range: "xsd:string", Functional: true, Comment: "The benchmark quantity the element belongs to, named by its Appendix E column, e.g. \"mpiSync\"."},
		{Name: "benchmarkIndex", Kind: datatypeProp, Domain: "BenchmarkValue", Range: "xsd:integer", Functional: true, Comment: "The 1-based position of the element in the array column."},
		{Name: "benchmarkTime", Kind: datatypeProp, Domain: "BenchmarkValue", Range: "xsd:double", Functional: true, Comment: "The benchmarked time of the element, in microseconds like the scalar benchmark properties."},
	}...)
	// Appendix E gives no message size for the benchmark columns; the "of
	// 1 KB" of the first ontology draft was invented, and the array columns
	// hold several values (see BenchmarkValue).
	for i := range properties {
		switch properties[i].Name {
		case "mpiBcastTime", "mpiSyncSendTime", "mpiAsyncSendTime", "mpiSsendTime":
			properties[i].Comment = strings.Replace(properties[i].Comment, " of 1 KB", "", 1)
			properties[i].Comment = strings.TrimSuffix(properties[i].Comment, ".") + "; the repository's array columns are kept element by element as BenchmarkValue nodes (hasBenchmarkValue)."
		}
	}
	individuals = append(individuals, []individual{}...)
	metrics = append(metrics, []metric{}...)
}
