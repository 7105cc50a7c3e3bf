package server

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"weak"

	"github.com/gin-gonic/gin"
)

// findingsPoll is how often a findings feed looks at the findings: a
// finding reaches the client at most this long (plus one listing) after
// the write that made it.
const findingsPoll = 250 * time.Millisecond

// findingsKeepAlive is the longest a stream stays silent: a comment line
// then keeps proxies from closing it and shows a client that it is alive.
const findingsKeepAlive = 15 * time.Second

// findingsWriteTimeout bounds one write to a stream's client; a client
// that reads nothing for this long is dropped.
const findingsWriteTimeout = 10 * time.Second

// findingsLogSize is how many of the newest events a feed keeps for
// clients that reconnect; one that missed more gets a resync.
const findingsLogSize = 4096

// findingsFeedsMax bounds the feeds (one per filter) a server keeps;
// beyond it, feeds without subscribers are dropped.
const findingsFeedsMax = 64

// findingsStream answers GET /findings/stream (?problem=, ?experiment= as
// GET /findings) with Server-Sent Events.
//
// A new client gets one "finding" event per finding in the store, then a
// "synced" event, then a "finding" event for each finding that appears and
// a "withdrawn" event for each that disappears (a delete, a dropped graph,
// a rerun after --reset). A "finding" or "withdrawn" event's data is the
// finding in the shape of GET /findings; "synced" says {"findings": N}.
//
// Events after the snapshot carry ids ("EPOCH.N", N counting the changes
// the server has seen for the stream's filter), and so does "synced". A
// client that reconnects with the last id it got (the Last-Event-ID
// header, which browsers' EventSource send by themselves, or
// ?lastEventId=) gets only the events it missed. When the server no
// longer has them (more than findingsLogSize changes ago, or another
// server process) it gets a "resync" event ({"reason": …}) followed by the
// snapshot as for a new client, which replaces what the client held.
//
// The streams of one filter share a feed that lists the findings every
// findingsPoll while any client is connected; while none is, it lists
// nothing, and the next client's connection makes it catch up, so that the
// events of that gap are the net change.
func (s *Server) findingsStream(c *gin.Context) {
	if s.opts.Rules == nil {
		respondError(c, fmt.Errorf("findings: %w (the reasoner is not wired into this server)", ErrNotAvailable))
		return
	}
	ctx := c.Request.Context()
	filter := FindingFilter{Problem: c.Query("problem"), Experiment: c.Query("experiment")}
	feed := s.findingsFeed(filter)
	feed.subscribe()
	defer feed.unsubscribe()
	if err := feed.refresh(ctx); err != nil {
		respondError(c, err)
		return
	}
	lastID := c.GetHeader("Last-Event-ID")
	if lastID == "" {
		lastID = c.Query("lastEventId")
	}

	rc := http.NewResponseController(c.Writer)
	h := c.Writer.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-cache")
	h.Set("X-Accel-Buffering", "no")
	c.Status(http.StatusOK)
	write := func(id, event string, data any) error {
		b, err := json.Marshal(data)
		if err != nil {
			return err
		}
		_ = rc.SetWriteDeadline(time.Now().Add(findingsWriteTimeout))
		if id != "" {
			_, err = fmt.Fprintf(c.Writer, "id: %s\nevent: %s\ndata: %s\n\n", id, event, b)
		} else {
			_, err = fmt.Fprintf(c.Writer, "event: %s\ndata: %s\n\n", event, b)
		}
		return err
	}
	flush := func() error {
		_ = rc.SetWriteDeadline(time.Now().Add(findingsWriteTimeout))
		return rc.Flush()
	}
	// sendSnapshot writes the findings as of seq, then "synced" with seq's id.
	sendSnapshot := func(list []Finding, seq int64) error {
		for _, f := range list {
			if err := write("", "finding", f); err != nil {
				return err
			}
		}
		return write(feed.eventID(seq), "synced", map[string]int{"findings": len(list)})
	}

	events, snapshot, cursor, reason := feed.since(lastID)
	if reason != "" {
		if write("", "resync", map[string]string{"reason": reason}) != nil {
			return
		}
	}
	if snapshot != nil {
		if sendSnapshot(snapshot, cursor) != nil {
			return
		}
	}
	for _, ev := range events {
		if write(feed.eventID(ev.id), ev.kind, ev.finding) != nil {
			return
		}
	}
	if flush() != nil {
		return
	}
	keepAlive := time.NewTimer(findingsKeepAlive)
	defer keepAlive.Stop()
	for {
		changed, err := feed.wait(cursor)
		if err != nil {
			_ = write("", "error", map[string]string{"error": err.Error()})
			_ = flush()
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-keepAlive.C:
			_ = rc.SetWriteDeadline(time.Now().Add(findingsWriteTimeout))
			if _, err := c.Writer.WriteString(": alive\n\n"); err != nil || flush() != nil {
				return
			}
			keepAlive.Reset(findingsKeepAlive)
			continue
		case <-changed:
		}
		events, snapshot, next, reason := feed.since(feed.eventID(cursor))
		if reason != "" {
			// This client fell further behind than the log reaches.
			if write("", "resync", map[string]string{"reason": reason}) != nil || sendSnapshot(snapshot, next) != nil {
				return
			}
		}
		for _, ev := range events {
			if write(feed.eventID(ev.id), ev.kind, ev.finding) != nil {
				return
			}
		}
		cursor = next
		if flush() != nil {
			return
		}
		keepAlive.Reset(findingsKeepAlive)
	}
}

// findingKey names a finding across listings: its subject and problem.
func findingKey(f Finding) string {
	return f.Subject.String() + " " + f.Problem.String() + " " + strconv.Quote(f.Type)
}

// feedEvent is one change a feed saw.
type feedEvent struct {
	id      int64
	kind    string // "finding" or "withdrawn"
	finding Finding
}

// findingsFeed follows the findings of one filter for every stream of
// that filter, numbering the changes it sees and keeping the newest ones.
type findingsFeed struct {
	rules  RuleService
	filter FindingFilter
	epoch  string

	// pollMu serialises listings, so that two never diff against the same
	// state.
	pollMu sync.Mutex

	mu      sync.Mutex
	seq     int64              // id of the newest change
	log     []feedEvent        // the newest changes, ids seq-len(log)+1 … seq
	known   map[string]Finding // the findings as of seq
	synced  bool               // known has been listed at least once
	subs    int
	polling bool
	err     error
	changed chan struct{} // closed (and replaced) when seq moves or err is set
}

// eventID is the SSE id of change seq.
func (f *findingsFeed) eventID(seq int64) string {
	return f.epoch + "." + strconv.FormatInt(seq, 10)
}

func (f *findingsFeed) subscribe() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.subs++
	if !f.polling {
		f.polling = true
		f.err = nil
		go f.poll()
	}
}

func (f *findingsFeed) unsubscribe() {
	f.mu.Lock()
	f.subs--
	f.mu.Unlock()
}

// poll lists the findings every findingsPoll while the feed has
// subscribers.
func (f *findingsFeed) poll() {
	ticker := time.NewTicker(findingsPoll)
	defer ticker.Stop()
	for range ticker.C {
		f.mu.Lock()
		if f.subs <= 0 {
			f.polling = false
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		err := f.refresh(ctx)
		cancel()
		if err != nil {
			f.mu.Lock()
			f.err = err
			f.polling = false
			close(f.changed)
			f.changed = make(chan struct{})
			f.mu.Unlock()
			return
		}
	}
}

// refresh lists the findings and records how they changed.
func (f *findingsFeed) refresh(ctx context.Context) error {
	f.pollMu.Lock()
	defer f.pollMu.Unlock()
	list, err := f.rules.Findings(ctx, f.filter)
	if err != nil {
		return err
	}
	now := make(map[string]Finding, len(list))
	for _, x := range list {
		now[findingKey(x)] = x
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	first := !f.synced
	f.synced = true
	var added, gone []string
	for k := range now {
		if _, ok := f.known[k]; !ok {
			added = append(added, k)
		}
	}
	for k := range f.known {
		if _, ok := now[k]; !ok {
			gone = append(gone, k)
		}
	}
	if first {
		// The first listing is the baseline, not a change.
		f.known = now
		return nil
	}
	if len(added)+len(gone) == 0 {
		return nil
	}
	slices.Sort(added)
	slices.Sort(gone)
	for _, k := range added {
		f.seq++
		f.log = append(f.log, feedEvent{id: f.seq, kind: "finding", finding: now[k]})
	}
	for _, k := range gone {
		f.seq++
		f.log = append(f.log, feedEvent{id: f.seq, kind: "withdrawn", finding: f.known[k]})
	}
	if n := len(f.log) - findingsLogSize; n > 0 {
		f.log = slices.Delete(f.log, 0, n)
	}
	f.known = now
	close(f.changed)
	f.changed = make(chan struct{})
	return nil
}

// since returns what a client whose last event id is lastID misses: the
// events after it, or (snapshot non-nil) the findings as of cursor when
// lastID is empty or can no longer be resumed; reason says why a
// non-empty lastID could not be.
func (f *findingsFeed) since(lastID string) (events []feedEvent, snapshot []Finding, cursor int64, reason string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	cursor = f.seq
	if lastID != "" {
		epoch, num, _ := strings.Cut(lastID, ".")
		n, err := strconv.ParseInt(num, 10, 64)
		oldest := f.seq - int64(len(f.log)) // the last id whose successors are all in the log
		switch {
		case err != nil || epoch != f.epoch || n > f.seq:
			reason = fmt.Sprintf("event id %q is not one of this server's (it restarted, or the id is malformed)", lastID)
		case n < oldest:
			reason = fmt.Sprintf("event id %q is older than the %d changes the server keeps", lastID, findingsLogSize)
		default:
			for _, ev := range f.log {
				if ev.id > n {
					events = append(events, ev)
				}
			}
			return events, nil, cursor, ""
		}
	}
	snapshot = make([]Finding, 0, len(f.known))
	keys := make([]string, 0, len(f.known))
	for k := range f.known {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		snapshot = append(snapshot, f.known[k])
	}
	return nil, snapshot, cursor, reason
}

// wait returns a channel that is closed when the feed moves past cursor
// (at once if it has), or the error that stopped the feed.
func (f *findingsFeed) wait(cursor int64) (<-chan struct{}, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return nil, f.err
	}
	if f.seq > cursor {
		done := make(chan struct{})
		close(done)
		return done, nil
	}
	return f.changed, nil
}

// findingsFeeds holds each server's feeds by filter. Servers are weak
// keys: a server that is collected takes its feeds with it.
var (
	findingsFeedsMu sync.Mutex
	findingsFeeds   = map[weak.Pointer[Server]]map[FindingFilter]*findingsFeed{}
)

// findingsFeed returns the server's feed for filter, making it if needed.
func (s *Server) findingsFeed(filter FindingFilter) *findingsFeed {
	filter.Limit = 0
	key := weak.Make(s)
	findingsFeedsMu.Lock()
	defer findingsFeedsMu.Unlock()
	feeds, ok := findingsFeeds[key]
	if !ok {
		feeds = map[FindingFilter]*findingsFeed{}
		findingsFeeds[key] = feeds
		runtime.AddCleanup(s, func(k weak.Pointer[Server]) {
			findingsFeedsMu.Lock()
			delete(findingsFeeds, k)
			findingsFeedsMu.Unlock()
		}, key)
	}
	if f, ok := feeds[filter]; ok {
		return f
	}
	if len(feeds) >= findingsFeedsMax {
		for k, f := range feeds {
			f.mu.Lock()
			idle := f.subs == 0 && !f.polling
			f.mu.Unlock()
			if idle {
				delete(feeds, k)
			}
		}
	}
	f := &findingsFeed{
		rules:   s.opts.Rules,
		filter:  filter,
		epoch:   strconv.FormatInt(time.Now().UnixNano(), 36),
		known:   map[string]Finding{},
		changed: make(chan struct{}),
	}
	feeds[filter] = f
	return f
}

// FindingsChanged tells the server's findings feeds that a write may have
// changed the findings (a store that reasons on write calls it after each
// write): each feed with a client looks at once instead of at its next
// poll, so a finding or its withdrawal reaches the client as soon as the
// listing is done.
func (s *Server) FindingsChanged() {
	key := weak.Make(s)
	findingsFeedsMu.Lock()
	var feeds []*findingsFeed
	for _, f := range findingsFeeds[key] {
		feeds = append(feeds, f)
	}
	findingsFeedsMu.Unlock()
	for _, f := range feeds {
		f.mu.Lock()
		active := f.subs > 0 && f.synced
		f.mu.Unlock()
		if !active {
			continue
		}
		go func() {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			// An error here is the poll's to report: it lists again.
			_ = f.refresh(ctx)
		}()
	}
}
