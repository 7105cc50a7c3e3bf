package rdfio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"runtime"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

func jsonldDecodeAll(t *testing.T, f *Format, data []byte, source string) []kb.TermQuad {
	t.Helper()
	dec := f.NewDecoder(bytes.NewReader(data), Options{Base: "http://example.org/base/", Source: source})
	var out []kb.TermQuad
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v", source, err)
		}
		out = append(out, q)
	}
}

// sameGraph reports whether two datasets are equal up to a renaming of
// blank nodes, trying every bijection between their blank nodes (the
// documents here have a handful).
func sameGraph(a, b []kb.TermQuad) bool {
	set := func(g []kb.TermQuad) map[kb.TermQuad]bool {
		m := map[kb.TermQuad]bool{}
		for _, q := range g {
			m[q] = true
		}
		return m
	}
	sa, sb := set(a), set(b)
	if len(sa) != len(sb) {
		return false
	}
	blanks := func(s map[kb.TermQuad]bool) []string {
		seen := map[string]bool{}
		for q := range s {
			for _, t := range []kb.Term{q.S, q.O, q.G} {
				if t.Kind == kb.KindBlank {
					seen[t.Value] = true
				}
			}
		}
		var out []string
		for l := range seen {
			out = append(out, l)
		}
		sort.Strings(out)
		return out
	}
	ba, bb := blanks(sa), blanks(sb)
	if len(ba) != len(bb) {
		return false
	}
	m := map[string]string{}
	used := map[string]bool{}
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(ba) {
			for q := range sa {
				for _, t := range []*kb.Term{&q.S, &q.O, &q.G} {
					if t.Kind == kb.KindBlank {
						t.Value = m[t.Value]
					}
				}
				if !sb[q] {
					return false
				}
			}
			return true
		}
		for _, c := range bb {
			if !used[c] {
				m[ba[i]], used[c] = c, true
				if try(i + 1) {
					return true
				}
				used[c] = false
			}
		}
		return false
	}
	return try(0)
}

func TestSameGraphCanFail(t *testing.T) {
	b := func(l string) kb.Term { return kb.Term{Kind: kb.KindBlank, Value: l} }
	p := kb.Term{Kind: kb.KindIRI, Value: "http://ex/p"}
	a := []kb.TermQuad{{S: b("x"), P: p, O: b("y")}}
	if !sameGraph(a, []kb.TermQuad{{S: b("1"), P: p, O: b("2")}}) {
		t.Error("a relabelled graph differs")
	}
	if sameGraph(a, []kb.TermQuad{{S: b("1"), P: p, O: b("1")}}) {
		t.Error("x p y equals z p z")
	}
}

// TestJSONLDDecode reads a document that uses a context, term
// definitions with @type coercion, a language map entry, native numbers
// and booleans, a nested blank node and a named graph; the expected
// N-Quads follow the JSON-LD 1.1 toRdf rules.
func TestJSONLDDecode(t *testing.T) {
	jsonld, ok := Lookup("application/ld+json")
	if !ok || jsonld.Name != "jsonld" || !jsonld.Quads {
		t.Fatalf("Lookup(application/ld+json) = %v, %v", jsonld, ok)
	}
	if f, ok := ByFileName("x.jsonld"); !ok || f != jsonld {
		t.Errorf("ByFileName(x.jsonld) = %v, %v", f, ok)
	}
	doc, err := os.ReadFile("testdata/jsonld/person.jsonld")
	if err != nil {
		t.Fatal(err)
	}
	want, err := os.ReadFile("testdata/jsonld/person.nq")
	if err != nil {
		t.Fatal(err)
	}
	nq, _ := Lookup("nquads")
	got := jsonldDecodeAll(t, jsonld, doc, "person.jsonld")
	if exp := jsonldDecodeAll(t, nq, want, "person.nq"); !sameGraph(got, exp) {
		var b strings.Builder
		for _, q := range got {
			b.WriteString(q.String() + "\n")
		}
		t.Errorf("person.jsonld read as\n%swant (up to blank node labels) person.nq", b.String())
	}
}

// TestJSONLDRoundTrip writes the statements of TestEncodersRoundTrip and
// of person.nq as JSON-LD and reads them back.
func TestJSONLDRoundTrip(t *testing.T) {
	jsonld, _ := Lookup("jsonld")
	nq, _ := Lookup("nquads")
	data, err := os.ReadFile("testdata/jsonld/person.nq")
	if err != nil {
		t.Fatal(err)
	}
	iri := func(s string) kb.Term { return kb.Term{Kind: kb.KindIRI, Value: s} }
	g := iri("http://ex/graph")
	for name, in := range map[string][]kb.TermQuad{
		"person.nq": jsonldDecodeAll(t, nq, data, "person.nq"),
		"mixed": {
			{S: iri("http://ex/s"), P: iri(ontology.RDFType), O: iri("http://ex/C"), G: g},
			{S: iri("http://ex/s"), P: iri("http://ex/p"), O: kb.Term{Kind: kb.KindLiteral, Value: "a \"quoted\"\nline & <tag> \\ é", Datatype: ontology.XSDString}, G: g},
			{S: iri("http://ex/s"), P: iri("http://ex/p"), O: kb.Term{Kind: kb.KindLiteral, Value: "chat", Datatype: ontology.RDFLangString, Lang: "fr"}, G: g},
			{S: iri("http://ex/s"), P: iri("http://www.par.univie.ac.at/project/scalea/perfonto#hasValue"), O: kb.Term{Kind: kb.KindLiteral, Value: "42", Datatype: ontology.XSDInteger}},
			{S: kb.Term{Kind: kb.KindBlank, Value: "b1"}, P: iri("http://ex/q"), O: kb.Term{Kind: kb.KindBlank, Value: "x y"}},
			{S: iri("http://ex/s2"), P: iri("http://ex/q"), O: iri("http://ex/o?a=1&b=2")},
			{S: iri("http://ex/s2"), P: iri("http://ex/q"), O: kb.Term{Kind: kb.KindLiteral, Value: "01", Datatype: ontology.XSDInteger}},
		},
	} {
		t.Run(name, func(t *testing.T) {
			var buf bytes.Buffer
			enc := jsonld.NewEncoder(&buf, EncoderOptions{})
			for _, q := range in {
				if err := enc.Encode(q); err != nil {
					t.Fatal(err)
				}
			}
			if err := enc.Close(); err != nil {
				t.Fatal(err)
			}
			out := buf.String()
			if !strings.Contains(out, `"@context"`) || !strings.Contains(out, `"rdf": "http://www.w3.org/1999/02/22-rdf-syntax-ns#"`) {
				t.Errorf("no @context with the common prefixes:\n%s", out)
			}
			if name == "mixed" && !strings.Contains(out, `"perfonto:hasValue"`) {
				t.Errorf("perfonto:hasValue is not compacted:\n%s", out)
			}
			if got := jsonldDecodeAll(t, jsonld, buf.Bytes(), "out.jsonld"); !sameGraph(got, in) {
				t.Errorf("read back a different dataset from\n%s", out)
			}
		})
	}
}

func TestJSONLDErrors(t *testing.T) {
	jsonld, _ := Lookup("jsonld")
	for _, c := range []struct {
		name, doc string
		line, col int
		msg       string
	}{
		{"malformed JSON", "{\n  \"@id\": \"http://ex/a\",\n  \"http://ex/p\": oops\n}", 3, 18, "invalid character"},
		{"remote context", `{"@context": "http://example.org/context.jsonld", "@id": "http://ex/a", "p": "x"}`, 0, 0, "is not fetched"},
		{"invalid keyword value", `{"@id": 5, "http://ex/p": "x"}`, 0, 0, "JSON-LD"},
	} {
		dec := jsonld.NewDecoder(strings.NewReader(c.doc), Options{Source: "in.jsonld"})
		_, err := dec.Next()
		var se *textpos.Error
		if !errors.As(err, &se) {
			t.Errorf("%s: error %v, want a *textpos.Error", c.name, err)
			continue
		}
		if se.Pos.Source != "in.jsonld" || se.Pos.Line != c.line || se.Pos.Column != c.col || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%s: %v; want in.jsonld:%d:%d …%s…", c.name, err, c.line, c.col, c.msg)
		}
		if _, again := dec.Next(); again == nil || again.Error() != err.Error() {
			t.Errorf("%s: after the error Next returned %v", c.name, again)
		}
	}
}

// FuzzJSONLD: any input ends in statements or a *textpos.Error naming the
// source (positioned when the JSON itself is malformed; json-gold reports
// JSON-LD processing errors without a position); what was read, written
// as JSON-LD and read again, is the same dataset.
func FuzzJSONLD(f *testing.F) {
	addSeeds(f, "testdata/jsonld/*.jsonld")
	f.Add([]byte(`{"@context": {"@vocab": "http://ex/"}, "@id": "_:a", "p": {"@list": [1, 2.5, true]}}`))
	f.Add([]byte(`[{"@id": "http://ex/g", "@graph": [{"@id": "_:x", "http://ex/p": {"@value": "v", "@language": "en"}}]}]`))
	f.Fuzz(func(t *testing.T, data []byte) {
		// A watchdog: an input that takes this long is a hang (the
		// decoder is a third-party processor); generous, as fuzzing
		// runs at low priority on a shared machine.
		done := make(chan struct{})
		defer close(done)
		go func() {
			select {
			case <-done:
			case <-time.After(30 * time.Second):
				buf := make([]byte, 1<<20)
				n := runtime.Stack(buf, true)
				panic(fmt.Sprintf("slow input %q\n%s", data, buf[:n]))
			}
		}()
		jsonld, _ := Lookup("jsonld")
		dec := jsonld.NewDecoder(bytes.NewReader(data), Options{Base: "http://example.org/base/doc.jsonld", Source: "fuzz.jsonld"})
		var quads []kb.TermQuad
		for {
			q, err := dec.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				var se *textpos.Error
				if !errors.As(err, &se) || se.Pos.Source != "fuzz.jsonld" {
					t.Fatalf("error %v (%T) is not a *textpos.Error about fuzz.jsonld", err, err)
				}
				if strings.HasPrefix(se.Msg, "JSON: ") && se.Pos.Line <= 0 {
					t.Fatalf("JSON syntax error %q has no position", se.Error())
				}
				return
			}
			if q.S.IsZero() || q.P.IsZero() || q.O.IsZero() {
				t.Fatalf("statement with a missing term: %v", q)
			}
			quads = append(quads, q)
		}
		var buf bytes.Buffer
		enc := jsonld.NewEncoder(&buf, EncoderOptions{})
		for _, q := range quads {
			if err := enc.Encode(q); err != nil {
				if strings.Contains(err.Error(), "JSON-LD cannot write") {
					return // an IRI JSON-LD cannot carry (jsonldCheck), refused
				}
				t.Fatal(err)
			}
		}
		if err := enc.Close(); err != nil {
			t.Fatalf("writing %d statements: %v", len(quads), err)
		}
		again := jsonldDecodeAll(t, jsonld, buf.Bytes(), "again.jsonld")
		// sameGraph tries every bijection: only for a few blank nodes.
		blanks := map[kb.Term]bool{}
		for _, q := range quads {
			for _, t := range [...]kb.Term{q.S, q.O, q.G} {
				if t.Kind == kb.KindBlank {
					blanks[t] = true
				}
			}
		}
		if len(again) != len(dedupeQuads(quads)) {
			t.Fatalf("%d statements read back as %d:\n%s", len(dedupeQuads(quads)), len(again), buf.String())
		}
		if len(blanks) <= 5 && !sameGraph(again, quads) {
			t.Fatalf("read back a different dataset from\n%s", buf.String())
		}
	})
}

func dedupeQuads(g []kb.TermQuad) map[kb.TermQuad]bool {
	m := map[kb.TermQuad]bool{}
	for _, q := range g {
		m[q] = true
	}
	return m
}

// TestJSONLDCheck: IRIs a JSON-LD processor would read as relative are
// refused; ordinary ones take the fast path or pass url.Parse.
func TestJSONLDCheck(t *testing.T) {
	tests := []struct {
		iri  string
		fast bool // plainAbsoluteIRI takes it
		ok   bool
	}{
		{"http://example.org/a#b", true, true},
		{"http://example.org:8080/a?q=1", true, true},
		{"urn:x-perfkb:ontology", true, true},
		{"http://[::1]/a", false, true},
		{"http://user@example.org/", false, true},
		{"http://example.org/%41", false, true},
		{"A000:/00%0", false, false},
		{"http://example.org/%zz", false, false},
		{"http://example.org:port/", false, false},
	}
	for _, tc := range tests {
		if got := plainAbsoluteIRI(tc.iri); got != tc.fast {
			t.Errorf("plainAbsoluteIRI(%q) = %v, want %v", tc.iri, got, tc.fast)
		}
		err := jsonldCheck(kb.TermQuad{S: kb.Term{Kind: kb.KindIRI, Value: tc.iri}, P: kb.Term{Kind: kb.KindIRI, Value: "http://e/p"}, O: kb.Term{Kind: kb.KindLiteral, Value: "x"}})
		if (err == nil) != tc.ok {
			t.Errorf("jsonldCheck(<%s>) = %v, want ok %v", tc.iri, err, tc.ok)
		}
	}
}
