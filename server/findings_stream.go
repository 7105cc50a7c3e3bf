package server

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
)

// findingsPoll is how often a findings stream looks at the findings: a
// finding reaches the client at most this long (plus one listing) after
// the write that made it.
const findingsPoll = 250 * time.Millisecond

// findingsKeepAlive is the longest a stream stays silent: a comment line
// then keeps proxies from closing it and shows a client that it is alive.
const findingsKeepAlive = 15 * time.Second

// findingsWriteTimeout bounds one write to a stream's client; a client
// that reads nothing for this long is dropped.
const findingsWriteTimeout = 10 * time.Second

// findingsStream answers GET /findings/stream (?problem=, ?experiment= as
// GET /findings) with Server-Sent Events: first one "finding" event per
// finding in the store, then one "finding" event for each that appears
// and one "withdrawn" event for each that disappears (a delete, a dropped
// graph, a rerun after --reset), as the store changes. Each event's data
// is the finding in the findings shape of GET /findings, and its id counts
// the stream's events. The stream is not resumable: a client that
// reconnects gets the current findings again.
func (s *Server) findingsStream(c *gin.Context) {
	if s.opts.Rules == nil {
		respondError(c, fmt.Errorf("findings: %w (the reasoner is not wired into this server)", ErrNotAvailable))
		return
	}
	ctx := c.Request.Context()
	filter := FindingFilter{Problem: c.Query("problem"), Experiment: c.Query("experiment")}
	list, err := s.opts.Rules.Findings(ctx, filter)
	if err != nil {
		respondError(c, err)
		return
	}
	rc := http.NewResponseController(c.Writer)
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	var id int64
	send := func(event string, f Finding) error {
		data, err := json.Marshal(f)
		if err != nil {
			return err
		}
		id++
		_ = rc.SetWriteDeadline(time.Now().Add(findingsWriteTimeout))
		_, err = fmt.Fprintf(c.Writer, "id: %d\nevent: %s\ndata: %s\n\n", id, event, data)
		return err
	}
	flush := func() error {
		_ = rc.SetWriteDeadline(time.Now().Add(findingsWriteTimeout))
		return rc.Flush()
	}
	known := map[string]Finding{}
	ticker := time.NewTicker(findingsPoll)
	defer ticker.Stop()
	lastWrite := time.Now()
	for {
		now := make(map[string]Finding, len(list))
		wrote := false
		for _, f := range list {
			k := findingKey(f)
			now[k] = f
			if _, ok := known[k]; !ok {
				if send("finding", f) != nil {
					return
				}
				wrote = true
			}
		}
		var gone []string
		for k := range known {
			if _, ok := now[k]; !ok {
				gone = append(gone, k)
			}
		}
		slices.Sort(gone)
		for _, k := range gone {
			if send("withdrawn", known[k]) != nil {
				return
			}
			wrote = true
		}
		known = now
		if !wrote && time.Since(lastWrite) >= findingsKeepAlive {
			_ = rc.SetWriteDeadline(time.Now().Add(findingsWriteTimeout))
			if _, err := c.Writer.WriteString(": alive\n\n"); err != nil {
				return
			}
			wrote = true
		}
		if wrote || id == 0 {
			if flush() != nil {
				return
			}
			lastWrite = time.Now()
		}
		select {
		case <-ctx.Done():
			return
		case <-ticker.C:
		}
		if list, err = s.opts.Rules.Findings(ctx, filter); err != nil {
			if ctx.Err() == nil {
				_ = rc.SetWriteDeadline(time.Now().Add(findingsWriteTimeout))
				msg, _ := json.Marshal(err.Error())
				fmt.Fprintf(c.Writer, "event: error\ndata: {\"error\":%s}\n\n", msg)
				_ = rc.Flush()
			}
			return
		}
	}
}

// findingKey names a finding across listings: its subject and problem.
func findingKey(f Finding) string {
	return f.Subject.String() + " " + f.Problem.String() + " " + strconv.Quote(f.Type)
}
