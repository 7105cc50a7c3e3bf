package analysis

import (
	"context"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
)

// GraphIRI is the named graph analysis results are written to; each run
// replaces it as a whole, atomically.
const GraphIRI = "urn:x-perfkb:analysis"

// Graph is GraphIRI as a term.
var Graph = kb.IRI(GraphIRI)

// Experiment is one experiment as read from the store, with its factors
// and its region summaries grouped by call path.
type Experiment struct {
	IRI         string
	Version     string // IRI of perfonto:ofVersion
	ProblemSize string // perfonto:problemSize, "" when absent
	Site        string // IRI of perfonto:atSite, "" when absent
	Machine     string // cluster IRI of the nodes it used, "" when unknown
	// CommLib is the communication library (perfonto:mpiLibName of the
	// point-to-point performance of the machine's networks, 5.5.3.2), ""
	// when unknown or when the networks name different ones.
	CommLib   string
	Processes int // distinct perfonto:processID among its processing units
	Threads   int // largest number of threads of one process
	Units     int // thread-level processing units: the machine size n

	PUs     []*PU              // thread-level units that ran region summaries, sorted
	Regions map[string]*Region // by call path key
	// Program is the call path key of the main program region (CR_P), ""
	// when the experiment has none.
	Program string
}

// PU is a thread-level processing unit.
type PU struct {
	IRI     string
	Process int
	Thread  int
	// ProcessIRI is the process-level unit (perfonto:hasParentPU), "" when
	// the data has none.
	ProcessIRI string
}

// Region is one node of an experiment's dynamic region graph: the region
// summaries of one call path on every processing unit that executed it.
type Region struct {
	Path    string // key: code region IRIs from the root, joined by ' '
	Depth   int
	CR      string // IRI of the code region at the end of the path
	Name    string // perfonto:regionName of the code region
	CrType  string // perfonto:hasCrType
	Parent  string // path of the parent region, "" for roots
	Summary []*Summary
}

// Summary is one region summary with its numeric metrics.
type Summary struct {
	IRI     string
	PU      *PU
	Metrics Metrics
}

// Max returns the largest value of metric over the region's processing
// units, and false when no summary has it.
func (r *Region) Max(metric string) (float64, bool) {
	best, ok := 0.0, false
	for _, s := range r.Summary {
		if v, has := s.Metrics.Get(metric); has && (!ok || v > best) {
			best, ok = v, true
		}
	}
	return best, ok
}

// Issue is bad input found while reading or analysing: which experiment (or
// other subject), and why it was skipped.
type Issue struct {
	Experiment string `json:"experiment"`
	Subject    string `json:"subject,omitempty"`
	Reason     string `json:"reason"`
}

func (i Issue) String() string {
	if i.Subject != "" && i.Subject != i.Experiment {
		return i.Experiment + ": " + i.Subject + ": " + i.Reason
	}
	return i.Experiment + ": " + i.Reason
}

// Data is what analysis reads from the store.
type Data struct {
	Experiments []*Experiment // sorted by IRI
	Issues      []Issue
	byIRI       map[string]*Experiment
	ds          kb.Dataset
}

// resolve reads the metric values of e that ReadMetrics left unresolved;
// non-numeric ones are reported and skipped.
func (d *Data) resolve(ctx context.Context, e *Experiment) error {
	for _, reg := range e.Regions {
		for _, s := range reg.Summary {
			err := s.Metrics.resolveWith(func(name string, id kb.ID) (float64, bool, error) {
				t, err := d.ds.Resolve(ctx, id)
				if err != nil {
					return 0, false, fmt.Errorf("analysis: read: %w", err)
				}
				v, perr := strconv.ParseFloat(strings.TrimSpace(t.Value), 64)
				if perr != nil || math.IsNaN(v) || math.IsInf(v, 0) {
					d.Issues = append(d.Issues, Issue{Experiment: e.IRI, Subject: s.IRI, Reason: fmt.Sprintf("metric %s has the non-numeric value %q; skipped", name, t.Value)})
					return 0, false, nil
				}
				return v, true, nil
			})
			if err != nil {
				return err
			}
		}
	}
	return nil
}

// Experiment returns the experiment with the IRI, or nil.
func (d *Data) Experiment(iri string) *Experiment { return d.byIRI[iri] }

func puLess(a, b *PU) bool {
	if a.Process != b.Process {
		return a.Process < b.Process
	}
	if a.Thread != b.Thread {
		return a.Thread < b.Thread
	}
	return a.IRI < b.IRI
}

// sortedRegions returns the regions of e in path order (parents first).
func (e *Experiment) sortedRegions() []*Region {
	out := make([]*Region, 0, len(e.Regions))
	for _, r := range e.Regions {
		out = append(out, r)
	}
	sort.Slice(out, func(i, j int) bool {
		if out[i].Depth != out[j].Depth {
			return out[i].Depth < out[j].Depth
		}
		return out[i].Path < out[j].Path
	})
	return out
}
