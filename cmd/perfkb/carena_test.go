package main

import (
	"os"
	"os/exec"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
)

// TestCArenaCap runs in child processes of this test binary, which has
// perfkb's load-time cap: 16 threads that allocate C memory at once leave
// at most two arenas, and with the operator's MALLOC_ARENA_MAX=16 (which
// the cap must leave alone) the same threads make more than two, so the
// count can tell.
func TestCArenaCap(t *testing.T) {
	if os.Getenv("PERFKB_ARENA_CHILD") != "" {
		threadsAllocate(16)
		os.Stdout.WriteString("arenas=" + strconv.Itoa(cArenas()) + "\n")
		return
	}
	if cArenas() < 0 {
		t.Skip("the C allocator is not glibc, or this build has no cgo: nothing to cap")
	}
	// child runs this test in a process of its own, with the operator's
	// allocator settings cleared and env added, and returns its count.
	child := func(env ...string) int {
		t.Helper()
		cmd := exec.Command(os.Args[0], "-test.run=^TestCArenaCap$")
		for _, kv := range os.Environ() {
			if !strings.HasPrefix(kv, "MALLOC_ARENA_MAX=") && !strings.HasPrefix(kv, "GLIBC_TUNABLES=") {
				cmd.Env = append(cmd.Env, kv)
			}
		}
		cmd.Env = append(cmd.Env, "PERFKB_ARENA_CHILD=1")
		cmd.Env = append(cmd.Env, env...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("child %v: %v\n%s", env, err, out)
		}
		for _, line := range strings.Split(string(out), "\n") {
			if v, ok := strings.CutPrefix(line, "arenas="); ok {
				n, err := strconv.Atoi(v)
				if err != nil {
					t.Fatalf("child %v: %s", env, line)
				}
				return n
			}
		}
		t.Fatalf("child %v printed no count:\n%s", env, out)
		return 0
	}
	if n := child("MALLOC_ARENA_MAX=16"); n <= cArenaMax {
		t.Errorf("with MALLOC_ARENA_MAX=16, 16 allocating threads made %d arenas: the cap overrode the operator's setting, or the count cannot tell", n)
	}
	if n := child(); n < 1 || n > cArenaMax {
		t.Errorf("16 allocating threads under the cap: %d arenas, want 1 to %d", n, cArenaMax)
	}
}

// threadsAllocate has n threads allocate C memory while all of them are
// alive, so that each is a thread of its own.
func threadsAllocate(n int) {
	var ready, done sync.WaitGroup
	ready.Add(n)
	done.Add(n)
	release := make(chan struct{})
	for range n {
		go func() {
			defer done.Done()
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			ready.Done()
			<-release
			for range 100 {
				cTouch(64 << 10)
			}
		}()
	}
	ready.Wait()
	close(release)
	done.Wait()
}
