package main

import (
	"context"
	"fmt"
	"io"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/shacl"
)

// validatingSink holds a conversion's statements until it ends and
// validates them (beside PERFONTO) before letting the real sink commit:
// with warn unset, output that does not conform is discarded, so the
// store, the remote graph or the --out file stays unchanged.
type validatingSink struct {
	convert.Sink
	shapes *shacl.Shapes
	warn   bool
	report io.Writer // where the validation report goes
	graph  kb.Term
	quads  []kb.TermQuad
}

func (v *validatingSink) Add(ctx context.Context, q kb.TermQuad) error {
	v.quads = append(v.quads, q)
	return v.Sink.Add(ctx, q)
}

func (v *validatingSink) Close(ctx context.Context, failed error) error {
	if failed != nil {
		return v.Sink.Close(ctx, failed)
	}
	rep, err := v.validate(ctx)
	if err == nil && !rep.Conforms {
		err = rep.WriteTurtle(v.report)
		if err == nil {
			if v.warn {
				fmt.Fprintf(v.report, "perfkb: warning: the output does not conform to the shapes (%d results); writing it anyway\n", len(rep.Results))
			} else {
				err = nonConforming(rep, "conversion refused: the output does not conform to the shapes")
			}
		}
	}
	if err != nil {
		if cerr := v.Sink.Close(ctx, err); cerr != nil {
			return fmt.Errorf("%w (and discarding the output failed: %v)", err, cerr)
		}
		return err
	}
	return v.Sink.Close(ctx, nil)
}

func (v *validatingSink) validate(ctx context.Context) (*shacl.Report, error) {
	mem := native.OpenMemory()
	defer mem.Close()
	i := 0
	next := func() (kb.TermQuad, error) {
		if i == len(v.quads) {
			return kb.TermQuad{}, io.EOF
		}
		i++
		return v.quads[i-1], nil
	}
	if _, err := rdfio.LoadQuads(ctx, mem, next, rdfio.LoadOptions{Graph: v.graph, SourceName: "conversion"}); err != nil {
		return nil, err
	}
	if err := shacl.AddOntology(ctx, mem); err != nil {
		return nil, err
	}
	return shacl.Validate(ctx, mem, v.shapes, shacl.Options{})
}
