package monitor_test

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/monitor"
	"github.com/perfkb/perfkb/ontology"
)

// TestListenCheck: a message whose triples Check refuses is not written
// and counted as invalid; the other messages of its batch are written.
// Check refuses any triples holding the bandwidth 666.5.
func TestListenCheck(t *testing.T) {
	ds := native.OpenMemory()
	var calls int
	check := func(_ context.Context, quads []kb.TermQuad) error {
		calls++ // the writer calls Check from one goroutine
		for _, q := range quads {
			if q.O.IsLiteral() && q.O.Value == "666.5" {
				return errors.New("bandwidth 666.5 is refused")
			}
		}
		return nil
	}
	s := startListener(t, ds, monitor.SensorOptions{Batch: 1000, FlushInterval: 50 * time.Millisecond, Check: check})
	send(t, s.addr, bwMessage(1, 1, "1.5")+bwMessage(1, 2, "666.5")+bwMessage(1, 3, "2.5"))
	waitFor(t, "3 messages handled", func() bool { st := s.l.Stats(); return st.Stored+st.Invalid == 3 })
	s.stop(t)
	if st := s.l.Stats(); st.Stored != 2 || st.Invalid != 1 {
		t.Errorf("stored %d, invalid %d; want 2 and 1", st.Stored, st.Invalid)
	}
	if got := countType(t, ds, ontology.PathBandwidthMeasurement); got != 2 {
		t.Errorf("%d measurements stored, want 2", got)
	}
	all, err := kb.Collect(ds.Match(context.Background(), kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	for _, q := range all {
		if o, err := ds.Resolve(context.Background(), q.O); err != nil || o.Value == "666.5" {
			t.Errorf("object %v (%v) stored", o, err)
		}
	}
	if calls < 2 {
		t.Errorf("Check called %d times, want the batch and then its messages", calls)
	}
}
