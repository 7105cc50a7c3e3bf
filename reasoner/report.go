package reasoner

import (
	"bytes"
	"encoding/json"
	"io"
	"time"
)

// Report is what a rule run reports: `perfkb reason --format json` prints
// it and POST /rules/run answers it (inside the server's data envelope).
// Two runs of the same rules over the same data give identical Summary and
// Findings; everything that depends on the clock is in Timing, so that
// comparing two reports can leave out exactly that member.
type Report struct {
	Summary  ReportSummary `json:"summary"`
	Findings []Finding     `json:"findings"`
	Timing   Timing        `json:"timing"`
}

// ReportSummary is the engine's Summary (rules, loaded, derived, removed,
// rounds, firings per rule) with the number of findings in the store
// after the run.
type ReportSummary struct {
	Summary
	Findings int `json:"findings"`
}

// Timing is the clock side of a run.
type Timing struct {
	Seconds float64 `json:"seconds"`
	// RuleSeconds is the time spent joining each rule, by label.
	RuleSeconds map[string]float64 `json:"ruleSeconds,omitempty"`
}

// NewReport builds the report of a run from the engine's summary and the
// findings read after it.
func NewReport(sum Summary, findings []Finding) Report {
	if findings == nil {
		findings = []Finding{}
	}
	r := Report{Summary: ReportSummary{Summary: sum, Findings: len(findings)}, Findings: findings,
		Timing: Timing{Seconds: sum.Duration.Seconds()}}
	if len(sum.RuleTime) > 0 {
		r.Timing.RuleSeconds = make(map[string]float64, len(sum.RuleTime))
		for label, d := range sum.RuleTime {
			r.Timing.RuleSeconds[label] = d.Seconds()
		}
	}
	return r
}

// SetDuration sets the run's wall time where the engine did not (a run
// stopped early).
func (r *Report) SetDuration(d time.Duration) {
	if r.Timing.Seconds == 0 {
		r.Summary.Duration = d
		r.Timing.Seconds = d.Seconds()
	}
}

// WriteJSON writes v (a Report, an Explanation) indented, as the CLI
// prints it; like the server, it leaves <, > and & unescaped, since IRIs
// and N-Triples are full of them.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

// marshal is json.Marshal without HTML escaping, for the MarshalJSON
// methods of the shared shapes (an escaped "\u003c" would stay escaped
// whatever the outer encoder's setting).
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
