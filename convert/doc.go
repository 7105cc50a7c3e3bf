// Package convert is the seam between performance tools' own data and the
// knowledge base: a Converter reads one source (the SCALEA experiment
// database, sensor XML, OTF2 traces, TAU profiles …) and emits PERFONTO
// triples (kb.TermQuad) to a Sink, which writes N-Triples, loads a store
// graph atomically, or pushes to a remote perfkb in one request. The
// package also gives converters what they all need: IRIs minted from
// source keys (Base), catalog-typed metric literals (MetricLiteral),
// positioned errors (Error) and the end-of-run Report (Emitter).
//
// # Rules every converter follows
//
//   - IRIs come from Base.IRI with source keys only — never counters over
//     the input, never the clock — so converting twice gives byte-identical
//     sorted N-Triples and two --base values never collide.
//   - Triples have the shapes convert/sample writes, so the shipped rules
//     (rules/*.rules) fire unchanged; code regions carry their specific and
//     family class (ontology.LookupCodeRegionType) and hasCrType.
//   - Vocabulary IRIs come from ontology constants; new terms go in
//     ontology/internal/vocabgen/tables_<area>.go.
//   - Metric values use MetricLiteral(MetricDatatype(name), lexical).
//     Strings are plain xsd:string (String).
//   - Bad source data is a *Error with a Position (TextPosition,
//     SQLPosition, StreamPosition) saying what was expected; at a line of
//     a text file, TextErrorf also puts the *textpos.Error every perfkb
//     parser reports under it, so the CLI and server read its position.
//     Convert returns it; Run then discards the sink, so the store is
//     unchanged.
//   - Problems worked around are Emitter.Warn warnings with a position.
//   - Memory is bounded by a batch, not by the source: emit as you read.
//
// # Adding a converter
//
// 1. A package convert/<kind> with a constructor taking the source, a
// Base and options, returning a Converter (or a type with a Convert
// method). Inside Convert:
//
//	func (c *Conv) Convert(ctx context.Context, sink convert.Sink) (convert.Report, error) {
//		em := convert.NewEmitter("mykind", c.sourceName, sink)
//		tbl := em.Table("region")           // one per table / message kind
//		for each record {
//			tbl.Row()
//			s := c.base.IRI("region", key)  // source keys only
//			if err := tbl.Emit(ctx, s, kb.IRI(ontology.RDFType), kb.IRI(ontology.CodeRegion)); err != nil {
//				return em.Report(), err
//			}
//			if bad { return em.Report(), convert.TextErrorf(c.sourceName, textpos.Position{Source: file, Line: line, Column: col}, "expected …, got %q", v) }
//			if odd { em.Warn(pos, "…") }
//		}
//		return em.Report(), nil
//	}
//
// Table.Emit skips a zero object (an absent value), so NULLs need no if.
//
// 2. Tests: converttest.Run(t, converttest.Suite{New: …, Bad: …}) checks
// determinism, report counts, the store load and that every bad input
// leaves the store unchanged. Add goldens in testdata/.
//
// 3. The CLI: a file cmd/perfkb/convert_<kind>.go:
//
//	func init() { registerConvert(newConvertMyKindCmd) }
//
//	func newConvertMyKindCmd(app *App) *cobra.Command {
//		var opt mykind.Options
//		var cf *convertFlags
//		cmd := &cobra.Command{
//			Use: "mykind [flags] FILE...",
//			RunE: func(cmd *cobra.Command, args []string) error {
//				return runConversion(cmd.Context(), app, cf, "mykind",
//					func(ctx context.Context, base convert.Base, sink convert.Sink) (convert.Report, error) {
//						return mykind.New(args, base, opt).Convert(ctx, sink)
//					})
//			},
//		}
//		cf = addConvertFlags(cmd) // --base --out --sorted --graph --push --report
//		cmd.Flags().StringVar(&opt.X, "x", "", "…")
//		return cmd
//	}
//
// runConversion validates --base (usage error, exit 2), opens the sink
// (--out FILE|-, --push URL, else the --store graph --graph, default the
// base without its trailing separator), shows progress on a terminal, runs
// the conversion through Run (commit on success, discard on failure), and
// prints the report (--report json). Exit codes follow from the error: a
// *Error (InvalidInput) → 1, usageError → 2, anything else → 3.
//
// # Sinks
//
// NTriplesSink (NewNTriplesSink for a stream, CreateNTriplesFile for a
// file that appears only on success; sorted output spills sorted runs to
// temporary files beyond 32 MB and merges them),
// StoreSink (rdfio.LoadQuads in a goroutine: one bulk load, aborted on
// failure), PushSink (one GSP POST URL/data?graph=IRI streamed through an
// io.Pipe; a failure breaks the body so the server changes nothing), and
// CountingSink for progress.
package convert
