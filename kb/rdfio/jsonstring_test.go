package rdfio

import (
	"encoding/json"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"
)

// TestAppendJSONString checks AppendJSONString against encoding/json as
// the reader: every string, valid UTF-8 or not, reads back as itself
// with invalid bytes as U+FFFD, and the output holds no control byte, no
// '<', '>' or '&' and no raw U+2028 or U+2029. Hand-picked strings and
// 20,000 random ones (ASCII-heavy, with escapes and multi-byte runes
// between plain runs, where the run copying could slip).
func TestAppendJSONString(t *testing.T) {
	cases := []string{"", "plain", `q"uote`, `back\slash`, "nl\ncr\rtab\t", "\x00\x01\x1f\x7f", "<a href=\"x\">&amp;</a>",
		"é ü 日本 🎉", "\u2028line\u2029para", "bad \xff byte", "\xe2\x80", "end\\", "\"", "x\xc3"}
	rng := rand.New(rand.NewPCG(1, 2))
	pieces := []string{"a", "bc", "def ", "\"", "\\", "\n", "\x01", "<", "&", "é", "日", "🎉", "\u2028", "\xff", "\xe2\x82"}
	for range 20000 {
		var b strings.Builder
		for range rng.IntN(12) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		cases = append(cases, b.String())
	}
	for _, s := range cases {
		out := AppendJSONString(nil, s)
		var back string
		if err := json.Unmarshal(out, &back); err != nil {
			t.Fatalf("%q: output %s is not a JSON string: %v", s, out, err)
		}
		if back != replaceEach(s) {
			t.Fatalf("%q: read back %q", s, back)
		}
		for _, c := range out {
			if c < 0x20 || c == '<' || c == '>' || c == '&' {
				t.Fatalf("%q: output %q holds byte %#x", s, out, c)
			}
		}
		if strings.ContainsRune(string(out), '\u2028') || strings.ContainsRune(string(out), '\u2029') {
			t.Fatalf("%q: output %q holds U+2028 or U+2029", s, out)
		}
	}
}

// replaceEach is s with each invalid byte as U+FFFD (strings.ToValidUTF8
// folds a run of them into one).
func replaceEach(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		b.WriteRune(r)
		i += n
	}
	return b.String()
}

// BenchmarkAppendJSONString appends an IRI and a literal as a results
// row holds them.
func BenchmarkAppendJSONString(b *testing.B) {
	b.ReportAllocs()
	buf := make([]byte, 0, 256)
	for b.Loop() {
		buf = AppendJSONString(buf[:0], "http://perfkb.example/site/innsbruck/exp/11/rs/p0t1/20")
		buf = AppendJSONString(buf, "value 123456 of the \"wtime\" metric")
	}
}
