package main

// Terms added for federation (site registry, Global Experiment Metadata).
// Each area keeps its additions in its own file so that work on different
// areas never edits the same table; main.go reads the merged tables.
func init() {
	coreClasses = append(coreClasses, []class{}...)
	properties = append(properties, []property{
		{Name: "sparqlEndpoint", Kind: objectProp, Domain: "Site", Comment: "The SPARQL 1.1 Protocol endpoint of the site's repository service (6.5.5, Fig. 6.28), the IRI a federated query names in SERVICE."},
		{Name: "heldBy", Kind: objectProp, Domain: "Experiment", Range: "Site", Comment: "The site whose repository holds the experiment: a Global Experiment Metadata record (6.5.5) of the site registry."},
		{Name: "tokenVariable", Kind: datatypeProp, Domain: "Site", Range: "xsd:string", Functional: true, Comment: "The name of the environment variable holding the bearer token sent to the site; the token itself is never stored."},
		{Name: "lastRefreshed", Kind: datatypeProp, Domain: "Site", Range: "xsd:dateTime", Functional: true, Comment: "When the site's Global Experiment Metadata records were last replaced by asking the site for its experiments."},
		{Name: "siteStatus", Kind: datatypeProp, Domain: "Site", Range: "xsd:string", Functional: true, Comment: "The outcome of the last refresh or check of the site: \"ok\" or the reason it failed."},
	}...)
	individuals = append(individuals, []individual{}...)
	metrics = append(metrics, []metric{}...)
}
