package rules

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

func TestParseAdvice(t *testing.T) {
	src, err := os.ReadFile(filepath.Join("testdata", "advice", "mine.rules"))
	if err != nil {
		t.Fatal(err)
	}
	got, err := ParseAdvice("mine.rules", src)
	if err != nil {
		t.Fatal(err)
	}
	golden, err := os.ReadFile(filepath.Join("testdata", "advice", "mine.golden.json"))
	if err != nil {
		t.Fatal(err)
	}
	var want []Advice
	if err := json.Unmarshal(golden, &want); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(want) {
		t.Fatalf("got %d advice, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("advice %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}
}

func TestParseAdviceErrors(t *testing.T) {
	for _, tc := range []struct {
		file string
		line int
		msg  string
	}{
		{"undeclared.rules", 1, `undeclared prefix "perfonto:"`},
		{"notext.rules", 2, "no text for http://example.org/my#A"},
		{"twice.rules", 5, "second advice for http://example.org/my#A (the first is on line 2)"},
		{"noclass.rules", 1, "expected a problem class"},
		{"notprefixed.rules", 1, `expected a prefixed name (perfonto:LateSender) or <IRI>, found "LateSender"`},
	} {
		t.Run(tc.file, func(t *testing.T) {
			src, err := os.ReadFile(filepath.Join("testdata", "advice", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			list, err := ParseAdvice(tc.file, src)
			var ae *textpos.Error
			if !errors.As(err, &ae) {
				t.Fatalf("want a *textpos.Error, got %v (advice %+v)", err, list)
			}
			if ae.Pos.Source != tc.file || ae.Pos.Line != tc.line || ae.Pos.Column < 1 || !strings.HasPrefix(ae.Msg, "#@advice: ") || !strings.Contains(ae.Msg, tc.msg) {
				t.Errorf("got %q, want %s:%d: …%s…", err, tc.file, tc.line, tc.msg)
			}
		})
	}
}

// findingHead matches the head of a rule that asserts a finding:
// (?x perfonto:hasProblem ?f), (?f rdf:type perfonto:Class).
var findingHead = regexp.MustCompile(`perfonto:hasProblem (\?\w+)\), \((\?\w+) rdf:type perfonto:(\w+)\)`)

// Every problem class a shipped rule asserts has advice in the shipped
// rule sets, written in the file of one of the rules that find it.
func TestShippedAdviceCoversEveryProblemClass(t *testing.T) {
	advice, err := ShippedAdvice()
	if err != nil {
		t.Fatal(err)
	}
	const ns = ontology.Namespace
	byClass := map[string]Advice{}
	for _, a := range advice {
		byClass[a.Class] = a
		if len(a.Text) < 40 {
			t.Errorf("%s:%d: advice for %s is too short to help: %q", a.File, a.Line, a.Class, a.Text)
		}
	}
	files := map[string][]string{} // class -> files of the rules that assert it
	for _, name := range Names() {
		file, src, _ := Lookup(name)
		for _, m := range findingHead.FindAllStringSubmatch(string(src), -1) {
			if m[1] == m[2] {
				files[ns+m[3]] = append(files[ns+m[3]], file)
			}
		}
	}
	if len(files) < 13 {
		t.Fatalf("found only %d problem classes in the shipped rules: %v", len(files), files)
	}
	classes := make([]string, 0, len(files))
	for c := range files {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	for _, c := range classes {
		a, ok := byClass[c]
		if !ok {
			t.Errorf("no #@advice for %s (asserted in %v)", c, files[c])
			continue
		}
		found := false
		for _, f := range files[c] {
			found = found || f == a.File
		}
		if !found {
			t.Errorf("advice for %s is in %s, not beside a rule that finds it (%v)", c, a.File, files[c])
		}
	}
	for c, a := range byClass {
		if _, ok := files[c]; !ok {
			t.Errorf("%s:%d: advice for %s, which no shipped rule asserts", a.File, a.Line, c)
		}
	}
}
