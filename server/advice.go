package server

import (
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/perfkb/perfkb/rules"
)

// The advice the query page shows with a finding comes from the rule files
// themselves (#@advice comments beside the rules, see rules.Advice): the
// shipped rule sets, the rule files the server was started with
// (Options.Advice, from `perfkb serve --advice FILE`), and the rule files
// uploaded to POST /rules/run. So a user who writes rules for their own
// problem classes writes the advice next to them.

// AdviceList is the answer of GET /rules/advice, sorted by class.
type AdviceList struct {
	Advice []rules.Advice `json:"advice"`
}

// adviceBook holds the advice per problem class IRI. Later sources win:
// the shipped sets, then Options.Advice, then uploads in the order of
// their runs, so a site can reword the advice of a shipped class.
type adviceBook struct {
	once    sync.Once
	mu      sync.RWMutex
	byClass map[string]rules.Advice
	err     error
}

func (b *adviceBook) init(extra []rules.Advice) {
	b.once.Do(func() {
		b.byClass = map[string]rules.Advice{}
		shipped, err := rules.ShippedAdvice()
		if err != nil {
			// A shipped file is broken: a test catches it; the server
			// still serves the advice of the other sources.
			b.err = err
		}
		for _, a := range append(shipped, extra...) {
			b.byClass[a.Class] = a
		}
	})
}

func (b *adviceBook) add(list []rules.Advice) {
	b.mu.Lock()
	defer b.mu.Unlock()
	for _, a := range list {
		b.byClass[a.Class] = a
	}
}

func (b *adviceBook) list() []rules.Advice {
	b.mu.RLock()
	defer b.mu.RUnlock()
	out := make([]rules.Advice, 0, len(b.byClass))
	for _, a := range b.byClass {
		out = append(out, a)
	}
	slices.SortFunc(out, func(x, y rules.Advice) int { return strings.Compare(x.Class, y.Class) })
	return out
}

// ruleAdvice answers GET /rules/advice: the advice per problem class.
func (s *Server) ruleAdvice(c *gin.Context) {
	if !s.authorize(c, false) {
		return
	}
	s.advice.init(s.opts.Advice)
	if s.advice.err != nil {
		respondError(c, s.advice.err)
		return
	}
	respondData(c, http.StatusOK, AdviceList{Advice: s.advice.list()})
}
