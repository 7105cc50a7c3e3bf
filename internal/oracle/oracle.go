// Package oracle finds the Python interpreter that has the independent
// reference implementations installed (Extra-P, pycubexr, caliper-reader,
// llnl-hatchet), so that tests can compare perfkb's results with theirs.
//
// bench/oracles/install.sh installs them into a virtual environment and
// prints the PERFKB_ORACLE_PYTHON line to export; without it, or where a
// module does not import, the tests that need it skip and say why.
package oracle

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// Env names the variable holding the oracle interpreter's path.
const Env = "PERFKB_ORACLE_PYTHON"

// Python returns the oracle interpreter after checking that every module
// imports in it; otherwise it skips the test with the reason.
func Python(t testing.TB, modules ...string) string {
	t.Helper()
	py := os.Getenv(Env)
	if py == "" {
		t.Skipf("%s is not set: run bench/oracles/install.sh and export what it prints to compare with %s", Env, strings.Join(modules, ", "))
	}
	if len(modules) > 0 {
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		out, err := exec.CommandContext(ctx, py, "-c", "import "+strings.Join(modules, ", ")).CombinedOutput()
		if err != nil {
			t.Skipf("%s cannot import %s (bench/oracles/install.sh installs it): %v\n%s", py, strings.Join(modules, ", "), err, out)
		}
	}
	return py
}
