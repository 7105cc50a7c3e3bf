// Command perfkb is the one CLI of the perfkb knowledge base: it loads
// PERFONTO triples, runs SPARQL queries and analysis rules, and serves the
// HTTP endpoint. This package only wires the other packages together.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/store"
)

// Exit codes, the same for every subcommand.
const (
	exitOK           = 0
	exitInvalidInput = 1 // a syntax error in data, a query or a rule file
	exitUsage        = 2
	exitOther        = 3
)

// commandConstructors holds the subcommands; each file registers its own in
// init so that subcommands stay independent of one another.
var commandConstructors []func(*App) *cobra.Command

func register(newCommand func(*App) *cobra.Command) {
	commandConstructors = append(commandConstructors, newCommand)
}

// App is what every subcommand shares: the global flags and the streams.
type App struct {
	StoreSpec string
	Stdout    io.Writer
	Stderr    io.Writer
	Stdin     io.Reader
}

// OpenStore opens the store named by --store (the embedded default when
// unset).
func (a *App) OpenStore(ctx context.Context) (kb.Dataset, error) {
	return store.Open(ctx, a.StoreSpec, store.Options{})
}

// IsTerminal reports whether w is a terminal, to choose tables and progress
// bars over machine-readable output.
func (a *App) IsTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// exitError carries the exit code an error should produce.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string { return e.err.Error() }
func (e *exitError) Unwrap() error { return e.err }

// usageError marks err as a usage error (exit 2).
func usageError(err error) error { return &exitError{code: exitUsage, err: err} }

// exitCode maps an error to the process exit code.
func exitCode(err error) int {
	if err == nil {
		return exitOK
	}
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	var invalid interface{ InvalidInput() bool }
	if errors.As(err, &invalid) && invalid.InvalidInput() {
		return exitInvalidInput
	}
	return exitOther
}

func newRootCmd(app *App) *cobra.Command {
	root := &cobra.Command{
		Use:   "perfkb",
		Short: "A knowledge base and reasoner for parallel and grid performance data",
		Long: `perfkb keeps performance data from many grid sites as RDF described by the
PERFONTO ontology, runs analysis rules written in Jena rule syntax over it,
and answers SPARQL 1.1 queries on the command line and over HTTP.`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.PersistentFlags().StringVar(&app.StoreSpec, "store", store.DefaultSpec,
		"store to use: native:PATH (default, embedded), memory:, leveldb:PATH, memstore:, or a postgres:// DSN")
	root.SetFlagErrorFunc(func(_ *cobra.Command, err error) error { return usageError(err) })
	for _, newCommand := range commandConstructors {
		root.AddCommand(newCommand(app))
	}
	return root
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	app := &App{Stdout: stdout, Stderr: stderr, Stdin: stdin}
	root := newRootCmd(app)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if err != nil {
		code := exitCode(err)
		if code == exitOther && isCobraUsageError(err) {
			code = exitUsage
		}
		fmt.Fprintf(stderr, "perfkb: %v\n", err)
		return code
	}
	return exitOK
}

// isCobraUsageError recognises cobra's own argument errors (unknown command,
// wrong number of arguments), which it returns as plain errors.
func isCobraUsageError(err error) bool {
	msg := err.Error()
	for _, prefix := range []string{"unknown command", "accepts ", "requires ", "unknown flag", "unknown shorthand flag", "invalid argument", "flag needs an argument"} {
		if len(msg) >= len(prefix) && msg[:len(prefix)] == prefix {
			return true
		}
	}
	return false
}
