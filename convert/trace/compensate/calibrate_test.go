package compensate

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/trace"
)

func TestOverheadFromTrace(t *testing.T) {
	// 10 events 2 µs apart on one location: span 18 µs / 10 events = 1.8;
	// 5 events 3 µs apart on another: 12 / 5 = 2.4; one more: 4 events
	// 1 µs apart: 3/4 = 0.75. Median 1.8.
	m := &trace.Mem{D: trace.Defs{Resolution: 1_000_000, Locations: make([]trace.Location, 3)}, Stream: make([][]trace.Event, 3)}
	for loc, c := range []struct {
		n    int
		step trace.Time
	}{{10, 2}, {5, 3}, {4, 1}} {
		for i := range c.n {
			m.Stream[loc] = append(m.Stream[loc], trace.Event{Time: trace.Time(i) * c.step})
		}
	}
	o, err := OverheadFromTrace(context.Background(), m)
	if err != nil || !near(o, 1.8) {
		t.Errorf("O = %v, %v; want 1.8", o, err)
	}
}

func TestMeasureCopyShape(t *testing.T) {
	pts, err := MeasureCopy(context.Background(), 1<<12, 3)
	if err != nil {
		t.Fatal(err)
	}
	if len(pts) != 13 || pts[0].Bytes != 1 || pts[12].Bytes != 4096 {
		t.Fatalf("sizes %+v", pts)
	}
	for _, p := range pts {
		if p.NsPerByte < 0 {
			t.Errorf("negative cost %+v", p)
		}
	}
}

func TestReadCalibrationErrors(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct{ body, want string }{
		{`{"overhead_us": -1, "copy": [{"bytes": 1, "ns_per_byte": 1}]}`, "field overhead_us"},
		{`{"overhead_us": 1, "copy": []}`, "field copy"},
		{`{"overhead_us": 1}`, "field copy is missing"},
		{`{"copy": [{"bytes": 1, "ns_per_byte": 1}]}`, "field overhead_us is missing"},
		{`{"overhead_us": 1, "copy": [{"bytes": 0, "ns_per_byte": 1}]}`, "field copy[0].bytes"},
		{`{"overhead_us": 1, "copy": [{"bytes": 1, "ns_per_byte": 1}], "date": "yesterday"}`, "field date"},
		{`{"overhead_us": "x"}`, "overhead_us"},
	} {
		p := filepath.Join(dir, "c.json")
		os.WriteFile(p, []byte(c.body), 0o644)
		_, err := ReadCalibration(p)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: error %v, want %q", c.body, err, c.want)
		}
	}
	good := Calibration{Host: "h", Date: "2026-11-23T21:00:00Z", Method: "given", OverheadUs: 2, Copy: []CopyPoint{{1, 1}}}
	b, _ := json.Marshal(good)
	p := filepath.Join(dir, "good.json")
	os.WriteFile(p, b, 0o644)
	if c, err := ReadCalibration(p); err != nil || c.OverheadUs != 2 {
		t.Errorf("good calibration: %v %v", c, err)
	}
}
