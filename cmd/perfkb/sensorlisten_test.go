package main

import (
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// syncBuffer is a bytes.Buffer safe for the command's and the test's
// goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestSensorListenCommand runs perfkb sensor-listen with --http and the
// shipped monitoring rules, sends messages, queries them through the
// endpoint while listening, and stops it with SIGTERM (exit 0, counts).
func TestSensorListenCommand(t *testing.T) {
	dir := t.TempDir()
	store := "--store=leveldb:" + filepath.Join(dir, "db")
	var stdout, stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- run([]string{"sensor-listen", store, "--base", "http://perfkb.example/site/innsbruck/",
			"--addr", "127.0.0.1:0", "--http", "127.0.0.1:0", "--shipped", "monitoring", "--flush-interval", "20ms"},
			strings.NewReader(""), &stdout, &stderr)
	}()
	addrRE := regexp.MustCompile(`receiving sensor data on (\S+) `)
	httpRE := regexp.MustCompile(`SPARQL endpoint at (\S+)/sparql`)
	var addr, endpoint string
	deadline := time.Now().Add(30 * time.Second)
	for addr == "" || endpoint == "" {
		select {
		case code := <-done:
			t.Fatalf("sensor-listen exited %d early\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
		default:
		}
		if time.Now().After(deadline) {
			t.Fatalf("sensor-listen did not start\nstdout: %s\nstderr: %s", stdout.String(), stderr.String())
		}
		if m := addrRE.FindStringSubmatch(stdout.String()); m != nil {
			addr = m[1]
		}
		if m := httpRE.FindStringSubmatch(stdout.String()); m != nil {
			endpoint = m[1] + "/sparql"
		}
		time.Sleep(10 * time.Millisecond)
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	var msgs strings.Builder
	for i := 0; i < 300; i++ {
		bw := "3.5"
		if i == 150 {
			bw = "0.5"
		}
		fmt.Fprintf(&msgs, `<sensordataentry SensorID="path.bandwidth.capacity.TCP" ResourceID="a->b"><![CDATA[<sensordata><eventtime>%d</eventtime><bandwidth>%s</bandwidth></sensordata>]]></sensordataentry>`, 1100000000000+i, bw)
	}
	if _, err := c.Write([]byte(msgs.String())); err != nil {
		t.Fatal(err)
	}
	c.Close()
	count := func() string {
		q := "SELECT (COUNT(?m) AS ?n) WHERE { GRAPH ?g { ?m a <http://www.par.univie.ac.at/project/scalea/perfonto#PathBandwidthMeasurement> } }"
		resp, err := http.Get(endpoint + "?query=" + url.QueryEscape(q))
		if err != nil {
			return err.Error()
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	for !strings.Contains(count(), `"300"`) {
		if time.Now().After(deadline) {
			t.Fatalf("the endpoint never counted 300 measurements: %s\nstderr: %s", count(), stderr.String())
		}
		time.Sleep(20 * time.Millisecond)
	}
	if err := syscall.Kill(syscall.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("exit %d after SIGTERM\nstdout: %s\nstderr: %s", code, stdout.String(), stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("sensor-listen did not stop on SIGTERM")
	}
	out := stdout.String()
	if !strings.Contains(out, "received 300 messages on 1 connections, stored 300") || !strings.Contains(out, "1 findings") {
		t.Errorf("summary line missing or wrong:\n%s", out)
	}
	if !strings.Contains(stderr.String(), "problem=LowNetworkBandwidth") {
		t.Errorf("the finding was not logged:\n%s", stderr.String())
	}
	// The data is durable: a new process sees it.
	code, qout, qerr := runCLI(t, "", "query", store, "--format", "tsv", "-e",
		"SELECT (COUNT(?m) AS ?n) WHERE { GRAPH ?g { ?m a <http://www.par.univie.ac.at/project/scalea/perfonto#PathBandwidthMeasurement> } }")
	if code != 0 || !strings.Contains(qout, "\n300") {
		t.Errorf("query after exit: %d %s %s", code, qout, qerr)
	}
}

func TestSensorListenUsage(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"sensor-listen"}, "--base is required"},
		{[]string{"sensor-listen", "--base", "http://e/", "--max-message", "big"}, "--max-message"},
		{[]string{"sensor-listen", "--base", "http://e/", "--shipped", "nosuch"}, `--shipped "nosuch": no such rule set`},
		{[]string{"sensor-listen", "--base", "http://e/", "--batch", "0"}, "--batch must be positive"},
		{[]string{"sensor-listen", "--base", "http://e/", "--define", "X=1"}, "--define needs --rules or --shipped"},
	} {
		code, _, stderr := runCLI(t, "", tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}
