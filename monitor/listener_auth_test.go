package monitor_test

import (
	"crypto/subtle"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/monitor"
	"github.com/perfkb/perfkb/ontology"
)

// TestListenAuthorize: with ListenerLimits.Authorize, only connections
// that begin with an "Authorization: Bearer TOKEN" line naming an accepted
// token get their messages stored; the others are closed before anything
// is read as a message and counted as Unauthorized.
func TestListenAuthorize(t *testing.T) {
	const good = "sensor-token-0000000001"
	var users []string
	authorize := func(token string) (string, bool) {
		if subtle.ConstantTimeCompare([]byte(token), []byte(good)) == 1 {
			users = append(users, "vienna-sensors")
			return "vienna-sensors", true
		}
		return "", false
	}
	tests := []struct {
		name     string
		preamble string
		stored   bool
	}{
		{"bearer line, CRLF", "Authorization: Bearer " + good + "\r\n", true},
		{"bearer line, LF, any case", "authorization:   bearer " + good + "\n", true},
		{"no line", "", false},
		{"wrong token", "Authorization: Bearer sensor-token-0000000002\r\n", false},
		{"basic scheme", "Authorization: Basic " + good + "\r\n", false},
		{"token only", good + "\r\n", false},
		{"over-long line", "Authorization: Bearer " + strings.Repeat("x", 4096) + "\r\n", false},
	}
	for i, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ds := native.OpenMemory()
			s := startListener(t, ds, monitor.SensorOptions{ListenerLimits: monitor.ListenerLimits{Authorize: authorize}})
			send(t, s.addr, tc.preamble+bwMessage(i, 1, "2.5"))
			if tc.stored {
				waitFor(t, "the message stored", func() bool { return s.l.Stats().Stored == 1 })
				if got := countType(t, ds, ontology.PathBandwidthMeasurement); got != 1 {
					t.Errorf("%d measurements, want 1", got)
				}
				return
			}
			waitFor(t, "the connection refused", func() bool { return s.l.Stats().Unauthorized == 1 })
			if st := s.l.Stats(); st.Received != 0 || st.Stored != 0 {
				t.Errorf("stats %+v: a refused connection's message was read", st)
			}
			if got := countType(t, ds, ontology.PathBandwidthMeasurement); got != 0 {
				t.Errorf("%d measurements, want none", got)
			}
		})
	}
	if len(users) != 2 {
		t.Errorf("Authorize accepted %d connections, want 2", len(users))
	}
}
