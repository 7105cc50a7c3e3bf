package reasoner

import (
	"bufio"
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
)

const crashRunDirEnv = "PERFKB_REASONER_CRASH_DIR"

// crashChain is a chain of crashNodes nodes; its transitive closure has
// crashNodes·(crashNodes−1)/2 pairs, crashNodes−1 of them asserted.
const crashNodes = 260

const crashRule = `[t: (?a ex:next ?b) (?b ex:next ?c) -> (?a ex:next ?c)]`

func crashChainData() string {
	var b strings.Builder
	for i := range crashNodes - 1 {
		fmt.Fprintf(&b, "<http://example.org/n%d> <http://example.org/next> <http://example.org/n%d> .\n", i, i+1)
	}
	return b.String()
}

// TestReasonCrashChild is the process TestKillDuringReasoning starts and
// kills: it runs the closure rule over the chain in a native store and
// prints "running" before the run and "done" after it.
func TestReasonCrashChild(t *testing.T) {
	dir := os.Getenv(crashRunDirEnv)
	if dir == "" {
		t.Skip("helper process for TestKillDuringReasoning; runs only when re-executed with " + crashRunDirEnv)
	}
	ctx := context.Background()
	ds, err := native.Open(ctx, dir, native.Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("running")
	if _, err := Run(ctx, ds, mustProgram(t, crashRule), Options{}); err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	fmt.Println("done")
	os.Exit(0)
}

// TestKillDuringReasoning SIGKILLs a process while it reasons over a
// native store and checks that the reopened store has none of the run's
// derived triples or all of them (the run writes them in one Apply, which
// the store ingests atomically), never a part.
func TestKillDuringReasoning(t *testing.T) {
	if testing.Short() {
		t.Skip("starts and kills child processes; skipped with -short")
	}
	const derived = crashNodes*(crashNodes-1)/2 - (crashNodes - 1)
	seen := map[string]int{}
	for attempt := range 4 {
		dir := filepath.Join(t.TempDir(), "store")
		ctx := context.Background()
		ds, err := native.Open(ctx, dir, native.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if _, err := rdfio.Load(ctx, ds, strings.NewReader(crashChainData()), rdfio.LoadOptions{Format: rdfio.NTriples, Graph: kb.IRI("http://example.org/g")}); err != nil {
			t.Fatal(err)
		}
		if err := ds.Close(); err != nil {
			t.Fatal(err)
		}
		cmd := exec.Command(os.Args[0], "-test.run=^TestReasonCrashChild$")
		cmd.Env = append(os.Environ(), crashRunDirEnv+"="+dir)
		out, err := cmd.StdoutPipe()
		if err != nil {
			t.Fatal(err)
		}
		cmd.Stderr = os.Stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		lines := bufio.NewScanner(out)
		if !lines.Scan() || lines.Text() != "running" {
			cmd.Process.Kill()
			cmd.Wait()
			t.Fatalf("the child did not start its run: %q", lines.Text())
		}
		// A kill from at once up to past the run's end (the first attempt
		// lets it finish, so the complete closure is checked too).
		delay := time.Duration(rand.IntN(3000)) * time.Millisecond
		if attempt == 0 {
			delay = time.Minute
		}
		finished := make(chan bool, 1)
		go func() {
			ok := lines.Scan() && lines.Text() == "done"
			finished <- ok
		}()
		state := "killed"
		select {
		case ok := <-finished:
			if !ok {
				t.Fatalf("the child's run failed")
			}
			state = "finished"
		case <-time.After(delay):
			cmd.Process.Kill()
		}
		cmd.Wait()

		ds, err = native.Open(ctx, dir, native.Options{})
		if err != nil {
			t.Fatal(err)
		}
		id, ok, err := ds.Lookup(ctx, kb.InferredGraph)
		if err != nil {
			t.Fatal(err)
		}
		var n int64
		if ok {
			if n, err = ds.Count(ctx, kb.Pattern{G: id}, true); err != nil {
				t.Fatal(err)
			}
		}
		ds.Close()
		switch {
		case state == "finished" && n != derived:
			t.Errorf("attempt %d: the finished run left %d inferred quads, want %d", attempt, n, derived)
		case n != 0 && n != derived:
			t.Errorf("attempt %d: killed after %v, the store has %d of the run's %d inferred quads", attempt, delay, n, derived)
		}
		outcome := fmt.Sprintf("%s with %d", state, n)
		seen[outcome]++
	}
	t.Logf("outcomes: %v", seen)
}
