// Command perfkb is the one CLI of the perfkb knowledge base: it loads
// PERFONTO triples, runs SPARQL queries and analysis rules, and serves the
// HTTP endpoint. This package only wires the other packages together.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
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

	// command is the running subcommand's path without "perfkb " (e.g.
	// "sites add"); OpenStore creates a missing store only for the
	// commands in creatingCommands.
	command string
	// readOnly opens the store without write access (perfkb query of a
	// SELECT, ASK, CONSTRUCT or DESCRIBE), so that several such commands
	// read one store at once.
	readOnly bool
}

// creatingCommands are the subcommands that write data and may therefore
// create a store that does not exist yet. Every other command fails with
// "no store at PATH", so that a mistyped --store is reported instead of
// being answered from a fresh, empty store.
var creatingCommands = map[string]bool{
	"load": true, "demo": true, "serve": true, "sites add": true, "convert": true, "sensor-listen": true,
}

// createsStore says whether command may create a missing store: it is one
// of creatingCommands, or a subcommand of one (every "convert KIND").
func createsStore(command string) bool {
	first, _, _ := strings.Cut(command, " ")
	return creatingCommands[command] || creatingCommands[first]
}

// OpenStore opens the store named by --store (the embedded default when
// unset). A malformed specification is a usage error (exit 2); a missing
// on-disk store is created only by the commands in creatingCommands, the
// others get "no store at PATH" (exit 3) with a hint.
func (a *App) OpenStore(ctx context.Context) (kb.Dataset, error) {
	spec, err := store.ParseSpec(a.StoreSpec)
	if err != nil {
		return nil, usageError(err)
	}
	ds, err := a.openStore(ctx)
	if err != nil || spec.Backend == "memory" || spec.Backend == "memstore" || !(createsStore(a.command) || a.command == "reason") {
		return ds, err
	}
	// A store that commands write to holds the built-in PERFONTO in its
	// own graph (and is upgraded when this binary's differs), so the RDFS
	// and OWL rules see the class and property hierarchies.
	if _, err := store.EnsureOntology(ctx, ds); err != nil {
		ds.Close()
		return nil, err
	}
	return ds, nil
}

func (a *App) openStore(ctx context.Context) (kb.Dataset, error) {
	ds, err := store.Open(ctx, a.StoreSpec, store.Options{MustExist: a.command != "" && !createsStore(a.command), ReadOnly: a.readOnly})
	var nf *store.NotFoundError
	if errors.As(err, &nf) {
		hint := "create one with 'perfkb load FILE' or 'perfkb demo', or name another with --store"
		if a.command == "query" {
			hint += ", or query files with --data FILE"
		}
		return nil, &exitError{code: exitOther, err: fmt.Errorf("%w (%s)", nf, hint)}
	}
	return ds, err
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
//
// A file named on the command line that does not exist is a usage error
// too (see exitCode); a missing store is not (exit 3, see OpenStore).
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
	if errors.Is(err, fs.ErrNotExist) {
		// A data, query or rule file named on the command line is missing:
		// the user named the wrong thing, as with any other bad argument.
		// (Checked first: a loader may wrap it in a positioned error.)
		return exitUsage
	}
	var invalid interface{ InvalidInput() bool }
	if errors.As(err, &invalid) && invalid.InvalidInput() {
		return exitInvalidInput
	}
	if store.IsSpecError(err) {
		return exitUsage
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
		Version:       versionString(),
		PersistentPreRunE: func(cmd *cobra.Command, _ []string) error {
			app.command = strings.TrimPrefix(cmd.CommandPath(), cmd.Root().Name()+" ")
			return nil
		},
	}
	root.SetVersionTemplate("{{.Version}}\n")
	root.PersistentFlags().StringVar(&app.StoreSpec, "store", store.DefaultSpec,
		"store to use: native:PATH (default, embedded), memory:, leveldb:PATH, memstore:, a postgres:// DSN (PostgreSQL), or cayley-sql:postgres://… (Cayley's SQL backend)")
	root.SetFlagErrorFunc(func(cmd *cobra.Command, err error) error { return usageError(flagSuggestion(cmd, err)) })
	for _, newCommand := range commandConstructors {
		root.AddCommand(newCommand(app))
	}
	addValueCompletions(app, root)
	addExamples(root)
	suggestSubcommands(root)
	return root
}

func init() {
	// Subcommands may add their own PersistentPreRunE; the root's one (which
	// records the command for OpenStore) must still run.
	cobra.EnableTraverseRunHooks = true
}

func main() {
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	sigs := make(chan os.Signal, 2)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	storage := make(chan error, 1)
	defer native.OnBackgroundError(func(err error) {
		select {
		case storage <- err:
		default: // one is enough to stop the command
		}
	})()
	app := &App{Stdout: stdout, Stderr: stderr, Stdin: stdin}
	root := newRootCmd(app)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	sup := supervisor{stderr: stderr, signals: sigs, storage: storage, grace: stopGrace, exit: os.Exit,
		keepServing: func() bool { return longRunning[app.command] }}
	err := sup.run(context.Background(), root.ExecuteContext)
	if err != nil {
		code := exitCode(err)
		if code == exitOther && isCobraUsageError(err) {
			code = exitUsage
		}
		printError(stderr, err)
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
