package eval

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

// valueOrderCases are numeric FILTERs over ex:w's objects
// (testdata/valueorder.trig), each with the subjects (one object each)
// whose object passes, worked out by hand with SPARQL's numeric type
// promotion: integers and decimals compare exactly with each other, meet
// a double as the double nearest them, and meet a float as a float; NaN
// fails every comparison; strings, booleans, dates, the ill-typed
// integer and the IRI make the comparison an error, dropping the row.
// Nearest doubles used below: 10.000000000000000000001 and
// 9.999999999999999999999 are both 10.0 as doubles; 9007199254740993
// (2^53 + 1) is 2^53 as a double; "0.1"^^xsd:float is 0.100000001490116…
// and 0.1000000001 promoted to a float is that same float.
var valueOrderCases = []struct {
	name, filter string
	want         string // subjects, space-separated, in IRI order
}{
	// The decimals whose nearest double is 10.0 are decided exactly: d1
	// passes, d2 does not. The float 10 equals 10 promoted to a float.
	{"ge-int", `FILTER(?o >= 10)`, "d1 d3 f10 ibig ibig2 inf short x10"},
	{"gt-int", `FILTER(?o > 10)`, "d1 ibig ibig2 inf short"},
	{"gt-int-reversed", `FILTER(10 < ?o)`, "d1 ibig ibig2 inf short"},
	// 2^53 + 1 > 2^53 exactly as integers; as doubles the two are equal.
	{"gt-2^53", `FILTER(?o > 9007199254740992)`, "ibig inf"},
	{"gt-2^53-double", `FILTER(?o > 9007199254740992.0e0)`, "inf"},
	// A double constant: everything meets it as a double, so d1 and d2
	// (10.0 as doubles) both pass <= 10.
	{"le-double", `FILTER(?o <= 1.0e1)`, "d1 d2 d3 dec01 f1 f10 i0 i5 in3 ninf x10 xnz xpz"},
	// The float 0.1 promoted from the decimal is the stored float; the
	// decimal 0.1 equals neither.
	{"eq-float-promotion", `FILTER(?o = 0.1000000001)`, "f1"},
	{"lt-decimal", `FILTER(?o < 0.1)`, "i0 in3 ninf xnz xpz"},
	// -0 equals 0 and is not below -0.
	{"eq-zero", `FILTER(?o = 0)`, "i0 xnz xpz"},
	{"lt-negative-zero", `FILTER(?o < -0.0e0)`, "in3 ninf"},
	// A range of two conjuncts.
	{"range", `FILTER(?o > 0) FILTER(?o < 10)`, "d2 dec01 f1 i5"},
	{"range-and", `FILTER(?o > 0 && ?o < 10)`, "d2 dec01 f1 i5"},
	// Nothing passes.
	{"none", `FILTER(?o > 1e400)`, ""},
}

// trigStores loads a TriG file into the reference memory store, the
// native in-memory store and a native store on disk.
func trigStores(t *testing.T, file, base string) map[string]kb.Dataset {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	disk, err := native.Open(context.Background(), t.TempDir(), native.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = disk.Close() })
	stores := map[string]kb.Dataset{"kbtest": kbtest.NewMemory(), "native-mem": native.OpenMemory(), "native-disk": disk}
	for name, ds := range stores {
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(string(data)), rdfio.LoadOptions{Format: rdfio.TriG, BaseIRI: base}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
	}
	return stores
}

// subjects runs a grouped query and returns its ?s values without the
// http://e/ prefix, space-separated.
func subjects(t *testing.T, ds kb.Dataset, query string, opts Options) string {
	t.Helper()
	rows, err := run(t, ds, query, opts)
	if err != nil {
		t.Fatalf("%s: %v", query, err)
	}
	var got []string
	for _, r := range rows {
		got = append(got, strings.TrimPrefix(r[0].Value, "http://e/"))
	}
	return strings.Join(got, " ")
}

// TestValueOrder checks numeric FILTERs answered from the value order
// (valueorder.go) against the hand-worked answers, with the order on and
// off, the fused scan on and off, optimized and not, on every store, as a
// GROUP BY listing the subjects and as an ungrouped COUNT over the union
// default graph (ex:i5's triple, in two graphs, counts once).
func TestValueOrder(t *testing.T) {
	stores := trigStores(t, "testdata/valueorder.trig", "http://e/")
	defer func() { valueOrderOn, aggScanOn = true, true }()
	for name, ds := range stores {
		before := valueOrderRuns.Load()
		for _, c := range valueOrderCases {
			grouped := `SELECT ?s (COUNT(*) AS ?n) { ?s <http://e/w> ?o ` + c.filter + ` } GROUP BY ?s ORDER BY ?s`
			count := `SELECT (COUNT(?s) AS ?n) { ?s <http://e/w> ?o ` + c.filter + ` }`
			want := 0
			if c.want != "" {
				want = len(strings.Fields(c.want))
			}
			for _, way := range []struct{ order, scan, noOpt bool }{
				{true, true, false}, {true, true, true}, {false, true, false}, {false, false, false}, {false, false, true},
			} {
				valueOrderOn, aggScanOn = way.order, way.scan
				opts := Options{NoOptimize: way.noOpt}
				if got := subjects(t, ds, grouped, opts); got != c.want {
					t.Errorf("%s %s %+v: got %q, want (by hand) %q", name, c.name, way, got, c.want)
				}
				rows, err := run(t, ds, count, opts)
				if err != nil {
					t.Fatalf("%s %s: %v", name, c.name, err)
				}
				if got := rows[0][0].Value; got != strconv.Itoa(want) {
					t.Errorf("%s %s %+v: COUNT = %s, want %d", name, c.name, way, got, want)
				}
			}
		}
		if ran := valueOrderRuns.Load() - before; strings.HasPrefix(name, "native") && ran == 0 {
			t.Errorf("%s: no query read the value order", name)
		}
	}
}

// TestValueOrderAfterWrite: a write after the order was built is seen by
// the next query (the order belongs to the state of the store it was
// built from).
func TestValueOrderAfterWrite(t *testing.T) {
	for name, ds := range trigStores(t, "testdata/valueorder.trig", "http://e/") {
		q := `SELECT ?s (COUNT(*) AS ?n) { ?s <http://e/w> ?o FILTER(?o > 10) } GROUP BY ?s ORDER BY ?s`
		if got, want := subjects(t, ds, q, Options{}), "d1 ibig ibig2 inf short"; got != want {
			t.Fatalf("%s: got %q, want %q", name, got, want)
		}
		add := `@prefix ex: <http://e/> . ex:g1 { ex:a11 ex:w 11 . ex:a12 ex:w "12"^^<http://www.w3.org/2001/XMLSchema#double> . }`
		if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(add), rdfio.LoadOptions{Format: rdfio.TriG}); err != nil {
			t.Fatal(err)
		}
		if got, want := subjects(t, ds, q, Options{}), "a11 a12 d1 ibig ibig2 inf short"; got != want {
			t.Errorf("%s after a write: got %q, want %q", name, got, want)
		}
	}
}
