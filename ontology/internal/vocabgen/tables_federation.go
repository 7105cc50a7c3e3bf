package main

// Terms added for federation (site registry, Global Experiment Metadata).
// Each area keeps its additions in its own file so that work on different
// areas never edits the same table; main.go reads the merged tables.
func init() {
	coreClasses = append(coreClasses, []class{}...)
	properties = append(properties, []property{}...)
	individuals = append(individuals, []individual{}...)
	metrics = append(metrics, []metric{}...)
}
