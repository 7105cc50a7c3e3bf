package analysis

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
)

// TestWrittenNodesKeepTheirClasses: every node that analyze writes to, and
// every node it describes in the data, keeps its classes under RDFS
// reasoning with PERFONTO. The classes that the rdfs:domain and rdfs:range
// of the properties analyze writes imply (also through owl:inverseOf, as
// the reasoner derives the inverse triples) must be superclasses of a
// class the node is asserted to have. A series described with
// perfonto:ofVersion would be inferred an Experiment (and counted by the
// next analyze), and an experiment or region aggregate with perfonto:hasMetric
// a RegionSummary through perfonto:metricOf's range.
func TestWrittenNodesKeepTheirClasses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name string
		ds   func(t *testing.T) *native.MemStore
		opts Options
		want []string // classes of nodes that the case must write
	}{
		{"sample", func(t *testing.T) *native.MemStore { ds, _ := sampleStore(t); return ds }, Options{Diffs: [][2]string{{
			sample.GraphIRI("", sample.SiteNames(2)[0]) + "/exp/scaling-v1-1000-p4",
			sample.GraphIRI("", sample.SiteNames(2)[0]) + "/exp/scaling-v1-1000-p8"}}}, []string{ontology.ExperimentSeries, ontology.ExperimentComparison, ontology.MetricDifference, ontology.FactorComparison, ontology.PerformanceClass, ontology.SimilarityGroup, ontology.RegionAggregate}},
		{"models", modelStore, Options{}, []string{ontology.ExperimentSeries, ontology.PerformanceModel, ontology.ModelTerm, ontology.TermFactor, ontology.ModelPrediction}},
		{"clusters", func(t *testing.T) *native.MemStore { ds, _ := sampleStore(t); return ds }, Options{Soft: clusterConfig(t)}, []string{ontology.FuzzyCluster, ontology.FuzzyMembership}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := tc.ds(t)
			if _, err := Run(ctx, ds, tc.opts); err != nil {
				t.Fatal(err)
			}
			ont := native.OpenMemory()
			if _, err := rdfio.Load(ctx, ont, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "perfonto.ttl"}); err != nil {
				t.Fatal(err)
			}
			const rdfs = "PREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\nPREFIX owl: <http://www.w3.org/2002/07/owl#>\n"
			pairs := func(ds kb.Dataset, q string) map[string][]string {
				m := map[string][]string{}
				for _, row := range rows(t, ds, q) {
					m[row[0].Value] = append(m[row[0].Value], row[1].Value)
				}
				return m
			}
			domain := pairs(ont, rdfs+`SELECT ?p ?c WHERE { ?p rdfs:domain ?c }`)
			rng := pairs(ont, rdfs+`SELECT ?p ?c WHERE { ?p rdfs:range ?c FILTER (!STRSTARTS(STR(?c), "http://www.w3.org/2001/XMLSchema#")) }`)
			inverse := pairs(ont, rdfs+`SELECT ?p ?q WHERE { { ?p owl:inverseOf ?q } UNION { ?q owl:inverseOf ?p } }`)
			parents := pairs(ont, rdfs+`SELECT ?c ?d WHERE { ?c rdfs:subClassOf ?d }`)
			if len(domain) < 50 || len(inverse) == 0 || len(parents) == 0 {
				t.Fatalf("ontology: %d domains, %d inverses, %d subclass links", len(domain), len(inverse), len(parents))
			}
			// supers is the class and all its superclasses.
			supers := func(c string) map[string]bool {
				seen := map[string]bool{c: true}
				todo := []string{c}
				for len(todo) > 0 {
					x := todo[len(todo)-1]
					todo = todo[:len(todo)-1]
					for _, d := range parents[x] {
						if !seen[d] {
							seen[d] = true
							todo = append(todo, d)
						}
					}
				}
				return seen
			}
			asserted := pairs(ds, `SELECT ?s ?c WHERE { GRAPH ?g { ?s a ?c } }`)
			implied := map[string]map[string]string{} // node -> class -> why
			imply := func(node string, classes []string, why string) {
				for _, c := range classes {
					if implied[node] == nil {
						implied[node] = map[string]string{}
					}
					implied[node][c] = why
				}
			}
			written := rows(t, ds, `SELECT ?s ?p ?o WHERE { GRAPH <`+GraphIRI+`> { ?s ?p ?o } }`)
			if len(written) < 1000 {
				t.Fatalf("analyze wrote %d triples", len(written))
			}
			for _, tr := range written {
				s, p, o := tr[0].Value, tr[1].Value, tr[2]
				imply(s, domain[p], "domain of "+localName(p))
				for _, q := range inverse[p] {
					imply(s, rng[q], "range of "+localName(q)+", the inverse of "+localName(p))
				}
				if o.Kind != kb.KindIRI {
					continue
				}
				imply(o.Value, rng[p], "range of "+localName(p))
				for _, q := range inverse[p] {
					imply(o.Value, domain[q], "domain of "+localName(q)+", the inverse of "+localName(p))
				}
			}
			for _, c := range tc.want {
				if len(rows(t, ds, `SELECT ?s WHERE { GRAPH <`+GraphIRI+`> { ?s a <`+c+`> } } LIMIT 1`)) == 0 {
					t.Errorf("analyze wrote no %s", localName(c))
				}
			}
			checked := 0
			var bad []string
			for node, classes := range implied {
				own := asserted[node]
				if len(own) == 0 {
					continue
				}
				checked++
				ok := map[string]bool{}
				for _, c := range own {
					for d := range supers(c) {
						ok[d] = true
					}
				}
				for c, why := range classes {
					if !ok[c] {
						var names []string
						for _, a := range own {
							names = append(names, localName(a))
						}
						sort.Strings(names)
						bad = append(bad, strings.Join(names, ",")+" inferred "+localName(c)+" by the "+why)
					}
				}
			}
			if checked < 100 {
				t.Fatalf("only %d typed nodes checked", checked)
			}
			// One line per kind of mismatch, with how many nodes have it.
			count := map[string]int{}
			for _, b := range bad {
				count[b]++
			}
			var lines []string
			for b := range count {
				lines = append(lines, b)
			}
			sort.Strings(lines)
			for _, l := range lines {
				t.Errorf("%d nodes: %s", count[l], l)
			}
		})
	}
}

// rows runs a SELECT and returns its rows' terms.
func rows(t *testing.T, ds kb.Dataset, q string) [][]kb.Term {
	t.Helper()
	r, err := query.Run(context.Background(), ds, q, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out [][]kb.Term
	for {
		row, ok := r.Next()
		if !ok {
			break
		}
		out = append(out, append([]kb.Term(nil), row...))
	}
	if err := r.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// clusterConfig is the shipped soft configuration with fuzzy c-means
// clusters on, which it leaves off.
func clusterConfig(t *testing.T) *SoftConfig {
	t.Helper()
	cfg, err := ParseSoftConfig("soft.conf", DefaultSoftConfigText()+"cluster 3 2 0.001\n")
	if err != nil {
		t.Fatal(err)
	}
	return cfg
}
