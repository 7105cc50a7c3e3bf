package main

// Terms added for performance analysis (experiment factors, scaling, overheads, soft classes).
// Each area keeps its additions in its own file so that work on different
// areas never edits the same table; main.go reads the merged tables.
func init() {
	coreClasses = append(coreClasses, []class{
		{Name: "RegionAggregate", Parents: []string{"DynamicRegion"}, Comment: "The region summaries of one node of the dynamic code region call graph (a call path ending in a code region) aggregated over the threads of a process (with perfonto:inProcessingUnit) or over the processes of an experiment (without it); analysis results such as region-level speedup, efficiency and overheads (5.4, 5.5.3.2) are attached to it with perfonto:hasMetric."},
		{Name: "ScalingGroup", Comment: "Experiments of the same version, problem size and machine that differ in the number of processing units; its baseline (perfonto:hasBaseline) is the member with the fewest processing units (5.5.3.2)."},
		{Name: "SimilarityGroup", Comment: "Processing units whose executions of a code region are similar (5.6.10.1): every member has a similarity of at least the group's perfonto:similarityValue to another member; several groups for one region show load imbalance."},
		{Name: "ExperimentComparison", Comment: "The differences between two experiments (a base and a trial) per code region and metric."},
		{Name: "MetricDifference", Comment: "The values of one metric of one code region in the base and trial experiments of a comparison, their difference (trial - base) and ratio (trial / base)."},
		{Name: "PoorScalability", Parents: []string{"PerformanceProblem"}, Comment: "A program or code region whose parallel efficiency relative to the baseline of its scaling group is low: it stops scaling with the number of processing units."},
	}...)
	properties = append(properties, []property{
		{Name: "inScalingGroup", Kind: objectProp, Domain: "Experiment", Range: "ScalingGroup", Comment: "The scaling group of the experiment."},
		{Name: "hasBaseline", Kind: objectProp, Range: "Experiment", Comment: "The baseline experiment that speedup, efficiency and overhead are relative to: of a scaling group, or of an experiment or region aggregate."},
		{Name: "usesCluster", Kind: objectProp, Domain: "Experiment", Range: "Cluster", Comment: "The cluster (machine) the experiment ran on, the cluster of the nodes it used."},
		{Name: "numberOfProcessingUnits", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:integer", Comment: "The machine size of the experiment: the number of thread-level processing units (processes times threads) it ran on; speedup and efficiency are relative to it."},
		{Name: "baselineChoice", Kind: datatypeProp, Domain: "ScalingGroup", Range: "xsd:string", Comment: "How the baseline of a scaling group was chosen, e.g. the sequential run, or the smallest run when there is no sequential one."},
		{Name: "metricStatistic", Kind: datatypeProp, Domain: "PerformanceMetric", Range: "xsd:string", Comment: "The statistic of an aggregated metric over the threads of a process or the processes of an experiment (5.4): \"min\", \"max\" or \"mean\"."},
		{Name: "classifiedMetric", Kind: datatypeProp, Domain: "PerformanceClass", Range: "xsd:string", Comment: "The metric (or metric expression such as L2_TCM/L2_TCA or wtime/program) a performance class classifies."},
		{Name: "scoreRank", Kind: datatypeProp, Range: "xsd:integer", Comment: "The rank (1 = highest OWA performance score) of a region aggregate within its experiment or of an experiment within its scaling group (5.6.8)."},
		{Name: "hasSimilarityGroup", Kind: objectProp, Range: "SimilarityGroup", Comment: "A group of processing units with similar executions of the region aggregate's code region."},
		{Name: "groupMember", Kind: objectProp, Domain: "SimilarityGroup", Range: "ProcessingUnit", Comment: "A processing unit of the similarity group."},
		{Name: "similarityValue", Kind: datatypeProp, Range: "xsd:double", Comment: "A similarity measure in [0,1] (5.6.5): of a similarity group, the smallest similarity that links its members."},
		{Name: "comparesBase", Kind: objectProp, Domain: "ExperimentComparison", Range: "Experiment", Comment: "The base experiment of the comparison."},
		{Name: "comparesTrial", Kind: objectProp, Domain: "ExperimentComparison", Range: "Experiment", Comment: "The trial experiment of the comparison."},
		{Name: "hasDifference", Kind: objectProp, Domain: "ExperimentComparison", Range: "MetricDifference", Comment: "A per region and metric difference of the comparison."},
		{Name: "differenceRegion", Kind: objectProp, Domain: "MetricDifference", Range: "CodeRegion", Functional: true, Comment: "The code region whose metric the difference compares (perfonto:ofCodeRegion's domain is DynamicRegion, which a difference is not)."},
		{Name: "differenceMetric", Kind: datatypeProp, Domain: "MetricDifference", Range: "xsd:string", Functional: true, Comment: "The metric (perfonto:hasMetricName mnemonic) the difference compares (perfonto:hasMetricName's domain is PerformanceMetric, which a difference is not)."},
		{Name: "baseValue", Kind: datatypeProp, Domain: "MetricDifference", Range: "xsd:double", Comment: "The value in the base experiment (maximum over its processing units)."},
		{Name: "trialValue", Kind: datatypeProp, Domain: "MetricDifference", Range: "xsd:double", Comment: "The value in the trial experiment (maximum over its processing units)."},
		{Name: "valueDifference", Kind: datatypeProp, Domain: "MetricDifference", Range: "xsd:double", Comment: "trialValue - baseValue."},
		{Name: "valueRatio", Kind: datatypeProp, Domain: "MetricDifference", Range: "xsd:double", Comment: "trialValue / baseValue (absent when baseValue is 0)."},
		{Name: "onlyIn", Kind: datatypeProp, Domain: "MetricDifference", Range: "xsd:string", Comment: "\"base\" or \"trial\" when the region occurs in only one of the two experiments."},
	}...)
	individuals = append(individuals, []individual{}...)
	metrics = append(metrics, []metric{
		{"owa_score", "double", "ratio", "Performance score of a region or experiment aggregated from per-metric fuzzy scores with the OWA operator (5.6.4, Eq. 5.15)", ratio, nominal, "", ""},
		{"similarity", "double", "ratio", "Similarity measure 1 - d of a region's performance to the same region in the baseline experiment (5.6.5.1, Eq. 5.19)", ratio, nominal, "", ""},
	}...)
}
