package main

// Terms added for traces and profiles (trace structure, violations, compensation, wait states).
// Each area keeps its additions in its own file so that work on different
// areas never edits the same table; main.go reads the merged tables.
func init() {
	coreClasses = append(coreClasses, []class{
		{Name: "WaitAtNxN", Parents: []string{"PerformanceProblem"}, Label: "wait at N x N", Comment: "Processes wait in an n-to-n collective operation for the last one to enter it (Wolf et al., section 5; wnxn_wait)."},
	}...)
	properties = append(properties, []property{
		{Name: "compensatedFrom", Kind: objectProp, Domain: "Experiment", Range: "Experiment", Label: "compensated from", Comment: "The measured experiment whose trace this experiment's data were computed from by overhead compensation (Wolf et al., section 3)."},
		{Name: "compensationBound", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:string", Functional: true, Label: "compensation bound", Comment: "Which end of the bounds of Wolf et al. eq. (11) the compensation chose: \"lower\" or \"upper\"."},
		{Name: "perEventOverhead", Kind: datatypeProp, Domain: "Experiment", Range: "xsd:double", Functional: true, Label: "per-event overhead", Comment: "The constant measurement overhead O per event, in microseconds, removed by overhead compensation."},
		{Name: "userEventName", Kind: datatypeProp, Domain: "PerformanceMetric", Range: "xsd:string", Functional: true, Label: "user event name", Comment: "The name of the TAU user event (atomic event) whose statistic this metric holds, e.g. \"Message size sent to all nodes\"; the metric name (ue_numevents, ue_max, ue_min, ue_mean, ue_sumsqr) says which statistic."},
		{Name: "approxEventTime", Kind: datatypeProp, Domain: "Event", Range: "xsd:double", Functional: true, Label: "approximated event time", Comment: "The event time after overhead compensation, in microseconds since the start of the experiment."},
	}...)
	individuals = append(individuals, []individual{}...)
	metrics = append(metrics, []metric{
		{"excl_wtime", "double", usec, "Exclusive wall-clock time: inclusive time minus the inclusive time of the direct sub regions", timing, lower, "", ""},
		{"min_wtime", "double", usec, "Shortest inclusive wall-clock time of one execution", timing, lower, "", ""},
		{"max_wtime", "double", usec, "Longest inclusive wall-clock time of one execution", timing, lower, "", ""},
		{"mean_wtime", "double", usec, "Mean inclusive wall-clock time of one execution", timing, lower, "", ""},
		{"stddev_wtime", "double", usec, "Standard deviation of the inclusive wall-clock time of one execution", timing, lower, "", ""},
		{"nmsgs_sent", "int64", "counter", "Number of point-to-point messages sent", counter, nominal, "", ""},
		{"bytes_sent", "int64", "byte", "Bytes sent in point-to-point messages", counter, nominal, "", ""},
		{"nmsgs_recv", "int64", "counter", "Number of point-to-point messages received", counter, nominal, "", ""},
		{"bytes_recv", "int64", "byte", "Bytes received in point-to-point messages", counter, nominal, "", ""},
		{"ls_wait", "double", usec, "Late Sender waiting time: sum over receives of enter.send - enter.recv where the receive was entered first (Wolf et al., section 5)", timing, lower, "", ""},
		{"ls_count", "int64", "counter", "Number of receives that waited for a late sender", counter, lower, "", ""},
		{"wnxn_wait", "double", usec, "Wait at N x N: sum over n-to-n collective instances and barriers of the latest entry minus this process's entry", timing, lower, "", ""},
		{"ue_numevents", "int64", "counter", "Number of values a TAU user event recorded (userEventName names the event)", counter, nominal, "", ""},
		{"ue_max", "double", "", "Largest value a TAU user event recorded", counter, nominal, "", ""},
		{"ue_min", "double", "", "Smallest value a TAU user event recorded", counter, nominal, "", ""},
		{"ue_mean", "double", "", "Mean of the values a TAU user event recorded", counter, nominal, "", ""},
		{"ue_sumsqr", "double", "", "Sum of the squares of the values a TAU user event recorded", counter, nominal, "", ""},
		{"wnxn_count", "int64", "counter", "Number of n-to-n collective instances and barriers the process entered before the last one", counter, lower, "", ""},
	}...)
}
