package tau

import (
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// testdata/example is a MULTI__ run written by the generator (regenerate
// with PERFKB_WRITE_TAU_EXAMPLE=1 go test -run TestExampleRun ./convert/tau);
// the README's TAU commands use it.
func TestExampleRun(t *testing.T) {
	dir := filepath.Join("testdata", "example")
	if os.Getenv("PERFKB_WRITE_TAU_EXAMPLE") != "" {
		src, _ := callPathRun(t)
		os.RemoveAll(dir)
		if err := os.CopyFS(dir, os.DirFS(src)); err != nil {
			t.Fatal(err)
		}
	}
	c, rep := convertDir(t, dir)
	if rep.Rows == 0 {
		t.Fatal("nothing converted")
	}
	want := []string{rsOf(dir, 0, 0, "int main(int, char **) C => MPI_Send()")}
	if got := fig630(t, c); !slices.Equal(got, want) {
		t.Errorf("BigMessage on %v, want %v", got, want)
	}
}
