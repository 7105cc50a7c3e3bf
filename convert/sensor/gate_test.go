package sensor

import (
	"io"
	"os"
	"testing"
)

// TestReaderGate: the gate sees each message's measurement data, by its
// size, before it is parsed, and is done with it once it is; a message
// whose data is not a CDATA payload is not gated.
func TestReaderGate(t *testing.T) {
	for _, tc := range []struct {
		file  string
		sizes []int // the CDATA payloads, trimmed
	}{
		{"hostcpu.xml", []int{
			len(`<sensordata><eventtime>1100000000</eventtime><value unit="percent">37.5</value></sensordata>`),
			len(`<sensordata><eventtime>1100000060</eventtime><value unit="percent">98</value></sensordata>`),
		}},
	} {
		f, err := os.Open("testdata/" + tc.file)
		if err != nil {
			t.Fatal(err)
		}
		var got []int
		open := 0
		rd := NewReader(f, ReaderOptions{Source: tc.file, Gate: func(n int) func() {
			got = append(got, n)
			open++
			return func() { open-- }
		}})
		for {
			_, err := rd.Next()
			if err == io.EOF {
				break
			}
			if err != nil {
				t.Fatalf("%s: %v", tc.file, err)
			}
			if open != 0 {
				t.Fatalf("%s: %d gates still open after a message", tc.file, open)
			}
		}
		f.Close()
		if len(got) != len(tc.sizes) {
			t.Fatalf("%s: gate saw %v, want %v", tc.file, got, tc.sizes)
		}
		for i := range got {
			if got[i] != tc.sizes[i] {
				t.Errorf("%s: message %d: gate saw %d bytes, want %d", tc.file, i, got[i], tc.sizes[i])
			}
		}
	}
}
