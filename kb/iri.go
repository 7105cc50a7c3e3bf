package kb

import (
	"fmt"
	"strings"
)

// iriParts are the five components of RFC 3986 section 3; has* say whether
// the optional ones are present (an empty query differs from none).
type iriParts struct {
	scheme, authority, path, query, fragment string
	hasAuthority, hasQuery, hasFragment      bool
}

// splitIRI splits an IRI reference per RFC 3986 appendix B. It never fails:
// every string is some reference.
func splitIRI(s string) (p iriParts) {
	// scheme: ALPHA *( ALPHA / DIGIT / "+" / "-" / "." ) ":"
	if i := schemeEnd(s); i > 0 {
		p.scheme, s = s[:i], s[i+1:]
	}
	if i := strings.IndexByte(s, '#'); i >= 0 {
		p.fragment, p.hasFragment, s = s[i+1:], true, s[:i]
	}
	if i := strings.IndexByte(s, '?'); i >= 0 {
		p.query, p.hasQuery, s = s[i+1:], true, s[:i]
	}
	if strings.HasPrefix(s, "//") {
		s = s[2:]
		i := strings.IndexByte(s, '/')
		if i < 0 {
			i = len(s)
		}
		p.authority, p.hasAuthority, s = s[:i], true, s[i:]
	}
	p.path = s
	return p
}

// schemeEnd returns the index of the ':' ending s's scheme, or -1.
func schemeEnd(s string) int {
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
		case i > 0 && (c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.'):
		case i > 0 && c == ':':
			return i
		default:
			return -1
		}
	}
	return -1
}

// IsAbsoluteIRI reports whether iri has a scheme.
func IsAbsoluteIRI(iri string) bool { return schemeEnd(iri) > 0 }

// CheckIRI reports whether iri may be stored: absolute, and free of the
// characters that no syntax perfkb exports can write so that its own
// readers take it back (space, controls, DEL and <>"{}|^`\). Every write
// path calls it (SPARQL IRI() and updates, RDF/XML, JSON-LD), so that
// export then load reproduces any store.
func CheckIRI(iri string) error {
	if !IsAbsoluteIRI(iri) {
		return fmt.Errorf("IRI %q is not absolute", iri)
	}
	for _, r := range iri {
		if r <= 0x20 || r == 0x7F || strings.ContainsRune("<>\"{}|^`\\", r) {
			return fmt.Errorf("IRI %q: character %U is not allowed in an IRI", iri, r)
		}
	}
	return nil
}

// CheckTermIRIs applies CheckIRI to a term's IRI: an IRI's value, a
// typed literal's datatype.
func CheckTermIRIs(kind TermKind, value, datatype string) error {
	switch {
	case kind == KindIRI:
		return CheckIRI(value)
	case kind == KindLiteral && datatype != "":
		return CheckIRI(datatype)
	}
	return nil
}

func (p iriParts) String() string {
	var b strings.Builder
	if p.scheme != "" {
		b.WriteString(p.scheme)
		b.WriteByte(':')
	}
	if p.hasAuthority {
		b.WriteString("//")
		b.WriteString(p.authority)
	}
	b.WriteString(p.path)
	if p.hasQuery {
		b.WriteByte('?')
		b.WriteString(p.query)
	}
	if p.hasFragment {
		b.WriteByte('#')
		b.WriteString(p.fragment)
	}
	return b.String()
}

// ResolveIRI resolves the reference ref against the absolute IRI base, as
// RFC 3986 section 5.2.2 says (strict: a scheme in ref makes it absolute).
// Unlike net/url it works on the characters as written: it never escapes
// or unescapes anything, so IRIs with non-ASCII characters stay as they are.
func ResolveIRI(base, ref string) string {
	if IsAbsoluteIRI(ref) {
		r := splitIRI(ref)
		r.path = removeDotSegments(r.path)
		return r.String()
	}
	b, r := splitIRI(base), splitIRI(ref)
	var t iriParts
	t.scheme = b.scheme
	switch {
	case r.hasAuthority:
		t.authority, t.hasAuthority = r.authority, true
		t.path = removeDotSegments(r.path)
		t.query, t.hasQuery = r.query, r.hasQuery
	case r.path == "":
		t.authority, t.hasAuthority = b.authority, b.hasAuthority
		t.path = b.path
		if r.hasQuery {
			t.query, t.hasQuery = r.query, true
		} else {
			t.query, t.hasQuery = b.query, b.hasQuery
		}
	default:
		t.authority, t.hasAuthority = b.authority, b.hasAuthority
		if strings.HasPrefix(r.path, "/") {
			t.path = removeDotSegments(r.path)
		} else {
			t.path = removeDotSegments(mergePaths(b, r.path))
		}
		t.query, t.hasQuery = r.query, r.hasQuery
	}
	t.fragment, t.hasFragment = r.fragment, r.hasFragment
	return t.String()
}

// ResolveRelative resolves ref against base when ref is relative and base
// is set, with ResolveIRI; an absolute ref, or any ref when base is empty,
// is kept exactly as written. It is the resolution of SPARQL (the query
// text and the IRI function alike) and of Turtle and TriG, which compare
// IRIs as strings, so an absolute IRI keeps its dot segments (W3C SPARQL
// test normalization-02). Like ResolveIRI it works on characters and never
// escapes anything: <x> against the base <http://ex.org/café/> is
// http://ex.org/café/x, not …/caf%C3%A9/x.
func ResolveRelative(base, ref string) string {
	if base == "" || IsAbsoluteIRI(ref) {
		return ref
	}
	return ResolveIRI(base, ref)
}

// mergePaths is RFC 3986 section 5.2.3.
func mergePaths(base iriParts, ref string) string {
	if base.hasAuthority && base.path == "" {
		return "/" + ref
	}
	i := strings.LastIndexByte(base.path, '/')
	if i < 0 {
		return ref
	}
	return base.path[:i+1] + ref
}

// removeDotSegments is RFC 3986 section 5.2.4.
func removeDotSegments(in string) string {
	if !strings.Contains(in, ".") {
		return in
	}
	var out []string // output segments, each with its leading '/' if any
	for in != "" {
		switch {
		case strings.HasPrefix(in, "../"):
			in = in[3:]
		case strings.HasPrefix(in, "./"):
			in = in[2:]
		case strings.HasPrefix(in, "/./"):
			in = in[2:]
		case in == "/.":
			in = "/"
		case strings.HasPrefix(in, "/../"):
			in = in[3:]
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "/..":
			in = "/"
			if len(out) > 0 {
				out = out[:len(out)-1]
			}
		case in == "." || in == "..":
			in = ""
		default:
			start := 0
			if in[0] == '/' {
				start = 1
			}
			i := strings.IndexByte(in[start:], '/')
			if i < 0 {
				i = len(in)
			} else {
				i += start
			}
			out = append(out, in[:i])
			in = in[i:]
		}
	}
	return strings.Join(out, "")
}
