package sample

import (
	"bufio"
	"context"
	"math"
	"strconv"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/ontology"
)

// Preformatted terms used on every line.
const (
	dtDouble   = `"^^<` + ontology.XSDDouble + `>`
	dtLong     = `"^^<` + ontology.XSDLong + `>`
	dtInteger  = `"^^<` + ontology.XSDInteger + `>`
	dtDateTime = `"^^<` + ontology.XSDDateTime + `>`
	dtBoolean  = `"^^<` + ontology.XSDBoolean + `>`
)

// p formats a predicate or class IRI as an N-Triples term.
func p(iri string) string { return "<" + iri + ">" }

// emitter writes N-Triples or N-Quads lines to a buffered writer, counting
// them. Subjects and IRI objects are passed without angle brackets.
type emitter struct {
	ctx   context.Context
	w     *bufio.Writer
	tail  []byte // " <graph> .\n" or " .\n"
	line  []byte
	n     int64
	err   error
	check int64 // line count at which ctx is checked next
}

func newEmitter(ctx context.Context, w *bufio.Writer) *emitter {
	return &emitter{ctx: ctx, w: w, line: make([]byte, 0, 512), check: 1 << 14}
}

// setGraph chooses the named graph of the following lines ("" for none).
func (e *emitter) setGraph(graph string) {
	if graph == "" {
		e.tail = []byte(" .\n")
		return
	}
	e.tail = []byte(" <" + graph + "> .\n")
}

func (e *emitter) begin(s []byte, pred string) {
	e.line = append(e.line[:0], '<')
	e.line = append(e.line, s...)
	e.line = append(e.line, '>', ' ')
	e.line = append(e.line, pred...)
	e.line = append(e.line, ' ')
}

func (e *emitter) end() {
	e.line = append(e.line, e.tail...)
	if e.err == nil {
		_, e.err = e.w.Write(e.line)
	}
	e.n++
	if e.n >= e.check {
		e.check = e.n + 1<<14
		if e.err == nil {
			e.err = e.ctx.Err()
		}
	}
}

// iri writes <s> pred <o>.
func (e *emitter) iri(s []byte, pred string, o []byte) {
	e.begin(s, pred)
	e.line = append(e.line, '<')
	e.line = append(e.line, o...)
	e.line = append(e.line, '>')
	e.end()
}

// term writes <s> pred term, term already formatted (e.g. a class "<...>").
func (e *emitter) term(s []byte, pred, term string) {
	e.begin(s, pred)
	e.line = append(e.line, term...)
	e.end()
}

// str writes a simple (xsd:string) literal.
func (e *emitter) str(s []byte, pred, v string) {
	e.begin(s, pred)
	e.line = append(e.line, '"')
	buf := kb.Bytes(e.line)
	kb.EscapeString(&buf, v) // the one N-Triples string escaping
	e.line = append(buf, '"')
	e.end()
}

// dbl writes an xsd:double literal rounded to three decimals.
func (e *emitter) dbl(s []byte, pred string, v float64) {
	e.begin(s, pred)
	e.line = append(e.line, '"')
	e.line = appendDouble(e.line, v)
	e.line = append(e.line, dtDouble...)
	e.end()
}

// integer writes an integer literal with the given datatype suffix (dtLong
// or dtInteger).
func (e *emitter) integer(s []byte, pred string, v int64, dt string) {
	e.begin(s, pred)
	e.line = append(e.line, '"')
	e.line = strconv.AppendInt(e.line, v, 10)
	e.line = append(e.line, dt...)
	e.end()
}

// typed writes a literal with a lexical form and datatype suffix.
func (e *emitter) typed(s []byte, pred, lexical, dt string) {
	e.begin(s, pred)
	e.line = append(e.line, '"')
	e.line = append(e.line, lexical...)
	e.line = append(e.line, dt...)
	e.end()
}

func appendDouble(b []byte, v float64) []byte {
	r := math.Round(v*1000) / 1000
	if r == 0 && v != 0 {
		r = v
	}
	return strconv.AppendFloat(b, r, 'f', -1, 64)
}
