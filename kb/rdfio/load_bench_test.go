package rdfio_test

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/internal/pgtest"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/cayleyadapter"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/pg"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// benchTriples is the size of the load benchmark's sample data: 100k, or
// $PERFKB_BENCH_TRIPLES (e.g. 1000000).
func benchTriples(b *testing.B) int64 {
	if s := os.Getenv("PERFKB_BENCH_TRIPLES"); s != "" {
		n, err := strconv.ParseInt(s, 10, 64)
		if err != nil || n < 500 {
			b.Fatalf("PERFKB_BENCH_TRIPLES=%q: want a number >= 500", s)
		}
		return n
	}
	return 100000
}

// BenchmarkLoad measures rdfio.Load of generated PERFONTO sample N-Quads into
// a fresh store of each backend (native on disk, native in memory, kb's
// Memory, Cayley's, kb/pg on PostgreSQL and Cayley's SQL backend on
// PostgreSQL); the triples/s metric is the throughput. PostgreSQL runs when
// pgtest finds a server (see internal/pgtest). perfkb bench
// load compares the backends a --store spec can name.
//
//	go test -run '^$' -bench 'Load/(native|memory)' -benchtime 3x ./kb/
//	go test -run '^$' -bench 'Load/native$' -benchtime 3x -cpuprofile cpu.prof ./kb/
//	PERFKB_BENCH_TRIPLES=1000000 go test -run '^$' -bench 'Load/leveldb' -benchtime 3x -timeout 1h ./kb/
//	PERFKB_BENCH_TRIPLES=1000000 go test -run '^$' -bench 'Load/postgres$' -benchtime 3x ./kb/rdfio/
func BenchmarkLoad(b *testing.B) {
	var data bytes.Buffer
	sum, err := sample.Generate(context.Background(), &data, sample.Options{Sites: 3, Triples: benchTriples(b), Seed: 1, Format: sample.NQuads})
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	cayley := func(backend string, address func(b *testing.B) string) func(b *testing.B) kb.Dataset {
		return func(b *testing.B) kb.Dataset {
			ds, err := cayleyadapter.Open(ctx, backend, address(b), cayleyadapter.OpenOptions{})
			if err != nil {
				b.Fatal(err)
			}
			return ds
		}
	}
	backends := []struct {
		name string
		open func(b *testing.B) kb.Dataset
	}{
		{"memory", func(*testing.B) kb.Dataset { return kbtest.NewMemory() }},
		{"native", func(b *testing.B) kb.Dataset {
			ds, err := native.Open(ctx, filepath.Join(b.TempDir(), "db"), native.Options{})
			if err != nil {
				b.Fatal(err)
			}
			return ds
		}},
		{"nativemem", func(*testing.B) kb.Dataset { return native.OpenMemory() }},
		{"memstore", cayley(cayleyadapter.Memstore, func(*testing.B) string { return "" })},
		{"leveldb", cayley(cayleyadapter.LevelDB, func(b *testing.B) string { return filepath.Join(b.TempDir(), "db") })},
		{"postgres", nil},
		{"cayley-sql", nil},
	}
	for _, be := range backends {
		b.Run(be.name, func(b *testing.B) {
			open := be.open
			switch {
			case be.name == "postgres":
				srv := pgtest.Start(b)
				open = func(b *testing.B) kb.Dataset {
					ds, err := pg.Open(ctx, srv.NewDatabase(b), pg.Options{})
					if err != nil {
						b.Fatal(err)
					}
					return ds
				}
			case open == nil:
				srv := pgtest.Start(b)
				open = cayley(cayleyadapter.Postgres, func(b *testing.B) string { return srv.NewDatabase(b) })
			}
			var loaded int64
			for i := 0; i < b.N; i++ {
				b.StopTimer()
				ds := open(b)
				b.StartTimer()
				ls, err := rdfio.Load(ctx, ds, bytes.NewReader(data.Bytes()), rdfio.LoadOptions{Format: rdfio.NQuads})
				b.StopTimer()
				if err != nil {
					b.Fatal(err)
				}
				loaded += ls.Triples
				if err := ds.Close(); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(loaded)/b.Elapsed().Seconds(), "triples/s")
			b.ReportMetric(float64(sum.Triples), "triples/op")
		})
	}
}
