package sensor

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
)

// Input is one source of messages: a file name ("-" for Stdin) or an
// open reader.
type Input struct {
	// Name is the file name errors report ("-" reads Stdin as "<stdin>").
	Name string
	// R, when set, is read instead of opening Name.
	R io.Reader
}

// Converter converts sensor data files into triples.
type Converter struct {
	inputs []Input
	base   convert.Base
	opt    Options
	// Stdin is read for the input "-"; default os.Stdin.
	Stdin io.Reader
}

// New returns a converter over the given inputs (files, "-" for stdin).
func New(inputs []Input, base convert.Base, opt Options) *Converter {
	return &Converter{inputs: inputs, base: base, opt: opt, Stdin: os.Stdin}
}

// Files returns the inputs for file names ("-" is stdin).
func Files(names ...string) []Input {
	in := make([]Input, len(names))
	for i, n := range names {
		in[i] = Input{Name: n}
	}
	return in
}

// Convert reads every input in order and emits its triples. The first bad
// message stops the conversion with a *convert.Error.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	names := make([]string, len(c.inputs))
	for i, in := range c.inputs {
		names[i] = displayName(in.Name)
	}
	em := convert.NewEmitter("sensor", strings.Join(names, ", "), sink)
	mapper := NewMapper(c.base, c.opt, em.Warn)
	emit := func(table string, s, p, o kb.Term) error {
		return em.Table(table).Emit(ctx, s, p, o)
	}
	for _, in := range c.inputs {
		if err := c.convertOne(ctx, in, mapper, em, emit); err != nil {
			return em.Report(), err
		}
	}
	return em.Report(), nil
}

func displayName(n string) string {
	if n == "-" {
		return "<stdin>"
	}
	return n
}

func (c *Converter) convertOne(ctx context.Context, in Input, mapper *Mapper, em *convert.Emitter, emit Emit) error {
	name := displayName(in.Name)
	r := in.R
	if r == nil {
		if in.Name == "-" {
			r = c.Stdin
		} else {
			f, err := os.Open(in.Name)
			if err != nil {
				return fmt.Errorf("sensor: %w", err)
			}
			defer f.Close()
			r = f
		}
	}
	rd := NewReader(r, ReaderOptions{Source: name})
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		msg, err := rd.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			var ce *convert.Error
			if errors.As(err, &ce) && ce.Source == "" {
				ce.Source = name
			}
			return err
		}
		em.Table(Kind(msg)).Row()
		if err := mapper.Map(msg, emit); err != nil {
			return err
		}
	}
}
