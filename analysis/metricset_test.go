package analysis

import (
	"errors"
	"maps"
	"reflect"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

func TestMetrics(t *testing.T) {
	errResolve := errors.New("store gone")
	type op struct {
		set   string // name to Set (with v)
		v     float64
		raw   string // name to setRaw (with id)
		id    kb.ID
		solve map[kb.ID]float64 // resolveWith: IDs that resolve (others are not numeric)
		fail  bool              // resolveWith fails
	}
	for _, tc := range []struct {
		name    string
		ops     []op
		want    map[string]float64
		wantErr bool
	}{
		{name: "empty", want: map[string]float64{}},
		{name: "set and overwrite", ops: []op{{set: "wtime", v: 3}, {set: "ncalls", v: 2}, {set: "wtime", v: 5}},
			want: map[string]float64{"wtime": 5, "ncalls": 2}},
		{name: "raw values are absent until resolved", ops: []op{{set: "wtime", v: 1}, {raw: "l2", id: 7}},
			want: map[string]float64{"wtime": 1}},
		{name: "resolve keeps numeric, drops the rest", ops: []op{{set: "wtime", v: 1}, {raw: "l2", id: 7}, {raw: "bad", id: 8}, {raw: "ncalls", id: 9},
			{solve: map[kb.ID]float64{7: 0.5, 9: 12}}},
			want: map[string]float64{"wtime": 1, "l2": 0.5, "ncalls": 12}},
		{name: "set replaces a raw value", ops: []op{{raw: "l2", id: 7}, {set: "l2", v: 4}}, want: map[string]float64{"l2": 4}},
		{name: "resolve error", ops: []op{{raw: "l2", id: 7}, {fail: true}}, wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var m Metrics
			var err error
			resolved := false
			for _, o := range tc.ops {
				switch {
				case o.set != "":
					m.Set(o.set, o.v)
				case o.raw != "":
					m.setRaw(o.raw, o.id)
				default:
					resolved = true
					err = m.resolveWith(func(name string, id kb.ID) (float64, bool, error) {
						if o.fail {
							return 0, false, errResolve
						}
						v, ok := o.solve[id]
						return v, ok, nil
					})
				}
			}
			if tc.wantErr {
				if !errors.Is(err, errResolve) {
					t.Fatalf("resolveWith: %v, want %v", err, errResolve)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := m.Map(); !maps.Equal(got, tc.want) {
				t.Errorf("values %v, want %v", got, tc.want)
			}
			if m.Len() != len(tc.want) {
				t.Errorf("Len %d, want %d", m.Len(), len(tc.want))
			}
			for name, v := range tc.want {
				if got, ok := m.Get(name); !ok || got != v {
					t.Errorf("Get(%s) = %v, %v; want %v", name, got, ok, v)
				}
			}
			if resolved {
				for name, id := range m.unresolved() {
					t.Errorf("after resolveWith, %s is still unresolved (%d)", name, id)
				}
			}
			if _, ok := m.Get("absent"); ok {
				t.Error("Get(absent) found a value")
			}
		})
	}
}

// TestMetricsShareNames checks that summaries read together share one
// table of names and that their values hold no pointers, which is what
// keeps a large store's metrics out of the garbage collector's way.
func TestMetricsShareNames(t *testing.T) {
	names := newMetricNames()
	a, b := Metrics{names: names}, Metrics{names: names}
	a.Set("wtime", 1)
	b.Set("ncalls", 2)
	b.Set("wtime", 3)
	if len(names.names) != 2 {
		t.Errorf("shared table holds %v, want wtime and ncalls once", names.names)
	}
	if v, _ := a.Get("wtime"); v != 1 {
		t.Errorf("a.wtime = %v, want 1", v)
	}
	if _, ok := a.Get("ncalls"); ok {
		t.Error("a has b's ncalls")
	}
	if v, _ := b.Get("wtime"); v != 3 {
		t.Errorf("b.wtime = %v, want 3", v)
	}
	typ := reflect.TypeFor[metricEntry]()
	for i := range typ.NumField() {
		switch typ.Field(i).Type.Kind() {
		case reflect.Pointer, reflect.String, reflect.Slice, reflect.Map, reflect.Interface, reflect.Func, reflect.Chan:
			t.Errorf("metricEntry.%s holds a pointer (%s)", typ.Field(i).Name, typ.Field(i).Type)
		}
	}
}
