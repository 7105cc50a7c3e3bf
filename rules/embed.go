package rules

import (
	"embed"
	"sort"
	"strings"
	"sync"
)

//go:embed *.rules
var files embed.FS

// shipped maps the @include names to the embedded files.
var shipped = map[string]string{
	"RDFS":        "rdfs.rules",
	"OWL":         "owl-rl.rules",
	"OWL-RL":      "owl-rl.rules",
	"PERFONTO":    "perfonto.rules",
	"MONITORING":  "monitoring.rules",
	"SCALABILITY": "scalability.rules", // findings over perfkb analyze results
	"WAITSTATES":  "waitstates.rules",  // Late Sender / Wait at NxN over trace wait-state metrics
	"MODELS":      "models.rules",      // findings over perfkb analyze performance models
	"IMBALANCE":   "imbalance.rules",   // max/mean load imbalance, an aggregate (SPARQL) rule
}

// Default lists the rule sets perfkb reason runs when no --rules is given,
// in order.
var Default = []string{"RDFS", "OWL", "PERFONTO"}

// texts holds each shipped file's bytes, read once: embed.FS.ReadFile
// copies the file at every call, and an uploaded rule file of 40,000
// "@include <OWL>." lines (each resolved before the parser sees it is a
// repeat) allocated 3.5 GB a minute under the hardening soak, most of the
// server's garbage.
var texts = sync.OnceValue(func() map[string]shippedText {
	m := map[string]shippedText{}
	for _, f := range shipped {
		if src, err := files.ReadFile(f); err == nil {
			m[f] = shippedText{file: "rules/" + f, src: src}
		}
	}
	return m
})

// shippedText is a shipped file's name as errors report it and its bytes.
type shippedText struct {
	file string
	src  []byte
}

// Lookup returns a shipped rule file by include name (RDFS, OWL, OWL-RL,
// PERFONTO, case-insensitive) or file name (rdfs.rules). file is the name
// errors report, e.g. "<RDFS>/rdfs.rules". src is shared by every caller
// and must not be modified.
func Lookup(name string) (file string, src []byte, ok bool) {
	fname, ok := shipped[strings.ToUpper(name)]
	if !ok {
		for _, f := range shipped {
			if f == name {
				fname, ok = f, true
			}
		}
	}
	if !ok {
		return "", nil, false
	}
	t, ok := texts()[fname]
	if !ok {
		return "", nil, false
	}
	return t.file, t.src, true
}

// IsShippedFile reports whether file is the name Lookup reports for a
// shipped set ("rules/rdfs.rules").
func IsShippedFile(file string) bool {
	name, ok := strings.CutPrefix(file, "rules/")
	if !ok {
		return false
	}
	for _, f := range shipped {
		if f == name {
			return true
		}
	}
	return false
}

// Names returns the include names of the shipped rule sets, sorted.
func Names() []string {
	out := make([]string, 0, len(shipped))
	for n := range shipped {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
