package rdfio

import (
	"errors"
	"fmt"
	"strings"
)

// CheckLanguageTag reports whether lang is a language tag the RDF syntaxes
// accept (BCP 47's shape: subtags of 1 to 8 characters separated by '-',
// the first letters only) and dir a base direction ("", "ltr" or "rtl"),
// for readers of formats that carry them as separate fields (the SPARQL
// results formats' xml:lang and its:dir): a term built from anything else
// could not be written back as N-Triples or read again.
func CheckLanguageTag(lang, dir string) error {
	if strings.Contains(lang, "--") {
		return errors.New("subtags are 1 to 8 characters")
	}
	if dir != "" && dir != "ltr" && dir != "rtl" {
		return fmt.Errorf("the base direction must be ltr or rtl, not %q", dir)
	}
	_, _, err := splitLangDir(lang)
	return err
}
