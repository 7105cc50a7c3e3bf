package server

import (
	"context"
	"strconv"
)

// cachedFindings lists the findings of filter without its Limit, kept per
// write generation when the server caches (analysis_cache.go).
func (s *Server) cachedFindings(ctx context.Context, filter FindingFilter) ([]Finding, error) {
	filter.Limit = 0
	key := filter.Problem + "\x00" + filter.Experiment
	return s.findingsCache.Get(ctx, key, func(ctx context.Context) ([]Finding, error) {
		return s.opts.Rules.Findings(ctx, filter)
	})
}

// findingsPage returns the findings of filter from offset on (at most
// filter.Limit, 0: all) and, when it listed them all, their number (else
// -1). A caching server lists them all once per write generation and
// pages that list; one that does not cache asks the reasoner for no more
// than the page needs.
func (s *Server) findingsPage(ctx context.Context, filter FindingFilter, offset int) ([]Finding, int, error) {
	var list []Finding
	total := -1
	if _, caching := GenerationOf(ctx); caching || filter.Limit == 0 {
		all, err := s.cachedFindings(ctx, filter)
		if err != nil {
			return nil, 0, err
		}
		list, total = all, len(all)
	} else {
		f := filter
		f.Limit = offset + filter.Limit
		got, err := s.opts.Rules.Findings(ctx, f)
		if err != nil {
			return nil, 0, err
		}
		list = got
	}
	if offset >= len(list) {
		return []Finding{}, total, nil
	}
	list = list[offset:]
	if filter.Limit > 0 && len(list) > filter.Limit {
		list = list[:filter.Limit]
	}
	return list, total, nil
}

// totalCountHeader carries the number of findings matching the filter,
// before offset and limit, so that a page can say "rows 51–100 of N".
const totalCountHeader = "X-Total-Count"

func itoa(n int) string { return strconv.Itoa(n) }
