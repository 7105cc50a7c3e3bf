package convert

import (
	"context"
	"fmt"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// Report says what a conversion did. It is JSON-able (perfkb convert
// --report json prints it).
type Report struct {
	// Converter names the converter ("scalea", "sensor", …).
	Converter string `json:"converter"`
	// Source names the input (a file, a DSN without password).
	Source string `json:"source"`
	// Tables has one row per source table or message kind, in first-seen
	// order.
	Tables []TableReport `json:"tables"`
	// Rows and Triples are the totals over Tables.
	Rows    int64 `json:"rows"`
	Triples int64 `json:"triples"`
	// Warnings are the first MaxWarnings warnings; WarningCount counts all.
	Warnings     []Warning `json:"warnings"`
	WarningCount int64     `json:"warning_count"`
	// Duration is the wall time of the conversion.
	Duration         time.Duration `json:"-"`
	DurationSeconds  float64       `json:"duration_seconds"`
	RowsPerSecond    float64       `json:"rows_per_second"`
	TriplesPerSecond float64       `json:"triples_per_second"`
}

// TableReport counts one table or message kind.
type TableReport struct {
	Name    string `json:"name"`
	Rows    int64  `json:"rows"`
	Triples int64  `json:"triples"`
}

// Warning is a problem the converter worked around.
type Warning struct {
	Position string `json:"position"`
	Message  string `json:"message"`
}

func (w Warning) String() string {
	if w.Position == "" {
		return w.Message
	}
	return w.Position + ": " + w.Message
}

// MaxWarnings bounds the warnings a Report keeps (all are counted).
const MaxWarnings = 1000

// Check reports whether the totals equal the sums over Tables.
func (r Report) Check() error {
	var rows, triples int64
	for _, t := range r.Tables {
		rows += t.Rows
		triples += t.Triples
	}
	if rows != r.Rows || triples != r.Triples {
		return fmt.Errorf("report totals rows=%d triples=%d but tables sum to rows=%d triples=%d", r.Rows, r.Triples, rows, triples)
	}
	if int64(len(r.Warnings)) > r.WarningCount {
		return fmt.Errorf("report lists %d warnings but counts %d", len(r.Warnings), r.WarningCount)
	}
	return nil
}

// Emitter is the bookkeeping most converters want: it forwards triples to
// the sink and keeps the Report's per-table counts and warnings. It is not
// safe for concurrent use.
type Emitter struct {
	sink   Sink
	report Report
	start  time.Time
	tables map[string]*Table
	order  []*Table
}

// NewEmitter starts the clock of a conversion named converter reading
// source.
func NewEmitter(converter, source string, sink Sink) *Emitter {
	return &Emitter{sink: sink, report: Report{Converter: converter, Source: source}, start: time.Now(), tables: make(map[string]*Table)}
}

// Table is the counter of one source table or message kind.
type Table struct {
	e       *Emitter
	name    string
	rows    int64
	triples int64
}

// Table returns the counter of a table or message kind, creating it.
func (e *Emitter) Table(name string) *Table {
	t := e.tables[name]
	if t == nil {
		t = &Table{e: e, name: name}
		e.tables[name] = t
		e.order = append(e.order, t)
	}
	return t
}

// Row counts one row (record, message) read.
func (t *Table) Row() { t.rows++ }

// Rows returns the rows counted so far.
func (t *Table) Rows() int64 { return t.rows }

// Emit sends the triple (s, p, o) to the target graph and counts it for
// this table. A zero o means "absent" (an SQL NULL, a missing attribute)
// and emits nothing.
func (t *Table) Emit(ctx context.Context, s, p, o kb.Term) error {
	if o.IsZero() {
		return nil
	}
	t.triples++
	return t.e.sink.Add(ctx, kb.TermQuad{S: s, P: p, O: o})
}

// Warn records a warning at a position (see TextPosition, SQLPosition,
// StreamPosition).
func (e *Emitter) Warn(position, format string, args ...any) {
	e.report.WarningCount++
	if len(e.report.Warnings) < MaxWarnings {
		e.report.Warnings = append(e.report.Warnings, Warning{Position: position, Message: fmt.Sprintf(format, args...)})
	}
}

// Report returns the report so far, with totals, duration and rates.
func (e *Emitter) Report() Report {
	r := e.report
	r.Tables = make([]TableReport, 0, len(e.order))
	r.Rows, r.Triples = 0, 0
	for _, t := range e.order {
		r.Tables = append(r.Tables, TableReport{Name: t.name, Rows: t.rows, Triples: t.triples})
		r.Rows += t.rows
		r.Triples += t.triples
	}
	r.Warnings = append([]Warning(nil), r.Warnings...)
	r.Duration = time.Since(e.start)
	r.DurationSeconds = r.Duration.Seconds()
	if s := r.Duration.Seconds(); s > 0 {
		r.RowsPerSecond = float64(r.Rows) / s
		r.TriplesPerSecond = float64(r.Triples) / s
	}
	return r
}
