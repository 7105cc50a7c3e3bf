package server

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server/graphstore"
)

// fullDisk is a graph store whose writes fail as Pebble's do on a full
// disk: an *os.PathError wrapping ENOSPC.
type fullDisk struct{ GraphStore }

func (fullDisk) Append(context.Context, kb.Term, graphstore.RDFSource) (graphstore.GraphChange, error) {
	return graphstore.GraphChange{}, fmt.Errorf("pebble: %w", &os.PathError{Op: "write", Path: "000042.log", Err: syscall.ENOSPC})
}

// failingQuery fails every query with err.
type failingQuery struct{ err error }

func (f failingQuery) Query(context.Context, QueryRequest) (*QueryResult, error) { return nil, f.err }
func (f failingQuery) Update(context.Context, UpdateRequest) (UpdateSummary, error) {
	return UpdateSummary{}, f.err
}

func TestGSPFullDisk(t *testing.T) {
	srv, _, mem := newTestServer(t, nil)
	srv.opts.Graphs = fullDisk{graphstore.New(mem)}
	rec := do(srv, "POST", "/data?default", "application/n-triples", "<http://a> <http://b> <http://c> .\n", bearer...)
	if rec.Code != http.StatusInsufficientStorage || !strings.Contains(rec.Body.String(), "no space left on device") {
		t.Errorf("POST on a full disk: %d %s, want 507", rec.Code, rec.Body)
	}
}

// TestSiteErrorStatus: failures of a remote site are the site's doing
// (502, 504 when its own time limit ended the call) and name the site,
// while the query's own deadline, a refused endpoint and a hop loop keep
// their statuses.
func TestSiteErrorStatus(t *testing.T) {
	tests := []struct {
		name string
		err  error
		code int
		site string
	}{
		{"remote 500", fmt.Errorf("SERVICE <http://x/sparql>: %w", &query.SiteError{Site: "x", Status: 500, Err: errors.New("HTTP 500")}), 502, "x"},
		{"malformed", &query.SiteError{Site: "y", Status: 200, Err: errors.New("bad results from y at byte 3")}, 502, "y"},
		{"site timeout", &query.SiteError{Site: "z", Timeout: 5 * time.Second, Err: fmt.Errorf("timed out after 5s (the site's time limit; %w)", context.DeadlineExceeded)}, 504, "z"},
		{"query deadline", fmt.Errorf("site z: %w", context.DeadlineExceeded), 503, ""},
		{"refused endpoint", &query.SiteError{Site: "w", Err: fmt.Errorf("not a registered site: %w", ErrForbidden)}, 403, ""},
		{"hop loop", &query.SiteError{Site: "s", Err: query.ErrTooManyHops}, 508, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			srv, _, _ := newTestServer(t, func(o *Options) { o.Query = failingQuery{tc.err} })
			rec := do(srv, "GET", "/sparql?query=ASK%7B%7D", "", "")
			if rec.Code != tc.code {
				t.Errorf("status %d %s, want %d", rec.Code, rec.Body, tc.code)
			}
			if tc.site != "" && !strings.Contains(rec.Body.String(), `"site":"`+tc.site+`"`) {
				t.Errorf("envelope %s does not name site %s", rec.Body, tc.site)
			}
			if tc.code == 504 && !strings.Contains(rec.Body.String(), "after 5s") {
				t.Errorf("site timeout reported as %s, want the site's 5s", rec.Body)
			}
		})
	}
}
