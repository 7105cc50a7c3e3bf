package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSupervisorAlwaysStops reproduces the hardening issue's item 10: on
// a full disk a command spun retrying the store's background work and
// ignored SIGTERM. A command that ignores its context is ended by exiting
// the process after the grace time, or at once at a second signal; a
// storage error stops a command with exit status 3 and says the disk is
// full, except for the commands that serve until stopped; a command that
// honours its context just returns.
func TestSupervisorAlwaysStops(t *testing.T) {
	full := fmt.Errorf("write 000021.sst: %w", syscall.ENOSPC)
	stuck := func(ctx context.Context) error { select {} }
	polite := func(ctx context.Context) error { <-ctx.Done(); return context.Cause(ctx) }
	tests := []struct {
		name     string
		cmd      func(context.Context) error
		signals  []os.Signal
		storage  error
		serving  bool
		wantExit int // -1: the command returns by itself
		wantErr  string
		stderr   string
	}{
		{"SIGTERM, stuck", stuck, []os.Signal{syscall.SIGTERM}, nil, false, 143, "", "stopping now"},
		{"SIGINT twice, stuck", stuck, []os.Signal{os.Interrupt, os.Interrupt}, nil, false, 130, "", "again: stopping now"},
		{"SIGTERM, polite", polite, []os.Signal{syscall.SIGTERM}, nil, false, -1, "stopped by terminated", ""},
		{"disk full, stuck", stuck, nil, full, false, exitOther, "", "disk holding the store is full"},
		{"disk full, polite", polite, nil, full, false, -1, "disk holding the store is full", ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sigs := make(chan os.Signal, 2)
			storage := make(chan error, 1)
			exited := make(chan int, 1)
			var stderr syncBuffer
			sup := supervisor{stderr: &stderr, signals: sigs, storage: storage, grace: 300 * time.Millisecond,
				exit: func(code int) { exited <- code }, keepServing: func() bool { return tc.serving }}
			for _, s := range tc.signals {
				sigs <- s
			}
			if tc.storage != nil {
				storage <- tc.storage
			}
			result := make(chan error, 1)
			go func() { result <- sup.run(context.Background(), tc.cmd) }()
			select {
			case err := <-result:
				if tc.wantExit >= 0 {
					select {
					case code := <-exited:
						if code != tc.wantExit {
							t.Errorf("exit %d, want %d", code, tc.wantExit)
						}
					default:
						t.Errorf("returned %v without exiting, want exit %d", err, tc.wantExit)
					}
				} else if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
					t.Errorf("error %v, want one containing %q", err, tc.wantErr)
				}
				if tc.storage != nil && exitCode(err) != exitOther {
					t.Errorf("exit status %d for %v, want %d", exitCode(err), err, exitOther)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("the command was not stopped")
			}
			if !strings.Contains(stderr.String(), tc.stderr) {
				t.Errorf("stderr %q, want it to contain %q", stderr.String(), tc.stderr)
			}
		})
	}
}

// TestSupervisorKeepsServing checks that a background storage error does
// not stop a command that serves until stopped.
func TestSupervisorKeepsServing(t *testing.T) {
	storage := make(chan error, 1)
	storage <- fmt.Errorf("write: %w", syscall.ENOSPC)
	release := make(chan struct{})
	sup := supervisor{stderr: &syncBuffer{}, storage: storage, grace: 100 * time.Millisecond,
		exit: func(int) { t.Error("exited") }, keepServing: func() bool { return true }}
	go func() { time.Sleep(500 * time.Millisecond); close(release) }()
	err := sup.run(context.Background(), func(ctx context.Context) error {
		select {
		case <-ctx.Done():
			return errors.New("cancelled by the storage error")
		case <-release:
			return nil
		}
	})
	if err != nil {
		t.Fatalf("a serving command ended with %v", err)
	}
}
