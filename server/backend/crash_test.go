package backend

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/graphstore"
)

// crashChildEnv, when set to a directory, turns the test binary into a
// server over a native store in that directory (see runCrashChild).
const crashChildEnv = "PERFKB_CRASH_CHILD"

// runCrashChild serves a native store on a loopback port, writes the
// address to DIR/addr, and runs until it is killed.
func runCrashChild(dir string) {
	ctx := context.Background()
	ds, err := native.Open(ctx, filepath.Join(dir, "store"), native.Options{})
	if err != nil {
		fmt.Fprintln(os.Stderr, "crash child:", err)
		os.Exit(3)
	}
	st := graphstore.New(ds)
	srv := server.New(server.Options{Graphs: st, Store: st, Token: token})
	err = srv.ListenAndServe(ctx, "127.0.0.1:0", func(a net.Addr) {
		os.WriteFile(filepath.Join(dir, "addr.tmp"), []byte(a.String()), 0o644)
		os.Rename(filepath.Join(dir, "addr.tmp"), filepath.Join(dir, "addr"))
	})
	fmt.Fprintln(os.Stderr, "crash child:", err)
	os.Exit(3)
}

// startCrashChild runs the test binary as a server child and waits for
// its address.
func startCrashChild(t *testing.T, dir string) (*exec.Cmd, string) {
	t.Helper()
	os.Remove(filepath.Join(dir, "addr"))
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), crashChildEnv+"="+dir)
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	for start := time.Now(); time.Since(start) < 20*time.Second; time.Sleep(20 * time.Millisecond) {
		if b, err := os.ReadFile(filepath.Join(dir, "addr")); err == nil {
			return cmd, "http://" + string(b)
		}
	}
	cmd.Process.Kill()
	t.Fatal("the server child did not start")
	return nil, ""
}

// TestKillDuringWrites SIGKILLs a server over the embedded native store
// while clients stream Graph Store writes, restarts it, and checks that no
// acknowledged write was lost and no batch is half applied.
func TestKillDuringWrites(t *testing.T) {
	if testing.Short() {
		t.Skip("the crash test starts and kills server processes; skipped with -short")
	}
	dir := t.TempDir()
	child, base := startCrashChild(t, dir)

	const clients, batch = 8, 25
	graph := "http://crash.example/g"
	var mu sync.Mutex
	acked := map[string]bool{} // batch id -> acknowledged
	sent := map[string]bool{}
	client := &http.Client{Timeout: 10 * time.Second}
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for c := 0; c < clients; c++ {
		wg.Add(1)
		go func(c int) {
			defer wg.Done()
			for n := 0; ; n++ {
				select {
				case <-stop:
					return
				default:
				}
				id := fmt.Sprintf("c%d-b%d", c, n)
				var doc strings.Builder
				for i := 0; i < batch; i++ {
					fmt.Fprintf(&doc, "<http://crash.example/%s/%d> <http://crash.example/batch> \"%s\" .\n", id, i, id)
				}
				mu.Lock()
				sent[id] = true
				mu.Unlock()
				req, _ := http.NewRequest("POST", base+"/data?graph="+url.QueryEscape(graph), strings.NewReader(doc.String()))
				req.Header.Set("Content-Type", "application/n-triples")
				req.Header.Set("Authorization", "Bearer "+token)
				resp, err := client.Do(req)
				if err != nil {
					return // the server is gone
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				if resp.StatusCode/100 == 2 {
					mu.Lock()
					acked[id] = true
					mu.Unlock()
				}
			}
		}(c)
	}
	time.Sleep(1500 * time.Millisecond)
	if err := child.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	child.Wait()
	close(stop)
	wg.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged before the kill; the test proves nothing")
	}

	child, base = startCrashChild(t, dir)
	defer func() { child.Process.Kill(); child.Wait() }()
	req, _ := http.NewRequest("GET", base+"/data?graph="+url.QueryEscape(graph), nil)
	req.Header.Set("Accept", "application/n-triples")
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("reading the graph back: %d", resp.StatusCode)
	}
	// Count the triples of each batch in what the restarted server holds.
	perBatch := map[string]int{}
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		line := sc.Text()
		if i := strings.Index(line, `"c`); i >= 0 {
			id := strings.TrimSuffix(strings.TrimSpace(line[i+1:]), `" .`)
			id = strings.TrimSuffix(id, `"`)
			perBatch[id]++
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for id := range acked {
		if perBatch[id] != batch {
			t.Errorf("acknowledged batch %s has %d of %d triples after the restart", id, perBatch[id], batch)
		}
	}
	unacked := 0
	for id, n := range perBatch {
		if !sent[id] {
			t.Errorf("batch %s was never sent", id)
		}
		if n != batch {
			t.Errorf("batch %s is half applied: %d of %d triples", id, n, batch)
		}
		if !acked[id] {
			unacked++ // stored, but the answer was lost in the kill: allowed
		}
	}
	t.Logf("%d batches acknowledged before SIGKILL, all present after restart; %d more stored whose answer the kill cut off; %d sent in total",
		len(acked), unacked, len(sent))
}
