package pgtest

import (
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// Pair is a primary and a hot standby streaming from it, made with
// pg_basebackup -R, both throwaway clusters on loopback. The primary
// commits synchronously to the standby (synchronous_commit = on,
// synchronous_standby_names = '*'), so a commit it acknowledges is on the
// standby.
type Pair struct {
	Primary, Standby *Server
	bin              string
	asUser           []string
	standbyData      string
}

// StartPair starts a primary and a standby for t, stopped and deleted when
// t ends. It skips t when no PostgreSQL binaries are installed.
func StartPair(t testing.TB) *Pair {
	t.Helper()
	bin, err := findBinaries()
	if err != nil {
		t.Skipf("replication tests need PostgreSQL's binaries: %v; install PostgreSQL (apt-get install postgresql)", err)
	}
	if _, err := os.Stat(filepath.Join(bin, "pg_basebackup")); err != nil {
		t.Skipf("replication tests need pg_basebackup: %v", err)
	}
	primary, err := startCluster(bin, "-c synchronous_commit=on -c synchronous_standby_names='*' -c wal_level=replica -c max_wal_senders=5")
	if err != nil {
		t.Fatalf("pgtest: starting the primary: %v", err)
	}
	t.Cleanup(primary.stop)
	p := &Pair{Primary: primary, bin: bin, asUser: primary.pgCtl[:len(primary.pgCtl)-3]}
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	dir := primary.dataDir
	p.standbyData = filepath.Join(dir, "standby")
	u, err := url.Parse(primary.DSN)
	if err != nil {
		t.Fatal(err)
	}
	pport := u.Port()
	if err := p.run(filepath.Join(bin, "pg_basebackup"), "-h", "127.0.0.1", "-p", pport, "-U", "postgres", "-D", p.standbyData, "-R", "-X", "stream"); err != nil {
		t.Fatalf("pgtest: pg_basebackup: %v", err)
	}
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c hot_standby=on", port, dir)
	if err := p.run(filepath.Join(bin, "pg_ctl"), "-D", p.standbyData, "-o", opts, "-l", filepath.Join(dir, "standby.log"), "-w", "-t", "60", "start"); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "standby.log"))
		t.Fatalf("pgtest: starting the standby: %v\n%s", err, log)
	}
	p.Standby = &Server{DSN: fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port)}
	t.Cleanup(func() { _ = p.run(filepath.Join(bin, "pg_ctl"), "-D", p.standbyData, "-m", "immediate", "-w", "stop") })
	return p
}

func (p *Pair) run(args ...string) error {
	argv := append(append([]string(nil), p.asUser...), args...)
	out, err := exec.Command(argv[0], argv[1:]...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
	}
	return nil
}

// KillPrimary kills the primary's postmaster with SIGKILL, as a machine
// failure would stop it (its backends exit when they notice).
func (p *Pair) KillPrimary() error {
	b, err := os.ReadFile(filepath.Join(p.Primary.dataDir, "data", "postmaster.pid"))
	if err != nil {
		return err
	}
	pid, err := strconv.Atoi(strings.SplitN(string(b), "\n", 2)[0])
	if err != nil {
		return fmt.Errorf("postmaster.pid: %w", err)
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

// Promote promotes the standby to a primary and waits until it accepts
// writes.
func (p *Pair) Promote() error {
	return p.run(filepath.Join(p.bin, "pg_ctl"), "-D", p.standbyData, "-w", "-t", "60", "promote")
}
