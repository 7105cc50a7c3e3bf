package analysis

import (
	"context"
	"sort"
	"sync"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
)

// overheadHierarchy is the temporal overhead classification of 5.2 (Fig.
// 5.1) as PERFONTO states it, and the catalog metrics that measure each
// class.
type overheadHierarchy struct {
	parents map[string][]string        // class -> direct superclasses
	metric  map[string]string          // identified-overhead metric name -> class
	ances   map[string]map[string]bool // class -> strict ancestors
	// subclassTriples are the rdfs:subClassOf triples below TemporalOverhead
	// and measures are the perfonto:measuresOverhead triples of the catalog,
	// copied into the analysis graph so that "all communication overhead"
	// is one query without loading the ontology.
	subclassTriples [][2]string
}

var (
	hierarchyOnce sync.Once
	hierarchy     *overheadHierarchy
	hierarchyErr  error
)

// overheads returns the classification, read once from the embedded
// ontology.
func overheads() (*overheadHierarchy, error) {
	hierarchyOnce.Do(func() {
		ctx := context.Background()
		mem := native.OpenMemory()
		if _, err := rdfio.Load(ctx, mem, ontology.TurtleReader(), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "perfonto.ttl", BaseIRI: ontology.OntologyIRI}); err != nil {
			hierarchyErr = err
			return
		}
		h := &overheadHierarchy{parents: map[string][]string{}, metric: map[string]string{}, ances: map[string]map[string]bool{}}
		sub, _, _ := mem.Lookup(ctx, kb.IRI(ontology.RDFSSubClassOf))
		quads, err := kb.Collect(mem.Match(ctx, kb.Pattern{P: sub}))
		if err != nil || sub == kb.Any {
			hierarchyErr = err
			return
		}
		for _, q := range quads {
			s, _ := mem.Resolve(ctx, q.S)
			o, _ := mem.Resolve(ctx, q.O)
			if s.IsIRI() && o.IsIRI() {
				h.parents[s.Value] = append(h.parents[s.Value], o.Value)
			}
		}
		var walk func(c string, into map[string]bool, guard int)
		walk = func(c string, into map[string]bool, guard int) {
			for _, p := range h.parents[c] {
				if !into[p] && guard < 100 {
					into[p] = true
					walk(p, into, guard+1)
				}
			}
		}
		for c := range h.parents {
			a := map[string]bool{}
			walk(c, a, 0)
			h.ances[c] = a
			if a[ontology.TemporalOverhead] {
				for _, p := range h.parents[c] {
					h.subclassTriples = append(h.subclassTriples, [2]string{c, p})
				}
			}
		}
		sort.Slice(h.subclassTriples, func(i, j int) bool {
			return h.subclassTriples[i][0]+h.subclassTriples[i][1] < h.subclassTriples[j][0]+h.subclassTriples[j][1]
		})
		for _, m := range ontology.Metrics() {
			if m.Overhead != "" && h.ances[m.Overhead][ontology.IdentifiedOverhead] {
				h.metric[m.Name] = m.Overhead
			}
		}
		hierarchy = h
	})
	return hierarchy, hierarchyErr
}

// isLossOfParallelism reports whether class is LossOfParallelismOverhead or
// below it.
func (h *overheadHierarchy) isLossOfParallelism(class string) bool {
	return class == ontology.LossOfParallelismOverhead || h.ances[class][ontology.LossOfParallelismOverhead]
}

// identified returns the identified overhead of a region summary's metrics
// (5.2): the sum of the identified-overhead metrics present, each overhead
// counted once — a metric is left out when a metric of one of its class's
// ancestors is present too, as the coarser one already contains it (5.2.7).
// It reports whether a loss-of-parallelism metric was among them.
func (h *overheadHierarchy) identified(metrics Metrics) (sum float64, names []string, hasLoss bool) {
	present := map[string]bool{}
	for name := range metrics.All() {
		if c, ok := h.metric[name]; ok {
			present[c] = true
		}
	}
	for name := range metrics.All() {
		c, ok := h.metric[name]
		if !ok {
			continue
		}
		covered := false
		for a := range h.ances[c] {
			if present[a] {
				covered = true
				break
			}
		}
		if !covered {
			names = append(names, name)
		}
	}
	sort.Strings(names) // a fixed order gives the same sum every run
	for _, name := range names {
		sum += metrics.Value(name)
		if h.isLossOfParallelism(h.metric[name]) {
			hasLoss = true
		}
	}
	return sum, names, hasLoss
}
