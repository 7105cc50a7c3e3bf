package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestConvertSensorCommand(t *testing.T) {
	dir := t.TempDir()
	store := "--store=leveldb:" + filepath.Join(dir, "db")
	const base = "http://perfkb.example/site/innsbruck/"
	good := filepath.Join("..", "..", "convert", "sensor", "testdata", "fig63.xml")
	bad := filepath.Join(dir, "bad.xml")
	if err := os.WriteFile(bad, []byte("<sensordataentry SensorID=\"path.bandwidth.capacity.TCP\" ResourceID=\"a->b\"><![CDATA[<sensordata><eventtime>1</eventtime><bandwidth>fast</bandwidth></sensordata>]]></sensordataentry>\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	steps := []struct {
		name   string
		stdin  string
		args   []string
		code   int
		stdout []string
		stderr []string
	}{
		{"into the store", "", []string{"convert", "sensor", store, "--base", base, good}, 0, []string{"converted 6 records (sensorinit 1, path.bandwidth 4, sensorfinal 1)"}, nil},
		{"bad input leaves the store", "", []string{"convert", "sensor", store, "--base", base, bad}, 1, nil,
			[]string{"bad.xml:1:1", `element <bandwidth> = "fast" is not an xsd:double`, "unchanged"}},
		{"count unchanged", "", []string{"query", store, "--format", "tsv", "-e", "SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?m a <http://www.par.univie.ac.at/project/scalea/perfonto#PathBandwidthMeasurement> } }"}, 0, []string{"\n3"}, nil},
		{"stdin to N-Triples", "<sensordata SensorID=\"host.mem.used\" ResourceID=\"h\"><eventtime>5</eventtime><value unit=\"MB\">1.5</value></sensordata>",
			[]string{"convert", "sensor", "--base", base, "-o", "-", "-"}, 0, []string{`"1.5"^^<http://www.w3.org/2001/XMLSchema#double>`}, nil},
		{"no base", "", []string{"convert", "sensor", good}, 2, nil, []string{"--base is required"}},
		{"no file", "", []string{"convert", "sensor", "--base", base}, 2, nil, []string{"at least one FILE"}},
		{"missing file", "", []string{"convert", "sensor", "--base", base, filepath.Join(dir, "none.xml")}, 2, nil, []string{"none.xml"}},
	}
	for _, st := range steps {
		code, stdout, stderr := runCLI(t, st.stdin, st.args...)
		if code != st.code {
			t.Fatalf("%s: exit %d, want %d\nstdout: %s\nstderr: %s", st.name, code, st.code, stdout, stderr)
		}
		for _, s := range st.stdout {
			if !strings.Contains(stdout, s) {
				t.Errorf("%s: stdout lacks %q:\n%s", st.name, s, stdout)
			}
		}
		for _, s := range st.stderr {
			if !strings.Contains(stderr, s) {
				t.Errorf("%s: stderr lacks %q:\n%s", st.name, s, stderr)
			}
		}
	}
}
