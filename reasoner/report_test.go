package reasoner

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// TestSharedShapes pins the findings and derivation JSON that the CLI and
// the server both write (testdata/shape, written by hand from the
// documented shape) and reads each back to the same value.
func TestSharedShapes(t *testing.T) {
	rs := kb.IRI("http://e/rs/1")
	tests := []struct {
		golden string
		value  any
		decode func([]byte) (any, error)
	}{
		{"finding.json", Finding{
			Subject: rs, Problem: kb.Blank("f1"), Type: ontology.Namespace + "BigMessage", Severity: 0.8, HasSeverity: true,
			SeverityClass: "high", Metric: kb.IRI("http://e/rs/1/m"), MetricName: "AvgMessageLength", MetricValue: kb.String("131072"),
			Description: "big message", Experiment: kb.IRI("http://e/exp/1"), Region: kb.IRI("http://e/cr/1"), Rule: "rule_detect_bigmessages",
		}, func(b []byte) (any, error) { var f Finding; err := json.Unmarshal(b, &f); return f, err }},
		{"finding-minimal.json", Finding{
			Subject: kb.Blank("b7"), Problem: kb.IRI(ontology.Namespace + "BigMessage"), Type: ontology.Namespace + "BigMessage",
		}, func(b []byte) (any, error) { var f Finding; err := json.Unmarshal(b, &f); return f, err }},
		{"explanation.json", Explanation{Subject: rs, Derivations: []*Derivation{{
			Triple: kb.Triple{S: rs, P: kb.IRI(ontology.HasProblem), O: kb.Blank("f1")}, Rule: "rule_detect_bigmessages",
			Premises: []*Derivation{
				{Triple: kb.Triple{S: rs, P: kb.IRI("http://e/p"), O: kb.LangLiteral(`a "quoted" value`, "en")}, Asserted: true},
				{Triple: kb.Triple{S: rs, P: kb.IRI("http://e/q"), O: kb.Literal("5", ontology.XSDInt)}, Note: "cycle"},
			},
		}}}, func(b []byte) (any, error) { var e Explanation; err := json.Unmarshal(b, &e); return e, err }},
	}
	for _, tc := range tests {
		t.Run(tc.golden, func(t *testing.T) {
			want, err := os.ReadFile(filepath.Join("testdata", "shape", tc.golden))
			if err != nil {
				t.Fatal(err)
			}
			want = bytes.TrimSpace(want)
			got, err := json.Marshal(tc.value)
			if err != nil {
				t.Fatal(err)
			}
			// The shapes leave <, > and & readable, whatever the caller's
			// encoder does with its own strings.
			var unescaped bytes.Buffer
			enc := json.NewEncoder(&unescaped)
			enc.SetEscapeHTML(false)
			if err := enc.Encode(tc.value); err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(bytes.TrimSpace(unescaped.Bytes()), want) {
				t.Errorf("JSON\n got %s\nwant %s", unescaped.Bytes(), want)
			}
			back, err := tc.decode(got)
			if err != nil {
				t.Fatal(err)
			}
			again, err := json.Marshal(back)
			if err != nil || !bytes.Equal(again, got) {
				t.Errorf("read back and written again (%v):\n got %s\nwant %s", err, again, got)
			}
		})
	}
}
