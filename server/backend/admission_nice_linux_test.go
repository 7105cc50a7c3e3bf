package backend

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
)

// niceOfThread reads the calling thread's nice value from /proc.
func niceOfThread(t *testing.T) int {
	b, err := os.ReadFile(fmt.Sprintf("/proc/self/task/%d/stat", syscall.Gettid()))
	if err != nil {
		t.Fatal(err)
	}
	// Fields after the command name, in parentheses: state is field 3 of
	// stat(5), nice field 19.
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
	n, err := strconv.Atoi(f[19-3])
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// niceService records the nice value of the thread its calls run on.
type niceService struct {
	t                    *testing.T
	handleNice, descNice int
}

func (s *niceService) Handle(ctx context.Context, req query.ServiceRequest) (*query.Solutions, error) {
	s.handleNice = niceOfThread(s.t)
	return &query.Solutions{}, nil
}

func (s *niceService) Describe(ctx context.Context, endpoint kb.Term, resources []kb.Term) (*query.Graph, error) {
	s.descNice = niceOfThread(s.t)
	return &query.Graph{}, nil
}

// TestServiceAnswersReadAtServiceNice: with ServiceNice set, a SERVICE
// call's answer and a fan-out DESCRIBE are read on a thread at that
// priority; without it, at the process's own.
func TestServiceAnswersReadAtServiceNice(t *testing.T) {
	base := niceOfThread(t)
	if base+4 > 19 {
		t.Skipf("the tests run at nice %d: no room to lower a thread by 4", base)
	}
	for _, tc := range []struct{ serviceNice, want int }{{base + 4, base + 4}, {0, base}} {
		a := NewAdmission(time.Hour, 2)
		a.ServiceNice = tc.serviceNice
		ctx := clientCtx("c")
		q := a.begin(ctx, "SERVICE")
		if err := q.admit(ctx); err != nil {
			t.Fatal(err)
		}
		svc := &niceService{t: t}
		h := q.service(svc)
		if _, err := h.Handle(ctx, query.ServiceRequest{Endpoint: kb.IRI("http://site.example/sparql")}); err != nil {
			t.Fatal(err)
		}
		if _, err := h.(query.ServiceDescriber).Describe(ctx, kb.IRI("http://site.example/sparql"), nil); err != nil {
			t.Fatal(err)
		}
		q.end()
		if svc.handleNice != tc.want || svc.descNice != tc.want {
			t.Errorf("ServiceNice %d: answer read at nice %d, DESCRIBE at %d; want %d", tc.serviceNice, svc.handleNice, svc.descNice, tc.want)
		}
	}
}
