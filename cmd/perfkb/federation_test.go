package main

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/results"
)

// The federation integration test runs real perfkb processes: three
// `perfkb serve` sites on loopback, each holding one site of `perfkb
// sample`, a coordinator store that registers them, and a store holding the
// union of the three. A fan-out answer must equal the union answer.

const fedPrefix = "PREFIX perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>\nPREFIX rdfs: <http://www.w3.org/2000/01/rdf-schema#>\n"

// linzToken protects the linz site (--protect-reads); the coordinator sends
// it from $PERFKB_SITE_LINZ. It must never show up in output, logs or stores.
const linzToken = "linz-secret-7f3a9"

type fedEnv struct {
	bin   string
	dir   string
	env   []string
	sites map[string]*siteProc
}

type siteProc struct {
	cmd    *exec.Cmd
	url    string
	stderr *bytes.Buffer
}

// buildPerfkb builds the binary once for the test.
func buildPerfkb(t testing.TB, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "perfkb")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	return bin
}

// run runs perfkb and returns stdout, stderr and the exit code.
func (e *fedEnv) run(t testing.TB, args ...string) (string, string, int) {
	t.Helper()
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.dir
	cmd.Env = e.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("perfkb %v: %v", args, err)
	}
	return stdout.String(), stderr.String(), code
}

func (e *fedEnv) mustRun(t testing.TB, args ...string) string {
	t.Helper()
	out, errOut, code := e.run(t, args...)
	if code != 0 {
		t.Fatalf("perfkb %v: exit %d\n%s", args, code, errOut)
	}
	return out
}

var servingRE = regexp.MustCompile(`at (http://[0-9.:]+)/ `)

// serve starts perfkb serve on a free loopback port and waits for its URL.
func (e *fedEnv) serve(t testing.TB, store string, extra ...string) *siteProc {
	t.Helper()
	return e.serveSpec(t, "native:"+store, extra...)
}

// serveSpec is serve for any store spec.
func (e *fedEnv) serveSpec(t testing.TB, store string, extra ...string) *siteProc {
	t.Helper()
	args := append([]string{"--store", store, "serve", "--addr", "127.0.0.1:0"}, extra...)
	cmd := exec.Command(e.bin, args...)
	cmd.Dir = e.dir
	cmd.Env = e.env
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	p := &siteProc{cmd: cmd, stderr: &bytes.Buffer{}}
	cmd.Stderr = p.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.stop() })
	lines := bufio.NewScanner(stdout)
	found := make(chan string, 1)
	go func() {
		for lines.Scan() {
			if m := servingRE.FindStringSubmatch(lines.Text()); m != nil {
				found <- m[1]
			}
		}
	}()
	select {
	case p.url = <-found:
	case <-time.After(20 * time.Second):
		t.Fatalf("perfkb serve %s did not start: %s", store, p.stderr)
	}
	return p
}

func (p *siteProc) stop() {
	if p.cmd.ProcessState != nil || p.cmd.Process == nil {
		return
	}
	p.cmd.Process.Signal(syscall.SIGTERM)
	done := make(chan struct{})
	go func() { p.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		p.cmd.Process.Kill()
		<-done
	}
}

func TestFederationIntegration(t *testing.T) {
	if testing.Short() {
		t.Skip("builds perfkb and starts four servers; skipped with -short")
	}
	dir := t.TempDir()
	e := &fedEnv{bin: buildPerfkb(t, dir), dir: dir, sites: map[string]*siteProc{}}
	e.env = append(os.Environ(), "PERFKB_SITE_LINZ="+linzToken, "PERFKB_TOKEN=")

	// Three sites and the union store.
	names := []string{"innsbruck", "vienna", "linz"}
	for _, s := range names {
		nq := filepath.Join(dir, s+".nq")
		e.mustRun(t, "sample", "--triples", "2500", "--site", s, "-o", nq)
		e.mustRun(t, "--store", "native:"+s+".db", "load", nq)
		e.mustRun(t, "--store", "native:"+s+".db", "reason")
		e.mustRun(t, "--store", "native:union.db", "load", nq)
	}
	e.mustRun(t, "--store", "native:union.db", "reason")
	virtuoso := virtuosoSite(t, e) // starts in the background
	for _, s := range names {
		var extra []string
		if s == "linz" {
			extra = []string{"--protect-reads", "--token", linzToken}
		}
		e.sites[s] = e.serve(t, s+".db", extra...)
	}
	e.mustRun(t, "--store", "native:coord.db", "sites", "add", "innsbruck", e.sites["innsbruck"].url+"/sparql")
	e.mustRun(t, "--store", "native:coord.db", "sites", "add", "vienna", e.sites["vienna"].url+"/sparql")
	e.mustRun(t, "--store", "native:coord.db", "sites", "add", "linz", e.sites["linz"].url+"/sparql", "--token-env", "PERFKB_SITE_LINZ")
	_, refreshErr, code := e.run(t, "--store", "native:coord.db", "sites", "refresh")
	if code != 0 || strings.Count(refreshErr, " experiments ") != 3 {
		t.Fatalf("sites refresh: exit %d\n%s", code, refreshErr)
	}

	t.Run("fan-out equals union", func(t *testing.T) { fanOutEqualsUnion(t, e) })
	t.Run("SERVICE", func(t *testing.T) { serviceQueries(t, e) })
	t.Run("registry", func(t *testing.T) { registryRoundTrip(t, e) })
	t.Run("Virtuoso site", func(t *testing.T) { virtuosoFanOut(t, e, virtuoso) })
	t.Run("failures", func(t *testing.T) { failures(t, e) })

	// The linz token never reached output, logs or stores.
	for name, p := range e.sites {
		p.stop()
		if strings.Contains(p.stderr.String(), linzToken) {
			t.Errorf("the log of site %s shows the token", name)
		}
	}
	for _, store := range []string{"coord.db", "coordhttp.db"} {
		if out, _, _ := e.run(t, "--store", "native:"+store, "export"); strings.Contains(out, linzToken) {
			t.Errorf("store %s holds the token", store)
		}
	}
}

// fedQuery is a query compared between fan-out and union.
type fedQuery struct {
	name, text string
	ordered    bool
	form       string // select (default), ask, construct, describe
	nonEmpty   bool
	// virtuosoDoubles names the columns whose xsd:double values may come
	// from the Virtuoso site (compareWithVirtuosoDoubles).
	virtuosoDoubles []string
}

// fedQueries are the queries compared between fan-out and union.
var fedQueries = []fedQuery{
	{name: "Fig. 6.29 SPARQL", nonEmpty: true, text: fedPrefix + `SELECT ?regionsummary WHERE {
  ?regionsummary perfonto:inProcessingUnit ?processingunit .
  ?processingunit perfonto:inNode "gsr410" .
  ?regionsummary perfonto:hasMetric ?metric .
  ?metric perfonto:hasMetricName "wtime" .
  ?metric perfonto:hasMetricValue ?value .
  FILTER (?value >= 3E8) }`},
	{name: "Fig. 6.29 RDQL", nonEmpty: true, text: `SELECT ?regionsummary
WHERE (?regionsummary perfonto:inProcessingUnit ?processingunit)
      (?processingunit perfonto:inNode "gsr410")
      (?regionsummary perfonto:hasMetric ?metric)
      (?metric perfonto:hasMetricName "wtime")
      (?metric perfonto:hasMetricValue ?value)
AND (?value >= 3E8)
USING perfonto FOR <http://www.par.univie.ac.at/project/scalea/perfonto#>`},
	{name: "top 10 by wtime", ordered: true, nonEmpty: true, virtuosoDoubles: []string{"v"}, text: fedPrefix + `SELECT ?rs ?v WHERE {
  ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v }
ORDER BY DESC(?v) ?rs LIMIT 10`},
	{name: "findings per problem class", nonEmpty: true, text: fedPrefix + `SELECT ?class (COUNT(?f) AS ?n) WHERE {
  ?f a ?class . ?class rdfs:subClassOf* perfonto:PerformanceProblem }
GROUP BY ?class`},
	{name: "region summaries per code region type", nonEmpty: true, virtuosoDoubles: []string{"avg", "max"}, text: fedPrefix + `SELECT ?type (COUNT(?rs) AS ?n) (AVG(?v) AS ?avg) (MAX(?v) AS ?max) WHERE {
  ?rs perfonto:ofCodeRegion ?cr ; perfonto:hasMetric ?m .
  ?cr perfonto:hasCrType ?type .
  ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v }
GROUP BY ?type`},
	{name: "distinct metric names", nonEmpty: true, text: fedPrefix + `SELECT DISTINCT ?name WHERE { ?m perfonto:hasMetricName ?name }`},
	{name: "ASK true", form: "ask", text: fedPrefix + `ASK { <http://perfkb.example/site/linz/exp/3> a perfonto:Experiment }`},
	{name: "ASK false", form: "ask", text: fedPrefix + `ASK { ?m perfonto:hasMetricName "no such metric" }`},
	{name: "DESCRIBE the experiments", form: "describe", nonEmpty: true, text: fedPrefix + `DESCRIBE ?e WHERE { ?e a perfonto:Experiment ; perfonto:startTime ?t }`},
	{name: "DESCRIBE one IRI", form: "describe", nonEmpty: true, text: `DESCRIBE <http://perfkb.example/site/innsbruck/exp/1>`},
	{name: "CONSTRUCT one experiment", form: "construct", nonEmpty: true, text: fedPrefix + `CONSTRUCT { ?e ?p ?o } WHERE {
  ?e ?p ?o FILTER (?e = <http://perfkb.example/site/vienna/exp/2>) }`},
}

func fanOutEqualsUnion(t *testing.T, e *fedEnv) {
	for _, q := range fedQueries {
		t.Run(q.name, func(t *testing.T) {
			format := "json"
			if q.form == "construct" || q.form == "describe" {
				format = "ntriples"
			}
			fan, fanErr, code := e.run(t, "--store", "native:coord.db", "query", "--sites", "all", "--format", format, "-e", q.text)
			if code != 0 {
				t.Fatalf("fan-out: exit %d\n%s", code, fanErr)
			}
			if !strings.Contains(fanErr, "federation: complete (3 sites)") {
				t.Errorf("report: %s", fanErr)
			}
			union := e.mustRun(t, "--store", "native:union.db", "query", "--format", format, "-e", q.text)
			switch q.form {
			case "construct", "describe":
				a, b := sortedLines(fan), sortedLines(union)
				if !slices.Equal(a, b) {
					t.Errorf("fan-out %d triples, union %d triples; differ:\n%s", len(a), len(b), lineDiff(a, b))
				}
				if q.nonEmpty && len(b) == 0 {
					t.Error("the union answer is empty: the test compares nothing")
				}
			case "ask":
				if fan != union {
					t.Errorf("fan-out %s, union %s", fan, union)
				}
			default:
				a, b := solutionRows(t, fan), solutionRows(t, union)
				if !q.ordered {
					sort.Strings(a)
					sort.Strings(b)
				}
				if !slices.Equal(a, b) {
					t.Errorf("fan-out and union differ\nfan-out (%d): %v\nunion (%d): %v", len(a), head(a), len(b), head(b))
				}
				if q.nonEmpty && len(b) == 0 {
					t.Error("the union answer is empty: the test compares nothing")
				}
			}
		})
	}
}

func head(rows []string) []string { return rows[:min(len(rows), 5)] }

func sortedLines(s string) []string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	if len(lines) == 1 && lines[0] == "" {
		return nil
	}
	sort.Strings(lines)
	return lines
}

// solutionRows decodes SPARQL JSON results into one string per row, with
// doubles rounded to 12 significant digits: sums over sites and over one
// store add in different orders.
func solutionRows(t *testing.T, doc string) []string {
	t.Helper()
	rs, err := results.ReadJSON(strings.NewReader(doc))
	if err != nil {
		t.Fatalf("%v\n%s", err, doc)
	}
	var out []string
	for _, row := range rs.Rows {
		var parts []string
		for i, term := range row {
			parts = append(parts, rs.Vars[i]+"="+normTerm(term))
		}
		sort.Strings(parts)
		out = append(out, strings.Join(parts, " "))
	}
	return out
}

func normTerm(term kb.Term) string {
	if term.IsLiteral() && (strings.HasSuffix(term.Datatype, "#double") || strings.HasSuffix(term.Datatype, "#decimal")) {
		if f, err := strconv.ParseFloat(term.Value, 64); err == nil {
			return strconv.FormatFloat(f, 'g', 12, 64)
		}
	}
	return term.String()
}

func serviceQueries(t *testing.T, e *fedEnv) {
	v, l := e.sites["vienna"].url+"/sparql", e.sites["linz"].url+"/sparql"
	tests := []struct {
		name, federated, local string
	}{
		{
			// The second SERVICE is fed the first one's ?name values.
			name: "two sites joined locally",
			federated: fedPrefix + fmt.Sprintf(`SELECT ?name ?e WHERE {
  SERVICE <%s> { SELECT DISTINCT ?name { ?m perfonto:hasMetricName ?name } }
  SERVICE <%s> { ?e perfonto:startTime ?t . ?rs perfonto:inExperiment ?e ; perfonto:hasMetric ?m . ?m perfonto:hasMetricName ?name } }`, v, l),
			local: fedPrefix + `SELECT ?name ?e WHERE {
  { SELECT DISTINCT ?name { GRAPH <http://perfkb.example/site/vienna> { ?m perfonto:hasMetricName ?name } } }
  GRAPH <http://perfkb.example/site/linz> { ?e perfonto:startTime ?t . ?rs perfonto:inExperiment ?e ; perfonto:hasMetric ?m . ?m perfonto:hasMetricName ?name } }`,
		},
		{
			name: "SERVICE ?ep from the registry",
			federated: fedPrefix + `SELECT ?e ?start WHERE {
  GRAPH <urn:x-perfkb:sites> { ?e perfonto:heldBy ?site . ?site perfonto:sparqlEndpoint ?ep }
  SERVICE ?ep { ?e perfonto:startTime ?start } }`,
			local: fedPrefix + `SELECT ?e ?start WHERE { ?e a perfonto:Experiment ; perfonto:startTime ?start }`,
		},
		{
			// ?ep is bound outside the UNION: each branch is fed it.
			name: "SERVICE ?ep from the registry in UNION branches",
			federated: fedPrefix + `SELECT ?e ?x WHERE {
  GRAPH <urn:x-perfkb:sites> { ?e perfonto:heldBy ?site . ?site perfonto:sparqlEndpoint ?ep }
  { SERVICE ?ep { ?e perfonto:startTime ?x } } UNION { SERVICE ?ep { ?e perfonto:endTime ?x } } }`,
			local: fedPrefix + `SELECT ?e ?x WHERE { ?e a perfonto:Experiment { ?e perfonto:startTime ?x } UNION { ?e perfonto:endTime ?x } }`,
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			fed := e.mustRun(t, "--store", "native:coord.db", "query", "--format", "json", "-e", tc.federated)
			local := e.mustRun(t, "--store", "native:union.db", "query", "--format", "json", "-e", tc.local)
			a, b := solutionRows(t, fed), solutionRows(t, local)
			sort.Strings(a)
			sort.Strings(b)
			if len(b) == 0 || !slices.Equal(a, b) {
				t.Errorf("federated (%d rows) %v\nlocal (%d rows) %v", len(a), head(a), len(b), head(b))
			}
		})
	}
	t.Run("SERVICE SILENT on a dead endpoint", func(t *testing.T) {
		out, errOut, code := e.run(t, "--store", "native:coord.db", "query", "--format", "json", "--site-timeout", "2s",
			"-e", `SELECT * { SERVICE SILENT <http://127.0.0.1:1/sparql> { ?s ?p ?o } }`)
		if code != 0 || len(solutionRows(t, out)) != 1 {
			t.Errorf("exit %d, %s %s; want one empty solution", code, out, errOut)
		}
		_, errOut, code = e.run(t, "--store", "native:coord.db", "query", "--site-timeout", "2s", "-e", `SELECT * { SERVICE <http://127.0.0.1:1/sparql> { ?s ?p ?o } }`)
		if code != 3 || !strings.Contains(errOut, "127.0.0.1:1") {
			t.Errorf("without SILENT: exit %d, %s; want exit 3 naming the endpoint", code, errOut)
		}
	})
}

func registryRoundTrip(t *testing.T, e *fedEnv) {
	out := e.mustRun(t, "--store", "native:coord.db", "sites", "list", "--format", "json")
	for _, s := range []string{"innsbruck", "vienna", "linz"} {
		if !strings.Contains(out, `"name": "`+s+`"`) {
			t.Errorf("sites list lacks %s:\n%s", s, out)
		}
	}
	if !regexp.MustCompile(`"experiments": [1-9]`).MatchString(out) || !strings.Contains(out, `"tokenEnv": "PERFKB_SITE_LINZ"`) {
		t.Errorf("sites list: want experiment counts and the token variable name:\n%s", out)
	}
	// Refreshing again replaces the records: the counts stay the same.
	e.mustRun(t, "--store", "native:coord.db", "sites", "refresh", "vienna")
	countHeld := func(store string) string {
		return e.mustRun(t, "--store", "native:"+store, "query", "--format", "tsv", "-e",
			fedPrefix+`SELECT (COUNT(*) AS ?n) { GRAPH <urn:x-perfkb:sites> { ?e perfonto:heldBy ?s } }`)
	}
	if got, want := countHeld("coord.db"), e.experiments(t, ""); !strings.Contains(got, fmt.Sprintf("\n%d\n", want)) {
		t.Errorf("GEM records after a second refresh: %s, want %d", got, want)
	}

	// Over HTTP while serve holds the store; writes need the token.
	coord := e.serve(t, "coordhttp.db", "--token", "coordtok")
	server := []string{"sites", "--server", coord.url}
	if _, errOut, code := e.run(t, append(server, "add", "vienna", e.sites["vienna"].url+"/sparql")...); code == 0 || !strings.Contains(errOut, "401") {
		t.Errorf("add without the token: exit %d, %s; want a 401 refusal", code, errOut)
	}
	withToken := append(slices.Clone(e.env), "PERFKB_TOKEN=coordtok")
	runTok := func(args ...string) (string, string, int) {
		saved := e.env
		e.env = withToken
		defer func() { e.env = saved }()
		return e.run(t, args...)
	}
	for _, s := range []string{"vienna", "innsbruck"} {
		if _, errOut, code := runTok(append(server, "add", s, e.sites[s].url+"/sparql")...); code != 0 {
			t.Fatalf("add %s over HTTP: exit %d %s", s, code, errOut)
		}
	}
	if _, errOut, code := runTok(append(server, "refresh")...); code != 0 {
		t.Fatalf("refresh over HTTP: exit %d %s", code, errOut)
	}
	if _, errOut, code := runTok(append(server, "remove", "innsbruck")...); code != 0 {
		t.Fatalf("remove over HTTP: exit %d %s", code, errOut)
	}
	if _, _, code := runTok(append(server, "remove", "innsbruck")...); code != 2 {
		t.Errorf("removing an unknown site: exit %d, want 2", code)
	}
	// /sparql with SERVICE to a registered site works; to another host it is refused.
	q := fedPrefix + fmt.Sprintf(`SELECT (COUNT(*) AS ?n) { SERVICE <%s/sparql> { ?e a perfonto:Experiment } }`, e.sites["vienna"].url)
	if body := httpQuery(t, coord.url, q); !strings.Contains(body, fmt.Sprintf(`"%d"`, e.experiments(t, "vienna"))) {
		t.Errorf("SERVICE to a registered site over HTTP: %s", body)
	}
	q = fmt.Sprintf(`SELECT * { SERVICE <%s/sparql> { ?s ?p ?o } } LIMIT 1`, e.sites["innsbruck"].url)
	if resp, err := http.PostForm(coord.url+"/sparql", map[string][]string{"query": {q}}); err != nil {
		t.Fatal(err)
	} else {
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusForbidden || !strings.Contains(string(body), "not a registered site") {
			t.Errorf("SERVICE to an unregistered endpoint over HTTP: %d %s, want 403", resp.StatusCode, body)
		}
	}
	// The registry survives a restart.
	coord.stop()
	coord = e.serve(t, "coordhttp.db", "--token", "coordtok")
	out = e.mustRun(t, "sites", "--server", coord.url, "list", "--format", "json")
	if !strings.Contains(out, `"name": "vienna"`) || strings.Contains(out, "innsbruck") || !strings.Contains(out, fmt.Sprintf(`"experiments": %d`, e.experiments(t, "vienna"))) {
		t.Errorf("after restart: %s", out)
	}
	coord.stop()
}

// experiments counts the experiments of a site in the union store (all
// sites when site is "").
func (e *fedEnv) experiments(t testing.TB, site string) int {
	t.Helper()
	pattern := "?e a perfonto:Experiment"
	if site != "" {
		pattern = "GRAPH <http://perfkb.example/site/" + site + "> { " + pattern + " }"
	}
	out := e.mustRun(t, "--store", "native:union.db", "query", "--format", "csv", "-e", fedPrefix+"SELECT (COUNT(?e) AS ?n) { "+pattern+" }")
	lines := strings.Fields(out)
	n, err := strconv.Atoi(lines[len(lines)-1])
	if err != nil || n == 0 {
		t.Fatalf("experiments of %q: %q", site, out)
	}
	return n
}

func httpQuery(t *testing.T, base, q string) string {
	t.Helper()
	resp, err := http.PostForm(base+"/sparql", map[string][]string{"query": {q}})
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

func failures(t *testing.T, e *fedEnv) {
	count := fedPrefix + `SELECT ?e WHERE { ?e a perfonto:Experiment }`

	// A site that accepts connections and never answers.
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	var (
		heldMu sync.Mutex
		held   []net.Conn
	)
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			heldMu.Lock()
			held = append(held, c)
			heldMu.Unlock()
		}
	}()
	// A site that answers malformed JSON.
	broken := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/sparql-results+json")
		io.WriteString(w, `{"head":{"vars":["e"]},"results":{"bindings":[{"e":{"type":"uri","value":"http://x"}} {"e"`)
	}))
	defer broken.Close()
	e.mustRun(t, "--store", "native:coordfail.db", "sites", "add", "vienna", e.sites["vienna"].url+"/sparql")
	e.mustRun(t, "--store", "native:coordfail.db", "sites", "add", "hang", "http://"+l.Addr().String()+"/sparql")
	e.mustRun(t, "--store", "native:coordfail.db", "sites", "add", "broken", broken.URL+"/sparql")

	start := time.Now()
	out, errOut, code := e.run(t, "--store", "native:coordfail.db", "query", "--sites", "all", "--site-timeout", "1s", "--format", "json", "-e", count)
	elapsed := time.Since(start)
	if code != 3 || !strings.Contains(errOut, "partial answer") || !strings.Contains(errOut, "site hang: timed out") {
		t.Errorf("hanging site: exit %d\n%s", code, errOut)
	}
	if elapsed > 2*time.Second {
		t.Errorf("with a hanging site the query took %v, want at most --site-timeout 1s + 1s", elapsed)
	}
	if !regexp.MustCompile(`site broken: failed.*bad results from broken at byte \d+`).MatchString(errOut) {
		t.Errorf("malformed JSON: want the byte position in the report:\n%s", errOut)
	}
	if n, want := len(solutionRows(t, out)), e.experiments(t, "vienna"); n != want {
		t.Errorf("partial answer has %d rows, want vienna's %d", n, want)
	}
	heldMu.Lock()
	for _, c := range held {
		c.Close()
	}
	heldMu.Unlock()

	// A stopped site: exit 3 naming it, 0 with --allow-partial.
	e.sites["innsbruck"].stop()
	_, errOut, code = e.run(t, "--store", "native:coord.db", "query", "--sites", "all", "--format", "json", "-e", count)
	if code != 3 || !strings.Contains(errOut, "innsbruck did not answer") {
		t.Errorf("stopped site: exit %d\n%s", code, errOut)
	}
	out, errOut, code = e.run(t, "--store", "native:coord.db", "query", "--sites", "all", "--allow-partial", "--site-column", "site", "--format", "json", "-e", count)
	if code != 0 || !strings.Contains(errOut, "site innsbruck: failed") {
		t.Errorf("--allow-partial: exit %d\n%s", code, errOut)
	}
	rows := solutionRows(t, out)
	if want := e.experiments(t, "vienna") + e.experiments(t, "linz"); len(rows) != want || !strings.Contains(strings.Join(rows, "\n"), `site="linz"`) {
		t.Errorf("--allow-partial --site-column: %d rows %v, want %d from vienna and linz", len(rows), head(rows), want)
	}

	// Over HTTP: /sparql?sites=all answers partially with headers and the
	// report in the JSON head.
	coord := e.serve(t, "coord.db")
	resp, err := http.PostForm(coord.url+"/sparql?sites=all", map[string][]string{"query": {count}})
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || resp.Header.Get("Perfkb-Federation") != "partial" || !strings.HasPrefix(resp.Header.Get("Perfkb-Sites-Failed"), "innsbruck (failed") {
		t.Errorf("HTTP fan-out: %s, Perfkb-Federation %q, Perfkb-Sites-Failed %q", resp.Status, resp.Header.Get("Perfkb-Federation"), resp.Header.Get("Perfkb-Sites-Failed"))
	}
	if !strings.Contains(string(body), `"federation":{"complete":false`) {
		t.Errorf("HTTP fan-out: no report in the JSON head: %.300s", body)
	}
	if n, want := len(solutionRows(t, string(body))), e.experiments(t, "vienna")+e.experiments(t, "linz"); n != want {
		t.Errorf("HTTP fan-out: %d rows, want %d", n, want)
	}
	resp, err = http.Get(coord.url + "/sparql?sites=vienna&query=" + url.QueryEscape(count))
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Header.Get("Perfkb-Federation") != "complete" {
		t.Errorf("HTTP GET fan-out to vienna: Perfkb-Federation %q", resp.Header.Get("Perfkb-Federation"))
	}
	// DESCRIBE over HTTP: the description comes from the site.
	describe := `DESCRIBE <http://perfkb.example/site/vienna/exp/2>`
	req, err := http.NewRequest("GET", coord.url+"/sparql?sites=vienna&query="+url.QueryEscape(describe), nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Accept", "application/n-triples")
	resp, err = http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	want := sortedLines(e.mustRun(t, "--store", "native:union.db", "query", "--format", "ntriples", "-e", describe))
	if got := sortedLines(string(body)); resp.Header.Get("Perfkb-Federation") != "complete" || len(want) == 0 || !slices.Equal(got, want) {
		t.Errorf("HTTP DESCRIBE fan-out: %s, Perfkb-Federation %q, %d triples, want %d:\n%s", resp.Status, resp.Header.Get("Perfkb-Federation"), len(got), len(want), lineDiff(got, want))
	}
	coord.stop()
}
