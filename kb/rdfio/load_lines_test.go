package rdfio_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/kbtest"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/textpos"
)

// concurrentMemory is a kbtest.Memory that claims to be a ConcurrentInterner, so
// that rdfio.Load takes its zero-copy path (Memory keeps the term strings it is
// given, which is safe here because rdfio.Load never modifies a chunk).
type concurrentMemory struct{ *kbtest.Memory }

func (concurrentMemory) InternsConcurrently() bool { return true }

// linesDoc is N-Quads exercising everything the line parser reads: a BOM,
// CRLF line ends, comments, blank lines, blank nodes, escapes, language
// tags, datatypes, non-ASCII text and repeated subjects and predicates.
func linesDoc(n int) string {
	var b strings.Builder
	b.WriteString("\xEF\xBB\xBF# sample\r\n")
	for i := 0; i < n; i++ {
		s := fmt.Sprintf("<http://example.org/s/%d>", i/3)
		switch i % 7 {
		case 0:
			fmt.Fprintf(&b, "%s <http://example.org/p> \"v%d\" .\n", s, i)
		case 1:
			fmt.Fprintf(&b, "%s <http://example.org/p> \"a\\tb\\u00FC %d\"@EN-gb <http://example.org/g> .\r\n", s, i)
		case 2:
			fmt.Fprintf(&b, "_:b%d <http://example.org/q> \"%d\"^^<http://www.w3.org/2001/XMLSchema#integer> _:g .\n", i%5, i)
		case 3:
			fmt.Fprintf(&b, "\n  # comment %d\n%s <http://example.org/q> _:b%d .\n", i, s, i%5)
		case 4:
			fmt.Fprintf(&b, "%s <http://example.org/\\u00E9> <http://example.org/o/%d> <http://example.org/g> . # note\n", s, i)
		case 5:
			fmt.Fprintf(&b, "%s\t<http://example.org/p>  \"ünï %d\" .\n", s, i)
		default:
			fmt.Fprintf(&b, "%s <http://example.org/p> <http://example.org/o/%d> .\n", s, i)
		}
	}
	return b.String()
}

// dump renders every quad of ds, blank labels kept, sorted.
func dump(t *testing.T, ds kb.Dataset) []string {
	t.Helper()
	ctx := context.Background()
	quads, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, q := range quads {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, tq.String())
	}
	sort.Strings(out)
	return out
}

// withoutBlankPrefix strips the per-load prefix of blank node labels.
func withoutBlankPrefix(lines []string) string {
	out := make([]string, len(lines))
	for i, l := range lines {
		fields := strings.Fields(l)
		for j, f := range fields {
			if strings.HasPrefix(f, "_:b") {
				if k := strings.IndexByte(f, '_'); k >= 0 {
					if u := strings.LastIndexByte(f, '_'); u > k {
						fields[j] = "_:" + f[u+1:]
					}
				}
			}
		}
		out[i] = strings.Join(fields, " ")
	}
	sort.Strings(out)
	return strings.Join(out, "\n")
}

func TestLoadLinesSameResultForAnyChunkSize(t *testing.T) {
	ctx := context.Background()
	doc := linesDoc(400)
	var want string
	var wantGraphs int
	for _, chunk := range []int{1, 7, 100, 4096, 0} {
		for _, concurrent := range []bool{false, true} {
			t.Run(fmt.Sprintf("chunk=%d/concurrent=%v", chunk, concurrent), func(t *testing.T) {
				mem := kbtest.NewMemory()
				var ds kb.Dataset = mem
				if concurrent {
					ds = concurrentMemory{mem}
				}
				sum, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.ChunkSize(rdfio.LoadOptions{Format: rdfio.NQuads, BatchSize: 50}, chunk))
				if err != nil {
					t.Fatal(err)
				}
				if sum.Triples != 400 {
					t.Errorf("loaded %d statements; want 400", sum.Triples)
				}
				got := withoutBlankPrefix(dump(t, mem))
				if want == "" {
					want, wantGraphs = got, sum.Graphs
					if wantGraphs != 3 {
						t.Errorf("summary names %d graphs (%v); want 3", sum.Graphs, sum.GraphNames)
					}
					return
				}
				if got != want {
					t.Errorf("chunk size %d gives other quads than the first load:\n%s\nwant\n%s", chunk, got, want)
				}
				if sum.Graphs != wantGraphs {
					t.Errorf("summary names %d graphs; want %d", sum.Graphs, wantGraphs)
				}
			})
		}
	}
}

func TestLoadLinesFirstErrorWins(t *testing.T) {
	ctx := context.Background()
	lines := strings.Split(strings.TrimSuffix(linesDoc(300), "\n"), "\n")
	// Two errors far apart: the earlier one must be reported, whichever
	// chunk a parser finishes first.
	lines[40] = "<http://example.org/a> <http://example.org/b> \"unterminated ."
	lines[250] = "<http://example.org/a> <rel> <http://example.org/c> ."
	doc := strings.Join(lines, "\n") + "\n"
	for _, chunk := range []int{1, 64, 1000, 0} {
		for _, concurrent := range []bool{false, true} {
			t.Run(fmt.Sprintf("chunk=%d/concurrent=%v", chunk, concurrent), func(t *testing.T) {
				mem := kbtest.NewMemory()
				var ds kb.Dataset = mem
				if concurrent {
					ds = concurrentMemory{mem}
				}
				if _, err := rdfio.Load(ctx, ds, strings.NewReader("<http://x> <http://y> <http://z> .\n"), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
					t.Fatal(err)
				}
				before := dump(t, mem)
				_, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.ChunkSize(rdfio.LoadOptions{Format: rdfio.NQuads, SourceName: "big.nq", BatchSize: 7}, chunk))
				var se *textpos.Error
				if !errors.As(err, &se) {
					t.Fatalf("rdfio.Load error = %v; want a *textpos.Error", err)
				}
				if se.Pos.Line != 41 || se.Pos.Column != 47 || !strings.Contains(se.Msg, "unterminated string literal") {
					t.Errorf("error %q at line %d, column %d; want line 41, column 47, unterminated string literal", se, se.Pos.Line, se.Pos.Column)
				}
				if after := dump(t, mem); strings.Join(after, "\n") != strings.Join(before, "\n") {
					t.Errorf("the failed load changed the store: %d quads before, %d after", len(before), len(after))
				}
			})
		}
	}
}

func TestLoadLinesLastLineWithoutNewline(t *testing.T) {
	ctx := context.Background()
	for _, chunk := range []int{1, 3, 0} {
		ds := kbtest.NewMemory()
		doc := "<http://e/s> <http://e/p> \"a\" .\n<http://e/s> <http://e/p> \"b\" ."
		sum, err := rdfio.Load(ctx, ds, strings.NewReader(doc), rdfio.ChunkSize(rdfio.LoadOptions{Format: rdfio.NTriples}, chunk))
		if err != nil || sum.Triples != 2 {
			t.Errorf("chunk size %d: rdfio.Load = %+v, %v; want 2 triples", chunk, sum, err)
		}
		_, err = rdfio.Load(ctx, ds, strings.NewReader(doc[:len(doc)-2]), rdfio.ChunkSize(rdfio.LoadOptions{Format: rdfio.NTriples}, chunk))
		var se *textpos.Error
		if !errors.As(err, &se) || se.Pos.Line != 2 || se.Pos.Column != 30 {
			t.Errorf("chunk size %d: error %v; want a syntax error at 2:30", chunk, err)
		}
	}
}

// TestLoadLinesLongLinesInGrowingChunks loads, at the default chunk size
// (whose first buffers are small and grow), lines longer than the first
// buffer between short ones, and an error after them at its true line.
func TestLoadLinesLongLinesInGrowingChunks(t *testing.T) {
	ctx := context.Background()
	var b strings.Builder
	for i := range 40 {
		fmt.Fprintf(&b, "<http://e/s%d> <http://e/p> \"%s\" .\n", i, strings.Repeat("x", (i%4)*15000))
	}
	ds := kbtest.NewMemory()
	sum, err := rdfio.Load(ctx, ds, strings.NewReader(b.String()), rdfio.LoadOptions{Format: rdfio.NTriples})
	if err != nil || sum.Triples != 40 {
		t.Fatalf("rdfio.Load = %+v, %v; want 40 triples", sum, err)
	}
	got, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	long := 0
	for _, q := range got {
		o, err := ds.Resolve(ctx, q.O)
		if err != nil {
			t.Fatal(err)
		}
		if len(o.Value) == 45000 {
			long++
		}
	}
	if long != 10 {
		t.Errorf("%d objects of 45,000 bytes; want 10", long)
	}
	b.WriteString("<http://e/s> <http://e/p> .\n")
	_, err = rdfio.Load(ctx, kbtest.NewMemory(), strings.NewReader(b.String()), rdfio.LoadOptions{Format: rdfio.NTriples})
	var se *textpos.Error
	if !errors.As(err, &se) || se.Pos.Line != 41 {
		t.Errorf("error %v; want a syntax error on line 41", err)
	}
}

// The parser skips checking the bytes an IRI shares with the previous IRI
// in the same role; what differs must still be checked.
func TestLoadLinesIRISharingAPrefix(t *testing.T) {
	tests := []struct {
		name      string
		second    string
		line, col int
		msg       string
	}{
		{"space after shared prefix", "<http://example.org/a c> <http://example.org/p> \"x\" .", 2, 22, "character ' ' is not allowed"},
		{"same IRI then garbage", "<http://example.org/abc>x <http://example.org/p> \"x\" .", 2, 25, "expected a predicate"},
		{"prefix of the last IRI, unterminated", "<http://example.org/ab", 2, 1, "unterminated IRI"},
		{"shared predicate prefix then quote", "<http://example.org/abc> <http://example.org/p\"> \"x\" .", 2, 47, "character '\"' is not allowed"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			doc := "<http://example.org/abc> <http://example.org/pq> \"x\" .\n" + tc.second + "\n"
			_, err := rdfio.Load(context.Background(), kbtest.NewMemory(), strings.NewReader(doc), rdfio.LoadOptions{Format: rdfio.NTriples})
			var se *textpos.Error
			if !errors.As(err, &se) || se.Pos.Line != tc.line || se.Pos.Column != tc.col || !strings.Contains(se.Msg, tc.msg) {
				t.Errorf("error %v; want %d:%d %q", err, tc.line, tc.col, tc.msg)
			}
		})
	}
}
