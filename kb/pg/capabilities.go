package pg

import "github.com/perfkb/perfkb/kb"

// The optional kb capabilities the store declares; kb/kbtest checks each
// contract (pg_test.go).
var (
	_ kb.Dataset      = (*Store)(nil)
	_ kb.TermTable    = (*Store)(nil)
	_ kb.QuadScanner  = (*Store)(nil)
	_ kb.TermAdder    = (*bulk)(nil)
	_ kb.BGPMatcher   = (*Store)(nil)
	_ kb.BGPExplainer = (*Store)(nil)
)

var (
	_ kb.ClosureMatcher   = (*Store)(nil)
	_ kb.RoundTripLookups = (*Store)(nil)
)

var (
	_ kb.ClosureCounter    = (*Store)(nil)
	_ kb.BGPAggregator     = (*Store)(nil)
	_ kb.PushdownExplainer = (*Store)(nil)
)
