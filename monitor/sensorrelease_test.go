package monitor

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/sensor"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
)

// TestConvertReleasesTerms: once a batch is converted, the writer keeps
// none of its terms. A flood message's million quads kept in the reused
// buffer stayed reachable until a larger batch overwrote them, and every
// garbage collection scanned them. A small batch's buffer is kept, cleared;
// a large one's is let go.
func TestConvertReleasesTerms(t *testing.T) {
	ctx := context.Background()
	ds := native.OpenMemory()
	t.Cleanup(func() { ds.Close() })
	l := &SensorListener{ds: ds, log: slog.New(slog.NewTextHandler(io.Discard, nil))}
	w := &batchWriter{l: l, mapper: sensor.NewMapper(l.opt.Base, l.opt.Mapper, func(string, string, ...any) {})}
	for _, tc := range []struct {
		name   string
		leaves int
		kept   bool // the buffer is kept for the next batch
	}{
		{"small", 3, true},
		{"large", 2 * keepQuads, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var text strings.Builder
			fmt.Fprintf(&text, `<sensordataentry SensorID="release.%s" ResourceID="r"><![CDATA[<sensordata><eventtime>1200000000000</eventtime><g>`, tc.name)
			for i := range tc.leaves {
				fmt.Fprintf(&text, "<v%d>1</v%d>", i, i)
			}
			text.WriteString(`</g></sensordata>]]></sensordataentry>`)
			msg, err := sensor.NewReader(strings.NewReader(text.String()), sensor.ReaderOptions{}).Next()
			if err != nil {
				t.Fatal(err)
			}
			var b batch
			b.add(received{msg: msg})
			c, ok, err := w.convert(ctx, &b)
			if err != nil || !ok {
				t.Fatalf("convert: %v, %v", ok, err)
			}
			if len(c.quads) < tc.leaves {
				t.Fatalf("%d quads converted from %d leaves", len(c.quads), tc.leaves)
			}
			if tc.kept && cap(w.quads) == 0 {
				t.Error("a small batch's buffer was let go")
			}
			if !tc.kept && cap(w.quads) != 0 {
				t.Errorf("a batch of %d quads left a buffer of %d", len(c.quads), cap(w.quads))
			}
			for i, q := range w.quads[:cap(w.quads)] {
				if q != (kb.TermQuad{}) {
					t.Fatalf("buffer slot %d still holds %v after the batch was converted", i, q)
				}
			}
		})
	}
}
