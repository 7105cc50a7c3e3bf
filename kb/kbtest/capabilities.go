package kbtest

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"testing"
	"time"
	"unsafe"

	"github.com/perfkb/perfkb/kb"
)

// capabilityTests check the contract of each optional capability declared
// in kb/capabilities.go. Each opens a fresh store and skips, saying so, when
// the store does not declare the capability.
var capabilityTests = []struct {
	name string
	fn   func(t *testing.T, ds kb.Dataset)
}{
	{"TermTable", testTermTable},
	{"TermTableConcurrentIntern", testTermTableConcurrent},
	{"QuadScannerAgreesWithMatch", testScannerAgrees},
	{"QuadScannerStops", testScannerStops},
	{"QuadScannerReentrantAndSnapshot", testScannerReentrant},
	{"QuadSourceSnapshot", testQuadSource},
	{"PredicateStats", testPredicateStats},
	{"GraphLast", testGraphLast},
	{"ConcurrentInterner", testConcurrentInterner},
	{"CommitReporter", testCommitReporter},
	{"TermAdder", testTermAdder},
	{"TermAdderAbort", testTermAdderAbort},
	{"BGPMatcher", testBGPMatcher},
	{"ClosureMatcher", testClosureMatcher},
	{"ChangeReporter", testChangeReporter},
	{"ChangeReporterLarge", testChangeReporterLarge},
}

// capability returns ds as a C, or skips the test.
func capability[C any](t *testing.T, ds kb.Dataset) C {
	t.Helper()
	c, ok := ds.(C)
	if !ok {
		t.Skipf("the store (%T) does not implement %v", ds, reflect.TypeFor[C]())
	}
	return c
}

func testTermTable(t *testing.T, ds kb.Dataset) {
	tt := capability[kb.TermTable](t, ds)
	ctx := context.Background()
	f := newFixture(t, ds)
	terms := sampleTerms()
	ids := mustIntern(t, ds, terms...)
	var maxID kb.ID
	held := 0
	check := func(id kb.ID) {
		maxID = max(maxID, id)
		got, ok := tt.TermOf(id)
		if !ok {
			return // allowed: the caller then calls Resolve
		}
		held++
		want, err := ds.Resolve(ctx, id)
		if err != nil {
			t.Errorf("TermOf(%d) = %v, true but Resolve fails: %v", id, got, err)
			return
		}
		if got != want {
			t.Errorf("TermOf(%d) = %#v; Resolve gives %#v", id, got, want)
		}
	}
	for i, id := range ids {
		check(id)
		if got, ok := tt.TermOf(id); ok && got != terms[i] {
			t.Errorf("TermOf(Intern(%#v)) = %#v", terms[i], got)
		}
	}
	for _, id := range f.ids {
		check(id)
	}
	t.Logf("TermOf held %d of %d IDs in memory", held, len(ids)+len(f.ids))
	for _, id := range []kb.ID{0, maxID + 1, maxID + 1000, 1 << 40} {
		if got, ok := tt.TermOf(id); ok {
			t.Errorf("TermOf(%d) = %#v, true; want false for an ID never issued", id, got)
		}
	}
}

// testTermTableConcurrent calls TermOf while other goroutines intern new
// terms (the query evaluator decodes while a writer interns); under -race
// this finds unsynchronised dictionary growth.
func testTermTableConcurrent(t *testing.T, ds kb.Dataset) {
	tt := capability[kb.TermTable](t, ds)
	terms := sampleTerms()
	ids := mustIntern(t, ds, terms...)
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 4)
	for w := 0; w < 2; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 300; i++ {
				if _, err := ds.Intern(ctx, []kb.Term{iri(fmt.Sprintf("grow-%d-%d", w, i))}); err != nil {
					errs <- err
					return
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		for round := 0; round < 300; round++ {
			for i, id := range ids {
				if got, ok := tt.TermOf(id); ok && got != terms[i] {
					errs <- fmt.Errorf("TermOf(%d) = %#v during interning; want %#v", id, got, terms[i])
					return
				}
			}
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// scanAll collects what ScanQuads yields for p.
func scanAll(t *testing.T, sc kb.QuadScanner, p kb.Pattern) []kb.Quad {
	t.Helper()
	var got []kb.Quad
	if err := sc.ScanQuads(context.Background(), p, func(q kb.Quad) bool {
		got = append(got, q)
		return true
	}); err != nil {
		t.Fatalf("ScanQuads(%+v): %v", p, err)
	}
	return got
}

func testScannerAgrees(t *testing.T, ds kb.Dataset) {
	sc := capability[kb.QuadScanner](t, ds)
	f := newFixture(t, ds)
	unused := mustIntern(t, ds, iri("interned-but-unused"))[0]
	id := f.ids
	probes := append([]kb.Quad(nil), f.quads...)
	probes = append(probes,
		kb.Quad{S: id["s1"], P: id["p3"], O: id["o1"], G: id["g2"]},
		kb.Quad{S: unused, P: id["p1"], O: unused, G: unused},
		kb.Quad{S: 1 << 40, P: 1 << 40, O: 1 << 40, G: 1 << 40},
	)
	for mask := 0; mask < 16; mask++ {
		for _, probe := range probes {
			p := patternFrom(probe, mask)
			got := scanAll(t, sc, p)
			for _, q := range got {
				if !p.Matches(q) {
					t.Errorf("ScanQuads(%+v) yielded %v, which does not match", p, q)
				}
			}
			sameQuads(t, fmt.Sprintf("ScanQuads(%+v) against Match", p), got, mustMatch(t, ds, p))
		}
	}
}

func testScannerStops(t *testing.T, ds kb.Dataset) {
	sc := capability[kb.QuadScanner](t, ds)
	f := newFixture(t, ds)
	for _, p := range []kb.Pattern{{}, {P: f.ids["p1"]}, {G: f.ids["g1"]}} {
		if n := len(filter(f.quads, p)); n < 2 {
			t.Fatalf("fixture: pattern %+v matches %d quads; the test needs 2 or more", p, n)
		}
		calls := 0
		err := sc.ScanQuads(context.Background(), p, func(kb.Quad) bool {
			calls++
			return false
		})
		if err != nil {
			t.Errorf("ScanQuads(%+v) stopped by fn: %v; want nil", p, err)
		}
		if calls != 1 {
			t.Errorf("ScanQuads(%+v) called fn %d times after it returned false; want 1", p, calls)
		}
	}
}

// testScannerReentrant calls the store from inside fn, and waits there for
// a writer: a scanner that holds a lock across fn deadlocks (the test fails
// on a timeout instead of hanging). The writer's quad must not show up in
// the running scan, which sees a snapshot.
func testScannerReentrant(t *testing.T, ds kb.Dataset) {
	sc := capability[kb.QuadScanner](t, ds)
	f := newFixture(t, ds)
	ctx := context.Background()
	extra := mustIntern(t, ds, iri("written-during-scan"))[0]
	added := kb.Quad{S: extra, P: f.ids["p1"], O: f.ids["o1"], G: f.ids["g1"]}
	done := make(chan error, 1)
	go func() {
		var got []kb.Quad
		first := true
		err := sc.ScanQuads(ctx, kb.Pattern{P: f.ids["p1"]}, func(q kb.Quad) bool {
			got = append(got, q)
			if !first {
				return true
			}
			first = false
			if _, err := ds.Count(ctx, kb.Pattern{S: q.S}, true); err != nil {
				done <- fmt.Errorf("Count inside ScanQuads: %w", err)
				return false
			}
			if _, err := kb.Collect(ds.Match(ctx, kb.Pattern{O: q.O})); err != nil {
				done <- fmt.Errorf("Match inside ScanQuads: %w", err)
				return false
			}
			inner := 0
			if err := sc.ScanQuads(ctx, kb.Pattern{G: q.G}, func(kb.Quad) bool { inner++; return true }); err != nil || inner == 0 {
				done <- fmt.Errorf("ScanQuads inside ScanQuads: %d quads, %v", inner, err)
				return false
			}
			if err := ds.Apply(ctx, kb.Delta{Add: []kb.Quad{added}}); err != nil {
				done <- fmt.Errorf("Apply inside ScanQuads: %w", err)
				return false
			}
			return true
		})
		if err != nil {
			done <- err
			return
		}
		for _, q := range got {
			if q == added {
				done <- fmt.Errorf("the scan yielded %v, added by a write after the scan began", q)
				return
			}
		}
		if len(got) != len(filter(f.quads, kb.Pattern{P: f.ids["p1"]})) {
			done <- fmt.Errorf("the scan yielded %d quads; the snapshot holds %d", len(got), len(filter(f.quads, kb.Pattern{P: f.ids["p1"]})))
			return
		}
		done <- nil
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second):
		t.Fatal("ScanQuads deadlocked: fn's calls into the store (Count, Match, ScanQuads, Apply) did not return within 20s")
	}
	if got := mustMatch(t, ds, kb.Pattern(added)); len(got) != 1 {
		t.Errorf("the quad written during the scan is not stored afterwards")
	}
}

func testQuadSource(t *testing.T, ds kb.Dataset) {
	src := capability[kb.QuadSource](t, ds)
	f := newFixture(t, ds)
	type held struct {
		p     kb.Pattern
		slice []kb.Quad
		copy  []kb.Quad
	}
	var snapshots []held
	answered := 0
	for mask := 0; mask < 16; mask++ {
		for _, probe := range f.quads {
			p := patternFrom(probe, mask)
			quads, ok := src.MatchQuads(p)
			if !ok {
				continue
			}
			answered++
			in := make(map[kb.Quad]bool, len(quads))
			for _, q := range quads {
				in[q] = true
			}
			for _, q := range mustMatch(t, ds, p) {
				if !in[q] {
					t.Errorf("MatchQuads(%+v) lacks %v, which Match yields", p, q)
				}
			}
			snapshots = append(snapshots, held{p, quads, append([]kb.Quad(nil), quads...)})
		}
	}
	t.Logf("MatchQuads answered %d of %d patterns", answered, 16*len(f.quads))
	// Writes must leave the slices already handed out unchanged.
	extra := mustIntern(t, ds, iri("added-after-snapshot"))[0]
	var adds []kb.Quad
	for _, q := range f.quads {
		adds = append(adds, kb.Quad{S: q.S, P: q.P, O: extra, G: q.G}, kb.Quad{S: extra, P: q.P, O: q.O, G: q.G})
	}
	mustApply(t, ds, kb.Delta{Remove: f.quads[:len(f.quads)/2], Add: adds})
	for _, s := range snapshots {
		if len(s.slice) != len(s.copy) {
			t.Fatalf("internal: snapshot length changed")
		}
		for i := range s.slice {
			if s.slice[i] != s.copy[i] {
				t.Errorf("MatchQuads(%+v): element %d changed from %v to %v after a write", s.p, i, s.copy[i], s.slice[i])
				break
			}
		}
	}
}

// testGraphLast writes the fixture and a few thousand more quads, then
// copies of some of the fixture's triples in other graphs and a removal
// in a small second delta (stores that keep recent writes apart from the
// rest must still interleave the two), and checks that every match with
// the graph unbound yields each triple's quads together.
func testGraphLast(t *testing.T, ds kb.Dataset) {
	gl := capability[kb.GraphLast](t, ds)
	if !gl.GraphLast() {
		t.Skipf("the store (%T) implements kb.GraphLast but reports false", ds)
	}
	f := newFixture(t, ds)
	id := f.ids
	const side = 72
	names := []kb.Term{iri("g4"), iri("s0"), iri("g5")}
	for i := range side {
		names = append(names, iri(fmt.Sprintf("filler%d", i)))
	}
	more := mustIntern(t, ds, names...)
	g4, s0, g5, filler := more[0], more[1], more[2], more[3:]
	var bulk []kb.Quad
	for _, s := range filler {
		for _, o := range filler {
			bulk = append(bulk, kb.Quad{S: s, P: id["p1"], O: o, G: g5})
		}
	}
	mustApply(t, ds, kb.Delta{Add: bulk})
	var add []kb.Quad
	for _, q := range f.quads {
		if q.G != id["g3"] {
			add = append(add, kb.Quad{S: q.S, P: q.P, O: q.O, G: g4})
		}
	}
	add = append(add, kb.Quad{S: s0, P: id["p1"], O: id["o1"], G: g4}, kb.Quad{S: id["s1"], P: id["p1"], O: id["o1"], G: id["g3"]})
	mustApply(t, ds, kb.Delta{Add: add, Remove: []kb.Quad{f.quads[1]}})
	probes := append(mustMatch(t, ds, kb.Pattern{G: id["g1"]}), add...)
	grouped := func(what string, got []kb.Quad) {
		done := map[[3]kb.ID]bool{}
		for i, q := range got {
			tr := [3]kb.ID{q.S, q.P, q.O}
			if i > 0 && [3]kb.ID{got[i-1].S, got[i-1].P, got[i-1].O} == tr {
				continue
			}
			if done[tr] {
				t.Errorf("%s: triple %v comes again at position %d of %d, after other triples", what, tr, i, len(got))
				return
			}
			done[tr] = true
		}
	}
	sc, scans := ds.(kb.QuadScanner)
	for mask := 0; mask < 8; mask++ {
		for _, probe := range probes {
			p := patternFrom(probe, mask)
			grouped(fmt.Sprintf("Match(%+v)", p), mustMatch(t, ds, p))
			if scans {
				grouped(fmt.Sprintf("ScanQuads(%+v)", p), scanAll(t, sc, p))
			}
		}
	}
}

func testPredicateStats(t *testing.T, ds kb.Dataset) {
	ps := capability[kb.PredicateStats](t, ds)
	f := newFixture(t, ds)
	unused := mustIntern(t, ds, iri("predicate-without-quads"))[0]
	known := 0
	for _, name := range []string{"p1", "p2", "p3"} {
		p := f.ids[name]
		n := int64(len(filter(f.quads, kb.Pattern{P: p})))
		s, o, ok := ps.PredicateDistinct(p)
		if !ok {
			continue
		}
		known++
		if s < 1 || s > n || o < 1 || o > n {
			t.Errorf("PredicateDistinct(%s) = %d subjects, %d objects; %s has %d quads, so each must be in [1, %d]", name, s, o, name, n, n)
		}
	}
	t.Logf("PredicateDistinct knew %d of 3 predicates", known)
	for _, p := range []kb.ID{0, unused, 1 << 40} {
		if s, o, ok := ps.PredicateDistinct(p); ok {
			t.Errorf("PredicateDistinct(%d) = %d, %d, true for a predicate with no quads; want ok=false", p, s, o)
		}
	}
}

// testConcurrentInterner interns overlapping term sets from several
// goroutines, each from strings that alias its own byte buffer, which it
// overwrites as soon as Intern returns (what rdfio.Load does with its read
// buffers). IDs must agree across goroutines, and Resolve must still give
// the original terms.
func testConcurrentInterner(t *testing.T, ds kb.Dataset) {
	ci := capability[kb.ConcurrentInterner](t, ds)
	if !ci.InternsConcurrently() {
		t.Skipf("the store (%T) implements kb.ConcurrentInterner but reports false", ds)
	}
	ctx := context.Background()
	const workers, n = 8, 400
	want := make([]kb.Term, n)
	for i := range want {
		switch i % 4 {
		case 0:
			want[i] = iri(fmt.Sprintf("concurrent-%d", i))
		case 1:
			want[i] = kb.Literal(fmt.Sprint(i), xsdInt)
		case 2:
			want[i] = kb.LangLiteral(fmt.Sprintf("text %d", i), "en")
		default:
			want[i] = kb.Blank(fmt.Sprintf("cb%d", i))
		}
	}
	got := make([][]kb.ID, workers)
	errs := make([]error, workers)
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			// Each worker interns the terms in its own rotation, in batches.
			ids := make([]kb.ID, n)
			for start := 0; start < n; start += 50 {
				var buf []byte
				batch := make([]kb.Term, 0, 50)
				idx := make([]int, 0, 50)
				for k := start; k < start+50; k++ {
					i := (k + w*37) % n
					idx = append(idx, i)
					batch = append(batch, want[i])
				}
				for _, tm := range batch {
					buf = append(buf, tm.Value...)
					buf = append(buf, tm.Datatype...)
					buf = append(buf, tm.Lang...)
				}
				off := 0
				alias := func(s string) string {
					if s == "" {
						return ""
					}
					out := unsafe.String(&buf[off], len(s))
					off += len(s)
					return out
				}
				for j, tm := range batch {
					batch[j] = kb.Term{Kind: tm.Kind, Value: alias(tm.Value), Datatype: alias(tm.Datatype), Lang: alias(tm.Lang)}
				}
				out, err := ds.Intern(ctx, batch)
				if err != nil {
					errs[w] = err
					return
				}
				for j := range buf {
					buf[j] = '#' // the store must not have kept these bytes
				}
				for j, id := range out {
					ids[idx[j]] = id
				}
			}
			got[w] = ids
		}()
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatalf("concurrent Intern: %v", err)
	}
	seen := make(map[kb.ID]int, n)
	for i := 0; i < n; i++ {
		for w := 1; w < workers; w++ {
			if got[w][i] != got[0][i] {
				t.Fatalf("term %#v got ID %d on goroutine 0 and %d on goroutine %d", want[i], got[0][i], got[w][i], w)
			}
		}
		if j, dup := seen[got[0][i]]; dup {
			t.Fatalf("terms %#v and %#v got the same ID %d", want[j], want[i], got[0][i])
		}
		seen[got[0][i]] = i
		term, err := ds.Resolve(ctx, got[0][i])
		if err != nil || term != want[i] {
			t.Errorf("Resolve(%d) = %#v, %v; want %#v (did the store keep the caller's bytes?)", got[0][i], term, err, want[i])
		}
		if id, ok, err := ds.Lookup(ctx, want[i]); err != nil || !ok || id != got[0][i] {
			t.Errorf("Lookup(%#v) = %d, %v, %v; want %d", want[i], id, ok, err, got[0][i])
		}
	}
}

func testCommitReporter(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	quads := genQuads(t, ds, "progress", 3000)
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		t.Fatalf("BeginBulk: %v", err)
	}
	defer func() { _ = bw.Abort() }()
	cr, ok := bw.(kb.CommitReporter)
	if !ok {
		t.Skipf("the store's BulkWriter (%T) does not implement kb.CommitReporter", bw)
	}
	type call struct{ done, total int64 }
	var calls []call
	cr.SetCommitProgress(func(done, total int64) { calls = append(calls, call{done, total}) })
	if err := bw.Add(ctx, quads); err != nil {
		t.Fatalf("Add: %v", err)
	}
	if err := bw.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	if len(calls) == 0 {
		t.Fatalf("Commit of %d quads never called the progress function", len(quads))
	}
	for i, c := range calls {
		if c.done > c.total || c.done < 0 {
			t.Errorf("progress call %d: done %d, total %d", i, c.done, c.total)
		}
		if i > 0 && c.done < calls[i-1].done {
			t.Errorf("progress went back from %d to %d", calls[i-1].done, c.done)
		}
	}
	if last := calls[len(calls)-1]; last.done != last.total {
		t.Errorf("the last progress call of a successful Commit is %d of %d; want done == total", last.done, last.total)
	}
	if n := len(allQuads(t, ds)); n != len(quads) {
		t.Errorf("after the reported Commit the store holds %d quads; want %d", n, len(quads))
	}
}

// termQuads returns the fixture's quads as terms.
func termQuads(t *testing.T, ds kb.Dataset, quads []kb.Quad) map[kb.TermQuad]bool {
	t.Helper()
	out := make(map[kb.TermQuad]bool, len(quads))
	for _, q := range quads {
		tq, err := kb.ResolveQuad(context.Background(), ds, q)
		if err != nil {
			t.Fatalf("ResolveQuad(%+v): %v", q, err)
		}
		out[tq] = true
	}
	return out
}

// termAdderLoad is the load both TermAdder tests stage: every sample term
// shape in every position it may take, terms the fixture already holds,
// a quad the store holds, duplicates, and quads without a graph.
func termAdderLoad() [][]kb.TermQuad {
	terms := sampleTerms()
	var first, second []kb.TermQuad
	for i, o := range terms {
		s := iri(fmt.Sprintf("ta-s%d", i%5))
		if i%3 == 0 {
			s = kb.Blank(fmt.Sprintf("ta-b%d", i))
		}
		g := iri("ta-g")
		if i%4 == 0 {
			g = kb.Term{} // DefaultGraph
		}
		first = append(first, kb.TermQuad{S: s, P: iri("p1"), O: o, G: g})
	}
	second = append(second,
		first[0], first[1], // duplicates across batches
		kb.TermQuad{S: iri("s1"), P: iri("p1"), O: iri("o1"), G: iri("g1")}, // held by the fixture
		kb.TermQuad{S: iri("s1"), P: iri("ta-new-p"), O: kb.LangLiteral("seven", "en"), G: iri("g2")},
		kb.TermQuad{S: iri("ta-new-p"), P: iri("ta-new-p"), O: iri("ta-new-p"), G: iri("ta-new-p")},
		kb.TermQuad{S: iri("ta-new-p"), P: iri("ta-new-p"), O: iri("ta-new-p"), G: iri("ta-new-p")},
	)
	return [][]kb.TermQuad{first, second}
}

func testTermAdder(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	f := newFixture(t, ds)
	bw, err := ds.BeginBulk(ctx)
	if err != nil {
		t.Fatalf("BeginBulk: %v", err)
	}
	defer func() { _ = bw.Abort() }()
	ta, ok := bw.(kb.TermAdder)
	if !ok {
		t.Skipf("the store's BulkWriter (%T) does not implement kb.TermAdder", bw)
	}
	want := termQuads(t, ds, f.quads)
	extra := kb.Quad{S: f.ids["s3"], P: f.ids["p2"], O: f.ids["o2"], G: f.ids["g1"]}
	for k := range termQuads(t, ds, []kb.Quad{extra}) {
		want[k] = true
	}
	for i, batch := range termAdderLoad() {
		for _, q := range batch {
			if q.G.IsZero() {
				q.G = kb.DefaultGraph
			}
			want[q] = true
		}
		buf := append([]kb.TermQuad(nil), batch...)
		if err := ta.AddTerms(ctx, buf); err != nil {
			t.Fatalf("AddTerms(batch %d): %v", i, err)
		}
		// The caller may reuse the slice once AddTerms returns.
		for j := range buf {
			buf[j] = kb.TermQuad{S: iri("clobbered"), P: iri("clobbered"), O: iri("clobbered"), G: iri("clobbered")}
		}
		if i == 0 {
			// Add and AddTerms mix in one load.
			if err := bw.Add(ctx, []kb.Quad{extra}); err != nil {
				t.Fatalf("Add between AddTerms: %v", err)
			}
		}
	}
	if n := len(allQuads(t, ds)); n != len(f.quads) {
		t.Errorf("before Commit the store holds %d quads; want the fixture's %d", n, len(f.quads))
	}
	if err := bw.Commit(ctx); err != nil {
		t.Fatalf("Commit: %v", err)
	}
	got := termQuads(t, ds, allQuads(t, ds))
	for q := range want {
		if !got[q] {
			t.Errorf("after Commit, %v is missing", q)
		}
	}
	for q := range got {
		if !want[q] {
			t.Errorf("after Commit, the store holds %v, which was never added", q)
		}
	}
	// The terms are in the dictionary, with the IDs the quads use.
	for _, tm := range sampleTerms() {
		id, ok, err := ds.Lookup(ctx, tm)
		if err != nil || !ok {
			t.Errorf("after Commit, Lookup(%v) = %v, %v; want found", tm, ok, err)
			continue
		}
		if n := mustCount(t, ds, kb.Pattern{O: id}, true); n == 0 {
			t.Errorf("after Commit, no quad has %v (ID %d) as object", tm, id)
		}
	}
}

func testTermAdderAbort(t *testing.T, ds kb.Dataset) {
	ctx := context.Background()
	f := newFixture(t, ds)
	for _, how := range []string{"Abort", "failed Commit"} {
		bw, err := ds.BeginBulk(ctx)
		if err != nil {
			t.Fatalf("BeginBulk: %v", err)
		}
		ta, ok := bw.(kb.TermAdder)
		if !ok {
			_ = bw.Abort()
			t.Skipf("the store's BulkWriter (%T) does not implement kb.TermAdder", bw)
		}
		for _, batch := range termAdderLoad() {
			if err := ta.AddTerms(ctx, batch); err != nil {
				t.Fatalf("AddTerms: %v", err)
			}
		}
		switch how {
		case "Abort":
			if err := bw.Abort(); err != nil {
				t.Fatalf("Abort: %v", err)
			}
		default:
			bad := []kb.Quad{{S: f.ids["s1"], P: f.ids["p1"], O: 1 << 40, G: f.ids["g1"]}}
			if err := bw.Add(ctx, bad); err == nil {
				if err := bw.Commit(ctx); err == nil {
					t.Fatalf("a load with an unknown ID committed; want an error from Add or Commit")
				}
			} else {
				_ = bw.Abort()
			}
		}
		sameQuads(t, "after "+how+" of a TermAdder load", allQuads(t, ds), f.quads)
		if gs := graphSet(t, ds); len(gs) != 3 {
			t.Errorf("after %s, Graphs = %v; want the 3 fixture graphs", how, gs)
		}
	}
}

// refBGP solves q by matching its patterns one after another with Match:
// the reference BGPMatcher must agree with. It returns each solution
// formatted, counted.
func refBGP(t *testing.T, ds kb.Dataset, q kb.BGP) map[string]int {
	t.Helper()
	out := map[string]int{}
	vals := make([]kb.ID, q.Vars)
	var rec func(i int)
	rec = func(i int) {
		if i == len(q.Patterns) {
			out[fmt.Sprint(vals)]++
			return
		}
		var pat kb.Pattern
		ids := [3]*kb.ID{&pat.S, &pat.P, &pat.O}
		for k, pos := range q.Patterns[i] {
			if pos.ID != kb.Any {
				*ids[k] = pos.ID
			} else {
				*ids[k] = vals[pos.Var]
			}
		}
		seen := map[[3]kb.ID]bool{}
		for _, g := range q.Graphs {
			pat.G = g
			for _, m := range mustMatch(t, ds, pat) {
				excluded := false
				for _, x := range q.Exclude {
					excluded = excluded || m.G == x
				}
				tr := [3]kb.ID{m.S, m.P, m.O}
				if excluded || (q.Distinct && seen[tr]) {
					continue
				}
				seen[tr] = true
				// Bind the free variables, checking repeated ones.
				saved := append([]kb.ID(nil), vals...)
				ok := true
				for k, pos := range q.Patterns[i] {
					if pos.ID != kb.Any {
						continue
					}
					if vals[pos.Var] == 0 {
						vals[pos.Var] = tr[k]
					} else if vals[pos.Var] != tr[k] {
						ok = false
					}
				}
				if ok {
					rec(i + 1)
				}
				copy(vals, saved)
			}
		}
	}
	rec(0)
	return out
}

func testBGPMatcher(t *testing.T, ds kb.Dataset) {
	bm := capability[kb.BGPMatcher](t, ds)
	ctx := context.Background()
	f := newFixture(t, ds)
	id := f.ids
	c := func(name string) kb.BGPTerm { return kb.BGPTerm{ID: id[name]} }
	v := func(n int) kb.BGPTerm { return kb.BGPTerm{Var: n} }
	g1, g2, g3 := id["g1"], id["g2"], id["g3"]
	bgps := []struct {
		name string
		q    kb.BGP
	}{
		{"chain in any graph", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), c("p1"), v(1)}, {v(1), v(2), v(3)}}, Vars: 4, Graphs: []kb.ID{kb.Any}}},
		{"chain, union of graphs, distinct", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), c("p1"), v(1)}, {v(0), v(2), v(3)}}, Vars: 4, Graphs: []kb.ID{kb.Any}, Distinct: true}},
		{"star in one graph", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), c("p1"), v(1)}, {v(0), c("p2"), v(2)}}, Vars: 3, Graphs: []kb.ID{g1}}},
		{"two graphs, distinct", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), c("p1"), c("o1")}, {v(0), v(1), v(2)}}, Vars: 3, Graphs: []kb.ID{g1, g2}, Distinct: true}},
		{"two graphs, not distinct", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), c("p1"), c("o1")}, {v(0), v(1), v(2)}}, Vars: 3, Graphs: []kb.ID{g1, g2}}},
		{"excluded graph", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), v(1), v(2)}, {v(2), v(3), v(4)}}, Vars: 5, Graphs: []kb.ID{kb.Any}, Exclude: []kb.ID{g3}, Distinct: true}},
		{"repeated variable", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), v(1), v(0)}, {v(1), v(2), v(3)}}, Vars: 4, Graphs: []kb.ID{kb.Any}}},
		{"ground pattern", kb.BGP{Patterns: [][3]kb.BGPTerm{{c("s1"), c("p1"), c("o1")}, {c("s1"), c("p2"), v(0)}}, Vars: 1, Graphs: []kb.ID{g1}}},
		{"no solution", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), c("p3"), v(1)}, {v(1), c("p3"), v(2)}}, Vars: 3, Graphs: []kb.ID{kb.Any}}},
		{"unknown constant", kb.BGP{Patterns: [][3]kb.BGPTerm{{v(0), {ID: 1 << 40}, v(1)}, {v(0), v(2), v(1)}}, Vars: 3, Graphs: []kb.ID{kb.Any}}},
	}
	for _, tc := range bgps {
		want := refBGP(t, ds, tc.q)
		got := map[string]int{}
		if err := bm.MatchBGP(ctx, tc.q, func(vals []kb.ID) bool {
			got[fmt.Sprint(vals)]++
			return true
		}); err != nil {
			t.Errorf("%s: MatchBGP: %v", tc.name, err)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s: MatchBGP solutions %v; matching pattern by pattern gives %v", tc.name, got, want)
		}
		if tc.name == "chain in any graph" && len(want) == 0 {
			t.Errorf("the fixture gives the chain no solution; the test checks nothing")
		}
		// fn returning false stops the calls.
		calls := 0
		if err := bm.MatchBGP(ctx, tc.q, func([]kb.ID) bool { calls++; return false }); err != nil {
			t.Errorf("%s: MatchBGP stopped early: %v", tc.name, err)
		}
		if calls > 1 {
			t.Errorf("%s: MatchBGP called fn %d times after it returned false", tc.name, calls)
		}
	}
}

// testChangeReporter applies one delta of every kind of change (a new
// quad, a quad already stored, a removal of a stored and of an absent
// quad, a quad both removed and added, duplicates) and compares the
// reported changes with the ones worked out by hand.
func testChangeReporter(t *testing.T, ds kb.Dataset) {
	cr := capability[kb.ChangeReporter](t, ds)
	ctx := context.Background()
	f := newFixture(t, ds)
	id := f.ids
	q := func(s, p, o, g string) kb.Quad { return kb.Quad{S: id[s], P: id[p], O: id[o], G: id[g]} }
	fresh := q("s3", "p2", "o1", "g1")     // not stored
	freshBoth := q("s3", "p3", "o1", "g1") // not stored, removed and added
	stored := f.quads[0]                   // stored, added again
	storedBoth := f.quads[1]               // stored, removed and added
	gone := f.quads[2]                     // stored, removed
	absent := q("s2", "p3", "o2", "g2")    // not stored, removed
	d := kb.Delta{
		Remove: []kb.Quad{gone, absent, storedBoth, freshBoth, gone},
		Add:    []kb.Quad{fresh, stored, storedBoth, freshBoth, fresh},
	}
	got, err := cr.ApplyChanges(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	sameQuads(t, "reported additions", got.Add, []kb.Quad{fresh, freshBoth})
	sameQuads(t, "reported removals", got.Remove, []kb.Quad{gone})
	want := append([]kb.Quad{fresh, freshBoth}, f.quads[:2]...)
	want = append(want, f.quads[3:]...)
	sameQuads(t, "store after ApplyChanges", allQuads(t, ds), want)

	// Applied again, the delta changes nothing and reports nothing.
	got, err = cr.ApplyChanges(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Add) != 0 || len(got.Remove) != 0 {
		t.Errorf("the same delta again reported %d additions and %d removals; want none", len(got.Add), len(got.Remove))
	}

	// A failed delta (an unknown ID) changes nothing and reports nothing.
	bad := kb.Delta{Add: []kb.Quad{q("s1", "p3", "o2", "g1"), {S: 1 << 40, P: id["p1"], O: id["o1"], G: id["g1"]}}}
	got, err = cr.ApplyChanges(ctx, bad)
	if err == nil {
		t.Error("ApplyChanges with an unknown ID succeeded")
	}
	if len(got.Add) != 0 || len(got.Remove) != 0 {
		t.Errorf("a failed ApplyChanges reported %d additions and %d removals", len(got.Add), len(got.Remove))
	}
	sameQuads(t, "store after the failed ApplyChanges", allQuads(t, ds), want)
}

// testChangeReporterLarge reports the additions of a delta large enough
// to take a store's bulk path (the native store ingests from 16,384
// quads): half of them stored before, some twice in the delta.
func testChangeReporterLarge(t *testing.T, ds kb.Dataset) {
	cr := capability[kb.ChangeReporter](t, ds)
	ctx := context.Background()
	quads := genQuads(t, ds, "large", 40000)
	mustApply(t, ds, kb.Delta{Add: quads[:20000]})
	d := kb.Delta{Add: append(slices.Clone(quads), quads[30000:31000]...)}
	got, err := cr.ApplyChanges(ctx, d)
	if err != nil {
		t.Fatal(err)
	}
	sameQuads(t, "reported additions", got.Add, quads[20000:])
	if len(got.Remove) != 0 {
		t.Errorf("reported %d removals of an addition-only delta", len(got.Remove))
	}
	sameQuads(t, "store after ApplyChanges", allQuads(t, ds), quads)
	if n := mustCount(t, ds, kb.Pattern{}, true); n != int64(len(quads)) {
		t.Errorf("Count(all) = %d after the large delta, want %d", n, len(quads))
	}
}
