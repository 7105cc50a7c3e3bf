package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestServeAdviceFlag(t *testing.T) {
	dir := filepath.Join("testdata", "advice")
	for _, tc := range []struct {
		name    string
		files   []string
		classes []string
		errText string // with exit code 2 when set
	}{
		{"own rule file", []string{filepath.Join(dir, "mine.rules")}, []string{"http://example.org/my-problems#SlowStartup", "http://www.par.univie.ac.at/project/scalea/perfonto#LateSender"}, ""},
		{"missing file", []string{filepath.Join(dir, "nope.rules")}, nil, "nope.rules: no such file"},
		{"advice without text", []string{filepath.Join(dir, "notext.rules")}, nil, "notext.rules:4:1: #@advice: no text for http://example.org/my#Thing"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := adviceFlags{files: tc.files}
			err := f.validate()
			if tc.errText != "" {
				if err == nil || exitCode(err) != exitUsage || !strings.Contains(err.Error(), tc.errText) {
					t.Fatalf("got %v (exit %d), want exit %d with %q", err, exitCode(err), exitUsage, tc.errText)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, a := range f.list {
				got = append(got, a.Class)
			}
			if strings.Join(got, " ") != strings.Join(tc.classes, " ") {
				t.Errorf("classes %v, want %v", got, tc.classes)
			}
		})
	}
}
