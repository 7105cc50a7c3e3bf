package compensate

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"sort"
	"time"
)

// Bound picks the end of the interval of eq. (11).
type Bound uint8

// Bounds.
const (
	Lower Bound = iota
	Upper
)

func (b Bound) String() string {
	if b == Upper {
		return "upper"
	}
	return "lower"
}

// ParseBound parses "lower" or "upper".
func ParseBound(s string) (Bound, error) {
	switch s {
	case "lower":
		return Lower, nil
	case "upper":
		return Upper, nil
	}
	return Lower, fmt.Errorf("bound %q: want lower or upper", s)
}

// CollectiveMode chooses between eq. (12) (the latest enter and the
// earliest exit of all processes) and eq. (13) (each process's own exit).
type CollectiveMode uint8

// Collective modes.
const (
	CollLatest     CollectiveMode = iota // eq. (12)
	CollPerProcess                       // eq. (13)
)

// CopyPoint is one measured buffer copy cost: copying Bytes bytes took
// NsPerByte nanoseconds per byte.
type CopyPoint struct {
	Bytes     int64   `json:"bytes"`
	NsPerByte float64 `json:"ns_per_byte"`
}

// Calibration is the content of a calibration file (perfkb calibrate).
type Calibration struct {
	Host string `json:"host"`
	Date string `json:"date"` // RFC 3339
	// Method says how each constant was obtained, e.g.
	// "overhead: given; copy: measured (median of 15 copies per size)".
	Method string `json:"method"`
	// OverheadUs is the per-event overhead O in microseconds.
	OverheadUs float64     `json:"overhead_us"`
	Copy       []CopyPoint `json:"copy"`
}

// Validate checks a calibration and names the first bad field.
func (c *Calibration) Validate() error {
	switch {
	case c.OverheadUs < 0 || c.OverheadUs != c.OverheadUs:
		return errors.New("field overhead_us: must be a non-negative number of microseconds")
	case len(c.Copy) == 0:
		return errors.New("field copy: needs at least one {bytes, ns_per_byte} point")
	}
	for i, p := range c.Copy {
		if p.Bytes <= 0 {
			return fmt.Errorf("field copy[%d].bytes: must be positive, got %d", i, p.Bytes)
		}
		if p.NsPerByte < 0 || p.NsPerByte != p.NsPerByte {
			return fmt.Errorf("field copy[%d].ns_per_byte: must be non-negative", i)
		}
	}
	if c.Date != "" {
		if _, err := time.Parse(time.RFC3339, c.Date); err != nil {
			return fmt.Errorf("field date: %w", err)
		}
	}
	return nil
}

// ReadCalibration reads and validates a calibration file; errors name the
// file and the field.
func ReadCalibration(path string) (*Calibration, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("calibration: %w", err)
	}
	var c Calibration
	dec := json.NewDecoder(bytesReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return nil, fmt.Errorf("calibration %s: %w", path, err)
	}
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err == nil {
		for _, f := range []string{"overhead_us", "copy"} {
			if _, ok := raw[f]; !ok {
				return nil, fmt.Errorf("calibration %s: field %s is missing", path, f)
			}
		}
	}
	if err := c.Validate(); err != nil {
		return nil, fmt.Errorf("calibration %s: %w", path, err)
	}
	return &c, nil
}

// Model is the compensation model with its platform constants.
type Model struct {
	OverheadUs float64     // O, microseconds per event
	Copy       []CopyPoint // C(size), sorted by Bytes
	Bound      Bound
	Collective CollectiveMode
}

// NewModel returns the model of a calibration.
func NewModel(c *Calibration, b Bound) *Model {
	cp := append([]CopyPoint(nil), c.Copy...)
	sort.Slice(cp, func(i, j int) bool { return cp[i].Bytes < cp[j].Bytes })
	return &Model{OverheadUs: c.OverheadUs, Copy: cp, Bound: b}
}

// CopyUs returns C(size)·size in microseconds: the per-byte cost is
// interpolated linearly between the measured sizes and held constant
// outside them.
func (m *Model) CopyUs(size int64) float64 {
	if size <= 0 || len(m.Copy) == 0 {
		return 0
	}
	c := m.Copy
	var per float64
	switch {
	case size <= c[0].Bytes:
		per = c[0].NsPerByte
	case size >= c[len(c)-1].Bytes:
		per = c[len(c)-1].NsPerByte
	default:
		i := sort.Search(len(c), func(k int) bool { return c[k].Bytes >= size })
		a, b := c[i-1], c[i]
		f := float64(size-a.Bytes) / float64(b.Bytes-a.Bytes)
		per = a.NsPerByte + f*(b.NsPerByte-a.NsPerByte)
	}
	return per * float64(size) / 1000
}
