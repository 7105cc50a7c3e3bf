package federation

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
)

// TestHopsEndRecursion runs a site that, like a perfkb server registered
// at itself, answers every call by calling itself again with the hop count
// it received: the chain must end after MaxHops calls with ErrTooManyHops.
func TestHopsEndRecursion(t *testing.T) {
	var calls atomic.Int32
	var (
		mu   sync.Mutex
		seen []string
	)
	c := NewClient(nil)
	c.Retries = 0
	var srv *httptest.Server
	srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		calls.Add(1)
		mu.Lock()
		seen = append(seen, r.Header.Get(HopsHeader))
		mu.Unlock()
		n, err := ParseHops(r.Header.Get(HopsHeader))
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		_, _, err = c.Select(WithHops(r.Context(), n), srv.URL, "ASK {}")
		if errors.Is(err, ErrTooManyHops) {
			http.Error(w, err.Error(), http.StatusLoopDetected)
			return
		}
		http.Error(w, "unexpected: "+strconv.Quote(errString(err)), http.StatusInternalServerError)
	}))
	defer srv.Close()
	_, _, err := c.Select(context.Background(), srv.URL, "ASK {}")
	if !errors.Is(err, ErrTooManyHops) {
		t.Fatalf("err %v, want ErrTooManyHops", err)
	}
	if n := calls.Load(); n != MaxHops {
		t.Errorf("%d calls, want %d", n, MaxHops)
	}
	want := []string{"1", "2", "3", "4"}
	if len(seen) != len(want) {
		t.Fatalf("hop headers %q, want %q", seen, want)
	}
	for i := range want {
		if seen[i] != want[i] {
			t.Errorf("hop headers %q, want %q", seen, want)
			break
		}
	}
}

func errString(err error) string {
	if err == nil {
		return "no error"
	}
	return err.Error()
}

func TestParseHops(t *testing.T) {
	for _, tc := range []struct {
		in   string
		n    int
		fail bool
	}{{"", 0, false}, {"3", 3, false}, {" 2 ", 2, false}, {"-1", 0, true}, {"x", 0, true}} {
		n, err := ParseHops(tc.in)
		if (err != nil) != tc.fail || n != tc.n {
			t.Errorf("ParseHops(%q) = %d, %v", tc.in, n, err)
		}
	}
}
