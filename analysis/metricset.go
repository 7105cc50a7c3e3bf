package analysis

import (
	"iter"
	"math"

	"github.com/perfkb/perfkb/kb"
)

// Metrics holds the numeric metric values of one region summary by name.
//
// A store's region summaries carry millions of metric values, and a
// server keeps them for the workbench's views. Kept as a map per summary
// they cost ~250 bytes a value and fill the heap with pointers that every
// garbage collection then scans, which made every query of a large store
// pay for the views. Here a value is 16 bytes without pointers: the name
// is an index into a table of names shared by all the summaries read
// together, so the collector skips the values altogether.
//
// The zero value is an empty set. Like a map, a Metrics must not be
// written while it is read elsewhere.
type Metrics struct {
	names *metricNames
	vals  []metricEntry
}

// metricEntry is a value (float64 bits) or, while unresolved, the ID of
// its literal in the store.
type metricEntry struct {
	name     uint32
	resolved bool
	bits     uint64
}

// metricNames numbers metric names; the summaries read from one store
// share one table.
type metricNames struct {
	index map[string]uint32
	names []string
}

func newMetricNames() *metricNames { return &metricNames{index: map[string]uint32{}} }

func (t *metricNames) id(name string) uint32 {
	if i, ok := t.index[name]; ok {
		return i
	}
	i := uint32(len(t.names))
	t.names = append(t.names, name)
	t.index[name] = i
	return i
}

// MetricsOf returns a set holding vals.
func MetricsOf(vals map[string]float64) Metrics {
	var m Metrics
	for name, v := range vals {
		m.Set(name, v)
	}
	return m
}

func (m *Metrics) find(name string) int {
	if m.names == nil {
		return -1
	}
	id, ok := m.names.index[name]
	if !ok {
		return -1
	}
	for i := range m.vals {
		if m.vals[i].name == id {
			return i
		}
	}
	return -1
}

// Get returns the value of the metric name and whether the summary has
// it (a value not resolved yet counts as absent).
func (m Metrics) Get(name string) (float64, bool) {
	if i := m.find(name); i >= 0 && m.vals[i].resolved {
		return math.Float64frombits(m.vals[i].bits), true
	}
	return 0, false
}

// Value returns the value of the metric name, 0 when absent.
func (m Metrics) Value(name string) float64 {
	v, _ := m.Get(name)
	return v
}

// Set sets the value of the metric name.
func (m *Metrics) Set(name string, v float64) {
	m.put(name, true, math.Float64bits(v))
}

func (m *Metrics) put(name string, resolved bool, bits uint64) {
	if i := m.find(name); i >= 0 {
		m.vals[i] = metricEntry{name: m.vals[i].name, resolved: resolved, bits: bits}
		return
	}
	if m.names == nil {
		m.names = newMetricNames()
	}
	m.vals = append(m.vals, metricEntry{name: m.names.id(name), resolved: resolved, bits: bits})
}

// setRaw records the literal of a value to resolve later (Data.resolve).
func (m *Metrics) setRaw(name string, id kb.ID) { m.put(name, false, uint64(id)) }

// Len returns the number of values the set holds.
func (m Metrics) Len() int {
	n := 0
	for _, e := range m.vals {
		if e.resolved {
			n++
		}
	}
	return n
}

// All yields the values by name, in the order they were first set.
func (m Metrics) All() iter.Seq2[string, float64] {
	return func(yield func(string, float64) bool) {
		for _, e := range m.vals {
			if e.resolved && !yield(m.names.names[e.name], math.Float64frombits(e.bits)) {
				return
			}
		}
	}
}

// Map returns the values as a new map.
func (m Metrics) Map() map[string]float64 {
	out := make(map[string]float64, len(m.vals))
	for name, v := range m.All() {
		out[name] = v
	}
	return out
}

// unresolved yields the names and literal IDs of the values not resolved.
func (m Metrics) unresolved() iter.Seq2[string, kb.ID] {
	return func(yield func(string, kb.ID) bool) {
		for _, e := range m.vals {
			if !e.resolved && !yield(m.names.names[e.name], kb.ID(e.bits)) {
				return
			}
		}
	}
}

// resolveWith resolves every value not resolved yet with fn; a value fn
// reports as not numeric (false) is removed.
func (m *Metrics) resolveWith(fn func(name string, id kb.ID) (float64, bool, error)) error {
	kept := m.vals[:0]
	for _, e := range m.vals {
		if !e.resolved {
			v, ok, err := fn(m.names.names[e.name], kb.ID(e.bits))
			if err != nil {
				return err
			}
			if !ok {
				continue
			}
			e.resolved, e.bits = true, math.Float64bits(v)
		}
		kept = append(kept, e)
	}
	m.vals = kept
	return nil
}
