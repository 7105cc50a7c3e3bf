package rules

import (
	"bufio"
	"bytes"
	"fmt"
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"

	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/textpos"
)

// Advice is what an analyst can try against one problem class, written
// beside the rule that finds it. The query page shows it with every
// finding of the class.
//
// In a rule file it is a structured comment: a line "#@advice CLASS",
// CLASS a prefixed name (declared with @prefix earlier in the file) or
// an <IRI>, with the text after the class and/or on the comment lines
// right below it that are indented by at least two spaces after the "#":
//
//	#@advice perfonto:LateSender
//	#   A receive waited for a send that started late: balance the work
//	#   before the send, or post the send earlier.
//	[late_sender: … -> (?f rdf:type perfonto:LateSender) …]
//
// To the rule engines (perfkb's and Jena's) these are ordinary comments.
type Advice struct {
	Class string `json:"class"` // the problem class's full IRI
	Text  string `json:"text"`
	File  string `json:"file"` // where it was written, for messages
	Line  int    `json:"line"`
}

// adviceError is a malformed #@advice comment: a *textpos.Error (the
// parsers' one positioned-error type) whose column is the class token's
// when that is at fault, else 1, and whose message starts "#@advice: ".
func adviceError(file string, line, column int, format string, args ...any) error {
	return textpos.Errorf(textpos.Position{Source: file, Line: line, Column: column}, "#@advice: "+format, args...)
}

// builtinPrefixes are the prefixes rule files may use undeclared (as in
// Jena's rule syntax).
var builtinPrefixes = map[string]string{
	"rdf":  ontology.RDFNamespace,
	"rdfs": ontology.RDFSNamespace,
	"owl":  ontology.OWLNamespace,
	"xsd":  ontology.XSDNamespace,
}

var (
	prefixLine   = regexp.MustCompile(`^\s*@prefix\s+([A-Za-z][\w.-]*)?:\s*<([^>]*)>`)
	adviceLine   = regexp.MustCompile(`^#@advice(?:\s+(\S+)\s*(.*))?$`)
	continuation = regexp.MustCompile(`^#\s{2,}(\S.*)$`)
)

// ParseAdvice reads the #@advice comments of one rule file. file names it
// in errors. A class given advice twice in one file, an undeclared prefix
// or advice without text is a *textpos.Error at its line and column.
func ParseAdvice(file string, src []byte) ([]Advice, error) {
	prefixes := map[string]string{}
	for k, v := range builtinPrefixes {
		prefixes[k] = v
	}
	var (
		out  []Advice
		cur  *Advice
		seen = map[string]int{}
	)
	finish := func() error {
		if cur == nil {
			return nil
		}
		a := cur
		cur = nil
		a.Text = strings.TrimSpace(a.Text)
		if a.Text == "" {
			return adviceError(file, a.Line, 1, "no text for %s: write it after the class or on the lines below, each starting with \"#\" and two spaces", a.Class)
		}
		if first, dup := seen[a.Class]; dup {
			return adviceError(file, a.Line, 1, "second advice for %s (the first is on line %d)", a.Class, first)
		}
		seen[a.Class] = a.Line
		out = append(out, *a)
		return nil
	}
	sc := bufio.NewScanner(bytes.NewReader(src))
	sc.Buffer(make([]byte, 64<<10), len(src)+1)
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimRight(sc.Text(), " \t\r")
		if cur != nil {
			if m := continuation.FindStringSubmatch(line); m != nil {
				cur.Text += " " + m[1]
				continue
			}
			if err := finish(); err != nil {
				return nil, err
			}
		}
		if m := prefixLine.FindStringSubmatch(line); m != nil {
			prefixes[m[1]] = m[2]
			continue
		}
		m := adviceLine.FindStringSubmatchIndex(line)
		if m == nil {
			continue
		}
		if m[2] < 0 {
			return nil, adviceError(file, n, utf8.RuneCountInString(line)+1, "expected a problem class (perfonto:LateSender or <IRI>) after #@advice")
		}
		class, err := expandClass(line[m[2]:m[3]], prefixes)
		if err != nil {
			return nil, adviceError(file, n, utf8.RuneCountInString(line[:m[2]])+1, "%s", err.Error())
		}
		cur = &Advice{Class: class, Text: line[m[4]:m[5]], File: file, Line: n}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := finish(); err != nil {
		return nil, err
	}
	return out, nil
}

func expandClass(tok string, prefixes map[string]string) (string, error) {
	if iri, ok := strings.CutPrefix(tok, "<"); ok {
		iri, ok = strings.CutSuffix(iri, ">")
		if !ok || iri == "" || strings.ContainsAny(iri, "<> ") {
			return "", fmt.Errorf("malformed IRI %s", tok)
		}
		return iri, nil
	}
	prefix, local, ok := strings.Cut(tok, ":")
	if !ok || local == "" {
		return "", fmt.Errorf("expected a prefixed name (perfonto:LateSender) or <IRI>, found %q", tok)
	}
	ns, ok := prefixes[prefix]
	if !ok {
		return "", fmt.Errorf("undeclared prefix %q in %s (declare it with @prefix before this line)", prefix+":", tok)
	}
	return ns + local, nil
}

// ShippedAdvice returns the advice written in the shipped rule sets,
// sorted by class. A class has advice in at most one shipped file.
func ShippedAdvice() ([]Advice, error) {
	names := slices.Sorted(func(yield func(string) bool) {
		seen := map[string]bool{}
		for _, f := range shipped {
			if !seen[f] {
				seen[f] = true
				if !yield(f) {
					return
				}
			}
		}
	})
	var out []Advice
	for _, f := range names {
		src, err := files.ReadFile(f)
		if err != nil {
			return nil, err
		}
		list, err := ParseAdvice("rules/"+f, src)
		if err != nil {
			return nil, err
		}
		out = append(out, list...)
	}
	slices.SortStableFunc(out, func(a, b Advice) int { return strings.Compare(a.Class, b.Class) })
	for i := 1; i < len(out); i++ {
		if out[i].Class == out[i-1].Class {
			return nil, fmt.Errorf("%s:%d: second advice for %s in the shipped rule sets (the first is at %s:%d)",
				out[i].File, out[i].Line, out[i].Class, out[i-1].File, out[i-1].Line)
		}
	}
	return out, nil
}
