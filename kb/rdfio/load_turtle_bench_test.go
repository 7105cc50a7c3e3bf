package rdfio_test

import (
	"bytes"
	"context"
	"io"
	"os"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// BenchmarkTurtleDecode measures the Turtle parser alone (rdfio, no store)
// on generated PERFONTO sample data exported as Turtle by rdfio.Export, or on
// the file $PERFKB_BENCH_TURTLE (e.g. perfkb sample output converted with
// perfkb export --format turtle); the triples/s metric is the throughput.
//
//	go test -run '^$' -bench TurtleDecode -benchtime 5x ./kb/
//	PERFKB_BENCH_TURTLE=/tmp/s.ttl go test -run '^$' -bench TurtleDecode -benchtime 5x ./kb/
func BenchmarkTurtleDecode(b *testing.B) {
	var doc []byte
	if path := os.Getenv("PERFKB_BENCH_TURTLE"); path != "" {
		var err error
		if doc, err = os.ReadFile(path); err != nil {
			b.Fatal(err)
		}
	} else {
		ctx := context.Background()
		var nt bytes.Buffer
		if _, err := sample.Generate(ctx, &nt, sample.Options{Sites: 3, Triples: benchTriples(b), Seed: 1, Format: sample.NTriples}); err != nil {
			b.Fatal(err)
		}
		ds := kbtest.NewMemory()
		if _, err := rdfio.Load(ctx, ds, &nt, rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
			b.Fatal(err)
		}
		var ttl bytes.Buffer
		if err := rdfio.Export(ctx, ds, &ttl, rdfio.ExportOptions{Format: rdfio.Turtle}); err != nil {
			b.Fatal(err)
		}
		doc = ttl.Bytes()
	}
	b.SetBytes(int64(len(doc)))
	b.ResetTimer()
	var n int
	for i := 0; i < b.N; i++ {
		dec := rdfio.NewTurtleDecoder(bytes.NewReader(doc), rdfio.Options{Source: "bench.ttl"})
		n = 0
		for {
			_, err := dec.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				b.Fatal(err)
			}
			n++
		}
	}
	b.ReportMetric(float64(n)*float64(b.N)/b.Elapsed().Seconds(), "triples/s")
}
