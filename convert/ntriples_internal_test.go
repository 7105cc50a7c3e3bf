package convert

import (
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb"
)

// The fast path of appendTerm must write exactly what kb's escaping
// writes.
func TestAppendTermMatchesKB(t *testing.T) {
	terms := []kb.Term{
		kb.IRI("http://perfkb.example/site/a/rs/17/timing/wtime"),
		kb.IRI("http://x.example/a b"), kb.IRI("http://x.example/ä"), kb.IRI("http://x.example/{x}"), kb.IRI(`http://x.example/\`),
		kb.String("gsr410"), kb.String(`say "hi"`), kb.String("line\nbreak"), kb.String("tab\t"), kb.String("ümlaut"), kb.String("\x7f"),
		kb.Literal("4.75", "http://www.w3.org/2001/XMLSchema#double"), kb.Literal("x", "http://x.example/dt with space"),
		kb.LangLiteral("hallo", "de"), kb.Blank("b1"), kb.String(""),
	}
	for _, tm := range terms {
		var fast strings.Builder
		appendTerm(&fast, tm)
		if fast.String() != tm.String() {
			t.Errorf("appendTerm(%#v) = %s; kb writes %s", tm, fast.String(), tm.String())
		}
	}
}
