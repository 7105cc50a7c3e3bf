package sensor

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
)

// FuzzMessages feeds arbitrary bytes through the message reader and the
// mapper, as a sensor connection or file would: neither may panic, every
// error from the reader ends the stream, and every emitted triple is
// well-formed.
func FuzzMessages(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "*.xml"))
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte(`<sensordata><sensorid>s</sensorid></sensordata>`))
	base := convert.MustBase("http://fuzz.example/site/")
	f.Fuzz(func(t *testing.T, data []byte) {
		rd := NewReader(bytes.NewReader(data), ReaderOptions{Source: "fuzz", MaxMessage: 1 << 20})
		m := NewMapper(base, Options{}, func(string, string, ...any) {})
		emit := func(table string, s, p, o kb.Term) error {
			if s.IsZero() || p.IsZero() || o.IsZero() {
				t.Fatalf("empty term in %s: %v %v %v", table, s, p, o)
			}
			return nil
		}
		for i := 0; i < 10000; i++ {
			msg, err := rd.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				if err.Error() == "" {
					t.Fatal("error without a message")
				}
				return
			}
			_ = m.Map(msg, emit) // a rejected message is reported, not fatal
		}
	})
}
