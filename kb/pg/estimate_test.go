package pg_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/pg"
)

// TestCountEstimate: an estimate (Count with exact false) of a pattern
// with a bound predicate and object is the count the process last made,
// until the predicate's quads change by more than an eighth; another
// process's writes (a second Store on the same schema) are seen through
// the counts table. Exact counts always count. Each step adds quads
// (e:p e:X) in graph e:g through the second store; the wants are worked
// out by hand from the steps.
func TestCountEstimate(t *testing.T) {
	ctx := context.Background()
	a := newStore(t)
	b, err := pg.OpenPool(ctx, pool, pg.Options{Schema: a.Schema()})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := b.Intern(ctx, []kb.Term{kb.IRI("http://e/p"), kb.IRI("http://e/X"), kb.IRI("http://e/g")})
	if err != nil {
		t.Fatal(err)
	}
	p, x, g := ids[0], ids[1], ids[2]
	added := 0
	add := func(n int) {
		t.Helper()
		terms := make([]kb.Term, n)
		for i := range terms {
			terms[i] = kb.IRI(fmt.Sprintf("http://e/s%d", added+i))
		}
		subj, err := b.Intern(ctx, terms)
		if err != nil {
			t.Fatal(err)
		}
		var d kb.Delta
		for _, s := range subj {
			d.Add = append(d.Add, kb.Quad{S: s, P: p, O: x, G: g})
		}
		if err := b.Apply(ctx, d); err != nil {
			t.Fatal(err)
		}
		added += n
	}
	pat := kb.Pattern{P: p, O: x, G: g}
	steps := []struct {
		name       string
		add        int
		est, exact int64
	}{
		// Below minEstimate (1024): counted every time.
		{"small", 500, 500, 500},
		{"small again", 10, 510, 510},
		// 2,000: counted and remembered.
		{"large", 1490, 2000, 2000},
		// 2,100 quads of e:p: 100 ≤ 2,100/8, the estimate stays.
		{"within an eighth", 100, 2000, 2100},
		// 2,500: 500 > 2,500/8 since the count, counted again.
		{"past an eighth", 400, 2500, 2500},
	}
	for _, st := range steps {
		add(st.add)
		est, err := a.Count(ctx, pat, false)
		if err != nil {
			t.Fatal(err)
		}
		exact, err := a.Count(ctx, pat, true)
		if err != nil {
			t.Fatal(err)
		}
		if est != st.est || exact != st.exact {
			t.Errorf("%s: estimate %d, exact %d; want %d, %d", st.name, est, exact, st.est, st.exact)
		}
	}
}
