package main

// Terms added for the soft analysis beyond classes and scores: similarity
// of experiment factors (5.6.5.2) and fuzzy c-means clusters of region
// summaries (5.6.11).
func init() {
	coreClasses = append(coreClasses, []class{
		{Name: "FactorComparison", Comment: "The similarity of an experiment's controllable factors (problem size, machine size, machine, communication network...) to those of a base experiment of the same version, each factor's and all together, beside the similarity of their program's performance (5.6.5.2, Table 5.10)."},
		{Name: "FactorSimilarity", Comment: "The similarity sim_f in [0,1] of one experiment factor between an experiment and its base: 1 - |mu(v_i) - mu(v_j)| with the factor's membership function over its range (5.6.5.2, Table 5.9)."},
		{Name: "FuzzyCluster", Parents: []string{"LinguisticTerm"}, Comment: "One cluster of a fuzzy c-means clustering of an experiment's region summaries by their performance score vectors (5.6.11.1); its center is given as metrics, its members through fuzzy memberships."},
	}...)
	properties = append(properties, []property{
		{Name: "hasFactorComparison", Kind: objectProp, Domain: "Experiment", Range: "FactorComparison", Comment: "The comparison of the experiment's factors with its base experiment's."},
		{Name: "hasFactorSimilarity", Kind: objectProp, Domain: "FactorComparison", Range: "FactorSimilarity", Comment: "The similarity of one factor in the comparison."},
		{Name: "experimentFactor", Kind: datatypeProp, Domain: "FactorSimilarity", Range: "xsd:string", Functional: true, Comment: "The experiment factor compared, e.g. problemsize, processes, threads, units, machine, site, version."},
		{Name: "factorValue", Kind: datatypeProp, Domain: "FactorSimilarity", Range: "xsd:string", Functional: true, Comment: "The factor's value in the compared experiment."},
		{Name: "baseFactorValue", Kind: datatypeProp, Domain: "FactorSimilarity", Range: "xsd:string", Functional: true, Comment: "The factor's value in the base experiment."},
		{Name: "performanceSimilarity", Kind: datatypeProp, Domain: "FactorComparison", Range: "xsd:double", Functional: true, Comment: "The similarity sim_o of the program region's performance in the two experiments (Eq. 5.19 with the similarity metrics)."},
		{Name: "hasFuzzyCluster", Kind: objectProp, Domain: "Experiment", Range: "FuzzyCluster", Comment: "A fuzzy cluster of the experiment's region summaries."},
		{Name: "clusterIndex", Kind: datatypeProp, Domain: "FuzzyCluster", Range: "xsd:integer", Functional: true, Comment: "The number of the cluster, 1 to c, in the order of its center's distance from the origin."},
	}...)
}
