package sensor_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/convert/sensor"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/reasoner"
)

var update = flag.Bool("update", false, "rewrite the golden .nt files")

var base = convert.MustBase("http://perfkb.example/site/innsbruck/")

func fromString(name, text string) convert.Converter {
	return sensor.New([]sensor.Input{{Name: name, R: strings.NewReader(text)}}, base, sensor.Options{})
}

func fromFiles(names ...string) convert.Converter {
	for i, n := range names {
		names[i] = filepath.Join("testdata", n)
	}
	return sensor.New(sensor.Files(names...), base, sensor.Options{})
}

// TestGolden converts one file per message kind and compares the sorted
// N-Triples with testdata/<name>.nt (reviewed by hand; -update rewrites).
func TestGolden(t *testing.T) {
	for _, name := range []string{"fig63", "hostcpu", "hostmem", "appprofile", "unknown", "initfinal"} {
		t.Run(name, func(t *testing.T) {
			got, rep := converttest.Sorted(t, fromFiles(name+".xml"))
			golden := filepath.Join("testdata", name+".nt")
			if *update {
				if err := os.WriteFile(golden, got, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from %s:\n%s", name, golden, lineDiff(string(want), string(got)))
			}
			if err := rep.Check(); err != nil {
				t.Error(err)
			}
		})
	}
}

func lineDiff(want, got string) string {
	w, g := strings.Split(want, "\n"), strings.Split(got, "\n")
	var out []string
	for _, l := range g {
		if !slices.Contains(w, l) {
			out = append(out, "+ "+l)
		}
	}
	for _, l := range w {
		if !slices.Contains(g, l) {
			out = append(out, "- "+l)
		}
	}
	return strings.Join(out, "\n")
}

// TestReport checks the per-kind counts of fig63.xml: one init, four data
// entries (one a resend), one final.
func TestReport(t *testing.T) {
	_, rep := converttest.Sorted(t, fromFiles("fig63.xml"))
	rows := map[string]int64{}
	for _, tb := range rep.Tables {
		rows[tb.Name] = tb.Rows
	}
	want := map[string]int64{sensor.TableInit: 1, sensor.TableBandwidth: 4, sensor.TableFinal: 1}
	for k, v := range want {
		if rows[k] != v {
			t.Errorf("table %s: %d rows, want %d (report %+v)", k, rows[k], v, rep.Tables)
		}
	}
}

// TestResendStoredOnce: fig63.xml sends three entries at one event time,
// the third a copy of the first; two measurements result.
func TestResendStoredOnce(t *testing.T) {
	nt, _ := converttest.Sorted(t, fromFiles("fig63.xml"))
	n := 0
	for _, l := range strings.Split(string(nt), "\n") {
		if strings.Contains(l, "<"+ontology.RDFType+"> <"+ontology.PathBandwidthMeasurement+">") {
			n++
		}
	}
	if n != 3 {
		t.Errorf("%d bandwidth measurements, want 3 (4 entries, one resent)", n)
	}
}

func TestConformance(t *testing.T) {
	all := []string{"fig63.xml", "hostcpu.xml", "hostmem.xml", "appprofile.xml", "unknown.xml", "initfinal.xml"}
	entry := func(attrs, payload string) string {
		return `<sensordataentry ` + attrs + `><![CDATA[` + payload + `]]></sensordataentry>`
	}
	const ids = `SensorID="path.bandwidth.capacity.TCP" ResourceID="a->b"`
	good := entry(ids, `<sensordata><eventtime>1100000000000</eventtime><bandwidth>1.5</bandwidth></sensordata>`)
	bad := func(name, text string, want ...string) converttest.BadCase {
		return converttest.BadCase{Name: name, New: func(t testing.TB) convert.Converter { return fromString("bad.xml", text) }, Want: want}
	}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter { return fromFiles(slices.Clone(all)...) },
		Bad: []converttest.BadCase{
			bad("malformed XML", good+"\n<sensordataentry "+ids+"><![CDATA[x]]></sensordata>",
				"bad.xml:2:", "malformed XML", `SensorID "path.bandwidth.capacity.TCP"`, `ResourceID "a->b"`),
			bad("truncated message", good+"\n<sensordataentry "+ids+"><![CDATA[<sensordata>",
				"bad.xml:2:", "unexpected end of input inside a message", `ResourceID "a->b"`),
			bad("payload not well-formed", good+"\n"+entry(ids, `<sensordata><bandwidth>1</sensordata>`),
				"bad.xml:2:1", "not well-formed", `SensorID "path.bandwidth.capacity.TCP"`),
			bad("missing SensorID", good+"\n"+entry(`ResourceID="a->b"`, `<sensordata><bandwidth>1</bandwidth></sensordata>`),
				"bad.xml:2:1", "no SensorID"),
			bad("missing ResourceID", "\n\n  "+entry(`SensorID="host.cpu.used"`, `<sensordata><value>1</value></sensordata>`),
				"bad.xml:3:3", "no ResourceID"),
			bad("non-numeric bandwidth", good+"\n"+entry(ids, `<sensordata><eventtime>1100000000001</eventtime><bandwidth>fast</bandwidth></sensordata>`),
				"bad.xml:2:1", `element <bandwidth> = "fast" is not an xsd:double`, `ResourceID "a->b"`),
			bad("missing bandwidth", entry(ids, `<sensordata><eventtime>1</eventtime></sensordata>`),
				"bad.xml:1:1", "no <bandwidth>"),
			bad("bad eventtime", entry(ids, `<sensordata><eventtime>yesterday</eventtime><bandwidth>1</bandwidth></sensordata>`),
				"bad.xml:1:1", `<eventtime> "yesterday" is not an xsd:long`),
			bad("non-UTF-8", good+"\n<sensordataentry "+ids+"><![CDATA[<sensordata><note>caf\xe9</note></sensordata>]]></sensordataentry>",
				"bad.xml:2:", "invalid UTF-8"),
			bad("text between messages", good+"\nhello", "bad.xml:1:", `text "hello" outside a message`),
			bad("unclosed wrapper", "<sensordatastream>"+good, "unexpected end of input", "<sensordatastream> is not closed"),
			bad("unknown element in wrapper", "<stream>"+good+"<other/></stream>", "unexpected element <other> in <stream>"),
			bad("profiling without exp", `<sensordataentry SensorID="app.profiling" ResourceID="r"><![CDATA[<profiling><pu node="n"/><cr id="c"/></profiling>]]></sensordataentry>`,
				"bad.xml:1:1", "no <exp>"),
			bad("elements nested too deep", fmt.Sprintf(`<sensordata SensorID="s.x" ResourceID="r">%s</sensordata>`, nested(sensor.MaxDepth)),
				// the first <a> is at column 43 and each is 3 bytes: the
				// 256th, at depth 257, starts at column 43+255*3.
				fmt.Sprintf("bad.xml:1:%d:", 43+(sensor.MaxDepth-1)*3), "<a> is nested more than 256 elements deep"),
			bad("payload nested too deep", entry(`SensorID="s.x" ResourceID="r"`, "<sensordata>"+nested(sensor.MaxDepth)+"</sensordata>"),
				"bad.xml:1:1", "payload line 1 column", "<a> is nested more than 256 elements deep"),
			bad("profiling metric not a number", `<sensordataentry SensorID="app.profiling" ResourceID="r"><![CDATA[<profiling><exp>e</exp><pu node="n"/><cr id="c"/><metrics>wtime=slow</metrics></profiling>]]></sensordataentry>`,
				"bad.xml:1:1", "metric wtime", `"slow" is not a number`),
		},
	})
}

// TestLowBandwidthRule: the shipped PERFONTO rule low_network_bandwidth
// fires on converted data exactly for the measurements below its
// threshold (1.0 MB/s).
func TestLowBandwidthRule(t *testing.T) {
	ctx := context.Background()
	bws := []string{"0.2", "0.99", "1.0", "1.01", "4.75", "0.5"}
	var in strings.Builder
	for i, bw := range bws {
		in.WriteString(`<sensordataentry SensorID="path.bandwidth.capacity.TCP" ResourceID="a->b"><![CDATA[<sensordata><eventtime>` +
			string(rune('1'+i)) + `100000000000</eventtime><bandwidth>` + bw + `</bandwidth></sensordata>]]></sensordataentry>` + "\n")
	}
	ds := native.OpenMemory()
	g := kb.IRI("http://perfkb.example/site/innsbruck")
	if _, err := convert.Run(ctx, fromString("bw.xml", in.String()), convert.NewStoreSink(ctx, ds, rdfio.LoadOptions{Graph: g})); err != nil {
		t.Fatal(err)
	}
	prog, err := reasoner.LoadProgram([]string{"PERFONTO"}, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	sum, err := reasoner.Run(ctx, ds, prog, reasoner.Options{})
	if err != nil {
		t.Fatal(err)
	}
	findings, err := reasoner.Findings(ctx, ds, reasoner.FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range findings {
		if f.TypeName() != "LowNetworkBandwidth" {
			continue
		}
		if f.Subject != base.IRI("path", "a->b") {
			t.Errorf("finding on %v, want the path", f.Subject)
		}
		got = append(got, f.Description)
	}
	slices.Sort(got)
	want := []string{"measured bandwidth 0.2 MB/s is below 1.0 MB/s", "measured bandwidth 0.5 MB/s is below 1.0 MB/s", "measured bandwidth 0.99 MB/s is below 1.0 MB/s"}
	if !slices.Equal(got, want) {
		t.Errorf("findings %q, want %q (firings %v)", got, want, sum.Firings)
	}
}

// TestWarnings: an unknown code region type and a host value without a
// unit are converted with a positioned warning.
func TestWarnings(t *testing.T) {
	in := "\n" + `<sensordataentry SensorID="app.profiling" ResourceID="r"><![CDATA[<profiling><exp>e</exp><pu node="n"/><cr id="c" type="CR_NOPE"/><metric name="wtime" value="1"/></profiling>]]></sensordataentry>` +
		"\n" + `<sensordata SensorID="host.cpu.used" ResourceID="h"><eventtime>5</eventtime><value>3</value></sensordata>`
	nt, rep := converttest.Sorted(t, fromString("w.xml", in))
	want := []string{`w.xml:2:1: unknown code region type "CR_NOPE"`, `w.xml:3:1: host.cpu.used value has no unit`}
	if len(rep.Warnings) != len(want) {
		t.Fatalf("warnings %v, want %d", rep.Warnings, len(want))
	}
	for i, w := range want {
		if !strings.HasPrefix(rep.Warnings[i].String(), w) {
			t.Errorf("warning %d = %q, want prefix %q", i, rep.Warnings[i], w)
		}
	}
	if !strings.Contains(string(nt), `<http://www.par.univie.ac.at/project/scalea/perfonto#hasCrType> "CR_NOPE"`) {
		t.Error("an unknown code region type must keep hasCrType")
	}
}

// nested is n <a> elements, each inside the one before, around "x".
func nested(n int) string {
	return strings.Repeat("<a>", n) + "x" + strings.Repeat("</a>", n)
}

// TestDeepestNesting: a message as deep as MaxDepth converts, and its
// generic field names the whole path.
func TestDeepestNesting(t *testing.T) {
	for _, tc := range []struct{ name, text string }{
		{"inline", `<sensordata SensorID="s.x" ResourceID="r">` + nested(sensor.MaxDepth-1) + `</sensordata>`},
		{"payload", `<sensordataentry SensorID="s.x" ResourceID="r"><![CDATA[<sensordata>` + nested(sensor.MaxDepth-1) + `</sensordata>]]></sensordataentry>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			nt, _ := converttest.Sorted(t, fromString("deep.xml", tc.text))
			path := strings.TrimSuffix(strings.Repeat("a/", sensor.MaxDepth-1), "/")
			if !bytes.Contains(nt, []byte(`"`+path+`"`)) {
				t.Errorf("no field named with the %d-element path", sensor.MaxDepth-1)
			}
		})
	}
}
