package federation

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
)

// hitLog records what reached a test endpoint.
type hitLog struct {
	mu    sync.Mutex
	hits  int
	auths []string
}

func (h *hitLog) handler(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.hits++
	h.auths = append(h.auths, r.Header.Get("Authorization"))
	h.mu.Unlock()
	w.Header().Set("Content-Type", "application/sparql-results+json")
	w.Write([]byte(okJSON))
}

func (h *hitLog) snapshot() (int, []string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.hits, append([]string(nil), h.auths...)
}

// TestRedirectHops checks every hop of a redirect: a registered site that
// answers 303 or 307 to a host the allow-list refuses gets an error and
// the other host is never reached; where any host is allowed, the site's
// token never travels to another origin (another port of 127.0.0.1
// included, which net/http alone treats as the same host); a redirect
// within the site's own origin keeps working, with its token.
func TestRedirectHops(t *testing.T) {
	t.Setenv("PERFKB_SITE_FED_REDIRECT", "s3cret")
	var inner hitLog
	other := httptest.NewServer(http.HandlerFunc(inner.handler))
	defer other.Close()
	var own hitLog
	mux := http.NewServeMux()
	mux.HandleFunc("/sparql", own.handler)
	for _, code := range []int{http.StatusSeeOther, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		mux.HandleFunc(fmt.Sprintf("/away%d", code), func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+"/secret", code)
		})
		mux.HandleFunc(fmt.Sprintf("/home%d", code), func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, "/sparql", code)
		})
	}
	site := httptest.NewServer(mux)
	defer site.Close()

	registered := func(endpoint string) bool { return strings.HasPrefix(endpoint, site.URL+"/") }
	tests := []struct {
		name      string
		path      string
		allowAny  bool
		errHas    string
		otherHits int
		ownAuth   string // Authorization seen at the site's /sparql
	}{
		{name: "303 away refused", path: "/away303", errHas: "redirect from"},
		{name: "307 away refused", path: "/away307", errHas: "redirect from"},
		{name: "308 away refused", path: "/away308", errHas: "redirect from"},
		{name: "303 away, any allowed, no token", path: "/away303", allowAny: true, otherHits: 1},
		{name: "307 away, any allowed, no token", path: "/away307", allowAny: true, otherHits: 1},
		{name: "303 home keeps token", path: "/home303", ownAuth: "Bearer s3cret"},
		{name: "307 home keeps token", path: "/home307", ownAuth: "Bearer s3cret"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			inner = hitLog{}
			own = hitLog{}
			endpoint := site.URL + tc.path
			c := NewClient([]Site{{Name: "site", Endpoint: endpoint, TokenEnv: "PERFKB_SITE_FED_REDIRECT"}})
			c.Retries = 0
			if !tc.allowAny {
				c.Allow = func(ep string) error {
					if registered(ep) {
						return nil
					}
					return fmt.Errorf("SERVICE <%s> refused: not a registered site", ep)
				}
			}
			rs, _, err := c.Select(context.Background(), endpoint, "ASK {}")
			hits, auths := inner.snapshot()
			if hits != tc.otherHits {
				t.Errorf("the other host was reached %d times, want %d", hits, tc.otherHits)
			}
			for _, a := range auths {
				if a != "" {
					t.Errorf("the other host got Authorization %q", a)
				}
			}
			if tc.errHas != "" {
				if err == nil || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("err %v, want one containing %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(rs.Rows) != 2 {
				t.Errorf("%d rows, want 2", len(rs.Rows))
			}
			if tc.ownAuth != "" {
				if _, a := own.snapshot(); len(a) != 1 || a[0] != tc.ownAuth {
					t.Errorf("the site's own endpoint got Authorization %q, want %q", a, tc.ownAuth)
				}
			}
		})
	}
}
