package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagSuggestion adds "did you mean --name?" to pflag's unknown-flag error
// when one of the command's flags (its own or inherited) is within
// cobra's SuggestionsMinimumDistance edits of the mistyped name.
func flagSuggestion(cmd *cobra.Command, err error) error {
	name, ok := strings.CutPrefix(err.Error(), "unknown flag: --")
	if !ok {
		return err
	}
	name, _, _ = strings.Cut(name, "=")
	maxDist := cmd.SuggestionsMinimumDistance
	if maxDist <= 0 {
		maxDist = 2
	}
	best, bestDist := "", maxDist+1
	visit := func(f *pflag.Flag) {
		if f.Hidden {
			return
		}
		if d := levenshtein(name, f.Name); d < bestDist {
			best, bestDist = f.Name, d
		}
	}
	cmd.Flags().VisitAll(visit)
	cmd.InheritedFlags().VisitAll(visit)
	if best == "" {
		return err
	}
	return fmt.Errorf("%w (did you mean --%s?)", err, best)
}

// suggestSubcommands makes a command that only groups subcommands reject
// an unknown one with cobra's "Did you mean this?" list, as the root
// does, instead of printing its help and succeeding.
func suggestSubcommands(root *cobra.Command) {
	for _, c := range root.Commands() {
		suggestSubcommands(c)
		if !c.HasSubCommands() || c.Runnable() {
			continue
		}
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2 // cobra's default, set only on the root
		}
		c.Args = cobra.ArbitraryArgs
		c.RunE = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
			}
			return usageError(fmt.Errorf("%s", msg))
		}
	}
}

// levenshtein is the edit distance between a and b (insertions,
// deletions and substitutions of bytes).
func levenshtein(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
