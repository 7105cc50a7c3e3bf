package pg_test

import (
	"bytes"
	"context"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// BenchmarkAddTerms measures a bulk writer's coding of parsed terms
// (AddTerms, on the loader's critical path while the file is parsed) for
// 200,000 generated triples, without the commit.
func BenchmarkAddTerms(b *testing.B) {
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 2, Triples: 200000, Seed: 7, Format: sample.NTriples}); err != nil {
		b.Fatal(err)
	}
	var p rdfio.LineParser
	terms, err := p.ParseChunk(buf.Bytes(), 1, nil)
	if err != nil {
		b.Fatal(err)
	}
	quads := make([]kb.TermQuad, 0, len(terms)/4)
	for i := 0; i+3 < len(terms); i += 4 {
		quads = append(quads, kb.TermQuad{S: terms[i], P: terms[i+1], O: terms[i+2], G: terms[i+3]})
	}
	ds := newStore(b)
	b.ReportAllocs()
	b.ResetTimer()
	for range b.N {
		bw, err := ds.BeginBulk(ctx)
		if err != nil {
			b.Fatal(err)
		}
		for lo := 0; lo < len(quads); lo += 4096 {
			if err := bw.(kb.TermAdder).AddTerms(ctx, quads[lo:min(lo+4096, len(quads))]); err != nil {
				b.Fatal(err)
			}
		}
		if err := bw.Abort(); err != nil {
			b.Fatal(err)
		}
	}
}
