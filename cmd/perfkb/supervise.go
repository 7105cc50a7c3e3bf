package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// stopGrace is how long a command may take to stop after SIGINT, SIGTERM
// or a storage error before the process exits anyway.
const stopGrace = 10 * time.Second

// longRunning are the commands that serve until stopped: a background
// storage error does not end them (a full disk fails their writes, which
// they report per request, while reads go on).
var longRunning = map[string]bool{"serve": true, "demo": true, "sensor-listen": true}

// errStorage is the error of a command stopped by a failure of the store's
// background work (a flush or compaction), typically a full disk.
var errStorage = errors.New("the store cannot write")

// supervisor runs one command so that it always ends: a signal or a
// background storage error cancels its context, and a command that has
// not returned stopGrace later (or at a second signal) is ended by
// exiting the process. The stores keep what they acknowledged (their
// write-ahead logs), so exiting while one is stuck loses nothing that was
// reported written; Pebble retrying a failed flush on a full disk
// otherwise kept a command spinning, deaf to SIGTERM.
type supervisor struct {
	stderr  io.Writer
	signals <-chan os.Signal
	storage <-chan error // background storage errors of open stores
	grace   time.Duration
	exit    func(code int)
	// keepServing reports whether the running command serves until
	// stopped (background storage errors do not end it).
	keepServing func() bool
}

// run runs cmd and returns its error, or the storage error that stopped
// it.
func (s supervisor) run(ctx context.Context, cmd func(context.Context) error) error {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	done := make(chan error, 1)
	go func() { done <- cmd(ctx) }()
	var (
		hard       <-chan time.Time
		why        string
		code       int
		storageErr error
	)
	storage := s.storage
	for {
		select {
		case err := <-done:
			if storageErr != nil {
				return storageErr
			}
			return err
		case sig := <-s.signals:
			if hard != nil {
				fmt.Fprintf(s.stderr, "perfkb: %v again: stopping now\n", sig)
				s.exit(signalCode(sig))
				return fmt.Errorf("stopped by %v", sig)
			}
			why, code = fmt.Sprintf("stopped by %v", sig), signalCode(sig)
			cancel(errors.New(why))
			hard = time.After(s.grace)
		case err := <-storage:
			if s.keepServing != nil && s.keepServing() {
				storage = nil // logged by the store; requests report their own failures
				continue
			}
			storageErr = storageError(err)
			cancel(storageErr)
			storage = nil
			if hard == nil {
				why, code = storageErr.Error(), exitOther
				hard = time.After(s.grace)
			}
		case <-hard:
			fmt.Fprintf(s.stderr, "perfkb: %s; the command did not stop within %v: stopping now (what the store acknowledged is kept)\n", why, s.grace)
			s.exit(code)
			return errors.New(why)
		}
	}
}

// storageError words a background storage error for the user.
func storageError(err error) error {
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("%w: the disk holding the store is full (%v); free space and run the command again (what was acknowledged before is kept)", errStorage, err)
	}
	return fmt.Errorf("%w: %v", errStorage, err)
}

// signalCode is the shell's exit status for a process ended by sig.
func signalCode(sig os.Signal) int {
	if s, ok := sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return exitOther
}
