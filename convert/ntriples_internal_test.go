package convert

import (
	"bufio"
	"bytes"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// appendTriple writes the N-Triples line kb writes for the statement.
func TestAppendTripleMatchesKB(t *testing.T) {
	terms := []kb.Term{
		kb.IRI("http://perfkb.example/site/a/rs/17/timing/wtime"),
		kb.IRI("http://x.example/a b"), kb.IRI("http://x.example/ä"), kb.IRI("http://x.example/{x}"), kb.IRI(`http://x.example/\`),
		kb.String("gsr410"), kb.String(`say "hi"`), kb.String("line\nbreak"), kb.String("tab\t"), kb.String("ümlaut"), kb.String("\x7f"),
		kb.Literal("4.75", "http://www.w3.org/2001/XMLSchema#double"), kb.Literal("x", "http://x.example/dt with space"),
		kb.LangLiteral("hallo", "de"), kb.Blank("b1"), kb.String(""),
	}
	for _, tm := range terms {
		q := kb.TermQuad{S: kb.IRI("http://x.example/s"), P: kb.IRI("http://x.example/p"), O: tm}
		if got, want := string(appendTriple(nil, q)), q.String()+"\n"; got != want {
			t.Errorf("appendTriple(%v) = %q; kb writes %q", tm, got, want)
		}
	}
}

var integerGrammar = regexp.MustCompile(`^[+-]?[0-9]+$`)

func TestLexicalChecksMatchTheGrammar(t *testing.T) {
	for _, s := range []string{"", "1", "-1", "+1", "1.", ".5", "1.5", "1e5", "1E+5", "1.5e-3", ".e1", "e1", "1e", "1e+", "INF", "-INF", "+INF", "NaN", "nan", "1.2.3", "--1", "1,5", " 1", "0x10", "Infinity"} {
		if got, want := isDoubleLexical(s), doubleLexical.MatchString(s); got != want {
			t.Errorf("isDoubleLexical(%q) = %v; the xsd:double grammar says %v", s, got, want)
		}
		if got, want := isIntegerLexical(s), integerGrammar.MatchString(s); got != want {
			t.Errorf("isIntegerLexical(%q) = %v, want %v", s, got, want)
		}
	}
}

// Sorting through spilled runs gives the same output as sorting in memory.
func TestLineSorterSpills(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	var want []string
	small := lineSorter{runBytes: 500}
	big := lineSorter{runBytes: 1 << 30}
	for range 2000 {
		l := fmt.Sprintf("<http://x.example/%d> <p> \"%d\" .\n", rng.IntN(700), rng.IntN(3))
		want = append(want, l)
		if err := small.add(l); err != nil {
			t.Fatal(err)
		}
		big.add(l)
	}
	if len(small.runs) < 10 {
		t.Fatalf("only %d runs spilled", len(small.runs))
	}
	slices.Sort(want)
	want = slices.Compact(want)
	for name, ls := range map[string]*lineSorter{"spilled": &small, "in memory": &big} {
		var b bytes.Buffer
		w := bufio.NewWriter(&b)
		if err := ls.writeTo(w); err != nil {
			t.Fatal(err)
		}
		w.Flush()
		if got := b.String(); got != strings.Join(want, "") {
			t.Errorf("%s: %d bytes, want %d", name, len(got), len(strings.Join(want, "")))
		}
	}
}

// BenchmarkAppendTriple: the converters' N-Triples line writing, on the
// terms a SCALEA conversion writes (plain IRIs, numbers, short strings).
func BenchmarkAppendTriple(b *testing.B) {
	qs := []kb.TermQuad{
		{S: kb.IRI("http://perfkb.example/site/a/exp/1/rs/p0t0/17"), P: kb.IRI("http://www.par.univie.ac.at/project/scalea/perfonto#hasMetric"), O: kb.IRI("http://perfkb.example/site/a/exp/1/rs/p0t0/17/m/wtime")},
		{S: kb.IRI("http://perfkb.example/site/a/exp/1/rs/p0t0/17/m/wtime"), P: kb.IRI("http://www.par.univie.ac.at/project/scalea/perfonto#hasMetricValue"), O: kb.Literal("4.75E2", "http://www.w3.org/2001/XMLSchema#double")},
		{S: kb.IRI("http://perfkb.example/site/a/exp/1/rs/p0t0/17/m/wtime"), P: kb.IRI("http://www.par.univie.ac.at/project/scalea/perfonto#hasMetricName"), O: kb.String("wtime")},
	}
	var line []byte
	for i := 0; b.Loop(); i++ {
		line = appendTriple(line[:0], qs[i%len(qs)])
	}
}
