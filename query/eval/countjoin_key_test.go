package eval

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query/syntax"
)

// TestCountJoinKeySmallLarge counts a join of a small pattern (2 subjects
// with :small) and a large one (100 subjects with :big, two of them the
// small ones) on their shared subject: 2 by hand. Keyed on ?s, the large
// pattern is probed for the 2 keys; keyed on ?b (the large pattern's
// object, whose keys come sorted) it would be scanned whole, 100 quads to
// answer 2, so the key choice must take ?s.
func TestCountJoinKeySmallLarge(t *testing.T) {
	var b strings.Builder
	for i := range 100 {
		fmt.Fprintf(&b, "<http://e/s%d> <http://e/big> <http://e/o%d> .\n", i, i)
	}
	b.WriteString("<http://e/s0> <http://e/small> \"a\" .\n<http://e/s1> <http://e/small> \"b\" .\n")
	ds := native.OpenMemory()
	defer ds.Close()
	if _, err := rdfio.Load(context.Background(), ds, strings.NewReader(b.String()), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
		t.Fatal(err)
	}
	for _, where := range []string{"{ ?s <http://e/small> ?a . ?s <http://e/big> ?b }", "{ ?s <http://e/big> ?b . ?s <http://e/small> ?a }"} {
		text := "SELECT (COUNT(*) AS ?n) " + where
		q, err := syntax.ParseQuery(text, syntax.Options{})
		if err != nil {
			t.Fatal(err)
		}
		res, err := Query(context.Background(), ds, q, Options{})
		if err != nil {
			t.Fatal(err)
		}
		r, ok := res.Next()
		if !ok || r[0].Value != "2" {
			t.Fatalf("%s: got %v (%v), want 2", text, r, res.Err())
		}
		if _, more := res.Next(); more {
			t.Errorf("%s: more than one row", text)
		}
		if !strings.Contains(res.Explain(), "CountJoin on ?s ") {
			t.Errorf("%s: not keyed on ?s\n%s", text, res.Explain())
		}
	}
}
