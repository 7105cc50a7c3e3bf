package shacl

import (
	"context"
	"errors"
	"fmt"
	"runtime"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// loadTurtle reads a Turtle document into a fresh in-memory store.
func loadTurtle(t *testing.T, doc string) kb.Dataset {
	t.Helper()
	ds := native.OpenMemory()
	t.Cleanup(func() { ds.Close() })
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.Turtle, SourceName: "t.ttl", BaseIRI: "http://e/"}); err != nil {
		t.Fatal(err)
	}
	return ds
}

const testPrefixes = "@prefix sh: <http://www.w3.org/ns/shacl#> .\n@prefix ex: <http://e/> .\n"

// TestValidateParallelOrder: results come in the same order whatever the
// number of workers (3000 focus nodes, every other one failing).
func TestValidateParallelOrder(t *testing.T) {
	var b strings.Builder
	b.WriteString(testPrefixes)
	b.WriteString("ex:S a sh:NodeShape ; sh:targetSubjectsOf ex:p ; sh:property [ sh:path ex:q ; sh:minCount 1 ] .\n")
	for i := range 3000 {
		fmt.Fprintf(&b, "ex:n%d ex:p %d .\n", i, i)
		if i%2 == 0 {
			fmt.Fprintf(&b, "ex:n%d ex:q %d .\n", i, i)
		}
	}
	ds := loadTurtle(t, b.String())
	ctx := context.Background()
	shapes, err := Parse(ctx, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	var runs [][]string
	for _, procs := range []int{1, 4} {
		old := runtime.GOMAXPROCS(procs)
		rep, err := Validate(ctx, ds, shapes, Options{})
		runtime.GOMAXPROCS(old)
		if err != nil {
			t.Fatal(err)
		}
		var foci []string
		for _, r := range rep.Results {
			foci = append(foci, r.Focus.Value)
		}
		runs = append(runs, foci)
	}
	if len(runs[0]) != 1500 {
		t.Fatalf("%d results, want 1500", len(runs[0]))
	}
	if strings.Join(runs[0], " ") != strings.Join(runs[1], " ") {
		t.Error("results differ between 1 and 4 workers")
	}
}

// TestValidateRecursion: a shape that reaches itself through sh:node on
// cyclic data ends with ErrRecursion instead of overflowing the stack.
func TestValidateRecursion(t *testing.T) {
	ds := loadTurtle(t, testPrefixes+`
ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:property [ sh:path ex:next ; sh:node ex:S ] .
ex:a ex:next ex:b . ex:b ex:next ex:a .`)
	ctx := context.Background()
	shapes, err := Parse(ctx, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Validate(ctx, ds, shapes, Options{}); !errors.Is(err, ErrRecursion) {
		t.Errorf("err = %v, want ErrRecursion", err)
	}
}

// TestValidateCancelled: a cancelled context stops validation with its
// error.
func TestValidateCancelled(t *testing.T) {
	ds := loadTurtle(t, testPrefixes+"ex:S a sh:NodeShape ; sh:targetNode ex:a ; sh:nodeKind sh:IRI .")
	ctx, cancel := context.WithCancel(context.Background())
	shapes, err := Parse(ctx, ds, nil)
	if err != nil {
		t.Fatal(err)
	}
	cancel()
	if _, err := Validate(ctx, ds, shapes, Options{}); !errors.Is(err, context.Canceled) {
		t.Errorf("err = %v, want context.Canceled", err)
	}
}

// TestParseErrors: malformed shapes are refused with the shape named.
func TestParseErrors(t *testing.T) {
	for _, tc := range []struct{ name, doc, want string }{
		{"minCount not a number", `ex:S sh:targetNode ex:a ; sh:path ex:p ; sh:minCount "x" .`, `sh:minCount needs a non-negative integer, not "x"`},
		{"minCount on a node shape", `ex:S sh:targetNode ex:a ; sh:minCount 1 .`, "sh:minCount is allowed only on property shapes"},
		{"literal path", `ex:S sh:targetNode ex:a ; sh:path "p" ; sh:minCount 1 .`, `literal "p" is not a property path`},
		{"sparql without select", `ex:S sh:targetNode ex:a ; sh:sparql [ sh:message "m" ] .`, "has no sh:select string"},
		{"sparql syntax", `ex:S sh:targetNode ex:a ; sh:sparql [ sh:select "SELECT $this WHERE { $this ?p }" ] .`, "sh:select"},
		{"sparql ask", `ex:S sh:targetNode ex:a ; sh:sparql [ sh:select "ASK { $this ?p ?o }" ] .`, "is not a SELECT query"},
		{"sparql minus", `ex:S sh:targetNode ex:a ; sh:sparql [ sh:select "SELECT $this WHERE { $this ?p ?o MINUS { $this ?p 1 } }" ] .`, "MINUS is not allowed"},
		{"sparql assigns this", `ex:S sh:targetNode ex:a ; sh:sparql [ sh:select "SELECT $this WHERE { BIND(1 AS $this) }" ] .`, "may not be assigned"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ds := loadTurtle(t, testPrefixes+tc.doc)
			_, err := Parse(context.Background(), ds, nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), "<http://e/S>") {
				t.Errorf("err = %v, want one naming <http://e/S> and containing %q", err, tc.want)
			}
		})
	}
}
