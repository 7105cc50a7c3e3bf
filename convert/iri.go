package convert

import (
	"fmt"
	"net/url"
	"path/filepath"
	"strings"

	"github.com/perfkb/perfkb/kb"
)

// Base is the base IRI of a conversion, under which every IRI a converter
// mints lives: absolute and ending in "/" or "#", so that two sites'
// bases never produce the same IRI.
type Base struct{ iri string }

// ParseBase checks a --base value.
func ParseBase(s string) (Base, error) {
	u, err := url.Parse(s)
	if err != nil || u.Scheme == "" {
		return Base{}, fmt.Errorf("base IRI %q is not absolute (want e.g. http://perfkb.example/site/vienna/)", s)
	}
	if strings.ContainsAny(s, " <>\"{}|\\^`") {
		return Base{}, fmt.Errorf("base IRI %q contains a character IRIs do not allow", s)
	}
	if !strings.HasSuffix(s, "/") && !strings.HasSuffix(s, "#") {
		return Base{}, fmt.Errorf("base IRI %q must end in / or # (e.g. %s/)", s, s)
	}
	if strings.Count(s, "#") > 1 || (strings.Contains(s, "#") && !strings.HasSuffix(s, "#")) {
		return Base{}, fmt.Errorf("base IRI %q may contain # only as its last character", s)
	}
	return Base{iri: s}, nil
}

// MustBase is ParseBase for constants in tests; it panics on a bad base.
func MustBase(s string) Base {
	b, err := ParseBase(s)
	if err != nil {
		panic(err)
	}
	return b
}

// String returns the base IRI.
func (b Base) String() string { return b.iri }

// IsZero reports whether b is unset.
func (b Base) IsZero() bool { return b.iri == "" }

// Graph is the default target graph of a conversion: the base without its
// trailing "/" or "#".
func (b Base) Graph() kb.Term { return kb.IRI(b.iri[:len(b.iri)-1]) }

// Name is the last path segment of the base (the default site name):
// "vienna" for http://perfkb.example/site/vienna/.
func (b Base) Name() string {
	s := strings.TrimRight(b.iri[:len(b.iri)-1], "/")
	if i := strings.LastIndexAny(s, "/#:"); i >= 0 {
		s = s[i+1:]
	}
	if u, err := url.PathUnescape(s); err == nil {
		return u
	}
	return s
}

// IRI returns the base followed by the segments, each escaped with
// EscapeSegment and joined by "/": b.IRI("exp", "17") is <base>exp/17.
// Converters pass source keys only (never counters or clock values), so
// the same source always yields the same IRIs.
func (b Base) IRI(segments ...string) kb.Term {
	var sb strings.Builder
	sb.WriteString(b.iri)
	for i, s := range segments {
		if i > 0 {
			sb.WriteByte('/')
		}
		appendSegment(&sb, s)
	}
	return kb.IRI(sb.String())
}

// ExperimentIRI is a converter's experiment IRI: explicit when set,
// otherwise <base>exp/NAME with NAME the last element of path (the input
// file's or directory's name).
func (b Base) ExperimentIRI(explicit, path string) string {
	if explicit != "" {
		return explicit
	}
	return b.IRI("exp", filepath.Base(path)).Value
}

// EscapeSegment makes a source key safe as one IRI path segment, and
// injective: RFC 3986 unreserved characters (letters, digits, - . _) stay,
// every other byte is percent-encoded (%7E for "~"), the empty key becomes
// "~" and the keys "." and ".." are encoded, so distinct keys give
// distinct segments.
func EscapeSegment(s string) string {
	var sb strings.Builder
	appendSegment(&sb, s)
	return sb.String()
}

func appendSegment(sb *strings.Builder, s string) {
	switch s {
	case "":
		sb.WriteByte('~')
		return
	case ".":
		sb.WriteString("%2E")
		return
	case "..":
		sb.WriteString("%2E%2E")
		return
	}
	const hex = "0123456789ABCDEF"
	for i := 0; i < len(s); i++ {
		c := s[i]
		if 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '-' || c == '.' || c == '_' {
			sb.WriteByte(c)
			continue
		}
		sb.WriteByte('%')
		sb.WriteByte(hex[c>>4])
		sb.WriteByte(hex[c&15])
	}
}
