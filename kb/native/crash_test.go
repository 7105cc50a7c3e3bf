package native

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"

	"github.com/perfkb/perfkb/ontology"
)

const (
	crashDirEnv    = "PERFKB_NATIVE_CRASH_DIR"
	crashGrowEnv   = "PERFKB_NATIVE_CRASH_GROW"
	crashFoldEnv   = "PERFKB_NATIVE_CRASH_FOLD"
	crashBatchSize = 200
)

// crashGrow makes each batch as large as all the batches before it
// together, so that every write after the first rewrites the whole store
// (rewrite.go) and the kill lands in a rewrite.
var crashGrow = os.Getenv(crashGrowEnv) != ""

// crashBatchLen is the number of quads in batch b.
func crashBatchLen(b int) int {
	if crashGrow && b > 1 {
		return crashBatchSize << (b - 2)
	}
	return crashBatchSize
}

// crashBatch returns the quads of batch b; every batch has its own subjects.
func crashBatch(b int) []kb.TermQuad {
	const ex = "http://example.org/crash/"
	out := make([]kb.TermQuad, crashBatchLen(b))
	for j := range out {
		out[j] = kb.TermQuad{
			S: kb.IRI(fmt.Sprintf("%sbatch%d/s%d", ex, b, j)),
			P: kb.IRI(fmt.Sprintf("%sp%d", ex, j%7)),
			O: kb.Literal(strconv.Itoa(b*crashBatchSize+j), ontology.XSDInteger),
			G: kb.IRI(fmt.Sprintf("%sg%d", ex, b%3)),
		}
	}
	return out
}

// TestCrashChild is the loader TestCrashRecovery re-executes and kills: it
// writes batches until killed, odd ones with Apply (every other one of
// them through Apply's ingest path for large deltas) and even ones as bulk
// loads, and prints "ack N" once batch N is acknowledged.
func TestCrashChild(t *testing.T) {
	dir := os.Getenv(crashDirEnv)
	if dir == "" {
		t.Skip("helper process for TestCrashRecovery; runs only when re-executed with " + crashDirEnv)
	}
	ctx := context.Background()
	if os.Getenv(crashFoldEnv) != "" {
		logFoldMin, logFoldRatio = 1, 0 // fold after every delta log entry
	}
	s, err := Open(ctx, dir, Options{})
	if err != nil {
		fmt.Println("error", err)
		os.Exit(1)
	}
	for b := 1; ; b++ {
		ids, err := kb.InternQuads(ctx, s, crashBatch(b))
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		if b%2 == 1 {
			bulkApplyMin = 16384
			if b%4 == 3 {
				bulkApplyMin = crashBatchSize
			}
			err = s.Apply(ctx, kb.Delta{Add: ids})
		} else {
			var bw kb.BulkWriter
			if bw, err = s.BeginBulk(ctx); err == nil {
				if err = bw.Add(ctx, ids); err == nil {
					err = bw.Commit(ctx)
				}
			}
		}
		if err != nil {
			fmt.Println("error", err)
			os.Exit(1)
		}
		fmt.Printf("ack %d\n", b)
	}
}

// TestCrashRecovery kills a loading child process with SIGKILL and checks
// that the reopened store holds exactly the acknowledged batches, plus at
// most the one in flight (whole), with counters that agree with the data.
// The grow cases kill it while it rewrites the whole store, the fold
// cases while it folds the delta log (deltalog.go) after every write; the
// others mostly while it appends to the log.
func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("re-executes the test binary; skipped with -short")
	}
	for round, c := range []struct {
		killAfter  int
		grow, fold bool
	}{{5, false, false}, {23, false, false}, {4, true, false}, {8, true, false}, {6, false, true}, {15, false, true}} {
		name := fmt.Sprintf("kill-after-%d", c.killAfter)
		if c.grow {
			name += "-grow"
		}
		if c.fold {
			name += "-fold"
		}
		t.Run(name, func(t *testing.T) {
			crashGrow = c.grow
			defer func() { crashGrow = false }()
			dir := filepath.Join(t.TempDir(), fmt.Sprintf("db%d", round))
			lastAck := runAndKill(t, dir, c.killAfter, c.fold)
			if c.grow {
				// A rewrite into a store no larger than it writes only
				// the SPOG index (partial.go): check a copy as it is
				// when the kill lands between the ingest and the side
				// files' rename, read from Pebble.
				pebbleDir := filepath.Join(t.TempDir(), "pebble")
				copyStore(t, dir, pebbleDir, func(name string) bool { return !strings.HasPrefix(name, "readside-") })
				checkCrashedStore(t, pebbleDir, lastAck, Options{MemoryBudget: -1})
			}
			checkCrashedStore(t, dir, lastAck, Options{})
		})
	}
}

// runAndKill runs the child until it has acknowledged at least killAfter
// batches, kills it and returns the last batch it acknowledged.
func runAndKill(t *testing.T, dir string, killAfter int, fold bool) int {
	cmd := exec.Command(os.Args[0], "-test.run=^TestCrashChild$", "-test.v=false")
	cmd.Env = append(os.Environ(), crashDirEnv+"="+dir)
	if fold {
		cmd.Env = append(cmd.Env, crashFoldEnv+"=1")
	}
	if crashGrow {
		cmd.Env = append(cmd.Env, crashGrowEnv+"=1")
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lastAck := 0
	killed := false
	// The grow cases take up to half a minute under -race on a loaded
	// machine; the limit only catches a child that hangs.
	timer := time.AfterFunc(90*time.Second, func() { _ = cmd.Process.Kill() })
	defer timer.Stop()
	sc := bufio.NewScanner(out)
	for sc.Scan() {
		line := sc.Text()
		if rest, ok := strings.CutPrefix(line, "ack "); ok {
			n, err := strconv.Atoi(rest)
			if err != nil {
				t.Fatalf("child printed %q", line)
			}
			lastAck = n
			if n >= killAfter && !killed {
				// Kill while the next batch is being written.
				if err := cmd.Process.Signal(syscall.SIGKILL); err != nil {
					t.Fatal(err)
				}
				killed = true
			}
		} else if strings.HasPrefix(line, "error") {
			t.Fatalf("child: %s", line)
		}
	}
	_ = cmd.Wait()
	if !killed {
		t.Fatalf("child exited after %d batches without being killed", lastAck)
	}
	return lastAck
}

// copyStore copies the files of store dir that keep says to keep to to.
func copyStore(t *testing.T, dir, to string, keep func(name string) bool) {
	t.Helper()
	if err := os.MkdirAll(to, 0o755); err != nil {
		t.Fatal(err)
	}
	entries, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		if !e.Type().IsRegular() || !keep(e.Name()) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(to, e.Name()), data, 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func checkCrashedStore(t *testing.T, dir string, lastAck int, opts Options) {
	ctx := context.Background()
	s, err := Open(ctx, dir, opts)
	if err != nil {
		t.Fatalf("reopen after kill: %v", err)
	}
	defer s.Close()
	present := func(b int) int {
		n := 0
		for _, tq := range crashBatch(b) {
			var q kb.Quad
			ok := true
			for i, term := range []kb.Term{tq.S, tq.P, tq.O, tq.G} {
				id, found, err := s.Lookup(ctx, term)
				if err != nil {
					t.Fatal(err)
				}
				ok = ok && found
				set(&q, uint8(i), id)
			}
			if !ok {
				continue
			}
			quads, err := kb.Collect(s.Match(ctx, kb.Pattern(q)))
			if err != nil {
				t.Fatal(err)
			}
			n += len(quads)
		}
		return n
	}
	total := 0
	for b := 1; b <= lastAck; b++ {
		n := present(b)
		if n != crashBatchLen(b) {
			t.Errorf("acknowledged batch %d: %d of %d quads after the crash", b, n, crashBatchLen(b))
		}
		total += n
	}
	inFlight := present(lastAck + 1)
	if inFlight != 0 && inFlight != crashBatchLen(lastAck+1) {
		t.Errorf("batch %d in flight at the kill is half there: %d of %d quads", lastAck+1, inFlight, crashBatchLen(lastAck+1))
	}
	total += inFlight
	if n := present(lastAck + 2); n != 0 {
		t.Errorf("batch %d was never started but has %d quads", lastAck+2, n)
	}
	st, err := s.Stats(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if st.Quads != int64(total) {
		t.Errorf("after the crash Stats.Quads = %d; the batches hold %d", st.Quads, total)
	}
	for p, n := range st.ByPredicate {
		got, err := kb.Collect(s.Match(ctx, kb.Pattern{P: p}))
		if err != nil {
			t.Fatal(err)
		}
		if int64(len(got)) != n {
			t.Errorf("predicate %d: counter says %d, the index holds %d", p, n, len(got))
		}
	}
	t.Logf("killed after ack %d; in-flight batch %d present: %v", lastAck, lastAck+1, inFlight != 0)
}
