package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func init() { register(newManCmd) }

func newManCmd(app *App) *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "man",
		Short: "Write man pages for perfkb and every subcommand",
		Long: `man writes one troff man page per command (perfkb.1, perfkb-query.1, …)
into --dir, generated from the same help texts 'perfkb help' prints. View
one with 'man ./man/perfkb-query.1'.`,
		Example: `  perfkb man --dir ./man && man ./man/perfkb.1`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return err
			}
			header := &doc.GenManHeader{Title: "PERFKB", Section: "1", Source: "perfkb " + readBuildInfo().Version}
			root := cmd.Root()
			root.DisableAutoGenTag = true // reproducible pages: no generation date
			if err := doc.GenManTree(root, header, dir); err != nil {
				return fmt.Errorf("writing man pages to %s: %w", dir, err)
			}
			fmt.Fprintf(app.Stderr, "man pages written to %s\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "man", "directory to write the pages to")
	return cmd
}
