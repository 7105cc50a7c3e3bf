package shacl

import (
	"context"
	"sort"
	"strings"
	"testing"
)

// TestSPARQLConstraint checks sh:sparql results worked out by hand: a
// property shape whose query uses $PATH and binds ?value, with a message
// template, over region summaries whose time must not be negative; the
// focus nodes are blank nodes (as converters write anonymous summaries)
// and IRIs.
func TestSPARQLConstraint(t *testing.T) {
	ds := loadTurtle(t, testPrefixes+`
ex:S a sh:NodeShape ; sh:targetClass ex:Summary ;
  sh:property [ sh:path ex:time ;
    sh:sparql [ sh:message "time {?value} of {$this} is negative" ;
      sh:select "SELECT $this ?value WHERE { $this $PATH ?value . FILTER(?value < 0) }" ] ] .
ex:ok a ex:Summary ; ex:time 1.5 .
ex:bad a ex:Summary ; ex:time -2 , 3 .
[] a ex:Summary ; ex:time -7 .
[] a ex:Summary .`)
	ctx := context.Background()
	shapes, err := Parse(ctx, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := Validate(ctx, ds, shapes, Options{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, r := range rep.Results {
		focus := r.Focus.String()
		if r.Focus.IsBlank() {
			focus = "_:blank"
		}
		if r.Component != sh("SPARQLConstraintComponent") || r.Path == nil || r.Path.String() != "<http://e/time>" || r.SourceConstraint.IsZero() {
			t.Errorf("result %+v: want the SPARQL component, path ex:time and the sh:sparql node", r)
		}
		msg := ""
		if len(r.Messages) == 1 {
			msg = strings.Replace(r.Messages[0].Value, r.Focus.String(), "F", 1)
		}
		got = append(got, focus+" "+r.Value.Value+" "+msg)
	}
	sort.Strings(got)
	want := []string{
		"<http://e/bad> -2 time -2 of F is negative",
		"_:blank -7 time -7 of F is negative",
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") || rep.Conforms {
		t.Errorf("results:\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
