package compensate

import (
	"context"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/perfkb/perfkb/convert/trace"
)

// MeasureCopy times buffer copies of 1 B … maxBytes (powers of two) and
// returns the per-byte cost of each size: the median of repeats copies
// (003 §4 measures the memory bandwidth for varying message sizes).
func MeasureCopy(ctx context.Context, maxBytes int64, repeats int) ([]CopyPoint, error) {
	src := make([]byte, maxBytes)
	dst := make([]byte, maxBytes)
	for i := range src {
		src[i] = byte(i)
	}
	var out []CopyPoint
	for size := int64(1); size <= maxBytes; size *= 2 {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		// Small copies are timed in batches so the clock's resolution does
		// not dominate.
		batch := max(1, int(65536/size))
		ds := make([]float64, repeats)
		for r := range repeats {
			t0 := time.Now()
			for range batch {
				copy(dst[:size], src[:size])
			}
			ds[r] = float64(time.Since(t0).Nanoseconds()) / float64(batch)
		}
		slices.Sort(ds)
		out = append(out, CopyPoint{Bytes: size, NsPerByte: ds[len(ds)/2] / float64(size)})
	}
	return out, nil
}

// MeasureOverhead estimates O as the cost of recording one event in
// memory (timestamp plus append), the median over repeats runs of n
// events, in microseconds. It is perfkb's own recording cost, a lower bound
// for a real tracing library; prefer OverheadFromTrace with a calibration
// trace of that library.
func MeasureOverhead(n, repeats int) float64 {
	ds := make([]float64, repeats)
	buf := make([]trace.Event, 0, n)
	for r := range repeats {
		buf = buf[:0]
		t0 := time.Now()
		for i := range n {
			buf = append(buf, trace.Event{Kind: trace.Enter, Time: trace.Time(time.Since(t0)), Region: i & 7})
		}
		ds[r] = float64(time.Since(t0).Nanoseconds()) / float64(n) / 1000
	}
	slices.Sort(ds)
	return ds[len(ds)/2]
}

// OverheadFromTrace computes O from a calibration trace of N back-to-back
// events (003 §3): per location, span / N; the result is the median over
// locations, in microseconds.
func OverheadFromTrace(ctx context.Context, src trace.Source) (float64, error) {
	d := src.Defs()
	var per []float64
	for loc := range d.Locations {
		var first, last trace.Time
		n := 0
		for e, err := range src.Events(ctx, loc) {
			if err != nil {
				return 0, err
			}
			if n == 0 {
				first = e.Time
			}
			last = e.Time
			n++
		}
		if n >= 2 {
			per = append(per, d.Micros(last-first)/float64(n))
		}
	}
	if len(per) == 0 {
		return 0, fmt.Errorf("calibration trace has no location with at least two events")
	}
	slices.Sort(per)
	return per[len(per)/2], nil
}

// Hostname returns the host name for a calibration file.
func Hostname() string {
	h, err := os.Hostname()
	if err != nil {
		return "unknown"
	}
	return h
}
