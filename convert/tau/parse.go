package tau

import (
	"bufio"
	"encoding/xml"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/textpos"
)

// Function is one function (or call path) line.
type Function struct {
	Name         string
	Calls, Subrs string // lexical forms, kept for exact round trips
	Excl, Incl   string
	ProfileCalls string
	Group        string
	Line         int
}

// UserEvent is one user event line.
type UserEvent struct {
	Name                      string
	NumEvents, Max, Min, Mean string
	SumSqr                    string
	Line                      int
}

// Profile is one profile.N.C.T file.
type Profile struct {
	File       string
	Metric     string            // from the header's _MULTI_<metric>, "" for none
	Metadata   map[string]string // the thread's metadata attributes (context metadata left out)
	Functions  []Function
	Aggregates int
	Events     []UserEvent
}

// posErr returns a positioned *convert.Error.
func posErr(file string, line int, format string, args ...any) error {
	return convert.TextErrorf(file, textpos.Position{Source: file, Line: line}, format, args...)
}

// quoted splits `"name" rest` where the name ends at the last quote before
// end (TAU does not escape quotes in names; ParaProf reads up to the last
// quote of the name field).
func quoted(s string, end int) (name, rest string, ok bool) {
	if !strings.HasPrefix(s, `"`) {
		return "", "", false
	}
	q := strings.LastIndex(s[:end], `"`)
	if q <= 0 {
		return "", "", false
	}
	return s[1:q], s[q+1 : end], true
}

// MaxName bounds the length of a function or user event name in bytes.
// Real names (demangled C++ signatures included) are far shorter; a
// longer one is a damaged or hostile file, and each name is repeated in
// several IRIs and literals of the output.
const MaxName = 64 << 10

// numbers checks the numeric columns of a line: finite numbers, and the
// columns listed in counts (0-based) non-negative, since they count calls
// or events.
func numbers(file string, line int, fields []string, want int, what string, counts ...int) error {
	if len(fields) != want {
		return posErr(file, line, "expected %d numeric columns after the %s name, got %d", want, what, len(fields))
	}
	for i, f := range fields {
		v, err := strconv.ParseFloat(f, 64)
		if err != nil {
			return posErr(file, line, "column %d (%q) of the %s line is not a number", i+2, f, what)
		}
		if math.IsNaN(v) || math.IsInf(v, 0) {
			return posErr(file, line, "column %d (%q) of the %s line is not a finite number", i+2, f, what)
		}
		if v < 0 && slices.Contains(counts, i) {
			return posErr(file, line, "column %d (%q) of the %s line is a count and must not be negative", i+2, f, what)
		}
	}
	return nil
}

func checkName(file string, line int, name, what string) error {
	if len(name) > MaxName {
		return posErr(file, line, "the %s name is %d bytes long, more than %d", what, len(name), MaxName)
	}
	return nil
}

type metadataXML struct {
	Attrs []struct {
		Name  string `xml:"name"`
		Value string `xml:"value"`
		// TimerContext is set on context metadata (TAU_CONTEXT_METADATA),
		// which describes one call of a timer, not the thread.
		TimerContext string `xml:"timer_context"`
	} `xml:"attribute"`
}

// Parse reads one profile file.
func Parse(r io.Reader, file string) (*Profile, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 64<<20)
	line := 0
	next := func() (string, bool) {
		if !sc.Scan() {
			return "", false
		}
		line++
		return strings.TrimRight(sc.Text(), "\r"), true
	}
	p := &Profile{File: file, Metadata: map[string]string{}}
	h, ok := next()
	if !ok {
		return nil, posErr(file, 1, "empty file; expected \"N templated_functions\"")
	}
	hf := strings.Fields(h)
	if len(hf) != 2 || !strings.HasPrefix(hf[1], "templated_functions") {
		return nil, posErr(file, line, "expected \"N templated_functions[_MULTI_<metric>]\", got %q", h)
	}
	n, err := strconv.Atoi(hf[0])
	if err != nil || n < 0 {
		return nil, posErr(file, line, "function count %q is not a non-negative integer", hf[0])
	}
	if m, ok := strings.CutPrefix(hf[1], "templated_functions_MULTI_"); ok {
		p.Metric = m
	} else if hf[1] != "templated_functions" {
		return nil, posErr(file, line, "expected templated_functions or templated_functions_MULTI_<metric>, got %q", hf[1])
	}
	c, ok := next()
	if !ok || !strings.HasPrefix(c, "# Name Calls Subrs Excl Incl") {
		return nil, posErr(file, line, "expected the column comment \"# Name Calls Subrs Excl Incl ProfileCalls\"")
	}
	if i := strings.Index(c, "<metadata>"); i >= 0 {
		var md metadataXML
		if err := xml.Unmarshal([]byte(c[i:]), &md); err != nil {
			return nil, posErr(file, line, "metadata XML: %v", err)
		}
		for _, a := range md.Attrs {
			if a.TimerContext == "" {
				p.Metadata[a.Name] = a.Value
			}
		}
	}
	for i := 0; i < n; i++ {
		s, ok := next()
		if !ok {
			return nil, posErr(file, line+1, "the header announces %d functions, the file ends after %d", n, i)
		}
		g := strings.LastIndex(s, `GROUP="`)
		end := len(s)
		if g >= 0 {
			end = g
		}
		name, rest, ok := quoted(s, end)
		if !ok {
			if _, err := strconv.Atoi(strings.Fields(s + " x")[0]); err == nil && strings.HasSuffix(strings.TrimSpace(s), "aggregates") {
				return nil, posErr(file, line, "the header announces %d functions, found %d", n, i)
			}
			return nil, posErr(file, line, "expected a function line \"name\" calls subrs excl incl profilecalls GROUP=\"…\"")
		}
		if err := checkName(file, line, name, "function"); err != nil {
			return nil, err
		}
		f := strings.Fields(rest)
		// calls, subrs and profile calls are counts
		if err := numbers(file, line, f, 5, "function", 0, 1, 4); err != nil {
			return nil, err
		}
		fn := Function{Name: name, Calls: f[0], Subrs: f[1], Excl: f[2], Incl: f[3], ProfileCalls: f[4], Line: line}
		if g >= 0 {
			fn.Group = strings.TrimSuffix(s[g+len(`GROUP="`):], `"`)
		}
		p.Functions = append(p.Functions, fn)
	}
	s, ok := next()
	if !ok {
		return p, nil // old profiles end after the functions
	}
	af := strings.Fields(s)
	if len(af) != 2 || af[1] != "aggregates" {
		if strings.HasPrefix(s, `"`) {
			return nil, posErr(file, line, "the header announces %d functions, found more", n)
		}
		return nil, posErr(file, line, "expected \"K aggregates\", got %q", s)
	}
	if p.Aggregates, err = strconv.Atoi(af[0]); err != nil {
		return nil, posErr(file, line, "aggregate count %q is not an integer", af[0])
	}
	for range p.Aggregates { // aggregates are not used; skip their lines
		if _, ok := next(); !ok {
			return nil, posErr(file, line, "file ends inside the aggregates")
		}
	}
	s, ok = next()
	if !ok {
		return p, nil
	}
	uf := strings.Fields(s)
	if len(uf) != 2 || uf[1] != "userevents" {
		return nil, posErr(file, line, "expected \"M userevents\", got %q", s)
	}
	m, err := strconv.Atoi(uf[0])
	if err != nil || m < 0 {
		return nil, posErr(file, line, "user event count %q is not a non-negative integer", uf[0])
	}
	if m == 0 {
		return p, nil
	}
	if s, ok = next(); !ok || !strings.HasPrefix(s, "# eventname") {
		return nil, posErr(file, line, "expected \"# eventname numevents max min mean sumsqr\"")
	}
	for i := 0; i < m; i++ {
		s, ok := next()
		if !ok {
			return nil, posErr(file, line+1, "%d user events announced, the file ends after %d", m, i)
		}
		name, rest, ok := quoted(s, len(s))
		if !ok {
			return nil, posErr(file, line, "expected a user event line \"name\" numevents max min mean sumsqr")
		}
		if err := checkName(file, line, name, "user event"); err != nil {
			return nil, err
		}
		f := strings.Fields(rest)
		if err := numbers(file, line, f, 5, "user event", 0); err != nil {
			return nil, err
		}
		p.Events = append(p.Events, UserEvent{Name: name, NumEvents: f[0], Max: f[1], Min: f[2], Mean: f[3], SumSqr: f[4], Line: line})
	}
	for {
		s, ok := next()
		if !ok {
			break
		}
		if strings.TrimSpace(s) != "" {
			return nil, posErr(file, line, "unexpected text after the %d user events", m)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, posErr(file, line, "%v", err)
	}
	return p, nil
}

// ParseName splits a profile file name profile.N.C.T.
func ParseName(base string) (n, c, t int, ok bool) {
	parts := strings.Split(base, ".")
	if len(parts) != 4 || parts[0] != "profile" {
		return 0, 0, 0, false
	}
	var v [3]int
	for i := range 3 {
		x, err := strconv.Atoi(parts[i+1])
		if err != nil || x < 0 {
			return 0, 0, 0, false
		}
		v[i] = x
	}
	return v[0], v[1], v[2], true
}
