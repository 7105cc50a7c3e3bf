//go:build otf2

package chrometrace

import (
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/perfkb/perfkb/convert/otf2"
	"github.com/perfkb/perfkb/convert/trace/compensate"
)

// TestExportOTF2 exports an OTF2 archive written by the reference library
// (Debian's python3-otf2 running convert/otf2's generator), measured and
// compensated, checks the JSON against the format's rules and re-imports
// it with the same region statistics.
func TestExportOTF2(t *testing.T) {
	py := "/usr/bin/python3"
	if err := exec.Command(py, "-c", "import otf2").Run(); err != nil {
		t.Skipf("python3-otf2 is not installed (apt-get install python3-otf2): cannot write the OTF2 trace: %v", err)
	}
	dir := t.TempDir()
	if out, err := exec.Command(py, filepath.Join("..", "otf2", "testdata", "gen", "mpi_omp.py"), dir).CombinedOutput(); err != nil {
		t.Fatalf("generator: %v\n%s", err, out)
	}
	src, err := otf2.Open(filepath.Join(dir, "traces.otf2"))
	if err != nil {
		t.Fatal(err)
	}
	cal := &compensate.Calibration{OverheadUs: 0.5, Copy: []compensate.CopyPoint{{Bytes: 1, NsPerByte: 1}}}
	for _, model := range []*compensate.Model{nil, compensate.NewModel(cal, compensate.Upper)} {
		data := export(t, src, model)
		if err := CheckFormat(data); err != nil {
			t.Fatalf("export (compensated %v) breaks the format: %v", model != nil, err)
		}
		want := locStats(t, src)
		if model != nil {
			want = locStats(t, compensated(t, src, model))
		}
		if len(want) == 0 {
			t.Fatal("the OTF2 trace has no region statistics")
		}
		back := reimport(t, data)
		sameRegionStats(t, want, locStats(t, back))
		if model == nil {
			sameFullStats(t, fullStats(t, src), fullStats(t, back))
		} else {
			sameFullStats(t, fullStats(t, compensated(t, src, model)), fullStats(t, back))
		}
	}
}
