package reasoner

import (
	"github.com/perfkb/perfkb/kb"
)

// termClasser is implemented by stores that tell a term's kind from its
// ID without decoding the term (kb/native's dictionary tag byte).
// otherDatatype marks a literal whose datatype is spelled out, not coded:
// only those can be functor values, which notLiteral counts as
// non-literals, so the engine decodes them.
type termClasser interface {
	TermClassOf(id kb.ID) (kind kb.TermKind, otherDatatype, ok bool)
}

// kindTest is a term test that the store's tag can answer: pass says
// whether a term of the given class passes. known is false when only the
// decoded term can tell.
type kindTest struct {
	pass func(kind kb.TermKind, otherDatatype bool) (pass, known bool)
}

// kindTests are the builtins answered from the tag. The RDFS range rule
// tests notLiteral on every object of every ranged predicate, most of
// them literals; decoding each one was a tenth of a run's time.
var kindTests = map[string]*kindTest{
	"isLiteral": {func(k kb.TermKind, other bool) (bool, bool) {
		return k == kb.KindLiteral, k != kb.KindLiteral || !other
	}},
	"notLiteral": {func(k kb.TermKind, other bool) (bool, bool) {
		return k != kb.KindLiteral, k != kb.KindLiteral || !other
	}},
	"isBNode":  {func(k kb.TermKind, _ bool) (bool, bool) { return k == kb.KindBlank, true }},
	"notBNode": {func(k kb.TermKind, _ bool) (bool, bool) { return k != kb.KindBlank, true }},
}

// kindTestFor returns the tag test for a call of one argument to a
// builtin of kindTests over a store that can answer it, else nil.
func (e *Engine) kindTestFor(c *compiledCall) *kindTest {
	if e.classes == nil || len(c.args) != 1 {
		return nil
	}
	return kindTests[c.b.Name]
}

// testKind runs bc's kind test on its argument's ID; known is false when
// the term must be decoded (an engine-local or transient value, a
// constant, or a literal of a spelled-out datatype).
func (e *Engine) testKind(bc *boundCall, vals []kb.ID) (pass, known bool) {
	a := bc.args[0]
	if a.mode == modeConst {
		return false, false
	}
	id := vals[a.v]
	if id == kb.Any || id == transientID || id >= localBase {
		return false, false
	}
	kind, other, ok := e.classes.TermClassOf(id)
	if !ok {
		return false, false
	}
	return bc.kindTest.pass(kind, other)
}
