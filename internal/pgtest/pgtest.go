// Package pgtest gives tests a PostgreSQL server: the one named by the
// environment variable PERFKB_TEST_POSTGRES_DSN, or else a throwaway cluster
// it starts on 127.0.0.1 from the PostgreSQL binaries installed under
// /usr/lib/postgresql/*/bin (Debian's layout) or on PATH, and stops when
// the test ends. Tests skip, saying why, only when neither is available.
//
//	srv := pgtest.Start(t)
//	dsn := srv.NewDatabase(t) // a fresh, empty database for this test
package pgtest

import (
	"context"
	"database/sql"
	"fmt"
	"net"
	"net/url"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	_ "github.com/lib/pq" // the "postgres" database/sql driver
)

// EnvDSN names the environment variable holding the DSN of a PostgreSQL
// server to test against (its user needs the CREATEDB privilege).
const EnvDSN = "PERFKB_TEST_POSTGRES_DSN"

// Server is a PostgreSQL server tests can create databases on.
type Server struct {
	// DSN connects to the server's maintenance database.
	DSN     string
	dataDir string // set when this package started the cluster
	pgCtl   []string
}

// databases numbers the databases this process creates. It is one counter
// for every Server: two Servers of one test may be the same cluster (the
// one $PERFKB_TEST_POSTGRES_DSN names), and their names must not meet.
var databases atomic.Int64

// Start returns a server for the test: the one $PERFKB_TEST_POSTGRES_DSN
// names, or a new throwaway cluster stopped and deleted at the end of t. It
// skips t when no PostgreSQL is available.
func Start(t testing.TB) *Server {
	t.Helper()
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return &Server{DSN: dsn}
	}
	bin, err := findBinaries()
	if err != nil {
		t.Skipf("PostgreSQL tests need a server: %v; install PostgreSQL (apt-get install postgresql) or set %s", err, EnvDSN)
	}
	srv, err := startCluster(bin, "")
	if err != nil {
		t.Fatalf("pgtest: starting a throwaway PostgreSQL cluster: %v", err)
	}
	t.Cleanup(srv.stop)
	return srv
}

// NewDatabase creates an empty database, dropped when t ends, and returns
// its DSN.
func (s *Server) NewDatabase(t testing.TB) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	dsn, drop, err := s.CreateDatabase(ctx)
	if err != nil {
		t.Fatalf("pgtest: %v", err)
	}
	t.Cleanup(func() { _ = drop() })
	return dsn
}

// CreateDatabase creates an empty database and returns its DSN and a
// function that drops it, for databases shared by the tests of a package
// (see StartMain).
func (s *Server) CreateDatabase(ctx context.Context) (dsn string, drop func() error, err error) {
	return s.CreateDatabaseFrom(ctx, "")
}

// CreateDatabaseFrom is CreateDatabase copying a template database, named
// by a DSN CreateDatabase returned ("" for an empty database). Copying is
// much faster than filling a database again, but nothing may be connected
// to the template meanwhile.
func (s *Server) CreateDatabaseFrom(ctx context.Context, template string) (dsn string, drop func() error, err error) {
	name := fmt.Sprintf("perfkb_test_%d_%d", os.Getpid(), databases.Add(1))
	create := "CREATE DATABASE " + name
	if template != "" {
		t, err := databaseName(template)
		if err != nil {
			return "", nil, err
		}
		create += " TEMPLATE " + t
	}
	db, err := sql.Open("postgres", s.DSN)
	if err != nil {
		return "", nil, err
	}
	defer db.Close()
	if _, err := db.ExecContext(ctx, create); err != nil {
		return "", nil, fmt.Errorf("create database %s on %s: %w", name, redact(s.DSN), err)
	}
	drop = func() error {
		db, err := sql.Open("postgres", s.DSN)
		if err != nil {
			return err
		}
		defer db.Close()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		_, err = db.ExecContext(ctx, "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
		return err
	}
	u, err := url.Parse(s.DSN)
	if err != nil || u.Scheme == "" {
		// A key=value DSN.
		return s.DSN + " dbname=" + name, drop, nil
	}
	u.Path = "/" + name
	return u.String(), drop, nil
}

// StartMain is Start for TestMain, so that the tests of a package share one
// server: it returns the server and a function stopping it (call it after
// m.Run), or, when no PostgreSQL is available, a nil server and the reason
// for tests to skip with.
func StartMain() (srv *Server, stop func(), skipReason string, err error) {
	if dsn := os.Getenv(EnvDSN); dsn != "" {
		return &Server{DSN: dsn}, func() {}, "", nil
	}
	bin, err := findBinaries()
	if err != nil {
		return nil, func() {}, fmt.Sprintf("PostgreSQL tests need a server: %v; install PostgreSQL (apt-get install postgresql) or set %s", err, EnvDSN), nil
	}
	srv, err = startCluster(bin, "")
	if err != nil {
		return nil, func() {}, "", fmt.Errorf("pgtest: starting a throwaway PostgreSQL cluster: %w", err)
	}
	return srv, srv.stop, "", nil
}

// findBinaries returns the directory holding initdb and pg_ctl: the
// newest /usr/lib/postgresql/N/bin, else the one on PATH.
func findBinaries() (string, error) {
	dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin")
	sort.Slice(dirs, func(i, j int) bool { return versionOf(dirs[i]) > versionOf(dirs[j]) })
	for _, d := range dirs {
		if isExecutable(filepath.Join(d, "initdb")) && isExecutable(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	if p, err := exec.LookPath("initdb"); err == nil {
		d := filepath.Dir(p)
		if isExecutable(filepath.Join(d, "pg_ctl")) {
			return d, nil
		}
	}
	return "", fmt.Errorf("no initdb/pg_ctl in /usr/lib/postgresql/*/bin or on PATH")
}

func versionOf(binDir string) int {
	n, _ := strconv.Atoi(filepath.Base(filepath.Dir(binDir)))
	return n
}

func isExecutable(path string) bool {
	fi, err := os.Stat(path)
	return err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0
}

// startCluster runs initdb and pg_ctl start in a new temporary directory,
// as the postgres user when running as root (PostgreSQL refuses root).
// extra, when not empty, holds more server options, which override the
// defaults.
func startCluster(bin, extra string) (*Server, error) {
	dir, err := os.MkdirTemp("", "perfkb-pgtest-")
	if err != nil {
		return nil, err
	}
	var asUser []string
	if os.Geteuid() == 0 {
		u, err := user.Lookup("postgres")
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("running as root needs a postgres user to run the server: %w", err)
		}
		uid, _ := strconv.Atoi(u.Uid)
		gid, _ := strconv.Atoi(u.Gid)
		if err := os.Chown(dir, uid, gid); err != nil {
			os.RemoveAll(dir)
			return nil, err
		}
		asUser = []string{"runuser", "-u", "postgres", "--"}
	}
	data := filepath.Join(dir, "data")
	run := func(args ...string) error {
		argv := append(append([]string(nil), asUser...), args...)
		cmd := exec.Command(argv[0], argv[1:]...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		if err != nil {
			return fmt.Errorf("%s: %w\n%s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	fail := func(err error) (*Server, error) {
		os.RemoveAll(dir)
		return nil, err
	}
	if err := run(filepath.Join(bin, "initdb"), "-D", data, "-U", "postgres", "--auth=trust", "-E", "UTF8", "--no-sync"); err != nil {
		return fail(err)
	}
	port, err := freePort()
	if err != nil {
		return fail(err)
	}
	pgCtl := append(append([]string(nil), asUser...), filepath.Join(bin, "pg_ctl"), "-D", data)
	opts := fmt.Sprintf("-p %d -k %s -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off %s", port, dir, extra)
	if err := run(append(pgCtl[len(asUser):], "-o", opts, "-l", filepath.Join(dir, "server.log"), "-w", "-t", "60", "start")...); err != nil {
		log, _ := os.ReadFile(filepath.Join(dir, "server.log"))
		return fail(fmt.Errorf("%w\nserver log:\n%s", err, log))
	}
	return &Server{
		DSN:     fmt.Sprintf("postgres://postgres@127.0.0.1:%d/postgres?sslmode=disable", port),
		dataDir: dir,
		pgCtl:   pgCtl,
	}, nil
}

// stop stops a cluster this package started and deletes its files.
func (s *Server) stop() {
	if s.dataDir == "" {
		return
	}
	argv := append(append([]string(nil), s.pgCtl...), "-m", "immediate", "-w", "stop")
	_ = exec.Command(argv[0], argv[1:]...).Run()
	os.RemoveAll(s.dataDir)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func redact(dsn string) string {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		return u.Redacted()
	}
	return "(DSN)"
}

// databaseName returns the database a DSN of this package names.
func databaseName(dsn string) (string, error) {
	if u, err := url.Parse(dsn); err == nil && u.Scheme != "" {
		if name := strings.TrimPrefix(u.Path, "/"); name != "" {
			return name, nil
		}
	}
	if i := strings.LastIndex(dsn, "dbname="); i >= 0 {
		return strings.Fields(dsn[i+len("dbname="):])[0], nil
	}
	return "", fmt.Errorf("pgtest: no database name in %s", redact(dsn))
}
