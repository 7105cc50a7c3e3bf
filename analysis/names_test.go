package analysis

import (
	"strings"
	"testing"
)

func TestIRINames(t *testing.T) {
	const site = "http://perfkb.example/site/"
	for _, tc := range []struct {
		name string
		want map[string]string // IRI → name
	}{
		{"one experiment per name", map[string]string{
			site + "innsbruck/exp/1": "1",
			site + "innsbruck/exp/2": "2",
		}},
		{"the same name at three sites", map[string]string{
			site + "innsbruck/exp/1": "innsbruck/…/1",
			site + "vienna/exp/1":    "vienna/…/1",
			site + "linz/exp/1":      "linz/…/1",
			site + "linz/exp/2":      "2",
		}},
		{"two segments are written out", map[string]string{
			"http://a.example/x/m/1": "m/1",
			"http://a.example/x/n/1": "n/1",
		}},
		// a/m/z and a/n/z are unique from three segments on, but "a/…/z"
		// would name both: they keep the three.
		{"abbreviations that would collide", map[string]string{
			"http://h.example/r/a/m/z": "a/m/z",
			"http://h.example/r/a/n/z": "a/n/z",
			"http://h.example/q/m/z":   "q/m/z",
			"http://h.example/q/n/z":   "q/n/z",
		}},
		{"fragment and slash", map[string]string{
			"http://h.example/o#Poor":  "o/Poor",
			"http://h.example/p#Poor":  "p/Poor",
			"urn:x-perfkb:analysis":    "urn:x-perfkb:analysis",
			"http://h.example/p#Other": "Other",
		}},
	} {
		var iris []string
		for iri := range tc.want {
			iris = append(iris, iri, iri) // repeats count once
		}
		got := iriNames(iris)
		for iri, want := range tc.want {
			if got[iri] != want {
				t.Errorf("%s: %s named %q, want %q", tc.name, iri, got[iri], want)
			}
		}
	}
}

// TestTableTellsSitesApart writes a table whose rows are experiments of
// the same name at two sites: the people's format must not print the two
// alike, while CSV keeps the IRIs whole.
func TestTableTellsSitesApart(t *testing.T) {
	const site = "http://perfkb.example/site/"
	tab := Table{Name: "scaling", Columns: []string{"experiment", "version", "subject"}, Hide: []string{"subject"}, Rows: [][]any{
		{site + "innsbruck/exp/1", site + "innsbruck/app/Stommel/v1", "urn:x:a"},
		{site + "vienna/exp/1", site + "vienna/app/Stommel/v1", "urn:x:b"},
		{site + "vienna/exp/2", site + "vienna/app/Stommel/v1", "urn:x:c"},
	}}
	var b strings.Builder
	if err := WriteTables(&b, "table", []Table{tab}); err != nil {
		t.Fatal(err)
	}
	var rows [][]string
	for _, l := range strings.Split(strings.TrimSpace(b.String()), "\n")[2:] {
		rows = append(rows, strings.Fields(l))
	}
	want := [][]string{{"innsbruck/…/1", "innsbruck/…/v1"}, {"vienna/…/1", "vienna/…/v1"}, {"2", "vienna/…/v1"}}
	if len(rows) != len(want) {
		t.Fatalf("table:\n%s", b.String())
	}
	for i := range want {
		if strings.Join(rows[i], " ") != strings.Join(want[i], " ") {
			t.Errorf("row %d: %q, want %q\n%s", i, rows[i], want[i], b.String())
		}
	}
	b.Reset()
	if err := WriteTables(&b, "csv", []Table{tab}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(b.String(), site+"vienna/exp/1,"+site+"vienna/app/Stommel/v1,urn:x:b\n") {
		t.Errorf("csv lost the IRIs:\n%s", b.String())
	}
}
