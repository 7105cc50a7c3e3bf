package query_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/query/eval"
	"github.com/perfkb/perfkb/query/federation"
	"github.com/perfkb/perfkb/query/results"
)

// w3cEndpoints serves each SERVICE endpoint of a Federated Query test from
// an in-process loopback SPARQL endpoint holding the test's endpoint data,
// and returns the handler that maps the endpoint IRIs (example.org) to
// them through the real HTTP client. Unknown endpoints fail, which is what
// the SILENT tests need.
func w3cEndpoints(ctx context.Context, data map[string][]string, newStore func() kb.Dataset) (eval.ServiceHandler, func(), error) {
	h := &mappedService{urls: map[string]string{}, client: federation.NewClient(nil)}
	var servers []*httptest.Server
	stop := func() {
		for _, s := range servers {
			s.Close()
		}
	}
	for ep, files := range data {
		ds := newStore()
		for _, f := range files {
			if _, err := rdfio.LoadFile(ctx, ds, f, rdfio.LoadOptions{}); err != nil {
				stop()
				return nil, nil, err
			}
		}
		srv := httptest.NewServer(sparqlEndpoint(ds, h))
		servers = append(servers, srv)
		h.urls[ep] = srv.URL + "/sparql"
	}
	return h, stop, nil
}

// mappedService sends SERVICE calls for the test's endpoint IRIs to their
// loopback servers.
type mappedService struct {
	urls   map[string]string
	client *federation.Client
}

func (m *mappedService) Handle(ctx context.Context, req eval.ServiceRequest) (*eval.Solutions, error) {
	u, ok := m.urls[req.Endpoint.Value]
	if !ok {
		return nil, fmt.Errorf("no such endpoint: %s", req.Endpoint.Value)
	}
	req.Endpoint = kb.IRI(u)
	return m.client.Handle(ctx, req)
}

// sparqlEndpoint is a minimal SPARQL 1.1 Protocol query endpoint over ds
// (POST form or GET query=), answering SPARQL JSON results.
func sparqlEndpoint(ds kb.Dataset, service eval.ServiceHandler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := r.ParseForm(); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		res, err := query.Run(r.Context(), ds, r.Form.Get("query"), query.Options{Service: service})
		if err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		w.Header().Set("Content-Type", "application/sparql-results+json")
		if err := res.Write(w, results.JSON); err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
		}
	})
}
