package federation

import (
	"context"
	"fmt"
	"strconv"
	"strings"
)

// HopsHeader carries, on every call a Client makes, how many perfkb
// servers the query has already passed through. A server that is itself
// registered (or two that register each other) would otherwise answer
// SERVICE <self> by calling itself again, each level holding a request
// slot, until the server has none left.
const HopsHeader = "Perfkb-Hops"

// MaxHops is the depth at which a Client refuses to call further: a query
// that arrived through MaxHops servers may still read the local store, but
// not forward a SERVICE pattern again.
const MaxHops = 4

type hopsKey struct{}

// WithHops returns ctx marked as serving a request that has passed through
// n servers (the value of an incoming HopsHeader).
func WithHops(ctx context.Context, n int) context.Context {
	return context.WithValue(ctx, hopsKey{}, n)
}

// Hops is the number of servers the request served under ctx has passed
// through (0 for a query that did not come from a Client).
func Hops(ctx context.Context) int {
	n, _ := ctx.Value(hopsKey{}).(int)
	return n
}

// ParseHops reads a HopsHeader value ("" is 0).
func ParseHops(v string) (int, error) {
	v = strings.TrimSpace(v)
	if v == "" {
		return 0, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s %q: want a count of servers", HopsHeader, v)
	}
	return n, nil
}

// ErrTooManyHops marks a call refused because the query has passed
// through MaxHops servers.
var ErrTooManyHops = fmt.Errorf("the query has passed through %d perfkb servers (%s); a site that calls itself, or sites that call each other?", MaxHops, HopsHeader)
