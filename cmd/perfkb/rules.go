package main

import (
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/reasoner"
	"github.com/perfkb/perfkb/rules"
	"github.com/perfkb/perfkb/textpos"
)

func init() { register(newRulesCmd) }

func newRulesCmd(app *App) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "rules",
		Short: "Check rule files and show the shipped rule sets",
	}
	var defines []string
	check := &cobra.Command{
		Use:   "check FILE...",
		Short: "Parse and compile rule files, reporting every error with file:line:column",
		Long: `check parses each rule file (Apache Jena rule syntax, with @prefix, @include
and @define) and compiles it: unknown builtins, wrong argument counts and
head variables the body does not bind are errors. A file may also be the
name of a shipped set (RDFS, OWL, PERFONTO). It exits 1 when a file has
errors.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			defs, err := parseDefines(defines)
			if err != nil {
				return usageError(err)
			}
			var failed error
			for _, file := range args {
				prog, err := reasoner.LoadProgram([]string{file}, reasoner.ParseOptions{Defines: defs})
				if err != nil {
					if errs := textpos.All(err); len(errs) > 0 {
						for _, e := range errs {
							fmt.Fprintln(app.Stderr, e)
						}
					} else {
						fmt.Fprintf(app.Stderr, "%s: %v\n", file, err)
					}
					failed = err
					continue
				}
				fmt.Fprintf(app.Stdout, "%s: %d rules ok\n", file, prog.Len())
			}
			if failed != nil {
				// The errors are printed above; the summary keeps their
				// exit code without printing them twice.
				return &exitError{code: exitCode(failed), err: errors.New("rule files have errors")}
			}
			return nil
		},
	}
	check.Flags().StringArrayVar(&defines, "define", nil, "set a named constant, NAME=VALUE (repeatable)")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the shipped rule sets",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			w := tabwriter.NewWriter(app.Stdout, 0, 4, 2, ' ', 0)
			for _, name := range rules.Names() {
				file, _, _ := rules.Lookup(name)
				prog, err := reasoner.LoadProgram([]string{name}, reasoner.ParseOptions{})
				if err != nil {
					return err
				}
				fmt.Fprintf(w, "%s\t%s\t%d rules\n", name, file, prog.Len())
			}
			return w.Flush()
		},
	}
	show := &cobra.Command{
		Use:   "show NAME",
		Short: "Print a shipped rule set (RDFS, OWL, PERFONTO)",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			_, src, ok := rules.Lookup(args[0])
			if !ok {
				return usageError(fmt.Errorf("no shipped rule set %q (have %v)", args[0], rules.Names()))
			}
			_, err := app.Stdout.Write(src)
			return err
		},
	}
	cmd.AddCommand(check, list, show)
	return cmd
}

// loadRuleProgram turns a command's --rules and --define flags into a
// program, as every command that runs rules reads them: rule files or
// shipped set names (the shipped default sets RDFS, OWL and PERFONTO when
// files is empty), --define NAME=VALUE overriding their constants. A file
// that does not exist and a malformed --define are usage errors; errors
// in the rules are the parser's, with their positions.
func loadRuleProgram(files, defines []string) (*reasoner.Program, error) {
	if err := checkRuleSources(files); err != nil {
		return nil, usageError(err)
	}
	defs, err := parseDefines(defines)
	if err != nil {
		return nil, usageError(err)
	}
	if len(files) == 0 {
		files = rules.Default
	}
	return reasoner.LoadProgram(files, reasoner.ParseOptions{Defines: defs})
}

func parseDefines(defines []string) (map[string]string, error) {
	defs := map[string]string{}
	for _, d := range defines {
		name, value, ok := splitDefine(d)
		if !ok {
			return nil, fmt.Errorf("--define wants NAME=VALUE, got %q", d)
		}
		defs[name] = value
	}
	return defs, nil
}

func splitDefine(d string) (string, string, bool) {
	name, value, ok := strings.Cut(d, "=")
	return name, value, ok && name != ""
}
