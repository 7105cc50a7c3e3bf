package server

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
)

// countingRules counts the listings of the findings.
type countingRules struct {
	fakeRules
	listings atomic.Int32
}

func (c *countingRules) Findings(ctx context.Context, f FindingFilter) ([]Finding, error) {
	c.listings.Add(1)
	return c.fakeRules.Findings(ctx, f)
}

// TestViewCacheFollowsWrites lists the findings through a caching server:
// repeated reads list once, a write through the server (a Graph Store
// Protocol POST, a rejected write does not count) makes the next read list
// again, and a server that does not cache lists every time.
func TestViewCacheFollowsWrites(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cache bool
		// listings after each step: read, read, rejected write + read,
		// write + read, read
		want []int32
	}{
		{"caching", true, []int32{1, 1, 1, 2, 2}},
		{"not caching", false, []int32{1, 2, 3, 4, 5}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rules := &countingRules{}
			srv, _, _ := newTestServer(t, func(o *Options) { o.Rules = rules })
			if tc.cache {
				srv.CacheViews()
			}
			read := func() {
				t.Helper()
				rec := do(srv, "GET", "/findings", "", "")
				if rec.Code != http.StatusOK {
					t.Fatalf("GET /findings: %d %s", rec.Code, rec.Body)
				}
			}
			write := func(headers ...string) int {
				return do(srv, "POST", "/data?graph=http%3A%2F%2Fex.org%2Fg", "application/n-triples",
					"<http://ex.org/s> <http://ex.org/p> \"o\" .\n", headers...).Code
			}
			steps := []func(){
				read,
				read,
				func() {
					if code := write(); code != http.StatusUnauthorized {
						t.Fatalf("write without a token: %d, want 401", code)
					}
					read()
				},
				func() {
					if code := write(bearer...); code/100 != 2 {
						t.Fatalf("write with the token: %d", code)
					}
					read()
				},
				read,
			}
			for i, step := range steps {
				step()
				if got := rules.listings.Load(); got != tc.want[i] {
					t.Fatalf("after step %d: %d listings, want %d", i+1, got, tc.want[i])
				}
			}
		})
	}
}

// TestFindingsPaging pages the two fake findings with offset and limit and
// checks X-Total-Count against the list, with and without the cache.
func TestFindingsPaging(t *testing.T) {
	for _, cache := range []bool{false, true} {
		srv, _, _ := newTestServer(t, nil)
		if cache {
			srv.CacheViews()
		}
		for _, tc := range []struct {
			query    string
			subjects []string
			total    string // "" when the server did not list them all
		}{
			{"", []string{"rs1", "rs2"}, "2"},
			{"?limit=1", []string{"rs1"}, map[bool]string{true: "2", false: ""}[cache]},
			{"?limit=1&offset=1", []string{"rs2"}, map[bool]string{true: "2", false: ""}[cache]},
			{"?offset=1", []string{"rs2"}, "2"},
			{"?offset=5", []string{}, "2"},
			{"?problem=LoadImbalance&offset=0", []string{"rs2"}, "1"},
		} {
			rec := do(srv, "GET", "/findings"+tc.query, "", "")
			if rec.Code != http.StatusOK {
				t.Fatalf("cache %v, %s: %d %s", cache, tc.query, rec.Code, rec.Body)
			}
			var body struct {
				Data []struct {
					Subject string `json:"subject"`
				} `json:"data"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, f := range body.Data {
				got = append(got, f.Subject[len(PerfontoNS):])
			}
			if len(got) != len(tc.subjects) || (len(got) > 0 && got[0] != tc.subjects[0]) {
				t.Errorf("cache %v, %s: %v, want %v", cache, tc.query, got, tc.subjects)
			}
			if h := rec.Header().Get("X-Total-Count"); h != tc.total {
				t.Errorf("cache %v, %s: X-Total-Count %q, want %q", cache, tc.query, h, tc.total)
			}
		}
		if rec := do(srv, "GET", "/findings?offset=-1", "", ""); rec.Code != http.StatusBadRequest {
			t.Errorf("offset=-1: %d, want 400", rec.Code)
		}
	}
}

// TestGenCacheOneComputation starts many readers of one key at once: one
// computation serves them all, and a reader without a generation computes
// on its own.
func TestGenCacheOneComputation(t *testing.T) {
	var g writeGeneration
	ctx := context.WithValue(context.Background(), genKey{}, &g)
	var c GenCache[int]
	var runs atomic.Int32
	release := make(chan struct{})
	compute := func(context.Context) (int, error) { runs.Add(1); <-release; return 42, nil }
	var wg sync.WaitGroup
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if v, err := c.Get(ctx, "k", compute); v != 42 || err != nil {
				t.Errorf("Get: %d, %v", v, err)
			}
		}()
	}
	for runs.Load() == 0 {
		// wait for the first computation to start
	}
	close(release)
	wg.Wait()
	if n := runs.Load(); n != 1 {
		t.Errorf("%d computations for 8 readers, want 1", n)
	}
	if v, _ := c.Get(context.Background(), "k", func(context.Context) (int, error) { return 7, nil }); v != 7 {
		t.Errorf("without a generation: %d, want a fresh 7", v)
	}
	g.begin() // a write in flight: computed, not kept
	if v, _ := c.Get(ctx, "k", func(context.Context) (int, error) { return 8, nil }); v != 8 {
		t.Errorf("during a write: %d, want 8", v)
	}
	g.end()
	if v, _ := c.Get(ctx, "k", func(context.Context) (int, error) { return 9, nil }); v != 9 {
		t.Errorf("after a write: %d, want 9", v)
	}
	if v, _ := c.Get(ctx, "k", func(context.Context) (int, error) { return 10, nil }); v != 9 {
		t.Errorf("same generation: %d, want the kept 9", v)
	}
}

// TestGenCacheWaiterOutlivesCancelledComputation: the request that
// computes a key goes away; the one waiting for it computes the value
// itself instead of getting the other's context error.
func TestGenCacheWaiterOutlivesCancelledComputation(t *testing.T) {
	var g writeGeneration
	base := context.WithValue(context.Background(), genKey{}, &g)
	first, cancel := context.WithCancel(base)
	var c GenCache[int]
	started := make(chan struct{})
	firstErr := make(chan error, 1)
	go func() {
		_, err := c.Get(first, "k", func(ctx context.Context) (int, error) {
			close(started)
			<-ctx.Done()
			return 0, ctx.Err()
		})
		firstErr <- err
	}()
	<-started
	got := make(chan int, 1)
	go func() {
		v, err := c.Get(base, "k", func(context.Context) (int, error) { return 5, nil })
		if err != nil {
			t.Errorf("waiter: %v", err)
		}
		got <- v
	}()
	cancel()
	if err := <-firstErr; !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled request: %v, want context.Canceled", err)
	}
	if v := <-got; v != 5 {
		t.Errorf("waiter got %d, want its own 5", v)
	}
}
