package backend

import (
	"context"
	"errors"
	"testing"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query"
)

// vetOnly refuses one endpoint in Vet; Handle is never expected.
type vetOnly struct{ refuse string }

func (v vetOnly) Handle(context.Context, query.ServiceRequest) (*query.Solutions, error) {
	return nil, errors.New("vetOnly: Handle called")
}

func (v vetOnly) Vet(endpoint kb.Term) error {
	if endpoint.Value == v.refuse {
		return errors.New("refused")
	}
	return nil
}

// TestServiceWrappersVet: the server's wrappers around the SERVICE handler
// (admission's and a scope's) pass the handler's Vet through, so the
// evaluator still refuses a disallowed endpoint before gathering a join's
// left side; a scope also refuses the endpoints outside it.
func TestServiceWrappersVet(t *testing.T) {
	inner := vetOnly{refuse: "http://no/"}
	wrapped := map[string]query.ServiceHandler{
		"admission": (&admitted{}).service(inner),
		"scope":     scopedService{inner: inner, allowed: map[string]bool{"http://no/": true, "http://ok/": true}, user: "u"},
	}
	for name, h := range wrapped {
		v, ok := h.(query.EndpointVetter)
		if !ok {
			t.Fatalf("%s: %T does not implement query.EndpointVetter", name, h)
		}
		if err := v.Vet(kb.IRI("http://no/")); err == nil {
			t.Errorf("%s: refused endpoint vetted as allowed", name)
		}
		if err := v.Vet(kb.IRI("http://ok/")); err != nil {
			t.Errorf("%s: allowed endpoint refused: %v", name, err)
		}
	}
	s := scopedService{inner: inner, allowed: map[string]bool{"http://ok/": true}, user: "u"}
	if err := s.Vet(kb.IRI("http://other/")); err == nil {
		t.Error("scope: endpoint outside the scope vetted as allowed")
	}
}
