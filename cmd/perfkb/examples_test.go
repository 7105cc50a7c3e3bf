package main

import (
	"testing"

	"github.com/spf13/cobra"
)

// TestEveryCommandHasExamples walks the command tree: every command a user
// can ask help of, parents included, shows at least one example (cobra's
// own help and completion commands aside), and every entry of
// commandExamples names a command that exists.
func TestEveryCommandHasExamples(t *testing.T) {
	seen := map[string]bool{}
	walkCommands(newRootCmd(&App{}), func(c *cobra.Command, path string) {
		seen[path] = true
		if path != "" && c.Example == "" && c.Name() != "help" && c.Name() != "completion" && c.Parent().Name() != "completion" && !c.Hidden {
			t.Errorf("perfkb %s --help shows no example", path)
		}
	})
	for path := range commandExamples {
		if !seen[path] {
			t.Errorf("commandExamples names %q, which is no command", path)
		}
	}
}
