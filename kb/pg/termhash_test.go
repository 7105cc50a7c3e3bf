package pg_test

import (
	"context"
	"os"
	"strconv"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// TestTermHashEncoding pins the dictionary key stored for each term
// (testdata/termhash.tsv, computed with Python's hashlib from the
// documented encoding): a store's keys must never change, or a later load
// would add its terms twice.
func TestTermHashEncoding(t *testing.T) {
	ctx := context.Background()
	data, err := os.ReadFile("testdata/termhash.tsv")
	if err != nil {
		t.Fatal(err)
	}
	ds := newStore(t)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 5 {
			t.Fatalf("line %q: want 5 fields", line)
		}
		kind, err := strconv.Atoi(f[0])
		if err != nil {
			t.Fatal(err)
		}
		term := kb.Term{Kind: kb.TermKind(kind), Value: f[1], Datatype: f[2], Lang: f[3]}
		ids, err := ds.Intern(ctx, []kb.Term{term})
		if err != nil {
			t.Fatal(err)
		}
		var got string
		if err := pool.QueryRow(ctx, "SELECT encode(h, 'hex') FROM "+ds.Schema()+".terms WHERE id = $1", int64(ids[0])).Scan(&got); err != nil {
			t.Fatal(err)
		}
		if got != f[4] {
			t.Errorf("%v: key %s; want %s", term, got, f[4])
		}
	}
}
