package analysis

import "strings"

// iriNames names IRIs for people: each by the shortest run of its last
// path segments that no other IRI of the set ends with, so "1" where one
// experiment is called 1 and "innsbruck/…/1" where three sites each have
// an experiment 1. A run of more than two segments is written as its first
// and last with "…" between them, unless that would name two IRIs alike.
func iriNames(iris []string) map[string]string {
	segs := map[string][]string{}
	owners := map[string]map[string]bool{} // suffix → the IRIs ending with it
	for _, iri := range iris {
		if _, ok := segs[iri]; ok {
			continue
		}
		s := strings.FieldsFunc(iri, func(r rune) bool { return r == '/' || r == '#' })
		segs[iri] = s
		for k := 1; k <= len(s); k++ {
			suf := strings.Join(s[len(s)-k:], "/")
			if owners[suf] == nil {
				owners[suf] = map[string]bool{}
			}
			owners[suf][iri] = true
		}
	}
	names := map[string]string{}
	full := map[string]string{}
	short := map[string][]string{} // abbreviated name → IRIs given it
	for iri, s := range segs {
		names[iri] = iri
		for k := 1; k <= len(s); k++ {
			suf := strings.Join(s[len(s)-k:], "/")
			if len(owners[suf]) > 1 {
				continue
			}
			full[iri] = suf
			name := suf
			if k > 2 {
				name = s[len(s)-k] + "/…/" + s[len(s)-1]
			}
			names[iri] = name
			short[name] = append(short[name], iri)
			break
		}
	}
	for _, same := range short {
		if len(same) > 1 {
			for _, iri := range same {
				names[iri] = full[iri]
			}
		}
	}
	return names
}

// isIRI reports whether a space-separated token of a cell is an absolute
// IRI (the cells hold IRIs in full).
func isIRI(tok string) bool {
	return strings.Contains(tok, "://") || strings.HasPrefix(tok, "urn:")
}
