package federation

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/perfkb/perfkb/kb/native"
)

func TestCheckTokenEnv(t *testing.T) {
	for _, tc := range []struct {
		name string
		ok   bool
	}{
		{"PERFKB_SITE_LINZ", true},
		{"PERFKB_SITE_a_1", true},
		{"PERFKB_SITE_", false},
		{"PERFKB_TOKEN", false},
		{"AWS_SECRET_ACCESS_KEY", false},
		{"HOME", false},
		{"perfkb_site_x", false},
		{"PERFKB_SITE_X-Y", false},
	} {
		if err := CheckTokenEnv(tc.name); (err == nil) != tc.ok {
			t.Errorf("CheckTokenEnv(%q) = %v, want ok %v", tc.name, err, tc.ok)
		}
	}
}

// TestTokenEnvOutsidePrefix: a site whose token variable lies outside
// PERFKB_SITE_ (a registry written by an older perfkb, or edited) is not
// called at all, so the variable's value never leaves the server.
func TestTokenEnvOutsidePrefix(t *testing.T) {
	t.Setenv("SOME_SECRET", "s3cret")
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "application/sparql-results+json")
		w.Write([]byte(okJSON))
	}))
	defer srv.Close()
	c := NewClient([]Site{{Name: "evil", Endpoint: srv.URL, TokenEnv: "SOME_SECRET"}})
	_, _, err := c.Select(context.Background(), srv.URL, "ASK {}")
	if err == nil || !strings.Contains(err.Error(), TokenEnvPrefix) {
		t.Errorf("err %v, want a refusal naming %s", err, TokenEnvPrefix)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("the site was called %d times", n)
	}
	reg := &Registry{DS: native.OpenMemory()}
	if err := reg.Add(context.Background(), Site{Name: "evil", Endpoint: srv.URL, TokenEnv: "SOME_SECRET"}); err == nil || !strings.Contains(err.Error(), TokenEnvPrefix) {
		t.Errorf("Registry.Add: err %v, want a refusal naming %s", err, TokenEnvPrefix)
	}
}
