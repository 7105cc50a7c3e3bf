package results

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestPlainBinding checks the reflection-free reading of a binding object
// against encoding/json's (a map of term structs, each made a term as the
// general path does): where plainBinding takes an object, it must bind
// the same terms (a variable given twice: the last, as a map keeps), or
// fail with an error where the general path fails; the cases it must
// leave to the general path (escapes, triple terms, other member names,
// repeated members, non-string values) it must decline. Hand-written
// objects, then 20,000 random ones built from plain and odd pieces.
func TestPlainBinding(t *testing.T) {
	cases := []struct {
		raw   string
		plain bool
	}{
		{`{}`, true},
		{`{"s":{"type":"uri","value":"http://e/s"}}`, true},
		{` { "s" : { "value" : "http://e/s" , "type" : "uri" } , "o" : {"type":"literal","value":"v","xml:lang":"en"} } `, true},
		{`{"o":{"type":"literal","value":"1","datatype":"http://www.w3.org/2001/XMLSchema#integer"}}`, true},
		{`{"o":{"type":"typed-literal","value":"1.5","datatype":"http://www.w3.org/2001/XMLSchema#decimal"}}`, true},
		{`{"b":{"type":"bnode","value":"b0"}}`, true},
		{`{"o":{"type":"literal","value":"x","xml:lang":"ar","its:dir":"rtl"}}`, true},
		{`{"s":{"type":"uri","value":"http://e/a"},"s":{"type":"uri","value":"http://e/b"}}`, true},
		{`{"o":{"type":"literal","value":"日本 é"}}`, true},
		{`{"o":{"type":"literal","value":"x","xml:lang":"not a tag"}}`, false}, // an error, either way
		{`{"o":{"type":"literal","value":"a\"b"}}`, false},
		{`{"o":{"type":"literal","value":"a\u0041"}}`, false},
		{`{"o":{"Type":"literal","value":"x"}}`, false},
		{`{"o":{"type":"literal","value":"x","type":"uri"}}`, false},
		{`{"o":{"type":"literal","value":1}}`, false},
		{`{"o":{"type":"literal"}}`, false},
		{`{"o":{"type":"nope","value":"x"}}`, false},
		{`{"o":{"value":"x"}}`, false},
		{`{"o":null}`, false},
		{`{"t":{"type":"triple","value":{"subject":{"type":"uri","value":"http://e/s"},"predicate":{"type":"uri","value":"http://e/p"},"object":{"type":"uri","value":"http://e/o"}}}}`, false},
		{`{"o":{"type":"literal","value":"x","extra":"y"}}`, false},
	}
	pieces := []string{`"type":"uri"`, `"type":"literal"`, `"type":"bnode"`, `"type":"typed-literal"`, `"type":"triple"`, `"type":"x"`,
		`"value":"http://e/v"`, `"value":"v w"`, `"value":"a\\nb"`, `"value":3`, `"xml:lang":"en"`, `"xml:lang":"en-GB"`, `"xml:lang":"1"`,
		`"datatype":"http://www.w3.org/2001/XMLSchema#integer"`, `"datatype":"http://e/dt"`, `"its:dir":"ltr"`, `"its:dir":"sideways"`, `"Value":"x"`}
	rng := rand.New(rand.NewPCG(3, 4))
	for range 20000 {
		var vars []string
		for v := range rng.IntN(4) {
			var members []string
			for range 1 + rng.IntN(4) {
				members = append(members, pieces[rng.IntN(len(pieces))])
			}
			name := []string{"s", "p", "o", "s"}[v]
			vars = append(vars, fmt.Sprintf(`"%s":{%s}`, name, strings.Join(members, ",")))
		}
		cases = append(cases, struct {
			raw   string
			plain bool
		}{"{" + strings.Join(vars, ",") + "}", false})
	}
	plainSeen := 0
	for i, c := range cases {
		if !json.Valid([]byte(c.raw)) {
			continue // the decoder hands plainBinding valid JSON only
		}
		got := map[string]kb.Term{}
		calls := 0
		ok, err := (&plainDecoder{}).binding([]byte(c.raw), func(name []byte, t kb.Term) error {
			got[string(name)] = t
			calls++
			return nil
		})
		// Counting only, the object must be taken or declined, and
		// refused, exactly as when its terms are built.
		bound := 0
		cok, cerr := (&plainDecoder{countOnly: true}).binding([]byte(c.raw), func(_ []byte, t kb.Term) error {
			if !t.IsZero() {
				return fmt.Errorf("counting only, built %v", t)
			}
			bound++
			return nil
		})
		if cok != ok || (cerr == nil) != (err == nil) {
			t.Errorf("%s: counting only: ok %v, err %v; building terms: ok %v, err %v", c.raw, cok, cerr, ok, err)
		}
		if bound != calls {
			t.Errorf("%s: counting only bound %d variables, building terms %d", c.raw, bound, calls)
		}
		if i < 21 && c.plain && (!ok || err != nil) {
			t.Errorf("%s: declined (ok %v, err %v), want it read", c.raw, ok, err)
		}
		// The general path.
		var b map[string]jsonTerm
		want := map[string]kb.Term{}
		var wantErr error
		if err := json.Unmarshal([]byte(c.raw), &b); err != nil {
			wantErr = err
		}
		for name, v := range b {
			term, err := v.term(0)
			if err != nil {
				wantErr = err
				break
			}
			want[name] = term
		}
		switch {
		case err != nil:
			if wantErr == nil {
				t.Errorf("%s: plain way failed (%v), the general way read it", c.raw, err)
			}
		case ok:
			plainSeen++
			if wantErr != nil {
				t.Errorf("%s: plain way read it, the general way fails: %v", c.raw, wantErr)
				continue
			}
			if fmt.Sprint(got) != fmt.Sprint(want) {
				t.Errorf("%s: plain way bound %v, the general way %v", c.raw, got, want)
			}
		default:
			if len(got) != 0 {
				t.Errorf("%s: declined after binding %v", c.raw, got)
			}
		}
	}
	if plainSeen < 100 {
		t.Errorf("only %d objects read the plain way; the random ones should give hundreds", plainSeen)
	}
}

// BenchmarkReadJSON reads an answer of 100,000 rows of an IRI, an IRI
// and a plain literal (a federated site's, as the hardening soak's), with
// its terms and counting only.
func BenchmarkReadJSON(b *testing.B) {
	var doc strings.Builder
	doc.WriteString(`{"head":{"vars":["s","p","o"]},"results":{"bindings":[`)
	for i := range 100000 {
		if i > 0 {
			doc.WriteByte(',')
		}
		fmt.Fprintf(&doc, `{"s":{"type":"uri","value":"http://site.example/s%d"},"p":{"type":"uri","value":"http://site.example/p"},"o":{"type":"literal","value":"value %d"}}`, i, i)
	}
	doc.WriteString(`]}}`)
	text := doc.String()
	for _, countOnly := range []bool{false, true} {
		b.Run(fmt.Sprintf("countOnly=%v", countOnly), func(b *testing.B) {
			b.SetBytes(int64(len(text)))
			b.ReportAllocs()
			for b.Loop() {
				rs, err := Read(strings.NewReader(text), JSON, ReadOptions{CountOnly: countOnly})
				if err != nil || rs.Count != 100000 {
					b.Fatal(rs.Count, err)
				}
			}
		})
	}
}
