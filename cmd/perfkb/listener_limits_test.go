package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
)

// TestListenerTokens checks the access rule of sensor-listen and
// otlp-listen under --tokens-file: a source may send with the token of a
// user whose write scope covers the listener's graph, or with the
// listener's --token; a reader's token, a writer of another graph's, an
// unknown token and a user's name are refused.
func TestListenerTokens(t *testing.T) {
	file := filepath.Join(t.TempDir(), "tokens.json")
	if err := os.WriteFile(file, []byte(`{"users": [
 {"name": "vienna-sensors", "token": "vienna-sensor-token-01", "write": ["http://perfkb.example/site/vienna"]},
 {"name": "vienna-read",    "token": "vienna-read-token-0001", "read":  ["http://perfkb.example/site/vienna"]},
 {"name": "linz-sensors",   "token": "linz-sensor-token-0001", "write": ["http://perfkb.example/site/linz"]},
 {"name": "admin",          "token": "admin-token-0000000001", "write": ["*"]}
]}`), 0o600); err != nil {
		t.Fatal(err)
	}
	graph := kb.IRI("http://perfkb.example/site/vienna")
	f := listenerFlags{maxMessage: "1MiB", maxQueue: "256MiB", idleTimeout: time.Minute, messageTimeout: time.Minute, tokensFile: file}
	limits, _, err := f.limits("message-timeout", graph, "the-listeners-own-token")
	if err != nil {
		t.Fatal(err)
	}
	if limits.Authorize == nil {
		t.Fatal("--tokens-file set no Authorize")
	}
	for _, tc := range []struct {
		token, user string
		ok          bool
	}{
		{"vienna-sensor-token-01", "vienna-sensors", true},
		{"admin-token-0000000001", "admin", true},
		{"the-listeners-own-token", "token", true},
		{"vienna-read-token-0001", "", false},
		{"linz-sensor-token-0001", "", false},
		{"vienna-sensors", "", false},
		{"", "", false},
	} {
		user, ok := limits.Authorize(tc.token)
		if ok != tc.ok || user != tc.user {
			t.Errorf("token %q: %q %v, want %q %v", tc.token, user, ok, tc.user, tc.ok)
		}
	}
	// Without a tokens file the listener keeps its own rule.
	f.tokensFile = ""
	if limits, _, err := f.limits("message-timeout", graph, ""); err != nil || limits.Authorize != nil {
		t.Errorf("without --tokens-file: %v, Authorize set %v", err, limits.Authorize != nil)
	}
	// 0 is "never", which monitor spells negative; negative is refused.
	f.idleTimeout = 0
	if limits, _, _ := f.limits("message-timeout", graph, ""); limits.IdleTimeout >= 0 {
		t.Errorf("--idle-timeout 0 gave %v, want a negative (never)", limits.IdleTimeout)
	}
	f.messageTimeout = -time.Second
	if _, _, err := f.limits("read-timeout", graph, ""); err == nil || !strings.Contains(err.Error(), "--read-timeout") {
		t.Errorf("a negative timeout: %v, want an error naming --read-timeout", err)
	}
}
