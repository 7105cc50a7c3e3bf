package main

// Terms added for performance models: Extra-P-style scaling models
// (Performance Model Normal Form) per call path and metric, fitted over an
// experiment series, and the findings the MODELS rules derive from them.
func init() {
	coreClasses = append(coreClasses, []class{
		{Name: "ExperimentSeries", Comment: "Experiments of one version and machine that differ in one or two model parameters (the number of processing units p, the problem size n); repeated experiments at the same parameter values are repetitions of one measurement point. Performance models are fitted over a series."},
		{Name: "PerformanceModel", Comment: "A scaling model of one metric of one call path over an experiment series, in the Performance Model Normal Form of Extra-P: f(x) = c0 + sum of ck * prod x_l^(i_kl) * log2(x_l)^(j_kl), with its constant (perfonto:constantCoefficient), its terms (perfonto:hasModelTerm) and quality measures."},
		{Name: "ModelTerm", Comment: "One term ck * prod x_l^(i_kl) * log2(x_l)^(j_kl) of a performance model: its coefficient and one factor per parameter it depends on."},
		{Name: "TermFactor", Comment: "One parameter's factor x^i * log2(x)^j of a model term."},
		{Name: "ModelPrediction", Comment: "A performance model's value extrapolated to a parameter value beyond the measured ones, with the share of the program's predicted value of the same metric."},
		{Name: "PoorScalingModel", Parents: []string{"PerformanceProblem"}, Comment: "A call path whose performance model grows with the number of processing units faster than a threshold exponent: its cost will dominate at scale."},
		{Name: "ExtrapolatedHotspot", Parents: []string{"PerformanceProblem"}, Comment: "A call path whose share of the program's time, predicted by the performance models at a larger number of processing units than measured, exceeds a threshold."},
	}...)
	properties = append(properties, []property{
		{Name: "inSeries", Kind: objectProp, Range: "ExperimentSeries", Comment: "The experiment series an experiment belongs to, or a performance model was fitted over."},
		{Name: "seriesVersion", Kind: objectProp, Domain: "ExperimentSeries", Range: "Version", Functional: true, Comment: "The version all experiments of the series executed. A series has its own property, not perfonto:ofVersion, whose domain (Experiment) and inverse (perfonto:hasExperiment) would make RDFS count the series as an experiment of the version."},
		{Name: "seriesCluster", Kind: objectProp, Domain: "ExperimentSeries", Range: "Cluster", Functional: true, Comment: "The cluster (machine) all experiments of the series ran on (perfonto:usesCluster of its experiments; that property's domain is Experiment)."},
		{Name: "seriesProblemSize", Kind: datatypeProp, Domain: "ExperimentSeries", Range: "xsd:string", Functional: true, Comment: "The problem size shared by all experiments of a series whose only parameter is p (perfonto:problemSize of its experiments; that property's domain is Experiment)."},
		{Name: "modelParameter", Kind: datatypeProp, Range: "xsd:string", Comment: "A model parameter of a series (\"p\": processing units, \"n\": problem size), or the parameter of a term factor."},
		{Name: "hasPerformanceModel", Kind: objectProp, Range: "PerformanceModel", Comment: "A performance model of the code region (or of the call path ending in it)."},
		{Name: "modelledMetric", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:string", Comment: "The metric (perfonto:hasMetricName mnemonic) the performance model describes, e.g. wtime."},
		{Name: "callPath", Kind: datatypeProp, Range: "xsd:string", Comment: "The call path of a performance model: region names from the root, joined by \" / \"."},
		{Name: "modelFunction", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:string", Comment: "The model as text, e.g. \"0.2 + 0.003 · p·log2(p)\"."},
		{Name: "modelFormula", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:string", Comment: "The model in full precision as a formula that the SPARQL function pf:predict (<urn:x-perfkb:function#predict>) evaluates, e.g. \"f(p) = 12.5 + 0.003*p^(1)*log2(p)^(1)\"."},
		{Name: "constantCoefficient", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:double", Comment: "The constant c0 of a performance model."},
		{Name: "hasModelTerm", Kind: objectProp, Domain: "PerformanceModel", Range: "ModelTerm", Comment: "A term of the performance model."},
		{Name: "termCoefficient", Kind: datatypeProp, Domain: "ModelTerm", Range: "xsd:double", Comment: "The coefficient ck of a model term."},
		{Name: "hasTermFactor", Kind: objectProp, Domain: "ModelTerm", Range: "TermFactor", Comment: "A parameter factor of the model term."},
		{Name: "polynomialExponent", Kind: datatypeProp, Range: "xsd:double", Comment: "The exponent i of x^i in a term factor, or of the fastest-growing term in p of a model (perfonto:growthExponent's polynomial part)."},
		{Name: "logarithmExponent", Kind: datatypeProp, Range: "xsd:integer", Comment: "The exponent j of log2(x)^j in a term factor, or of the fastest-growing term in p of a model."},
		{Name: "growthExponent", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:double", Comment: "The polynomial exponent i of the fastest-growing term (positive coefficient) of the model in the number of processing units p; 0 for a model constant in p. With perfonto:growthLogExponent, \"grows faster than p log p\" is growthExponent > 1, or = 1 with growthLogExponent > 1."},
		{Name: "growthLogExponent", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:integer", Comment: "The log2 exponent j of the fastest-growing term of the model in p."},
		{Name: "growthShare", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:double", Comment: "The share of the model's value at the largest measured p that its fastest-growing term contributes: near 0 when the growth is a fit of noise on a constant."},
		{Name: "modelSMAPE", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:double", Comment: "The symmetric mean absolute percentage error of the model (0-200, percent; leave-one-out cross-validated for single-parameter models, as Extra-P computes it)."},
		{Name: "modelRSS", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:double", Comment: "The residual sum of squares of the model (cross-validated like perfonto:modelSMAPE)."},
		{Name: "modelAdjustedR2", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:double", Comment: "The adjusted coefficient of determination of the model (1 for a constant model)."},
		{Name: "modelPoints", Kind: datatypeProp, Domain: "PerformanceModel", Range: "xsd:integer", Comment: "The number of measurement points (distinct parameter values) the model was fitted to."},
		{Name: "fittedFrom", Kind: objectProp, Domain: "PerformanceModel", Range: "Experiment", Comment: "An experiment whose measurements the model was fitted to."},
		{Name: "hasPrediction", Kind: objectProp, Domain: "PerformanceModel", Range: "ModelPrediction", Comment: "An extrapolation of the model."},
		{Name: "atParameterValue", Kind: datatypeProp, Domain: "ModelPrediction", Range: "xsd:double", Comment: "The value of p the prediction is for."},
		{Name: "predictedValue", Kind: datatypeProp, Domain: "ModelPrediction", Range: "xsd:double", Comment: "The model's value at perfonto:atParameterValue."},
		{Name: "predictedShare", Kind: datatypeProp, Domain: "ModelPrediction", Range: "xsd:double", Comment: "The predicted value divided by the program's predicted value of the same metric at the same parameter value."},
	}...)
}
