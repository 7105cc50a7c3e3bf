package server_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/server"
	"github.com/perfkb/perfkb/server/backend"
	"github.com/perfkb/perfkb/server/graphstore"
)

// The W3C SPARQL 1.1 protocol suites, run against the real server (the
// query engine of server/backend over the native in-memory store, as
// `perfkb serve --store memory:` wires them) listening on a loopback port.
//
//   - protocol and graph-store-protocol describe each test as a list of
//     ht:Requests with the expected ht:Response; the runner below sends
//     exactly those requests and checks status, Location, headers, result
//     format, boolean and (by graph isomorphism) the returned graph.
//   - http-rdf-update (deprecated in favour of graph-store-protocol)
//     writes each exchange as HTTP message text in the comment; the runner
//     parses that text and checks it the same way.
//   - service-description states its three tests in prose only; they are
//     the cases in sdCases, and the test fails when the manifest names a
//     test without a case.
//
// Failures the server cannot meet are listed with their reason in
// testdata/w3c-protocol-floor.txt; a listed test that passes, or an
// unlisted one that fails, fails the test.

// w3cSPARQL11 is the SPARQL 1.1 test suite's copy in the repository.
const w3cSPARQL11 = "../testdata/w3c/w3c-sparql/sparql11"

const w3cFloorFile = "testdata/w3c-protocol-floor.txt"

// w3cToken is the write token of the server under test; the suites know
// nothing of authentication, so every request carries it.
const w3cToken = "w3c-t0ken"

// Vocabulary of the manifests.
const (
	mfNS  = "http://www.w3.org/2001/sw/DataAccess/tests/test-manifest#"
	htNS  = "http://www.w3.org/2011/http#"
	htsNS = "http://www.w3.org/2011/http-statusCodes#"
	cntNS = "http://www.w3.org/2011/content#"
	utNS  = "http://www.w3.org/2009/sparql/tests/test-update#"
	sdNS  = "http://www.w3.org/ns/sparql-service-description#"
)

func TestW3CProtocolSuites(t *testing.T) {
	if _, err := os.Stat(w3cSPARQL11); err != nil {
		t.Fatalf("W3C SPARQL 1.1 test suites not found at %s (they are part of the repository): %v", w3cSPARQL11, err)
	}
	floor := readFloor(t)
	seen := map[string]bool{}
	counts := map[string]*[3]int{} // suite → passed, floor, failed
	record := func(t *testing.T, id string, err error) {
		seen[id] = true
		suite, _, _ := strings.Cut(id, "/")
		if counts[suite] == nil {
			counts[suite] = new([3]int)
		}
		reason, floored := floor[id]
		switch {
		case err == nil && floored:
			counts[suite][0]++
			t.Errorf("%s passes now: remove it from %s (listed as: %s)", id, w3cFloorFile, reason)
		case err == nil:
			counts[suite][0]++
		case floored:
			counts[suite][1]++
			t.Skipf("known failure listed in %s (%s): %v", w3cFloorFile, reason, err)
		default:
			counts[suite][2]++
			t.Error(err)
		}
	}

	t.Run("protocol", func(t *testing.T) {
		runHTTPManifest(t, "protocol", filepath.Join(w3cSPARQL11, "protocol", "manifest.ttl"), record)
	})
	t.Run("graph-store-protocol", func(t *testing.T) {
		runHTTPManifest(t, "graph-store-protocol", filepath.Join(w3cSPARQL11, "graph-store-protocol", "manifest.ttl"), record)
	})
	t.Run("http-rdf-update", func(t *testing.T) {
		runHTTPRDFUpdate(t, filepath.Join(w3cSPARQL11, "http-rdf-update", "manifest.ttl"), record)
	})
	t.Run("service-description", func(t *testing.T) {
		runServiceDescription(t, filepath.Join(w3cSPARQL11, "service-description", "manifest.ttl"), record)
	})

	for id := range floor {
		if !seen[id] {
			t.Errorf("%s lists %s, which no manifest names", w3cFloorFile, id)
		}
	}
	suites := make([]string, 0, len(counts))
	for s := range counts {
		suites = append(suites, s)
	}
	sort.Strings(suites)
	for _, s := range suites {
		c := counts[s]
		t.Logf("%s: %d passed, %d in the floor, %d failed", s, c[0], c[1], c[2])
	}
}

// readFloor reads "suite/test  reason" lines.
func readFloor(t *testing.T) map[string]string {
	t.Helper()
	data, err := os.ReadFile(w3cFloorFile)
	if err != nil {
		t.Fatalf("read the floor file: %v", err)
	}
	floor := map[string]string{}
	for i, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		id, reason, _ := strings.Cut(line, " ")
		if strings.TrimSpace(reason) == "" {
			t.Fatalf("%s:%d: %s has no reason", w3cFloorFile, i+1, id)
		}
		floor[id] = strings.TrimSpace(reason)
	}
	return floor
}

// ---- The server under test ----

type w3cServer struct {
	base   string // http://127.0.0.1:PORT
	ds     kb.Dataset
	store  *graphstore.Store
	client *http.Client
}

// startW3CServer serves a fresh, empty native in-memory store on a free
// loopback port until the test ends.
func startW3CServer(t *testing.T) *w3cServer {
	t.Helper()
	ds := native.OpenMemory()
	store := graphstore.New(ds)
	srv := server.New(server.Options{
		Query:  &backend.QueryEngine{DS: ds},
		Graphs: store,
		Store:  store,
		Token:  w3cToken,
	})
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ctx, l) }()
	transport := &http.Transport{DisableCompression: true}
	s := &w3cServer{
		base:  "http://" + l.Addr().String(),
		ds:    ds,
		store: store,
		client: &http.Client{
			Transport: transport,
			Timeout:   30 * time.Second,
			// A 3xx is an answer the suites judge, not a hop to follow.
			CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
		},
	}
	t.Cleanup(func() {
		transport.CloseIdleConnections()
		cancel()
		if err := <-done; err != nil {
			t.Errorf("server: %v", err)
		}
		_ = ds.Close()
	})
	return s
}

// exchange is one HTTP request and what its response must be.
type exchange struct {
	method  string
	target  string // path and query, or an absolute URL
	headers [][2]string
	body    []byte

	statuses    []string // hts: local names; any one may match
	location    string   // template variable the Location header binds
	respHeaders [][2]string
	// presentHeaders must be in the response, with any value.
	presentHeaders []string
	respBody       *string // expected graph, in the response Content-Type's syntax
	respBodyType   string  // media type of respBody
	boolean        *bool
	format         string // "boolean", "tabular" or "RDF"
}

// do sends x and checks the response; vars holds the template variables
// bound by earlier responses.
func (s *w3cServer) do(x exchange, vars map[string]string) error {
	target := x.target
	body := x.body
	for k, v := range vars {
		target = strings.ReplaceAll(target, k, v)
		body = bytes.ReplaceAll(body, []byte(k), []byte(v))
	}
	if !strings.HasPrefix(target, "http://") {
		target = s.base + target
	}
	u, err := url.Parse(target)
	if err != nil {
		return fmt.Errorf("%s %s: bad target: %w", x.method, target, err)
	}
	req, err := http.NewRequest(x.method, u.String(), bytes.NewReader(body))
	if err != nil {
		return err
	}
	if len(body) == 0 {
		req.Body, req.ContentLength = http.NoBody, 0
	}
	for _, h := range x.headers {
		req.Header.Add(h[0], h[1])
	}
	req.Header.Set("Authorization", "Bearer "+w3cToken)
	resp, err := s.client.Do(req)
	if err != nil {
		return fmt.Errorf("%s %s: %w", x.method, target, err)
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("%s %s: reading the response: %w", x.method, target, err)
	}
	where := fmt.Sprintf("%s %s → %d %s", x.method, target, resp.StatusCode, resp.Header.Get("Content-Type"))
	if len(x.statuses) > 0 && !statusMatches(resp.StatusCode, x.statuses) {
		return fmt.Errorf("%s: want status %s; body: %.300s", where, strings.Join(x.statuses, " or "), got)
	}
	if x.location != "" {
		loc := resp.Header.Get("Location")
		if loc == "" {
			return fmt.Errorf("%s: no Location header", where)
		}
		vars[x.location] = loc
	}
	for _, h := range x.respHeaders {
		if err := headerMatches(resp.Header, h[0], h[1]); err != nil {
			return fmt.Errorf("%s: %w", where, err)
		}
	}
	for _, name := range x.presentHeaders {
		// net/http moves Content-Length out of the header map.
		if resp.Header.Get(name) == "" && !(strings.EqualFold(name, "content-length") && resp.ContentLength >= 0) {
			return fmt.Errorf("%s: no %s header", where, name)
		}
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if x.format != "" {
		if err := checkResultFormat(x.format, mediaType, got, u.String()); err != nil {
			return fmt.Errorf("%s: %w; body: %.300s", where, err, got)
		}
	}
	if x.boolean != nil {
		b, err := parseBoolean(mediaType, got)
		if err != nil {
			return fmt.Errorf("%s: %w; body: %.300s", where, err, got)
		}
		if b != *x.boolean {
			return fmt.Errorf("%s: ASK answered %v, want %v", where, b, *x.boolean)
		}
	}
	if x.respBody != nil {
		wantType := x.respBodyType
		if wantType == "" {
			wantType = mediaType
		}
		want, err := parseGraph(wantType, []byte(*x.respBody), u.String())
		if err != nil {
			return fmt.Errorf("%s: the expected body does not parse: %w", where, err)
		}
		have, err := parseGraph(mediaType, got, u.String())
		if err != nil {
			return fmt.Errorf("%s: the response body does not parse: %w; body: %.300s", where, err, got)
		}
		if !isomorphic(want, have) {
			return fmt.Errorf("%s: graph differs\nwant:\n%s\ngot:\n%s", where, ntriples(want), ntriples(have))
		}
	}
	return nil
}

// statusMatches checks a code against hts: local names: a class
// (StatusCode2xx) or a named code (Created, NoContent …).
func statusMatches(code int, names []string) bool {
	for _, n := range names {
		if class, ok := strings.CutPrefix(n, "StatusCode"); ok && len(class) == 3 && strings.HasSuffix(class, "xx") {
			if strconv.Itoa(code/100) == class[:1] {
				return true
			}
			continue
		}
		if want, ok := statusByName[n]; ok && want == code {
			return true
		}
	}
	return false
}

// statusByName maps hts: local names (the reason phrases without spaces)
// to codes.
var statusByName = func() map[string]int {
	m := map[string]int{}
	for code := 100; code < 600; code++ {
		if text := http.StatusText(code); text != "" {
			m[strings.NewReplacer(" ", "", "-", "").Replace(text)] = code
		}
	}
	return m
}()

// headerMatches compares a response header; Content-Type is compared as a
// media type (case-insensitive type, subtype and charset).
func headerMatches(h http.Header, name, want string) error {
	got := h.Get(name)
	if !strings.EqualFold(name, "content-type") {
		if got != want {
			return fmt.Errorf("header %s is %q, want %q", name, got, want)
		}
		return nil
	}
	wt, wp, err := mime.ParseMediaType(want)
	if err != nil {
		return fmt.Errorf("expected Content-Type %q: %w", want, err)
	}
	gt, gp, err := mime.ParseMediaType(got)
	if err != nil {
		return fmt.Errorf("Content-Type %q: %w", got, err)
	}
	if wt != gt {
		return fmt.Errorf("Content-Type is %q, want %q", got, want)
	}
	for k, v := range wp {
		if !strings.EqualFold(gp[k], v) {
			return fmt.Errorf("Content-Type is %q, want %q", got, want)
		}
	}
	return nil
}

// Media types the protocol's expectedFormat values allow.
var resultFormats = map[string][]string{
	"boolean": {"application/sparql-results+xml", "application/sparql-results+json"},
	"tabular": {"application/sparql-results+xml", "application/sparql-results+json", "text/csv", "text/tab-separated-values"},
	"RDF":     {"application/rdf+xml", "text/turtle", "application/n-triples", "application/xhtml+xml", "text/html"},
}

// checkResultFormat checks that the response is in one of the formats
// expectedFormat allows and is well-formed in it.
func checkResultFormat(format, mediaType string, body []byte, base string) error {
	allowed, ok := resultFormats[format]
	if !ok {
		return fmt.Errorf("unknown mf:expectedFormat %q", format)
	}
	found := false
	for _, a := range allowed {
		found = found || a == mediaType
	}
	if !found {
		return fmt.Errorf("%q is not a %s result format (%s)", mediaType, format, strings.Join(allowed, ", "))
	}
	switch format {
	case "boolean":
		_, err := parseBoolean(mediaType, body)
		return err
	case "tabular":
		return checkTabular(mediaType, body)
	default:
		if mediaType == "application/xhtml+xml" || mediaType == "text/html" {
			return fmt.Errorf("RDFa (%s) cannot be checked here", mediaType)
		}
		_, err := parseGraph(mediaType, body, base)
		return err
	}
}

func parseBoolean(mediaType string, body []byte) (bool, error) {
	switch mediaType {
	case "application/sparql-results+json":
		var r struct {
			Head    map[string]any `json:"head"`
			Boolean *bool          `json:"boolean"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return false, fmt.Errorf("JSON boolean result: %w", err)
		}
		if r.Head == nil || r.Boolean == nil {
			return false, errors.New("JSON boolean result without head or boolean")
		}
		return *r.Boolean, nil
	case "application/sparql-results+xml":
		var r struct {
			XMLName xml.Name  `xml:"http://www.w3.org/2005/sparql-results# sparql"`
			Head    *struct{} `xml:"http://www.w3.org/2005/sparql-results# head"`
			Boolean *string   `xml:"http://www.w3.org/2005/sparql-results# boolean"`
		}
		if err := xml.Unmarshal(body, &r); err != nil {
			return false, fmt.Errorf("XML boolean result: %w", err)
		}
		if r.Head == nil || r.Boolean == nil {
			return false, errors.New("XML boolean result without head or boolean")
		}
		switch strings.TrimSpace(*r.Boolean) {
		case "true":
			return true, nil
		case "false":
			return false, nil
		}
		return false, fmt.Errorf("XML boolean %q", *r.Boolean)
	}
	return false, fmt.Errorf("%q is not a boolean result format", mediaType)
}

func checkTabular(mediaType string, body []byte) error {
	switch mediaType {
	case "application/sparql-results+json":
		var r struct {
			Head *struct {
				Vars []string `json:"vars"`
			} `json:"head"`
			Results *struct {
				Bindings []map[string]any `json:"bindings"`
			} `json:"results"`
		}
		if err := json.Unmarshal(body, &r); err != nil {
			return fmt.Errorf("JSON results: %w", err)
		}
		if r.Head == nil || r.Results == nil || r.Head.Vars == nil || r.Results.Bindings == nil {
			return errors.New("JSON results without head.vars or results.bindings")
		}
	case "application/sparql-results+xml":
		var r struct {
			XMLName xml.Name  `xml:"http://www.w3.org/2005/sparql-results# sparql"`
			Head    *struct{} `xml:"http://www.w3.org/2005/sparql-results# head"`
			Results *struct{} `xml:"http://www.w3.org/2005/sparql-results# results"`
		}
		if err := xml.Unmarshal(body, &r); err != nil {
			return fmt.Errorf("XML results: %w", err)
		}
		if r.Head == nil || r.Results == nil {
			return errors.New("XML results without head or results")
		}
	default: // CSV, TSV: a header line naming the variables
		line, _, _ := bytes.Cut(body, []byte("\n"))
		if len(bytes.TrimSpace(line)) == 0 {
			return errors.New("no header line")
		}
	}
	return nil
}

// parseGraph reads an RDF document in the syntax of mediaType.
func parseGraph(mediaType string, body []byte, base string) ([]kb.TermQuad, error) {
	f, ok := rdfio.ByMediaType(mediaType)
	if !ok && mediaType == "text/plain" { // N-Triples' old media type
		f, ok = rdfio.Lookup("ntriples")
	}
	if !ok {
		return nil, fmt.Errorf("%q is not an RDF syntax this test reads", mediaType)
	}
	dec := f.NewDecoder(bytes.NewReader(body), rdfio.Options{Base: base, Source: "body"})
	var out []kb.TermQuad
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		out = append(out, q)
	}
}

func ntriples(g []kb.TermQuad) string {
	lines := make([]string, len(g))
	for i, q := range g {
		lines[i] = q.String()
	}
	sort.Strings(lines)
	return strings.Join(lines, "\n")
}

// isomorphic reports whether two graphs are equal up to a renaming of
// blank nodes (RDF 1.1 Concepts 3.6), by backtracking over bijections
// between their blank nodes pruned by a per-node signature.
func isomorphic(a, b []kb.TermQuad) bool {
	a, b = dedupe(a), dedupe(b)
	if len(a) != len(b) {
		return false
	}
	inB := map[kb.TermQuad]bool{}
	for _, q := range b {
		inB[q] = true
	}
	ba, bb := blankSignatures(a), blankSignatures(b)
	if len(ba) != len(bb) {
		return false
	}
	an := make([]string, 0, len(ba))
	for n := range ba {
		an = append(an, n)
	}
	sort.Strings(an)
	m := map[string]string{}
	used := map[string]bool{}
	mapTerm := func(t kb.Term) kb.Term {
		if t.Kind == kb.KindBlank {
			t.Value = m[t.Value]
		}
		return t
	}
	var try func(i int) bool
	try = func(i int) bool {
		if i == len(an) {
			for _, q := range a {
				if !inB[kb.TermQuad{S: mapTerm(q.S), P: mapTerm(q.P), O: mapTerm(q.O), G: mapTerm(q.G)}] {
					return false
				}
			}
			return true
		}
		for cand, sig := range bb {
			if used[cand] || sig != ba[an[i]] {
				continue
			}
			m[an[i]], used[cand] = cand, true
			if try(i + 1) {
				return true
			}
			delete(m, an[i])
			used[cand] = false
		}
		return false
	}
	return try(0)
}

func dedupe(g []kb.TermQuad) []kb.TermQuad {
	seen := map[kb.TermQuad]bool{}
	var out []kb.TermQuad
	for _, q := range g {
		if !seen[q] {
			seen[q] = true
			out = append(out, q)
		}
	}
	return out
}

// blankSignatures describes each blank node by the sorted list of its
// statements with blank nodes masked.
func blankSignatures(g []kb.TermQuad) map[string]string {
	parts := map[string][]string{}
	mask := func(t kb.Term) string {
		if t.Kind == kb.KindBlank {
			return "_"
		}
		return t.String()
	}
	for _, q := range g {
		for i, t := range []kb.Term{q.S, q.O, q.G} {
			if t.Kind == kb.KindBlank {
				parts[t.Value] = append(parts[t.Value], fmt.Sprintf("%d %s %s %s %s", i, mask(q.S), mask(q.P), mask(q.O), mask(q.G)))
			}
		}
	}
	sigs := map[string]string{}
	for n, p := range parts {
		sort.Strings(p)
		sigs[n] = strings.Join(p, "|")
	}
	return sigs
}

// ---- Manifests ----

// manifest is the triples of a Turtle manifest, indexed by subject.
type manifest struct {
	base string
	out  map[kb.Term]map[string][]kb.Term
}

func readManifest(path string) (*manifest, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	base := (&url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}).String()
	dec := rdfio.NewTurtleDecoder(bytes.NewReader(data), rdfio.Options{Base: base, Source: path})
	m := &manifest{base: base, out: map[kb.Term]map[string][]kb.Term{}}
	for {
		q, err := dec.Next()
		if err == io.EOF {
			return m, nil
		}
		if err != nil {
			return nil, err
		}
		if m.out[q.S] == nil {
			m.out[q.S] = map[string][]kb.Term{}
		}
		m.out[q.S][q.P.Value] = append(m.out[q.S][q.P.Value], q.O)
	}
}

func (m *manifest) all(s kb.Term, p string) []kb.Term { return m.out[s][p] }

func (m *manifest) one(s kb.Term, p string) (kb.Term, bool) {
	if o := m.out[s][p]; len(o) > 0 {
		return o[0], true
	}
	return kb.Term{}, false
}

func (m *manifest) str(s kb.Term, p string) string {
	o, _ := m.one(s, p)
	return o.Value
}

func (m *manifest) list(head kb.Term) []kb.Term {
	var out []kb.Term
	for head.Value != ontology.RDFNil && len(out) < 10000 {
		first, ok := m.one(head, ontology.RDFFirst)
		if !ok {
			break
		}
		out = append(out, first)
		head, _ = m.one(head, ontology.RDFRest)
	}
	return out
}

// manifestTest is a test node and the manifest it is described in (blank
// node labels are scoped to one file, so included manifests stay apart).
type manifestTest struct {
	node kb.Term
	m    *manifest
}

// manifestEntries lists the manifest's tests, following mf:include.
func manifestEntries(path string) ([]manifestTest, error) {
	m, err := readManifest(path)
	if err != nil {
		return nil, err
	}
	self := kb.Term{Kind: kb.KindIRI, Value: m.base}
	var entries []manifestTest
	if head, ok := m.one(self, mfNS+"entries"); ok {
		for _, e := range m.list(head) {
			entries = append(entries, manifestTest{e, m})
		}
	}
	if head, ok := m.one(self, mfNS+"include"); ok {
		for _, inc := range m.list(head) {
			u, err := url.Parse(inc.Value)
			if err != nil {
				return nil, err
			}
			sub, err := manifestEntries(filepath.FromSlash(u.Path))
			if err != nil {
				return nil, err
			}
			entries = append(entries, sub...)
		}
	}
	return entries, nil
}

func localName(iri string) string {
	if i := strings.LastIndexAny(iri, "#/"); i >= 0 {
		return iri[i+1:]
	}
	return iri
}

// ---- protocol and graph-store-protocol: ht:Request lists ----

// endpointPaths maps the manifests' endpoint paths to the server's.
var endpointPaths = []struct{ from, to string }{
	{"/sparql/", "/sparql"},
	{"/gsp", "/data"},
}

func mapPath(p string) string {
	for _, e := range endpointPaths {
		if rest, ok := strings.CutPrefix(p, e.from); ok {
			return e.to + rest
		}
	}
	return p
}

func runHTTPManifest(t *testing.T, suite, path string, record func(*testing.T, string, error)) {
	entries, err := manifestEntries(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(entries) == 0 {
		t.Fatalf("%s lists no tests", path)
	}
	entries = append(entries, unlisted(entries)...)
	for _, e := range entries {
		id := suite + "/" + localName(e.node.Value)
		t.Run(localName(e.node.Value), func(t *testing.T) {
			record(t, id, runHTTPTest(t, e.m, e.node))
		})
	}
}

// unlisted finds the tests a manifest describes but leaves out of its
// mf:entries (manifest-direct.ttl describes head_non_existing_direct and
// does not list it); they are run too.
func unlisted(entries []manifestTest) []manifestTest {
	listed := map[kb.Term]bool{}
	var files []*manifest
	for _, e := range entries {
		listed[e.node] = true
		if len(files) == 0 || files[len(files)-1] != e.m {
			files = append(files, e.m)
		}
	}
	var out []manifestTest
	for _, m := range files {
		var more []manifestTest
		for s := range m.out {
			typ := m.str(s, ontology.RDFType)
			if !listed[s] && s.Kind == kb.KindIRI && (typ == mfNS+"ProtocolTest" || typ == mfNS+"GraphStoreProtocolTest") {
				more = append(more, manifestTest{s, m})
			}
		}
		sort.Slice(more, func(i, j int) bool { return more[i].node.Value < more[j].node.Value })
		out = append(out, more...)
	}
	return out
}

func runHTTPTest(t *testing.T, m *manifest, test kb.Term) error {
	typ := m.str(test, ontology.RDFType)
	if typ != mfNS+"ProtocolTest" && typ != mfNS+"GraphStoreProtocolTest" {
		return fmt.Errorf("test type %s is not run by this runner", typ)
	}
	for _, req := range m.all(test, mfNS+"requires") {
		switch localName(req.Value) {
		case "DirectGraphIdentification", "IndirectGraphIdentification", "POSTGraphCreation":
		default:
			return fmt.Errorf("requires %s, which this runner does not know", req.Value)
		}
	}
	srv := startW3CServer(t)
	// ut:graphData: named graphs the test expects in the store.
	for _, gd := range m.all(test, utNS+"graphData") {
		file, _ := m.one(gd, utNS+"graph")
		name := m.str(gd, ontology.RDFSLabel)
		u, err := url.Parse(file.Value)
		if err != nil {
			return err
		}
		f, err := os.Open(filepath.FromSlash(u.Path))
		if err != nil {
			return err
		}
		_, err = srv.store.Replace(context.Background(), kb.IRI(name), graphstore.RDFSource{Body: f, Format: rdfio.NTriples, Name: u.Path})
		f.Close()
		if err != nil {
			return fmt.Errorf("load %s into <%s>: %w", u.Path, name, err)
		}
	}
	action, _ := m.one(test, mfNS+"action")
	head, ok := m.one(action, htNS+"requests")
	if !ok {
		return errors.New("the test has no ht:requests")
	}
	vars := map[string]string{}
	for i, r := range m.list(head) {
		x, err := m.exchange(r)
		if err != nil {
			return fmt.Errorf("request %d: %w", i+1, err)
		}
		if err := srv.do(x, vars); err != nil {
			return fmt.Errorf("request %d: %w", i+1, err)
		}
	}
	return nil
}

// exchange reads an ht:Request and its ht:resp.
func (m *manifest) exchange(r kb.Term) (exchange, error) {
	x := exchange{method: m.str(r, htNS+"methodName"), target: mapPath(m.str(r, htNS+"absolutePath"))}
	if x.method == "" || x.target == "" {
		return x, errors.New("request without method or path")
	}
	x.headers = m.headers(r)
	if body, ok := m.one(r, htNS+"body"); ok {
		b, err := m.content(body)
		if err != nil {
			return x, err
		}
		x.body = b
	}
	resp, ok := m.one(r, htNS+"resp")
	if !ok {
		return x, errors.New("request without ht:resp")
	}
	for _, s := range m.all(resp, mfNS+"expectedStatus") {
		x.statuses = append(x.statuses, strings.TrimPrefix(s.Value, htsNS))
	}
	x.location = m.str(resp, mfNS+"expectedLocation")
	x.respHeaders = m.headers(resp)
	if body, ok := m.one(resp, htNS+"body"); ok {
		s := m.str(body, cntNS+"chars")
		x.respBody = &s
		for _, h := range x.respHeaders {
			if strings.EqualFold(h[0], "content-type") {
				x.respBodyType, _, _ = mime.ParseMediaType(h[1])
			}
		}
	}
	if b, ok := m.one(resp, mfNS+"expectedBoolean"); ok {
		v := b.Value == "true" || b.Value == "1"
		x.boolean = &v
	}
	x.format = m.str(resp, mfNS+"expectedFormat")
	return x, nil
}

func (m *manifest) headers(node kb.Term) [][2]string {
	var out [][2]string
	if head, ok := m.one(node, htNS+"headers"); ok {
		for _, h := range m.list(head) {
			out = append(out, [2]string{m.str(h, htNS+"fieldName"), m.str(h, htNS+"fieldValue")})
		}
	}
	return out
}

// content encodes a cnt:ContentAsText in its cnt:characterEncoding.
func (m *manifest) content(node kb.Term) ([]byte, error) {
	chars := m.str(node, cntNS+"chars")
	switch enc := strings.ToUpper(m.str(node, cntNS+"characterEncoding")); enc {
	case "", "UTF-8":
		return []byte(chars), nil
	case "UTF-16":
		// Big-endian with a byte order mark, as Java and ICU write it.
		units := utf16.Encode([]rune(chars))
		out := []byte{0xFE, 0xFF}
		for _, u := range units {
			out = append(out, byte(u>>8), byte(u))
		}
		return out, nil
	default:
		return nil, fmt.Errorf("character encoding %q is not supported by this runner", enc)
	}
}

// ---- http-rdf-update: HTTP messages written out in the comments ----

func runHTTPRDFUpdate(t *testing.T, path string, record func(*testing.T, string, error)) {
	entries, err := manifestEntries(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(entries) == 0 {
		t.Fatalf("%s lists no tests", path)
	}
	// The tests build on each other (a PUT, then a GET of it …), so they
	// share one server and run in the manifest's order.
	srv := startW3CServer(t)
	host := strings.TrimPrefix(srv.base, "http://")
	vars := map[string]string{}
	for _, e := range entries {
		test := e.node
		id := "http-rdf-update/" + localName(test.Value)
		var text string
		for _, c := range e.m.all(test, ontology.RDFSComment) {
			if strings.Contains(c.Value, "#### Request") {
				text = c.Value
			}
		}
		t.Run(localName(test.Value), func(t *testing.T) {
			if text == "" {
				record(t, id, errors.New("the test has no request in its comment"))
				return
			}
			x, err := parseMessageTest(text, host)
			if err == nil {
				err = srv.do(x, vars)
			}
			record(t, id, err)
		})
	}
}

// parseMessageTest reads "#### Request" and "#### Response" sections of
// indented HTTP message text. $GRAPHSTORE$ is the Graph Store endpoint,
// $HOST$ the server's authority; the Location of a response that shows
// "Location: $NEWPATH$" binds $NEWPATH$.
func parseMessageTest(text, host string) (exchange, error) {
	text = strings.NewReplacer(
		"http://$HOST$/$GRAPHSTORE$", "http://"+host+"/data",
		"$GRAPHSTORE$", "/data",
		"$HOST$", host,
	).Replace(text)
	reqText, respText, ok := strings.Cut(text, "#### Response")
	if !ok {
		return exchange{}, errors.New("no #### Response section")
	}
	_, reqText, ok = strings.Cut(reqText, "#### Request")
	if !ok {
		return exchange{}, errors.New("no #### Request section")
	}
	reqStart, reqHeaders, reqBody := splitMessage(reqText)
	respStart, respHeaders, respBody := splitMessage(respText)
	fields := strings.Fields(reqStart)
	if len(fields) != 3 {
		return exchange{}, fmt.Errorf("request line %q", reqStart)
	}
	x := exchange{method: fields[0], target: fields[1], body: []byte(reqBody)}
	for _, h := range reqHeaders {
		if !strings.EqualFold(h[0], "host") {
			x.headers = append(x.headers, h)
		}
	}
	code, _, _ := strings.Cut(respStart, " ")
	n, err := strconv.Atoi(code)
	if err != nil {
		return exchange{}, fmt.Errorf("status line %q", respStart)
	}
	x.statuses = []string{strings.NewReplacer(" ", "", "-", "").Replace(http.StatusText(n))}
	for _, h := range respHeaders {
		switch {
		case strings.EqualFold(h[0], "location"):
			x.location = h[1]
		case h[1] == "...":
			// "Content-Length: ..." stands for whatever length the body
			// has: the header must be there, with any value.
			x.presentHeaders = append(x.presentHeaders, h[0])
		default:
			x.respHeaders = append(x.respHeaders, h)
		}
	}
	if strings.TrimSpace(respBody) != "" {
		x.respBody = &respBody
		for _, h := range x.respHeaders {
			if strings.EqualFold(h[0], "content-type") {
				x.respBodyType, _, _ = mime.ParseMediaType(h[1])
			}
		}
	}
	return x, nil
}

// splitMessage splits an indented HTTP message into its start line,
// headers and body.
func splitMessage(text string) (start string, headers [][2]string, body string) {
	var lines []string
	sc := bufio.NewScanner(strings.NewReader(text))
	for sc.Scan() {
		lines = append(lines, strings.TrimPrefix(sc.Text(), "    "))
	}
	i := 0
	for i < len(lines) && strings.TrimSpace(lines[i]) == "" {
		i++
	}
	if i < len(lines) {
		start = strings.TrimSpace(lines[i])
		i++
	}
	for ; i < len(lines) && strings.TrimSpace(lines[i]) != ""; i++ {
		k, v, _ := strings.Cut(lines[i], ":")
		headers = append(headers, [2]string{strings.TrimSpace(k), strings.TrimSpace(v)})
	}
	rest := lines[min(i, len(lines)):]
	body = strings.TrimSpace(strings.Join(rest, "\n"))
	if body != "" {
		body += "\n"
	}
	return start, headers, body
}

// ---- service-description: tests stated in prose ----

// sdCases implement the service description tests. Each gets a server
// whose store holds a default graph and a named graph, so that the
// description has a dataset to describe.
var sdCases = map[string]func(s *w3cServer) error{
	// "GET on endpoint returns RDF": a GET of the endpoint, with no
	// Accept header and with each RDF syntax asked for, answers 200 with
	// a non-empty RDF graph in an RDF media type; the syntaxes carry the
	// same graph.
	"returns-rdf": func(s *w3cServer) error {
		var first []kb.TermQuad
		for _, accept := range []string{"", "text/turtle", "application/rdf+xml", "application/n-triples"} {
			g, mediaType, err := s.serviceDescription(accept)
			if err != nil {
				return err
			}
			if accept != "" && mediaType != accept {
				return fmt.Errorf("Accept: %s answered %s", accept, mediaType)
			}
			if len(g) == 0 {
				return fmt.Errorf("Accept: %q: an empty graph", accept)
			}
			if first == nil {
				first = g
			} else if !isomorphic(first, g) {
				return fmt.Errorf("Accept: %s gives another graph than the default:\n%s\nvs\n%s", accept, ntriples(g), ntriples(first))
			}
		}
		return nil
	},
	// "Service description contains a matching sd:endpoint triple": an
	// sd:Service whose sd:endpoint is the URL that was dereferenced.
	"has-endpoint-triple": func(s *w3cServer) error {
		g, _, err := s.serviceDescription("")
		if err != nil {
			return err
		}
		endpoint := kb.Term{Kind: kb.KindIRI, Value: s.base + "/sparql"}
		for _, q := range g {
			if q.P.Value == sdNS+"endpoint" && q.O == endpoint && hasType(g, q.S, sdNS+"Service") {
				return nil
			}
		}
		return fmt.Errorf("no sd:Service with sd:endpoint %s in\n%s", endpoint, ntriples(g))
	},
	// "Service description conforms to schema": every term of the sd:
	// namespace it uses exists, and subjects and objects of sd:
	// properties fit the domains and ranges of the SPARQL 1.1 Service
	// Description vocabulary.
	"conforms-to-schema": func(s *w3cServer) error {
		g, _, err := s.serviceDescription("")
		if err != nil {
			return err
		}
		return conformsToSD(g)
	},
}

func runServiceDescription(t *testing.T, path string, record func(*testing.T, string, error)) {
	entries, err := manifestEntries(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	if len(entries) != len(sdCases) {
		t.Errorf("the manifest lists %d tests, the runner has %d cases", len(entries), len(sdCases))
	}
	for _, e := range entries {
		test := e.node
		name := localName(test.Value)
		t.Run(name, func(t *testing.T) {
			c, ok := sdCases[name]
			if !ok {
				t.Fatalf("the manifest's test %s has no case in sdCases", test.Value)
			}
			srv := startW3CServer(t)
			for graph, doc := range map[kb.Term]string{
				kb.DefaultGraph:                     "<http://example.org/s> <http://example.org/p> \"default\" .\n",
				kb.IRI("http://example.org/graph1"): "<http://example.org/s> <http://example.org/p> \"named\" .\n",
			} {
				if _, err := srv.store.Replace(context.Background(), graph, graphstore.RDFSource{Body: strings.NewReader(doc), Format: rdfio.NTriples, Name: "fixture"}); err != nil {
					t.Fatal(err)
				}
			}
			record(t, "service-description/"+name, c(srv))
		})
	}
}

// serviceDescription GETs the endpoint without a query.
func (s *w3cServer) serviceDescription(accept string) ([]kb.TermQuad, string, error) {
	req, err := http.NewRequest(http.MethodGet, s.base+"/sparql", nil)
	if err != nil {
		return nil, "", err
	}
	if accept != "" {
		req.Header.Set("Accept", accept)
	}
	resp, err := s.client.Do(req)
	if err != nil {
		return nil, "", err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, "", err
	}
	if resp.StatusCode != http.StatusOK {
		return nil, "", fmt.Errorf("GET /sparql (Accept: %q): %d %s", accept, resp.StatusCode, body)
	}
	mediaType, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if err := checkResultFormat("RDF", mediaType, body, s.base+"/sparql"); err != nil {
		return nil, "", fmt.Errorf("GET /sparql (Accept: %q): %w", accept, err)
	}
	g, err := parseGraph(mediaType, body, s.base+"/sparql")
	return g, mediaType, err
}

func hasType(g []kb.TermQuad, s kb.Term, class string) bool {
	for _, q := range g {
		if q.S == s && q.P.Value == ontology.RDFType && q.O.Value == class {
			return true
		}
	}
	return false
}

// The SPARQL 1.1 Service Description vocabulary
// (https://www.w3.org/TR/sparql11-service-description/ §3): classes with
// their superclasses, and properties with domain and range ("" for a
// resource of no class; "IRI" for an IRI; "literal" for a literal).
var (
	sdClasses = map[string][]string{
		"Service": nil, "Language": nil, "Function": nil, "Aggregate": nil,
		"EntailmentRegime": nil, "EntailmentProfile": nil, "GraphCollection": nil,
		"Dataset": {"GraphCollection"}, "Graph": nil, "NamedGraph": nil, "Feature": nil,
	}
	sdInstances = map[string]string{ // individual → class
		"SPARQL10Query": "Language", "SPARQL11Query": "Language", "SPARQL11Update": "Language",
		"DereferencesURIs": "Feature", "UnionDefaultGraph": "Feature", "RequiresDataset": "Feature",
		"EmptyGraphs": "Feature", "BasicFederatedQuery": "Feature",
	}
	sdProperties = map[string][2]string{ // property → domain, range
		"endpoint":                          {"Service", "IRI"},
		"feature":                           {"Service", "Feature"},
		"defaultEntailmentRegime":           {"Service", "EntailmentRegime"},
		"supportedEntailmentProfile":        {"Service", "EntailmentProfile"},
		"extensionFunction":                 {"Service", "Function"},
		"extensionAggregate":                {"Service", "Aggregate"},
		"languageExtension":                 {"Service", "Language"},
		"supportedLanguage":                 {"Service", "Language"},
		"propertyFeature":                   {"Service", ""},
		"defaultDataset":                    {"Service", "Dataset"},
		"availableGraphs":                   {"Service", "GraphCollection"},
		"resultFormat":                      {"Service", "IRI"},
		"inputFormat":                       {"Service", "IRI"},
		"defaultGraph":                      {"Dataset", "Graph"},
		"namedGraph":                        {"GraphCollection", "NamedGraph"},
		"name":                              {"NamedGraph", "IRI"},
		"graph":                             {"NamedGraph", "Graph"},
		"entailmentRegime":                  {"NamedGraph", "EntailmentRegime"},
		"defaultSupportedEntailmentProfile": {"Service", "EntailmentProfile"},
	}
)

// conformsToSD checks a service description against sdClasses,
// sdInstances and sdProperties: only terms of the vocabulary, rdf:type
// statements that agree with domains and ranges, IRIs where IRIs are
// required, and exactly one sd:name per sd:NamedGraph.
func conformsToSD(g []kb.TermQuad) error {
	types := map[kb.Term]map[string]bool{}
	addType := func(t kb.Term, class string) {
		if types[t] == nil {
			types[t] = map[string]bool{}
		}
		types[t][class] = true
		for _, super := range sdClasses[class] {
			types[t][super] = true
		}
	}
	sdTerm := func(t kb.Term) (string, bool) {
		if t.Kind != kb.KindIRI {
			return "", false
		}
		return strings.CutPrefix(t.Value, sdNS)
	}
	var errs []string
	for _, q := range g {
		for _, t := range []kb.Term{q.S, q.P, q.O} {
			if name, ok := sdTerm(t); ok {
				_, isClass := sdClasses[name]
				_, isInstance := sdInstances[name]
				_, isProperty := sdProperties[name]
				if !isClass && !isInstance && !isProperty {
					errs = append(errs, fmt.Sprintf("sd:%s is not a term of the vocabulary", name))
				}
			}
		}
		if q.P.Value == ontology.RDFType {
			if name, ok := sdTerm(q.O); ok {
				if _, isClass := sdClasses[name]; !isClass {
					errs = append(errs, fmt.Sprintf("%s rdf:type sd:%s, which is not a class", q.S, name))
				}
				addType(q.S, name)
			}
		}
	}
	for name, class := range sdInstances {
		addType(kb.Term{Kind: kb.KindIRI, Value: sdNS + name}, class)
	}
	names := map[kb.Term]int{}
	for _, q := range g {
		prop, ok := sdTerm(q.P)
		if !ok {
			continue
		}
		dr, ok := sdProperties[prop]
		if !ok {
			continue
		}
		if q.O.Kind == kb.KindLiteral {
			errs = append(errs, fmt.Sprintf("sd:%s has the literal %s as value", prop, q.O))
			continue
		}
		if !types[q.S][dr[0]] {
			errs = append(errs, fmt.Sprintf("%s, subject of sd:%s, is not typed sd:%s", q.S, prop, dr[0]))
		}
		switch dr[1] {
		case "":
		case "IRI":
			if q.O.Kind != kb.KindIRI {
				errs = append(errs, fmt.Sprintf("sd:%s of %s is %s, not an IRI", prop, q.S, q.O))
			}
		default:
			if !types[q.O][dr[1]] {
				errs = append(errs, fmt.Sprintf("%s, value of sd:%s, is not typed sd:%s", q.O, prop, dr[1]))
			}
		}
		if prop == "name" {
			names[q.S]++
		}
	}
	for t, classes := range types {
		if classes["NamedGraph"] && names[t] != 1 {
			errs = append(errs, fmt.Sprintf("sd:NamedGraph %s has %d sd:name values, want 1", t, names[t]))
		}
	}
	if len(errs) > 0 {
		sort.Strings(errs)
		return fmt.Errorf("the service description does not conform to the vocabulary:\n%s", strings.Join(errs, "\n"))
	}
	return nil
}

// TestW3CRunnerChecks shows that the runner's comparisons can fail.
func TestW3CRunnerChecks(t *testing.T) {
	parse := func(doc string) []kb.TermQuad {
		g, err := parseGraph("text/turtle", []byte(doc), "http://example.org/")
		if err != nil {
			t.Fatal(err)
		}
		return g
	}
	a := parse(`<s> <p> [ <q> "1" ], [ <q> "2" ] .`)
	for _, c := range []struct {
		doc  string
		want bool
	}{
		{`<s> <p> _:x, _:y . _:y <q> "1" . _:x <q> "2" .`, true},
		{`<s> <p> _:x, _:y . _:x <q> "1" . _:x <q> "2" .`, false},
		{`<s> <p> [ <q> "1" ], [ <q> "3" ] .`, false},
		{`<s> <p> [ <q> "1" ] .`, false},
	} {
		if got := isomorphic(a, parse(c.doc)); got != c.want {
			t.Errorf("isomorphic(%s) = %v, want %v", c.doc, got, c.want)
		}
	}
	for _, c := range []struct {
		code  int
		names []string
		want  bool
	}{
		{201, []string{"Created"}, true},
		{200, []string{"Created"}, false},
		{204, []string{"OK", "NoContent"}, true},
		{404, []string{"StatusCode4xx"}, true},
		{200, []string{"StatusCode4xx"}, false},
	} {
		if got := statusMatches(c.code, c.names); got != c.want {
			t.Errorf("statusMatches(%d, %v) = %v", c.code, c.names, got)
		}
	}
	h := http.Header{"Content-Type": {"text/turtle; charset=UTF-8"}}
	if err := headerMatches(h, "content-type", "text/turtle; charset=utf-8"); err != nil {
		t.Error(err)
	}
	if err := headerMatches(h, "content-type", "application/n-triples"); err == nil {
		t.Error("text/turtle matched application/n-triples")
	}
	if err := headerMatches(http.Header{"Content-Type": {"text/turtle"}}, "content-type", "text/turtle; charset=utf-8"); err == nil {
		t.Error("a Content-Type without charset matched one with")
	}
	if err := conformsToSD(parse(`@prefix sd: <http://www.w3.org/ns/sparql-service-description#> .
<e> a sd:Service ; sd:endpoint "not an IRI" ; sd:defaultDataset [ a sd:Graph ] ; sd:nonsense <x> .`)); err == nil {
		t.Error("a broken service description conforms")
	}
}

// TestSPARQLPostCharset: a body declared in another charset than UTF-8 is
// refused even when its bytes would parse (protocol bad_query_non_utf8
// sends UTF-16, which fails to parse anyway).
func TestSPARQLPostCharset(t *testing.T) {
	srv := startW3CServer(t)
	for _, c := range []struct {
		contentType string
		body        string
		want        int
	}{
		{"application/sparql-query; charset=ISO-8859-1", "ASK {}", http.StatusUnsupportedMediaType},
		{"application/sparql-update; charset=latin1", "CLEAR ALL", http.StatusUnsupportedMediaType},
		{"application/x-www-form-urlencoded; charset=windows-1252", "query=ASK%20%7B%7D", http.StatusUnsupportedMediaType},
		{"application/sparql-query; charset=UTF-8", "ASK {}", http.StatusOK},
		{"application/x-www-form-urlencoded; charset=utf-8", "query=ASK%20%7B%7D", http.StatusOK},
	} {
		if err := srv.do(exchange{method: "POST", target: "/sparql", headers: [][2]string{{"Content-Type", c.contentType}}, body: []byte(c.body),
			statuses: []string{strings.NewReplacer(" ", "").Replace(http.StatusText(c.want))}}, map[string]string{}); err != nil {
			t.Error(err)
		}
	}
}

// TestGraphStoreJSONLD: JSON-LD uploads (kb/rdfio's decoder) through the
// Graph Store, alone and as a multipart part, read back as N-Triples; a
// malformed one is refused at its position and changes nothing.
func TestGraphStoreJSONLD(t *testing.T) {
	srv := startW3CServer(t)
	doc := `{"@context": {"foaf": "http://xmlns.com/foaf/0.1/"},
 "@id": "http://example.org/alice", "@type": "foaf:Person",
 "foaf:name": "Alice", "foaf:account": {"foaf:accountName": "a1"}}`
	want := `<http://example.org/alice> <http://www.w3.org/1999/02/22-rdf-syntax-ns#type> <http://xmlns.com/foaf/0.1/Person> .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/name> "Alice" .
<http://example.org/alice> <http://xmlns.com/foaf/0.1/account> _:x .
_:x <http://xmlns.com/foaf/0.1/accountName> "a1" .
`
	multipartBody := "--B\r\nContent-Disposition: form-data; name=\"a\"; filename=\"a.jsonld\"\r\nContent-Type: application/ld+json\r\n\r\n" + doc + "\r\n--B--\r\n"
	steps := []exchange{
		{method: "PUT", target: "/data/people", headers: [][2]string{{"Content-Type", "application/ld+json"}}, body: []byte(doc), statuses: []string{"Created"}},
		{method: "GET", target: "/data/people", headers: [][2]string{{"Accept", "application/n-triples"}}, statuses: []string{"OK"},
			respHeaders: [][2]string{{"Content-Type", "application/n-triples; charset=utf-8"}}, respBody: &want},
		{method: "PUT", target: "/data/people", headers: [][2]string{{"Content-Type", "application/ld+json"}}, body: []byte("{\n \"@id\": \"http://example.org/bob\",\n \"foaf:name\": }"), statuses: []string{"BadRequest"}},
		{method: "GET", target: "/data/people", headers: [][2]string{{"Accept", "application/n-triples"}}, statuses: []string{"OK"}, respBody: &want},
		{method: "POST", target: "/data/more", headers: [][2]string{{"Content-Type", "multipart/form-data; boundary=B"}}, body: []byte(multipartBody), statuses: []string{"Created"}},
		{method: "GET", target: "/data/more", headers: [][2]string{{"Accept", "text/turtle"}}, statuses: []string{"OK"}, respBody: &want, respBodyType: "application/n-triples"},
	}
	vars := map[string]string{}
	for i, x := range steps {
		if err := srv.do(x, vars); err != nil {
			t.Fatalf("step %d: %v", i+1, err)
		}
	}
	// The position of the JSON error reaches the client.
	req, _ := http.NewRequest("PUT", srv.base+"/data/people", strings.NewReader("{\n \"@id\": \"http://example.org/bob\",\n \"foaf:name\": }"))
	req.Header.Set("Content-Type", "application/ld+json")
	req.Header.Set("Authorization", "Bearer "+w3cToken)
	resp, err := srv.client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !strings.Contains(string(body), `"line":3`) {
		t.Errorf("malformed JSON-LD: %d %s; want line 3", resp.StatusCode, body)
	}
}

// TestGraphStoreHEADLength: HEAD sends the Content-Length a GET's body has
// (for bodies up to the stream buffer; a larger graph streams chunked and
// HEAD says no length either).
func TestGraphStoreHEADLength(t *testing.T) {
	srv := startW3CServer(t)
	send := func(method, target, contentType, accept, body string) (*http.Response, []byte) {
		t.Helper()
		req, err := http.NewRequest(method, srv.base+target, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		if contentType != "" {
			req.Header.Set("Content-Type", contentType)
		}
		if accept != "" {
			req.Header.Set("Accept", accept)
		}
		req.Header.Set("Authorization", "Bearer "+w3cToken)
		resp, err := srv.client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, b
	}
	var big strings.Builder
	for i := 0; big.Len() < 64<<10; i++ {
		fmt.Fprintf(&big, "<http://example.org/s%d> <http://example.org/p> \"value %d\" .\n", i, i)
	}
	if resp, b := send("PUT", "/data/small", "text/turtle", "", `<http://example.org/s> <http://example.org/p> "o", [ <http://example.org/q> 1 ] .`); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT small: %d %s", resp.StatusCode, b)
	}
	if resp, b := send("PUT", "/data/big", "application/n-triples", "", big.String()); resp.StatusCode != http.StatusCreated {
		t.Fatalf("PUT big: %d %s", resp.StatusCode, b)
	}
	for _, accept := range []string{"text/turtle", "application/n-triples", "application/rdf+xml", "application/ld+json"} {
		get, body := send("GET", "/data/small", "", accept, "")
		head, headBody := send("HEAD", "/data/small", "", accept, "")
		if get.StatusCode != 200 || head.StatusCode != 200 || len(headBody) != 0 {
			t.Fatalf("%s: GET %d, HEAD %d with %d body bytes", accept, get.StatusCode, head.StatusCode, len(headBody))
		}
		if head.ContentLength != int64(len(body)) || head.Header.Get("Content-Type") != get.Header.Get("Content-Type") {
			t.Errorf("%s: HEAD says %d bytes of %q; GET sent %d of %q", accept, head.ContentLength, head.Header.Get("Content-Type"), len(body), get.Header.Get("Content-Type"))
		}
	}
	get, body := send("GET", "/data/big", "", "application/n-triples", "")
	head, _ := send("HEAD", "/data/big", "", "application/n-triples", "")
	if get.StatusCode != 200 || len(body) < 64<<10 || head.StatusCode != 200 || head.ContentLength != -1 || get.ContentLength != -1 {
		t.Errorf("big graph: GET %d (%d bytes, length %d), HEAD %d (length %d); want both without a length", get.StatusCode, len(body), get.ContentLength, head.StatusCode, head.ContentLength)
	}
}
