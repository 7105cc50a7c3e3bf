package backend

import (
	"context"
	"fmt"
	"strings"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/server"
)

// scoped is the dataset and SERVICE handler a request's scope allows: the
// store restricted to its readable graphs (before evaluation, so FROM,
// FROM NAMED, GRAPH ?g and the default graph all see the same graphs),
// and SERVICE only to the registered sites it may call. A SERVICE to this
// server itself goes out with the site's own token, not the caller's, so
// it is a site like any other and needs the scope's leave.
//
// readOnly marks a query: it cannot write, so a scope that reads everything
// gets the store itself (with its fast paths), whatever it may write.
func (e *QueryEngine) scoped(ctx context.Context, scope *server.Scope, sites string, readOnly bool) (kb.Dataset, query.ServiceHandler, error) {
	var ds kb.Dataset
	if readOnly {
		base := e.DS
		if e.Reads != nil {
			base = e.Reads.dataset(ctx, e.DS)
		}
		ds = server.RestrictReads(base, scope)
	} else {
		ds = server.RestrictDataset(e.DS, scope)
	}
	if scope == nil || scope.CanCallSite("*") {
		return ds, e.Service, nil
	}
	registered, err := (&query.SiteRegistry{DS: e.DS}).Sites(ctx)
	if err != nil {
		return nil, nil, err
	}
	allowed := map[string]bool{}
	for _, s := range registered {
		if scope.CanCallSite(s.Name) {
			allowed[s.Endpoint] = true
		}
	}
	for _, name := range strings.Split(sites, ",") {
		name = strings.TrimSpace(name)
		if name == "" || name == "local" {
			continue
		}
		if name == "all" || !scope.CanCallSite(name) {
			return nil, nil, fmt.Errorf("%w: user %s may not query site %q", server.ErrForbidden, scope.User, name)
		}
	}
	var inner query.ServiceHandler = e.Service
	s := scopedService{inner: inner, allowed: allowed, user: scope.User}
	if d, ok := inner.(query.ServiceDescriber); ok {
		return ds, scopedDescriber{s, d}, nil
	}
	return ds, s, nil
}

// scopedService refuses SERVICE calls to endpoints outside the scope.
type scopedService struct {
	inner   query.ServiceHandler
	allowed map[string]bool
	user    string
}

// Handle implements query.ServiceHandler.
func (s scopedService) Handle(ctx context.Context, req query.ServiceRequest) (*query.Solutions, error) {
	if !s.allowed[req.Endpoint.Value] || s.inner == nil {
		return nil, fmt.Errorf("%w: user %s may not call SERVICE <%s>", server.ErrForbidden, s.user, req.Endpoint.Value)
	}
	return s.inner.Handle(ctx, req)
}

// Vet implements query.EndpointVetter: the scope's refusal, then the
// inner handler's.
func (s scopedService) Vet(endpoint kb.Term) error {
	if !s.allowed[endpoint.Value] || s.inner == nil {
		return fmt.Errorf("%w: user %s may not call SERVICE <%s>", server.ErrForbidden, s.user, endpoint.Value)
	}
	if v, ok := s.inner.(query.EndpointVetter); ok {
		return v.Vet(endpoint)
	}
	return nil
}

// scopedDescriber is a scopedService whose handler also DESCRIBEs at
// endpoints (fan-out DESCRIBE), refused likewise outside the scope.
type scopedDescriber struct {
	scopedService
	d query.ServiceDescriber
}

// Describe implements query.ServiceDescriber.
func (s scopedDescriber) Describe(ctx context.Context, endpoint kb.Term, resources []kb.Term) (*query.Graph, error) {
	if !s.allowed[endpoint.Value] {
		return nil, fmt.Errorf("%w: user %s may not call SERVICE <%s>", server.ErrForbidden, s.user, endpoint.Value)
	}
	return s.d.Describe(ctx, endpoint, resources)
}
