// Package traceconv turns a trace (any trace.Source: OTF2, the text
// format) into PERFONTO triples through the convert seam: CHECKTRACE
// first (fatal violations fail the conversion unless accepted), then the
// measured experiment's region summaries (and, with Events, the event-level
// shapes), and with a calibration the compensated experiment beside it
// (003; see package compensate).
package traceconv
