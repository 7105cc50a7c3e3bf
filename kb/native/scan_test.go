package native

import (
	"bytes"
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/query"

	"github.com/perfkb/perfkb/ontology"
)

// loadQuads interns and adds quads to s with one Apply and returns their
// IDs.
func loadQuads(t *testing.T, s *Store, quads []kb.TermQuad) []kb.Quad {
	t.Helper()
	ctx := context.Background()
	ids, err := kb.InternQuads(ctx, s, quads)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Apply(ctx, kb.Delta{Add: ids}); err != nil {
		t.Fatal(err)
	}
	return ids
}

// patternsOf returns, for every one of the 16 bound-position masks, a
// pattern taking its bound positions from q.
func patternsOf(q kb.Quad) []kb.Pattern {
	out := make([]kb.Pattern, 16)
	for mask := range 16 {
		var p kb.Pattern
		if mask&1 != 0 {
			p.S = q.S
		}
		if mask&2 != 0 {
			p.P = q.P
		}
		if mask&4 != 0 {
			p.O = q.O
		}
		if mask&8 != 0 {
			p.G = q.G
		}
		out[mask] = p
	}
	return out
}

func matchAll(t *testing.T, s *Store, p kb.Pattern) []kb.Quad {
	t.Helper()
	got, err := kb.Collect(s.Match(context.Background(), p))
	if err != nil {
		t.Fatal(err)
	}
	return got
}

func scanAll(t *testing.T, s *Store, p kb.Pattern) []kb.Quad {
	t.Helper()
	var got []kb.Quad
	if err := s.ScanQuads(context.Background(), p, func(q kb.Quad) bool {
		got = append(got, q)
		return true
	}); err != nil {
		t.Fatal(err)
	}
	return got
}

// TestScanQuadsAgreesWithMatch checks ScanQuads against Match for every
// combination of bound positions, on a store on disk and in memory, and
// for a quad that is absent.
func TestScanQuadsAgreesWithMatch(t *testing.T) {
	stores := []struct {
		name string
		open func(t *testing.T) *Store
	}{
		{"disk", func(t *testing.T) *Store { return openDisk(t) }},
		{"pebble-memory", func(t *testing.T) *Store { return OpenPebbleMemory() }},
	}
	for _, st := range stores {
		t.Run(st.name, func(t *testing.T) {
			s := st.open(t)
			defer s.Close()
			ids := loadQuads(t, s, genTermQuads(0, 3000))
			probes := []kb.Quad{ids[0], ids[1234], ids[len(ids)-1]}
			// A quad made of stored terms that is itself not stored.
			probes = append(probes, kb.Quad{S: ids[0].S, P: ids[0].P, O: ids[len(ids)-1].O, G: ids[0].G})
			for _, q := range probes {
				for mask, p := range patternsOf(q) {
					want := matchAll(t, s, p)
					got := scanAll(t, s, p)
					if !slices.Equal(got, want) {
						t.Errorf("mask %04b %v: ScanQuads gave %d quads, Match %d", mask, p, len(got), len(want))
					}
					for _, g := range got {
						if !p.Matches(g) {
							t.Errorf("mask %04b %v: ScanQuads gave non-matching %v", mask, p, g)
							break
						}
					}
				}
			}
		})
	}
}

func TestScanQuadsStopsAndNests(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t)
	defer s.Close()
	ids := loadQuads(t, s, genTermQuads(0, 500))
	pred := kb.Pattern{P: ids[1].P}

	t.Run("stops when fn returns false", func(t *testing.T) {
		n := 0
		if err := s.ScanQuads(ctx, pred, func(kb.Quad) bool { n++; return n < 3 }); err != nil {
			t.Fatal(err)
		}
		if n != 3 {
			t.Errorf("fn called %d times, want 3", n)
		}
	})

	t.Run("nested scans and a write inside the callback", func(t *testing.T) {
		before := len(matchAll(t, s, pred))
		outer, inner := 0, 0
		extra, err := kb.InternQuads(ctx, s, []kb.TermQuad{{S: kb.IRI("urn:x-test:new"), P: kb.IRI("http://perfkb.org/ontology#inRun"), O: kb.IRI("urn:x-test:run"), G: kb.DefaultGraph}})
		if err != nil {
			t.Fatal(err)
		}
		err = s.ScanQuads(ctx, pred, func(q kb.Quad) bool {
			outer++
			if outer == 1 {
				// A write while the scan is open: no deadlock, and the
				// scan goes on over its snapshot.
				if err := s.Apply(ctx, kb.Delta{Add: extra}); err != nil {
					t.Error(err)
				}
			}
			if err := s.ScanQuads(ctx, kb.Pattern{S: q.S}, func(r kb.Quad) bool {
				inner++
				return true
			}); err != nil {
				t.Error(err)
			}
			return true
		})
		if err != nil {
			t.Fatal(err)
		}
		if outer != before {
			t.Errorf("outer scan saw %d quads, want its snapshot's %d", outer, before)
		}
		if inner < outer {
			t.Errorf("inner scans saw %d quads for %d subjects", inner, outer)
		}
		if after := len(scanAll(t, s, pred)); after != before+1 {
			t.Errorf("a scan after the write saw %d quads, want %d", after, before+1)
		}
	})

	t.Run("canceled context", func(t *testing.T) {
		// The context is checked every 1024 quads.
		loadQuads(t, s, genTermQuads(1000, 2000))
		cctx, cancel := context.WithCancel(ctx)
		cancel()
		n := 0
		err := s.ScanQuads(cctx, kb.Pattern{}, func(kb.Quad) bool { n++; return true })
		if err == nil {
			t.Errorf("scan of %d quads with a canceled context returned no error", n)
		}
	})

	t.Run("closed store", func(t *testing.T) {
		c := openDisk(t)
		c.Close()
		if err := c.ScanQuads(ctx, kb.Pattern{}, func(kb.Quad) bool { return true }); err != kb.ErrClosed {
			t.Errorf("ScanQuads on a closed store: %v, want kb.ErrClosed", err)
		}
	})
}

func TestTermOf(t *testing.T) {
	ctx := context.Background()
	terms := []kb.Term{
		kb.IRI("http://example.org/a"),
		kb.Blank("b0"),
		kb.String("plain"),
		kb.LangLiteral("hallo", "de"),
		kb.Literal("42", ontology.XSDInteger),
		kb.Literal("x", "http://example.org/type"),
	}
	dir := filepath.Join(t.TempDir(), "db")
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	ids, err := s.Intern(ctx, terms)
	if err != nil {
		t.Fatal(err)
	}
	for i, id := range ids {
		if got, ok := s.TermOf(id); !ok || got != terms[i] {
			t.Errorf("fresh TermOf(%d) = %v, %v; want %v", id, got, ok, terms[i])
		}
	}
	if _, ok := s.TermOf(ids[len(ids)-1] + 1); ok {
		t.Error("TermOf of an unallocated ID reported true")
	}
	if _, ok := s.TermOf(0); ok {
		t.Error("TermOf(0) reported true")
	}
	// Terms are stored with the first quad that uses them.
	var use []kb.Quad
	for _, id := range ids {
		use = append(use, kb.Quad{S: ids[0], P: ids[0], O: id, G: ids[0]})
	}
	if err := s.Apply(ctx, kb.Delta{Add: use}); err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, ok := s.TermOf(ids[0]); ok {
		t.Error("TermOf on a closed store reported true")
	}

	// Reopened: stored terms are in memory only once read.
	s, err = Open(ctx, dir, Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	for i, id := range ids {
		if got, ok := s.TermOf(id); ok && got != terms[i] {
			t.Errorf("stored TermOf(%d) = %v before Resolve; want %v", id, got, terms[i])
		}
		if _, err := s.Resolve(ctx, id); err != nil {
			t.Fatal(err)
		}
		if got, ok := s.TermOf(id); !ok || got != terms[i] {
			t.Errorf("stored TermOf(%d) = %v, %v after Resolve; want %v", id, got, ok, terms[i])
		}
	}
}

// TestCountEstimate checks Count against the number of matches: exact
// when asked, and when not, exact for small ranges and within a factor of
// two of the truth (never above the counters' bound) for large ones.
func TestCountEstimate(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t)
	defer s.Close()
	const n = 4000
	quads := make([]kb.TermQuad, 0, 2*n)
	for i := range n {
		subj := kb.IRI(fmt.Sprintf("urn:x-test:s%d", i))
		quads = append(quads,
			kb.TermQuad{S: subj, P: kb.IRI("urn:x-test:color"), O: kb.IRI(fmt.Sprintf("urn:x-test:color%d", i%4)), G: kb.DefaultGraph},
			kb.TermQuad{S: subj, P: kb.IRI("urn:x-test:size"), O: kb.Literal(fmt.Sprint(i%100), ontology.XSDInteger), G: kb.IRI(fmt.Sprintf("urn:x-test:g%d", i%3))})
	}
	ids := loadQuads(t, s, quads)
	tests := []struct {
		name string
		p    kb.Pattern
	}{
		{"object with 1000 subjects", kb.Pattern{O: ids[0].O}},
		{"predicate and object", kb.Pattern{P: ids[0].P, O: ids[0].O}},
		{"object in a graph", kb.Pattern{O: ids[0].O, G: ids[0].G}},
		{"subject", kb.Pattern{S: ids[0].S}},
		{"size value (40 subjects)", kb.Pattern{P: ids[1].P, O: ids[1].O}},
		{"size value in a graph", kb.Pattern{O: ids[1].O, G: ids[1].G}},
		{"whole quad", kb.Pattern(ids[5])},
		{"absent", kb.Pattern{S: ids[0].S, O: ids[1].O}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := int64(len(matchAll(t, s, tt.p)))
			exact, err := s.Count(ctx, tt.p, true)
			if err != nil {
				t.Fatal(err)
			}
			if exact != want {
				t.Errorf("exact Count = %d, want %d", exact, want)
			}
			est, err := s.Count(ctx, tt.p, false)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case want < estimateProbeKeys && est != want:
				t.Errorf("estimate %d for a small range of %d", est, want)
			case est < want/2 || est > 2*want:
				t.Errorf("estimate %d, want within a factor of two of %d", est, want)
			}
		})
	}
}

// TestQueriesOverScan runs SPARQL queries over sample data in a
// Pebble-backed store, where the evaluator takes the store's fast paths
// (ScanQuads, TermOf, estimated Count), and in kbtest.Memory, and compares the
// rows.
func TestQueriesOverScan(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := sample.Generate(ctx, &buf, sample.Options{Sites: 2, Triples: 20000, Seed: 5}); err != nil {
		t.Fatal(err)
	}
	data := buf.Bytes()
	s := openDisk(t)
	defer s.Close()
	mem := kbtest.NewMemory()
	for _, ds := range []kb.Dataset{s, mem} {
		if _, err := kb.Load(ctx, ds, bytes.NewReader(data), kb.LoadOptions{Format: kb.FormatNQuads, SourceName: "sample.nq"}); err != nil {
			t.Fatal(err)
		}
	}
	const perfonto = "PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>\n"
	queries := []struct{ name, text string }{
		{"region summary metrics", perfonto + `SELECT ?rs ?name ?value WHERE { ?rs perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName ?name ; perfonto:hasMetricValue ?value }`},
		{"star join with filter", perfonto + `SELECT ?rs ?value WHERE {
  ?rs perfonto:inProcessingUnit ?pu ; perfonto:hasMetric ?m .
  ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?value .
  FILTER (?value >= 1E8) }`},
		{"named graphs", `SELECT ?g (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } } GROUP BY ?g`},
		{"optional", perfonto + `SELECT ?rs ?len WHERE { ?rs perfonto:ofCodeRegion ?cr .
  OPTIONAL { ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName "AvgMessageLength" ; perfonto:hasMetricValue ?len } }`},
		{"constant absent from the store", perfonto + `SELECT ?rs WHERE { ?rs perfonto:hasMetric <urn:x-test:absent> }`},
		{"fully bound pattern", perfonto + `ASK { ?rs perfonto:hasMetric ?m . ?rs perfonto:hasMetric ?m }`},
	}
	rowsOf := func(ds kb.Dataset, text string) []string {
		t.Helper()
		res, err := query.Run(ctx, ds, text, query.Options{})
		if err != nil {
			t.Fatal(err)
		}
		defer res.Close()
		if res.Vars == nil {
			return []string{fmt.Sprint(res.Boolean)}
		}
		rows, err := res.Rows()
		if err != nil {
			t.Fatal(err)
		}
		out := make([]string, len(rows))
		for i, r := range rows {
			out[i] = fmt.Sprint(r)
		}
		slices.Sort(out)
		return out
	}
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			got, want := rowsOf(s, q.text), rowsOf(mem, q.text)
			if !slices.Equal(got, want) {
				t.Errorf("Pebble store: %d rows, kbtest.Memory: %d rows", len(got), len(want))
			}
			if empty := len(want) == 0 || want[0] == "false"; empty != strings.Contains(q.name, "absent") {
				t.Errorf("%d rows %.40v: the query does not test what it should", len(want), want)
			}
		})
	}
}

// TestScanQuadsConcurrentWrites scans and decodes on several goroutines
// while another applies writes (run it with -race): every scan sees a
// whole number of the writer's batches.
func TestScanQuadsConcurrentWrites(t *testing.T) {
	ctx := context.Background()
	s := openDisk(t)
	defer s.Close()
	ids := loadQuads(t, s, genTermQuads(0, 1000))
	pred := kb.IRI("urn:x-test:batch")
	const batches, batchSize = 40, 5
	done := make(chan struct{})
	go func() {
		defer close(done)
		for b := range batches {
			quads := make([]kb.TermQuad, batchSize)
			for i := range quads {
				quads[i] = kb.TermQuad{S: kb.IRI(fmt.Sprintf("urn:x-test:s%d-%d", b, i)), P: pred, O: kb.String("v"), G: kb.DefaultGraph}
			}
			qids, err := kb.InternQuads(ctx, s, quads)
			if err == nil {
				err = s.Apply(ctx, kb.Delta{Add: qids})
			}
			if err != nil {
				t.Error(err)
				return
			}
		}
	}()
	var wg sync.WaitGroup
	for range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				select {
				case <-done:
					return
				default:
				}
				pid, ok, err := s.Lookup(ctx, pred)
				if err != nil || !ok {
					continue
				}
				n := 0
				if err := s.ScanQuads(ctx, kb.Pattern{P: pid}, func(q kb.Quad) bool {
					if _, ok := s.TermOf(q.S); !ok {
						t.Errorf("TermOf(%d) of a scanned subject is unknown", q.S)
					}
					n++
					return true
				}); err != nil {
					t.Error(err)
					return
				}
				if n%batchSize != 0 {
					t.Errorf("a scan saw %d quads, not a whole number of batches", n)
					return
				}
				if _, err := s.Count(ctx, kb.Pattern{S: ids[0].S}, false); err != nil {
					t.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if got := len(scanAll(t, s, kb.Pattern{P: ids[0].P})); got == 0 {
		t.Error("no quads after the writes")
	}
}
