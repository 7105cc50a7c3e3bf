package shacl

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"sort"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// TestPerfontoShapesSample: the sample generator's data (every kind
// perfkb makes: experiments, traces, sensors, scaling series) conforms
// to the shipped shapes.
func TestPerfontoShapesSample(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := sample.Generate(ctx, &buf, sample.Options{Triples: 20000, Scaling: true}); err != nil {
		t.Fatal(err)
	}
	ds := native.OpenMemory()
	defer ds.Close()
	if _, err := rdfio.Load(ctx, ds, &buf, rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "sample.nq"}); err != nil {
		t.Fatal(err)
	}
	if err := AddOntology(ctx, ds); err != nil {
		t.Fatal(err)
	}
	shapes, err := Default(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Validate(ctx, ds, shapes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if !rep.Conforms {
		var out bytes.Buffer
		_ = rep.WriteTurtle(&out)
		t.Fatalf("sample data does not conform (%d results):\n%.3000s", len(rep.Results), out.String())
	}
}

// TestPerfontoShapesViolations: each planted defect of testdata/perfonto/bad.ttl
// is reported, with the expected focus node, path, value and component,
// and nothing else is.
func TestPerfontoShapesViolations(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	defer ds.Close()
	if _, err := rdfio.LoadFile(ctx, ds, "testdata/perfonto/bad.ttl", rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := AddOntology(ctx, ds); err != nil {
		t.Fatal(err)
	}
	shapes, err := Default(ctx)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Validate(ctx, ds, shapes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	const ex, po = "http://perfkb.example/bad/", "http://www.par.univie.ac.at/project/scalea/perfonto#"
	want := []string{
		"<" + ex + "pu2> <" + po + "inExperiment> - MinCountConstraintComponent",
		"<" + ex + "rs1> <" + po + "ofCodeRegion> - MinCountConstraintComponent",
		"<" + ex + "rs2> <" + po + "inProcessingUnit> - MaxCountConstraintComponent",
		"<" + ex + "m1> <" + po + "hasMetricValue> \"fast\" NodeConstraintComponent",
		"<" + ex + "m2> <" + po + "hasMetricName> - MinCountConstraintComponent",
	}
	var got []string
	for _, r := range rep.Results {
		v := "-"
		if !r.Value.IsZero() {
			v = r.Value.String()
		}
		got = append(got, r.Focus.String()+" "+r.Path.String()+" "+v+" "+localName(r.Component))
	}
	sort.Strings(want)
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("results:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if rep.Conforms {
		t.Error("report conforms")
	}
}

// BenchmarkValidateSample validates `perfkb sample --triples 1000000`
// (PERFKB_SHACL_TRIPLES overrides the size) against the shipped shapes.
func BenchmarkValidateSample(b *testing.B) {
	ctx := context.Background()
	n := int64(1000000)
	if s := os.Getenv("PERFKB_SHACL_TRIPLES"); s != "" {
		var err error
		if n, err = parseInt(s); err != nil {
			b.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if _, err := sample.Generate(ctx, &buf, sample.Options{Triples: n}); err != nil {
		b.Fatal(err)
	}
	ds := native.OpenMemory()
	defer ds.Close()
	sum, err := rdfio.Load(ctx, ds, &buf, rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "sample.nq"})
	if err != nil {
		b.Fatal(err)
	}
	if err := AddOntology(ctx, ds); err != nil {
		b.Fatal(err)
	}
	shapes, err := Default(ctx)
	if err != nil {
		b.Fatal(err)
	}
	cpu0 := cpuSeconds(b)
	b.ResetTimer()
	defer func() {
		// CPU time beside wall time: on a shared machine the wall time
		// depends on the other processes.
		b.ReportMetric((cpuSeconds(b)-cpu0)/float64(b.N), "cpu-s/op")
		b.ReportMetric(float64(sum.Triples), "triples")
	}()
	for i := 0; i < b.N; i++ {
		rep, err := Validate(ctx, ds, shapes, Options{})
		if err != nil {
			b.Fatal(err)
		}
		if !rep.Conforms {
			b.Fatalf("%d results", len(rep.Results))
		}
	}
}

func parseInt(s string) (int64, error) {
	var n int64
	_, err := fmt.Sscan(s, &n)
	return n, err
}

// cpuSeconds is the user and system CPU time of this process so far.
func cpuSeconds(b *testing.B) float64 {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()).Seconds()
}
