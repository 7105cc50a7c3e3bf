package chrometrace

import (
	"context"
	"path/filepath"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/trace/traceconv"
)

// Converter converts one Chrome Trace Event JSON file.
type Converter struct {
	path string
	base convert.Base
	opts traceconv.Options
}

// New returns a converter of the trace file at path; opts are those of
// every trace converter (experiment IRI, events, compensation).
func New(path string, base convert.Base, opts traceconv.Options) *Converter {
	return &Converter{path: path, base: base, opts: opts}
}

// Convert implements convert.Converter: it reads the file (Read), then
// converts the trace as traceconv does (CHECKTRACE, region summaries,
// events, compensated experiment). The reader's warnings lead the report's.
func (c *Converter) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
	name := filepath.Base(c.path)
	m, warnings, err := ReadFile(c.path)
	if err != nil {
		return convert.NewEmitter("chrome-trace", c.path, sink).Report(), err
	}
	rep, err := traceconv.New(m, "chrome-trace", name, c.base, c.opts).Convert(ctx, sink)
	rep.Source = c.path
	if len(warnings) > 0 {
		rep.WarningCount += int64(len(warnings))
		rep.Warnings = append(warnings[:len(warnings):len(warnings)], rep.Warnings...)
		if len(rep.Warnings) > convert.MaxWarnings {
			rep.Warnings = rep.Warnings[:convert.MaxWarnings]
		}
	}
	return rep, err
}
