package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/reasoner/rulelang"
	"github.com/perfkb/perfkb/rules"
)

func init() { register(newReasonCmd) }

func newReasonCmd(app *App) *cobra.Command {
	var (
		ruleFiles     []string
		defines       []string
		explain       string
		format        string
		problemType   string
		reset         bool
		noDerivations bool
		maxIterations int
		maxDerived    int64
		maxTermBytes  string
		rulesMemory   string
		limit         int
		all           bool
		profile       queryProfileFlag
	)
	cmd := &cobra.Command{
		Use:   "reason",
		Short: "Run analysis rules over the store and print the performance problems found",
		Long: `reason materializes rules written in Apache Jena's rule syntax over the
store: it derives every consequence to a fixpoint (semi-naive forward
chaining), writes the new triples to the graph <urn:x-perfkb:inferred> with a
derivation record for each, and prints the performance problems
(perfonto:hasProblem findings): a summary per problem class (count, worst
severity), then the --limit most severe findings (default 20; --all prints
every one). --format json always holds every finding.

Without --rules it runs the shipped sets RDFS, OWL and PERFONTO (see
'perfkb rules list'); --rules takes a file or a shipped set name and may be
repeated. --define NAME=VALUE overrides a named constant (@define) such as
BIG_MESSAGES_THRESHOLD. Running again derives only what is missing; --reset
first clears the inferred graph, e.g. after changing the rules.

--explain IRI prints, without running anything, why the store holds the
inferred triples about IRI: each one with its rule and premises, down to
asserted triples. Blank nodes (findings) are written _:label.`,
		Example: `  perfkb reason --store native:./perfkb.db
  perfkb reason --rules my.rules --define BIG_MESSAGES_THRESHOLD=131072 --format json
  perfkb reason --explain http://perfkb.example/site/vienna/exp/1/rs/p0t0/3`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if format != "table" && format != "json" {
				return usageError(fmt.Errorf("--format must be table or json, not %q", format))
			}
			if limit < 0 {
				return usageError(fmt.Errorf("--limit must be 0 or more, got %d", limit))
			}
			if all {
				limit = 0
			}
			prog, err := loadRuleProgram(ruleFiles, defines)
			if err != nil {
				return err
			}
			ctx := cmd.Context()
			if explain != "" {
				term, err := parseTermArg(explain)
				if err != nil {
					return usageError(err)
				}
				ds, err := app.OpenStore(ctx)
				if err != nil {
					return err
				}
				defer ds.Close()
				ders, err := reasoner.Explain(ctx, ds, term)
				if err != nil {
					return err
				}
				return writeExplanation(app.Stdout, format, term, ders)
			}
			stopProfile, err := profile.start()
			if err != nil {
				return err
			}
			defer stopProfile()
			ds, err := app.OpenStore(ctx)
			if err != nil {
				return err
			}
			defer ds.Close()
			if err := useReadSide(ctx, ds); err != nil {
				return err
			}
			termBytes, err := parseByteSize(maxTermBytes)
			if err != nil {
				return usageError(fmt.Errorf("--max-term-bytes %q: %w", maxTermBytes, err))
			}
			memBudget, err := parseByteSize(rulesMemory)
			if err != nil {
				return usageError(fmt.Errorf("--rules-memory %q: %w", rulesMemory, err))
			}
			// Checked before the run, which can take long.
			if problemType != "" {
				if err := reasoner.CheckProblemClass(ctx, ds, problemType); err != nil {
					return &exitError{code: exitInvalidInput, err: fmt.Errorf("--type: %w", err)}
				}
			}
			progress := app.NewProgress("reasoning: reading the store", "triples")
			opts := reasoner.Options{
				MaxIterations: maxIterations, MaxDerived: maxDerived,
				MaxTermBytes: int(termBytes), MemoryBudget: memBudget,
				Reset: reset, NoDerivations: noDerivations, Print: app.Stderr,
				Progress: reasonProgress(progress),
			}
			sum, runErr := reasoner.Run(ctx, ds, prog, opts)
			progress.Done()
			if sum.UpToDate {
				fmt.Fprintf(app.Stderr, "%d rules over %s triples: nothing to derive, the store has not changed since these rules reached their fixpoint (%.2fs; --reset runs them in full)\n",
					sum.Rules, humanCount(sum.Loaded), sum.Duration.Seconds())
			} else {
				fmt.Fprintf(app.Stderr, "%d rules over %s triples: %s derived, %s removed in %d rounds (%.2fs)\n",
					sum.Rules, humanCount(sum.Loaded), humanCount(sum.Derived), humanCount(sum.Removed), sum.Rounds, sum.Duration.Seconds())
			}
			if runErr != nil {
				return runErr
			}
			findings, err := reasoner.Findings(ctx, ds, reasoner.FindingFilter{Type: problemType})
			if err != nil {
				return err
			}
			return writeFindings(app.Stdout, format, findings, sum, limit)
		},
	}
	f := cmd.Flags()
	f.StringArrayVar(&ruleFiles, "rules", nil, "rule file or shipped set (RDFS, OWL, PERFONTO); repeatable (default: RDFS, OWL and PERFONTO)")
	f.StringArrayVar(&defines, "define", nil, "override a named constant, NAME=VALUE (repeatable)")
	f.StringVar(&explain, "explain", "", "print the derivations of the inferred triples about this IRI (or _:blank) and exit")
	f.StringVar(&format, "format", "table", "output format: table or json")
	f.StringVar(&problemType, "type", "", "only print findings of this problem class (e.g. BigMessage)")
	f.BoolVar(&reset, "reset", false, "clear the inferred graph and derivation records first")
	f.BoolVar(&noDerivations, "no-derivations", false, "do not record derivations (faster; no --explain for new triples)")
	f.IntVar(&maxIterations, "max-iterations", 0, "stop after this many rounds (default 10000)")
	f.Int64Var(&maxDerived, "max-derived", 0, "stop after deriving this many triples (default: no limit)")
	f.StringVar(&maxTermBytes, "max-term-bytes", "64KiB", "stop when a builtin makes a term larger than this (strConcat, uriConcat …)")
	f.StringVar(&rulesMemory, "rules-memory", "4GiB", "stop when the heap grows by more than this during the run")
	f.IntVar(&limit, "limit", 20, "print only the N most severe findings after the per-class summary (table format)")
	f.BoolVar(&all, "all", false, "print every finding (same as --limit 0)")
	profile.bind(f)
	return cmd
}

// useReadSide turns on a native store's in-memory read side for a rules
// run (the CLI opens stores without it, see store.Open): the working
// memory is then loaded from the sorted ID arrays, mapped from the side
// files when a bulk load left them, instead of a scan of Pebble; builtins
// and the findings query probe memory instead of seeking; and the run's
// derived triples go to the delta log as one entry instead of rewriting
// the six index keyspaces (kb/native's deltalog.go), still as one atomic
// write. Other stores are left as they are.
func useReadSide(ctx context.Context, ds kb.Dataset) error {
	ns, ok := ds.(*native.Store)
	if !ok {
		return nil
	}
	if err := ns.SetMemoryBudget(ctx, 0); err != nil {
		return fmt.Errorf("reading the store into memory: %w", err)
	}
	return nil
}

// parseTermArg reads an IRI (bare, <…>, or a perfonto:/rdf:… prefixed
// name) or a blank node _:label.
func parseTermArg(s string) (kb.Term, error) {
	s = strings.TrimSpace(s)
	switch {
	case strings.HasPrefix(s, "_:"):
		return kb.Blank(s[2:]), nil
	case strings.HasPrefix(s, "<") && strings.HasSuffix(s, ">"):
		return kb.IRI(s[1 : len(s)-1]), nil
	}
	if prefix, local, ok := strings.Cut(s, ":"); ok {
		if ns, known := rulelang.DefaultPrefixes[prefix]; known && !strings.HasPrefix(local, "//") {
			return kb.IRI(ns + local), nil
		}
	}
	if s == "" {
		return kb.Term{}, fmt.Errorf("--explain needs an IRI")
	}
	return kb.IRI(s), nil
}

// reasonProgress names the reasoner's phase on the progress line: reading
// the store, then the round being evaluated with the true counts of what
// the rounds before it derived. The reasoner reports only between rounds,
// so a round's line shows its label and the elapsed time, which the ticker
// keeps moving.
func reasonProgress(p *Progress) func(reasoner.Progress) {
	var before int64 // derived before the last finished round
	return func(rp reasoner.Progress) {
		switch rp.Phase {
		case "load":
			p.Phase("reasoning: reading the store", "triples")
			p.Set(rp.Loaded)
			p.Phase(fmt.Sprintf("reasoning: round 1 of rules over %s triples", humanCount(rp.Loaded)), "")
		case "round":
			p.Phase(fmt.Sprintf("reasoning: round %d of rules; %s triples derived so far, %s in round %d",
				rp.Round+1, humanCount(rp.Derived), humanCount(rp.Derived-before), rp.Round), "")
			before = rp.Derived
		default:
			p.Phase(fmt.Sprintf("reasoning: writing %s derived triples", humanCount(rp.Derived)), "")
		}
	}
}

// checkRuleSources reports a --rules file that does not exist (a usage
// error) before any work starts; shipped set names are not files.
func checkRuleSources(sources []string) error {
	for _, src := range sources {
		if _, _, ok := rules.Lookup(src); ok {
			continue
		}
		if _, err := os.Stat(src); err != nil {
			return fmt.Errorf("--rules %s: no such file or shipped set (shipped: %s)", src, strings.Join(rules.Names(), ", "))
		}
	}
	return nil
}

// classSummary is one line of the per-class summary of perfkb reason.
type classSummary struct {
	name  string
	count int
	worst float64
	has   bool // some finding of the class has a severity
}

// summarizeFindings counts findings per problem class, worst class first
// (by highest severity, then by count).
func summarizeFindings(findings []reasoner.Finding) []classSummary {
	byName := map[string]*classSummary{}
	var out []*classSummary
	for _, f := range findings {
		c := byName[f.TypeName()]
		if c == nil {
			c = &classSummary{name: f.TypeName()}
			byName[c.name] = c
			out = append(out, c)
		}
		c.count++
		if f.HasSeverity && (!c.has || f.Severity > c.worst) {
			c.worst, c.has = f.Severity, true
		}
	}
	sort.SliceStable(out, func(i, j int) bool {
		a, b := out[i], out[j]
		if a.has != b.has {
			return a.has
		}
		if a.worst != b.worst {
			return a.worst > b.worst
		}
		if a.count != b.count {
			return a.count > b.count
		}
		return a.name < b.name
	})
	res := make([]classSummary, len(out))
	for i, c := range out {
		res[i] = *c
	}
	return res
}

func writeFindings(w io.Writer, format string, findings []reasoner.Finding, sum reasoner.Summary, limit int) error {
	if format == "json" {
		// The report POST /rules/run answers too (reasoner.Report).
		return reasoner.WriteJSON(w, reasoner.NewReport(sum, findings))
	}
	if len(findings) == 0 {
		_, err := fmt.Fprintln(w, "no performance problems found")
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	classes := summarizeFindings(findings)
	fmt.Fprintf(tw, "%s findings of %d problem classes\n", humanCount(int64(len(findings))), len(classes))
	fmt.Fprintln(tw, "PROBLEM CLASS\tFINDINGS\tWORST SEVERITY")
	for _, c := range classes {
		worst := "-"
		if c.has {
			worst = formatNumber(c.worst)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\n", c.name, humanCount(int64(c.count)), worst)
	}
	fmt.Fprintln(tw)
	shown := findings
	if limit > 0 && len(shown) > limit {
		shown = shown[:limit]
		fmt.Fprintf(tw, "the %d most severe (--limit N, --all for all %s):\n", limit, humanCount(int64(len(findings))))
	}
	fmt.Fprintln(tw, "PROBLEM\tSEVERITY\tSUBJECT\tMETRIC\tVALUE\tDESCRIPTION")
	for _, f := range shown {
		sev := "-"
		if f.HasSeverity {
			sev = formatNumber(f.Severity) + " " + f.SeverityClass
		}
		metric, value := f.MetricName, f.MetricValue.Value
		if metric == "" {
			metric, value = "-", "-"
		} else if v, err := strconv.ParseFloat(value, 64); err == nil {
			value = formatNumber(v)
		}
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", f.TypeName(), sev, f.Subject.Value, metric, value, readableDescription(f.Description))
	}
	return tw.Flush()
}

// numberInText matches a number in a rule's description, with the unit
// "us" when one follows.
var numberInText = regexp.MustCompile(`-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?(?: us\b)?`)

// readableDescription rewrites the raw numbers rules print into their
// descriptions ("8.333600621000001E7 us" becomes "83.34 s") so that a
// terminal table stays readable; --format json keeps the text as derived.
func readableDescription(s string) string {
	return numberInText.ReplaceAllStringFunc(s, func(m string) string {
		num, us := strings.CutSuffix(m, " us")
		v, err := strconv.ParseFloat(num, 64)
		if err != nil {
			return m
		}
		if us {
			switch {
			case math.Abs(v) >= 1e6:
				return strconv.FormatFloat(v/1e6, 'g', 4, 64) + " s"
			case math.Abs(v) >= 1e3:
				return strconv.FormatFloat(v/1e3, 'g', 4, 64) + " ms"
			}
			return formatNumber(v) + " µs"
		}
		if strings.ContainsAny(num, ".eE") && len(num) > 8 {
			return formatNumber(v)
		}
		return m
	})
}

// formatNumber prints a measured value readably: 7.7474057993029995E9
// becomes 7.747e+09, 0.8125 stays 0.8125, 1234 stays 1234.
func formatNumber(v float64) string {
	if v == float64(int64(v)) && v > -1e15 && v < 1e15 {
		return strconv.FormatInt(int64(v), 10)
	}
	return strconv.FormatFloat(v, 'g', 4, 64)
}

func writeExplanation(w io.Writer, format string, term kb.Term, ders []*reasoner.Derivation) error {
	if format == "json" {
		// The shape GET /explain answers too (reasoner.Explanation).
		return reasoner.WriteJSON(w, reasoner.Explanation{Subject: term, Derivations: ders})
	}
	if len(ders) == 0 {
		_, err := fmt.Fprintf(w, "no inferred triples about %s\n", term)
		return err
	}
	var b strings.Builder
	for i, d := range ders {
		if i > 0 {
			b.WriteByte('\n')
		}
		d.Format(&b, "")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
