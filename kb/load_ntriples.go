package kb

import (
	"strings"
	"unsafe"

	"github.com/perfkb/perfkb/kb/rdfio"
)

// The N-Triples and N-Quads parser lives in rdfio (rdfio.LineParser); Load
// runs it over chunks on several goroutines (load_lines.go). A kb.Term and
// an rdfio.Term have the same fields in the same order, so the terms it
// appends are viewed as kb terms without copying: these declarations fail
// to compile if the two layouts ever differ.
var (
	_ = [1]struct{}{}[unsafe.Sizeof(Term{})-unsafe.Sizeof(rdfio.Term{})]
	_ = [1]struct{}{}[unsafe.Sizeof(rdfio.Term{})-unsafe.Sizeof(Term{})]
	_ = [1]struct{}{}[unsafe.Offsetof(Term{}.Value)-unsafe.Offsetof(rdfio.Term{}.Value)]
	_ = [1]struct{}{}[unsafe.Offsetof(Term{}.Datatype)-unsafe.Offsetof(rdfio.Term{}.Datatype)]
	_ = [1]struct{}{}[unsafe.Offsetof(Term{}.Lang)-unsafe.Offsetof(rdfio.Term{}.Lang)]
	_ = [1]struct{}{}[unsafe.Sizeof(TermKind(0))-unsafe.Sizeof(rdfio.TermKind(0))]
	_ = [1]struct{}{}[KindLiteral-TermKind(rdfio.KindLiteral)]
	_ = [1]struct{}{}[KindBlank-TermKind(rdfio.KindBlank)]
	_ = [1]struct{}{}[KindIRI-TermKind(rdfio.KindIRI)]
)

// parseLines runs p over a chunk, appending to out, and lower-cases the
// language tags as LangLiteral does.
func parseLines(p *rdfio.LineParser, data []byte, firstLine int, out []Term) ([]Term, error) {
	start := len(out)
	rout := unsafe.Slice((*rdfio.Term)(unsafe.Pointer(unsafe.SliceData(out))), cap(out))[:len(out)]
	rout, err := p.ParseChunk(data, firstLine, rout)
	out = unsafe.Slice((*Term)(unsafe.Pointer(unsafe.SliceData(rout))), cap(rout))[:len(rout)]
	for i := start + 2; i < len(out); i += 4 {
		if out[i].Lang != "" {
			out[i].Lang = strings.ToLower(out[i].Lang)
		}
	}
	return out, err
}
