package rdfio

import (
	"bytes"
	"errors"
	"flag"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

var updateGoldens = flag.Bool("update", false, "rewrite the encoder goldens in testdata/encode")

// readAll decodes data in f.
func readAll(t *testing.T, f *Format, data []byte, source string) []kb.TermQuad {
	t.Helper()
	dec := f.NewDecoder(bytes.NewReader(data), Options{Base: "http://example.org/base/", Source: source})
	var out []kb.TermQuad
	for {
		q, err := dec.Next()
		if errors.Is(err, io.EOF) {
			return out
		}
		if err != nil {
			t.Fatalf("%s: %v\n%s", source, err, data)
		}
		out = append(out, q)
	}
}

// encodeAll writes qs in f.
func encodeAll(f *Format, qs []kb.TermQuad) ([]byte, error) {
	var buf bytes.Buffer
	enc := f.NewEncoder(&buf, EncoderOptions{})
	for _, q := range qs {
		if err := enc.Encode(q); err != nil {
			return nil, err
		}
	}
	err := enc.Close()
	return buf.Bytes(), err
}

// dropGraphs is what a triples-only syntax keeps of qs.
func dropGraphs(qs []kb.TermQuad) []kb.TermQuad {
	out := make([]kb.TermQuad, len(qs))
	for i, q := range qs {
		q.G = kb.Term{}
		out[i] = q
	}
	return out
}

// TestEncoderGoldens writes testdata/encode/small.nq in every format and
// compares with the golden file beside it (go test -update rewrites them);
// each golden also reads back as the same dataset.
func TestEncoderGoldens(t *testing.T) {
	nq, _ := Lookup("nquads")
	data, err := os.ReadFile("testdata/encode/small.nq")
	if err != nil {
		t.Fatal(err)
	}
	in := readAll(t, nq, data, "small.nq")
	for _, f := range Formats() {
		t.Run(f.Name, func(t *testing.T) {
			out, err := encodeAll(f, in)
			if err != nil {
				t.Fatal(err)
			}
			golden := filepath.Join("testdata/encode", "small"+f.Extensions[0])
			if *updateGoldens {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("output differs from %s:\n%s", golden, out)
			}
			exp := in
			if !f.Quads {
				exp = dropGraphs(in)
			}
			if why := Isomorphic(readAll(t, f, want, golden), exp); why != "" {
				t.Errorf("%s does not read back as small.nq: %s", golden, why)
			}
		})
	}
}

// TestPrettyRDFXML checks what makes the RDF/XML readable: namespaces
// declared once on rdf:RDF, typed node elements, rdf:type written as such.
func TestPrettyRDFXML(t *testing.T) {
	nq, _ := Lookup("nquads")
	xml, _ := Lookup("rdfxml")
	data, err := os.ReadFile("testdata/encode/small.nq")
	if err != nil {
		t.Fatal(err)
	}
	out, err := encodeAll(xml, readAll(t, nq, data, "small.nq"))
	if err != nil {
		t.Fatal(err)
	}
	s := string(out)
	for _, want := range []string{
		`<rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"`,
		`xmlns:perfonto="http://www.par.univie.ac.at/project/scalea/perfonto#"`,
		`<perfonto:Experiment rdf:about="http://www.par.univie.ac.at/project/scalea/perfonto#exp1">`,
		`<perfonto:RegionSummary rdf:nodeID="r1">`,
		`<rdf:type rdf:resource="http://example.org/other#Thing"/>`,
		`<rdfs:label xml:lang="en">run 1 &lt;&amp;&gt; "quoted"</rdfs:label>`,
	} {
		if !strings.Contains(s, want) {
			t.Errorf("no %s in\n%s", want, s)
		}
	}
	if n := strings.Count(s, "xmlns:"); n != 4 { // rdf, rdfs, perfonto, ns…
		t.Errorf("%d namespace declarations, want 4 (each once):\n%s", n, s)
	}
}

// TestRDFXMLEncoderRefuses lists statements RDF/XML cannot write.
func TestRDFXMLEncoderRefuses(t *testing.T) {
	xml, _ := Lookup("rdfxml")
	iri := func(s string) kb.Term { return kb.Term{Kind: kb.KindIRI, Value: s} }
	s := iri("http://ex/s")
	for name, q := range map[string]kb.TermQuad{
		"predicate without a local name": {S: s, P: iri("http://ex/p/"), O: s},
		"rdf:li":                         {S: s, P: iri(ontology.RDFNamespace + "li"), O: s},
		"rdf:about":                      {S: s, P: iri(ontology.RDFNamespace + "about"), O: s},
		"control character":              {S: s, P: iri("http://ex/p"), O: kb.Term{Kind: kb.KindLiteral, Value: "a\x01b", Datatype: ontology.XSDString}},
	} {
		if _, err := encodeAll(xml, []kb.TermQuad{q}); err == nil || !strings.Contains(err.Error(), "RDF/XML cannot write") {
			t.Errorf("%s: error %v", name, err)
		}
	}
	// rdf:_1 and rdf:value are ordinary property elements.
	for _, p := range []string{ontology.RDFNamespace + "_1", ontology.RDFValue} {
		if _, err := encodeAll(xml, []kb.TermQuad{{S: s, P: iri(p), O: s}}); err != nil {
			t.Errorf("<%s>: %v", p, err)
		}
	}
}

// TestRDFXMLLateNamespace writes more statements than the encoder holds
// for its header, the last in a namespace not seen before: it is declared
// on its element, and the document reads back.
func TestRDFXMLLateNamespace(t *testing.T) {
	xml, _ := Lookup("rdfxml")
	iri := func(s string) kb.Term { return kb.Term{Kind: kb.KindIRI, Value: s} }
	var in []kb.TermQuad
	for i := range rdfxmlHeadWindow + rdfxmlRunLimit + 10 {
		in = append(in, kb.TermQuad{S: iri("http://ex/s"), P: iri("http://ex/p"), O: kb.Term{Kind: kb.KindLiteral, Value: strings.Repeat("x", i%7), Datatype: ontology.XSDString}})
	}
	in = append(in, kb.TermQuad{S: iri("http://ex/s2"), P: iri("http://late.example/ns#q"), O: iri("http://ex/o")})
	out, err := encodeAll(xml, in)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(out, []byte(`<q xmlns="http://late.example/ns#" rdf:resource="http://ex/o"/>`)) {
		t.Errorf("the late namespace is not declared on its element")
	}
	if why := Isomorphic(readAll(t, xml, out, "late.rdf"), in); why != "" {
		t.Error(why)
	}
}

// TestJSONLDPrefixAsScheme writes IRIs whose scheme is a declared prefix
// name: they must not read back through the prefix.
func TestJSONLDPrefixAsScheme(t *testing.T) {
	jsonld, _ := Lookup("jsonld")
	iri := func(s string) kb.Term { return kb.Term{Kind: kb.KindIRI, Value: s} }
	in := []kb.TermQuad{
		{S: iri("perfonto:x"), P: iri("http://ex/p"), O: iri("rdf:y")},
		{S: iri("perfonto:x"), P: iri("http://ex/p"), O: iri(ontology.RDFNamespace + "y")},
		{S: iri("http://ex/s"), P: iri("xsd:p"), O: kb.Term{Kind: kb.KindLiteral, Value: "1", Datatype: "xsd:integer"}, G: iri("owl:g")},
		{S: iri("http://ex/s"), P: iri(ontology.RDFType), O: iri(ontology.RDFProperty), G: iri("owl:g")},
		{S: iri("http://ex/s"), P: iri(ontology.RDFNamespace + "//weird"), O: iri("perfonto:"), G: iri("owl:g")},
	}
	out, err := encodeAll(jsonld, in)
	if err != nil {
		t.Fatal(err)
	}
	if why := Isomorphic(readAll(t, jsonld, out, "scheme.jsonld"), in); why != "" {
		t.Errorf("%s\n%s", why, out)
	}
}

// TestEncodersW3C writes the expected results of the W3C RDF 1.1
// evaluation tests in every format and reads them back: the same dataset
// (graph isomorphism) or, for RDF/XML, a refusal naming what it cannot
// write.
func TestEncodersW3C(t *testing.T) {
	root := "../../testdata/w3c/w3c-rdf"
	files, _ := filepath.Glob(filepath.Join(root, "*", "*.n[tq]"))
	more, _ := filepath.Glob(filepath.Join(root, "rdf-xml", "*", "*.nt"))
	files = append(files, more...)
	if len(files) == 0 {
		t.Fatal("the W3C RDF suites are not at " + root + " (they are part of the repository)")
	}
	nq, _ := Lookup("nquads")
	written, refused := 0, 0
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		dec := nq.NewDecoder(bytes.NewReader(data), Options{Source: file})
		var in []kb.TermQuad
		bad := false
		for {
			q, err := dec.Next()
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				bad = true // a negative syntax test
				break
			}
			in = append(in, q)
		}
		if bad || len(in) == 0 {
			continue
		}
		for _, f := range Formats() {
			out, err := encodeAll(f, in)
			if err != nil {
				if f.Name == "rdfxml" && strings.Contains(err.Error(), "RDF/XML cannot write") {
					refused++
					continue
				}
				t.Errorf("%s as %s: %v", file, f.Name, err)
				continue
			}
			written++
			exp := in
			if !f.Quads {
				exp = dropGraphs(in)
			}
			got := readAll(t, f, out, file+" as "+f.Name)
			if f.Name == "jsonld" {
				// json-gold's expansion lowercases language tags (as
				// JSON-LD 1.0 did); RDF 1.1 Concepts 3.3: the value
				// space of language tags is lower case.
				exp, got = lowerLangs(exp), lowerLangs(got)
			}
			if why := Isomorphic(got, exp); why != "" {
				t.Errorf("%s as %s: %s\n%s", file, f.Name, why, out)
			}
		}
	}
	t.Logf("%d documents written and read back, %d refused by RDF/XML", written, refused)
}

func lowerLangs(qs []kb.TermQuad) []kb.TermQuad {
	out := make([]kb.TermQuad, len(qs))
	for i, q := range qs {
		q.O.Lang = strings.ToLower(q.O.Lang)
		out[i] = q
	}
	return out
}

// TestAppendTermBytes: the byte-slice fast path writes what AppendTerm
// writes, for plain terms and for those that need escaping.
func TestAppendTermBytes(t *testing.T) {
	terms := []kb.Term{
		{Kind: kb.KindIRI, Value: "http://perfkb.example/site/a/rs/17/timing/wtime"},
		{Kind: kb.KindIRI, Value: "http://x.example/a b"}, {Kind: kb.KindIRI, Value: "http://x.example/ä"},
		{Kind: kb.KindIRI, Value: "http://x.example/{x}"}, {Kind: kb.KindIRI, Value: `http://x.example/\`}, {Kind: kb.KindIRI, Value: "http://x.example/\x7f"},
		{Kind: kb.KindLiteral, Value: "gsr410"}, {Kind: kb.KindLiteral, Value: `say "hi"`}, {Kind: kb.KindLiteral, Value: "line\nbreak"},
		{Kind: kb.KindLiteral, Value: "tab\t"}, {Kind: kb.KindLiteral, Value: "ümlaut"}, {Kind: kb.KindLiteral, Value: "\x7f"}, {Kind: kb.KindLiteral, Value: ""},
		{Kind: kb.KindLiteral, Value: "4.75", Datatype: "http://www.w3.org/2001/XMLSchema#double"},
		{Kind: kb.KindLiteral, Value: "x", Datatype: ontology.XSDString},
		{Kind: kb.KindLiteral, Value: "x", Datatype: "http://x.example/dt with space"},
		{Kind: kb.KindLiteral, Value: "hallo", Lang: "de"}, {Kind: kb.KindBlank, Value: "b1"},
	}
	for _, tm := range terms {
		var want strings.Builder
		kb.AppendTerm(&want, tm)
		if got := string(kb.AppendTermBytes([]byte("x"), tm)); got != "x"+want.String() {
			t.Errorf("AppendTermBytes(%#v) = %q, AppendTerm writes %q", tm, got[1:], want.String())
		}
	}
}
