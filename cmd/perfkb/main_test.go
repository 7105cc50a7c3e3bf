package main

import (
	"bytes"
	"errors"
	"strings"
	"testing"
)

type invalidInputError struct{}

func (invalidInputError) Error() string      { return "1:2: bad" }
func (invalidInputError) InvalidInput() bool { return true }

func TestExitCode(t *testing.T) {
	tests := []struct {
		name string
		err  error
		want int
	}{
		{"success", nil, exitOK},
		{"invalid input", invalidInputError{}, exitInvalidInput},
		{"wrapped invalid input", errors.Join(errors.New("loading x.nt"), invalidInputError{}), exitInvalidInput},
		{"usage", usageError(errors.New("missing FILE")), exitUsage},
		{"other", errors.New("disk full"), exitOther},
	}
	for _, tt := range tests {
		if got := exitCode(tt.err); got != tt.want {
			t.Errorf("%s: exitCode = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestRunUnknownCommandIsUsageError(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"no-such-command"}, strings.NewReader(""), &stdout, &stderr)
	if code != exitUsage {
		t.Fatalf("exit code = %d, want %d; stderr: %s", code, exitUsage, stderr.String())
	}
	if !strings.Contains(stderr.String(), "unknown command") {
		t.Errorf("stderr does not explain the error: %q", stderr.String())
	}
}

func TestHumanCount(t *testing.T) {
	tests := map[int64]string{0: "0", 999: "999", 1000: "1,000", 1234567: "1,234,567", -4500: "-4,500"}
	for n, want := range tests {
		if got := humanCount(n); got != want {
			t.Errorf("humanCount(%d) = %q, want %q", n, got, want)
		}
	}
}
