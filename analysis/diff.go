package analysis

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// ErrNoExperiment is returned for an experiment IRI the store does not have.
var ErrNoExperiment = errors.New("no such experiment in the store")

// Diff is the comparison of two experiments per code region and metric.
type Diff struct {
	Base  string    `json:"base"`
	Trial string    `json:"trial"`
	Rows  []DiffRow `json:"rows"`
	// ByName is true when the experiments have different versions and
	// regions were matched by their call path of region types and names
	// instead of by code region.
	ByName bool   `json:"matchedByName"`
	IRI    string `json:"iri"`
}

// DiffRow is one region and metric of a Diff. Values are the largest over
// each experiment's processing units.
type DiffRow struct {
	Region    string  `json:"region"` // readable call path: region names from the root
	CodeBase  string  `json:"codeRegionBase,omitempty"`
	CodeTrial string  `json:"codeRegionTrial,omitempty"`
	Metric    string  `json:"metric"`
	BaseVal   float64 `json:"base"`
	TrialVal  float64 `json:"trial"`
	HasBase   bool    `json:"-"`
	HasTrial  bool    `json:"-"`
	Diff      float64 `json:"difference"`
	Ratio     float64 `json:"ratio"`
	HasRatio  bool    `json:"hasRatio"`
	// OnlyIn is "base" or "trial" when the region (or the metric) occurs in
	// only one experiment.
	OnlyIn string `json:"onlyIn,omitempty"`
}

// readablePath is the call path of a region as "name > name > ...".
func readablePath(e *Experiment, r *Region) string {
	var parts []string
	for cur := r; cur != nil; cur = e.Regions[cur.Parent] {
		n := cur.Name
		if n == "" {
			n = cur.CR
		}
		if cur.CrType != "" {
			n += " [" + cur.CrType + "]"
		}
		parts = append(parts, n)
		if cur.Parent == "" {
			break
		}
	}
	for i, j := 0, len(parts)-1; i < j; i, j = i+1, j-1 {
		parts[i], parts[j] = parts[j], parts[i]
	}
	return strings.Join(parts, " > ")
}

// Compare computes the differences between the base and trial experiments.
// Experiments of the same version are matched by code region call path,
// others by the region types and names of the path, so experiments at
// different sites compare too.
func Compare(ctx context.Context, d *Data, base, trial string) (*Diff, error) {
	b, t := d.Experiment(base), d.Experiment(trial)
	switch {
	case b == nil:
		return nil, fmt.Errorf("analysis: diff: %w: <%s>", ErrNoExperiment, base)
	case t == nil:
		return nil, fmt.Errorf("analysis: diff: %w: <%s>", ErrNoExperiment, trial)
	}
	for _, e := range []*Experiment{b, t} {
		if err := d.resolve(ctx, e); err != nil {
			return nil, err
		}
	}
	df := &Diff{Base: base, Trial: trial, ByName: b.Version != t.Version || b.Version == ""}
	df.IRI = GraphIRI + ":diff:" + strconv.FormatUint(hash64(base+"\x00"+trial), 16)
	key := func(e *Experiment, r *Region) string {
		if df.ByName {
			return readablePath(e, r)
		}
		return r.Path
	}
	bm, tm := map[string]*Region{}, map[string]*Region{}
	var keys []string
	for _, r := range b.Regions {
		k := key(b, r)
		bm[k] = r
		keys = append(keys, k)
	}
	for _, r := range t.Regions {
		k := key(t, r)
		if bm[k] == nil {
			keys = append(keys, k)
		}
		tm[k] = r
	}
	sort.Strings(keys)
	for _, k := range keys {
		br, tr := bm[k], tm[k]
		names := map[string]bool{}
		var label string
		if br != nil {
			label = readablePath(b, br)
			for _, s := range br.Summary {
				for n := range s.Metrics.All() {
					names[n] = true
				}
			}
		}
		if tr != nil {
			if label == "" {
				label = readablePath(t, tr)
			}
			for _, s := range tr.Summary {
				for n := range s.Metrics.All() {
					names[n] = true
				}
			}
		}
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			row := DiffRow{Region: label, Metric: n}
			if br != nil {
				row.CodeBase = br.CR
				row.BaseVal, row.HasBase = br.Max(n)
			}
			if tr != nil {
				row.CodeTrial = tr.CR
				row.TrialVal, row.HasTrial = tr.Max(n)
			}
			switch {
			case row.HasBase && row.HasTrial:
				row.Diff = row.TrialVal - row.BaseVal
				if row.BaseVal != 0 {
					row.Ratio, row.HasRatio = row.TrialVal/row.BaseVal, true
				}
			case row.HasBase:
				row.OnlyIn = "base"
			default:
				row.OnlyIn = "trial"
			}
			df.Rows = append(df.Rows, row)
		}
	}
	return df, nil
}

func (w *writer) diff(df *Diff) {
	c := kb.IRI(df.IRI)
	w.add(c, tType, kb.IRI(ontology.ExperimentComparison))
	w.add(c, kb.IRI(ontology.ComparesBase), kb.IRI(df.Base))
	w.add(c, kb.IRI(ontology.ComparesTrial), kb.IRI(df.Trial))
	for i, r := range df.Rows {
		x := kb.IRI(df.IRI + "/" + strconv.Itoa(i+1))
		w.add(c, kb.IRI(ontology.HasDifference), x)
		w.add(x, tType, kb.IRI(ontology.MetricDifference))
		cr := r.CodeTrial
		if cr == "" {
			cr = r.CodeBase
		}
		// A difference's own properties: ofCodeRegion and hasMetricName
		// would make RDFS infer it a DynamicRegion and a PerformanceMetric.
		w.add(x, kb.IRI(ontology.DifferenceRegion), kb.IRI(cr))
		w.add(x, kb.IRI(ontology.RDFSLabel), kb.String(r.Region))
		w.add(x, kb.IRI(ontology.DifferenceMetric), kb.String(r.Metric))
		if r.HasBase {
			w.add(x, kb.IRI(ontology.BaseValue), dbl(r.BaseVal))
		}
		if r.HasTrial {
			w.add(x, kb.IRI(ontology.TrialValue), dbl(r.TrialVal))
		}
		if r.HasBase && r.HasTrial && finite(r.Diff) {
			w.add(x, kb.IRI(ontology.ValueDifference), dbl(r.Diff))
		}
		if r.HasRatio && finite(r.Ratio) {
			w.add(x, kb.IRI(ontology.ValueRatio), dbl(r.Ratio))
		}
		if r.OnlyIn != "" {
			w.add(x, kb.IRI(ontology.OnlyIn), kb.String(r.OnlyIn))
		}
	}
}
