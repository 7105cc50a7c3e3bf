package main

import (
	"fmt"
	"math"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/query/results"
)

// The interoperability part of the federation integration test: one site is
// served by OpenLink Virtuoso (Debian's virtuoso-opensource), the other two
// by perfkb, and the fan-out answer must equal the union answer. Nothing in
// the client is told that the remote end is not perfkb: the site is
// registered with its plain SPARQL endpoint URL, the default graph chosen
// with the standard default-graph-uri parameter in that URL.

// virtuosoGraph is the graph the Virtuoso site's data is loaded into (and its
// default graph through default-graph-uri).
const virtuosoGraph = "http://perfkb.example/site/linz"

// virtuosoDoubleTolerance is the relative difference allowed between a
// double that passed through Virtuoso and the union store's value. Virtuoso
// 7.2 writes every xsd:double in its JSON and XML results with 6
// significant digits ("%g": the stored 369727904.37 comes back as
// "3.69728e+08"), an output limitation of Virtuoso, not of the merge.
// Rounding to 6 significant digits changes a value by at most half a unit
// in the 6th digit, i.e. a relative 5e-6; a sum or average that combines
// such a value with exact ones is off by at most as much.
const virtuosoDoubleTolerance = 5e-6

type virtuosoProc struct {
	cmd      *exec.Cmd
	dir      string
	sqlAddr  string
	httpAddr string
	exited   chan struct{}
}

// freeLoopbackPort returns a loopback port that was free a moment ago.
func freeLoopbackPort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// startVirtuoso starts virtuoso-t on free loopback ports with a fresh
// database in dir; it does not wait for the server (see ready). The
// process is stopped at the end of the test.
func startVirtuoso(t testing.TB, dir string) *virtuosoProc {
	t.Helper()
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	v := &virtuosoProc{dir: dir}
	v.launch(t)
	t.Cleanup(func() { v.stop() })
	return v
}

// launch starts virtuoso-t on ports that were free a moment ago.
func (v *virtuosoProc) launch(t testing.TB) {
	t.Helper()
	dir := v.dir
	v.exited = make(chan struct{})
	v.sqlAddr = fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	v.httpAddr = fmt.Sprintf("127.0.0.1:%d", freeLoopbackPort(t))
	// A small instance: the site holds a few thousand triples.
	ini := fmt.Sprintf(`[Database]
DatabaseFile = %[1]s/virtuoso.db
ErrorLogFile = %[1]s/virtuoso.log
LockFile = %[1]s/virtuoso.lck
TransactionFile = %[1]s/virtuoso.trx
xa_persistent_file = %[1]s/virtuoso.pxa
FileExtend = 200
Striping = 0
TempStorage = TempDatabase
[TempDatabase]
DatabaseFile = %[1]s/virtuoso-temp.db
TransactionFile = %[1]s/virtuoso-temp.trx
[Parameters]
ServerPort = %[2]s
DisableUnixSocket = 1
MaxClientConnections = 8
DirsAllowed = ., %[1]s
NumberOfBuffers = 10000
MaxDirtyBuffers = 6000
ThreadsPerQuery = 1
[HTTPServer]
ServerPort = %[3]s
MaxClientConnections = 8
ServerThreads = 8
[SPARQL]
ResultSetMaxRows = 1000000
MaxQueryExecutionTime = 60
`, dir, v.sqlAddr, v.httpAddr)
	if err := os.WriteFile(filepath.Join(dir, "virtuoso.ini"), []byte(ini), 0o644); err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "stdout.log"))
	if err != nil {
		t.Fatal(err)
	}
	v.cmd = exec.Command("virtuoso-t", "-c", filepath.Join(dir, "virtuoso.ini"), "+foreground")
	v.cmd.Dir = dir
	v.cmd.Stdout, v.cmd.Stderr = log, log
	if err := v.cmd.Start(); err != nil {
		t.Fatalf("virtuoso-t: %v", err)
	}
	cmd, exited := v.cmd, v.exited
	go func() { cmd.Wait(); log.Close(); close(exited) }()
}

func (v *virtuosoProc) stop() {
	select {
	case <-v.exited:
		return
	default:
	}
	v.cmd.Process.Signal(syscall.SIGTERM) // a quick shutdown
	select {
	case <-v.exited:
	case <-time.After(10 * time.Second):
		v.cmd.Process.Kill()
		<-v.exited
	}
}

func (v *virtuosoProc) logTail() string {
	b, _ := os.ReadFile(filepath.Join(v.dir, "virtuoso.log"))
	s := string(b)
	return s[max(0, len(s)-2000):]
}

// ready waits until the SQL and HTTP listeners answer. A port taken by
// another process between freeLoopbackPort and virtuoso-t's listen (the
// test packages run in parallel) starts it again on new ones, twice at
// most.
func (v *virtuosoProc) ready(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(90 * time.Second)
	relaunches := 0
	for {
		select {
		case <-v.exited:
			if strings.Contains(v.logTail(), "Failed to start listening") && relaunches < 2 {
				relaunches++
				t.Logf("virtuoso-t could not listen (a port was taken meanwhile); starting it again:\n%s", v.logTail())
				v.launch(t)
				continue
			}
			t.Fatalf("virtuoso-t exited during startup:\n%s", v.logTail())
		default:
		}
		err := exec.Command("isql-vt", v.sqlAddr, "dba", "dba", "exec=select 1;").Run()
		if err == nil {
			resp, herr := http.Get("http://" + v.httpAddr + "/sparql?query=" + url.QueryEscape("ASK {}"))
			if herr == nil {
				resp.Body.Close()
				if resp.StatusCode == 200 {
					return
				}
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("virtuoso did not start in 90 s:\n%s", v.logTail())
		}
		time.Sleep(300 * time.Millisecond)
	}
}

// load bulk-loads an N-Triples file (in v.dir) into graph.
func (v *virtuosoProc) load(t testing.TB, file, graph string) {
	t.Helper()
	out, err := exec.Command("isql-vt", v.sqlAddr, "dba", "dba",
		fmt.Sprintf("exec=ld_dir('%s', '%s', '%s'); rdf_loader_run(); select ll_error from DB.DBA.load_list where ll_error is not null;",
			v.dir, file, graph)).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "0 Rows.") {
		t.Fatalf("virtuoso load: %v\n%s", err, out)
	}
}

// endpoint is the site's SPARQL endpoint with graph as its default graph.
func (v *virtuosoProc) endpoint(graph string) string {
	return "http://" + v.httpAddr + "/sparql?default-graph-uri=" + url.QueryEscape(graph)
}

// virtuosoSite, when virtuoso-t is installed, exports linz's default graph
// (its data, the inferred triples and the ontology: what a perfkb query
// without GRAPH sees) as N-Triples and starts Virtuoso, which takes a few
// seconds; virtuosoFanOut loads and uses it. It runs before the perfkb
// sites are served (a native store is opened by one process).
func virtuosoSite(t *testing.T, e *fedEnv) *virtuosoProc {
	if _, err := exec.LookPath("virtuoso-t"); err != nil {
		return nil
	}
	if _, err := exec.LookPath("isql-vt"); err != nil {
		return nil
	}
	vdir := filepath.Join(e.dir, "virtuoso")
	v := startVirtuoso(t, vdir)
	e.mustRun(t, "--store", "native:linz.db", "export", "--format", "ntriples", "-o", filepath.Join(vdir, "site.nt"),
		"--graph", "http://perfkb.example/site/linz", "--graph", "urn:x-perfkb:inferred", "--graph", "urn:x-perfkb:ontology")
	return v
}

// virtuosoFanOut registers {innsbruck, vienna: perfkb; linz: Virtuoso} in a
// coordinator store and compares fan-out answers with the union store's.
func virtuosoFanOut(t *testing.T, e *fedEnv, v *virtuosoProc) {
	if v == nil {
		t.Skip("virtuoso-t and isql-vt (Debian virtuoso-opensource) are not installed: the interoperability check with a Virtuoso site is skipped")
	}
	v.ready(t)
	v.load(t, "site.nt", virtuosoGraph)
	// Virtuoso holds exactly linz's default graph.
	nt, err := os.ReadFile(filepath.Join(v.dir, "site.nt"))
	if err != nil {
		t.Fatal(err)
	}
	want := len(sortedUnique(strings.Split(strings.TrimSpace(string(nt)), "\n")))
	req, err := http.NewRequest("POST", v.endpoint(virtuosoGraph), strings.NewReader(url.Values{"query": {"SELECT (COUNT(*) AS ?n) { ?s ?p ?o }"}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Accept", "application/sparql-results+json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	rs, err := results.ReadJSON(resp.Body)
	resp.Body.Close()
	if err != nil || len(rs.Rows) != 1 || rs.Rows[0][0].Value != strconv.Itoa(want) {
		t.Fatalf("Virtuoso holds %v triples (error %v), want %d", rs, err, want)
	}

	coord := []string{"--store", "native:coordv.db"}
	e.mustRun(t, append(coord, "sites", "add", "innsbruck", e.sites["innsbruck"].url+"/sparql")...)
	e.mustRun(t, append(coord, "sites", "add", "vienna", e.sites["vienna"].url+"/sparql")...)
	e.mustRun(t, append(coord, "sites", "add", "linz-virtuoso", v.endpoint(virtuosoGraph))...)
	_, refreshErr, code := e.run(t, append(coord, "sites", "refresh")...)
	if code != 0 || !strings.Contains(refreshErr, fmt.Sprintf("site linz-virtuoso: %d experiments", e.heldExperiments(t, "linz"))) {
		t.Fatalf("sites refresh with the Virtuoso site: exit %d\n%s", code, refreshErr)
	}

	queries := slices.Clone(fedQueries)
	// The Done-when queries' CONSTRUCT reads a vienna experiment; this one
	// reads an experiment that only Virtuoso holds.
	queries = append(queries, fedQuery{name: "CONSTRUCT one experiment held by Virtuoso", form: "construct", nonEmpty: true,
		text: fedPrefix + `CONSTRUCT { ?e ?p ?o } WHERE { ?e ?p ?o FILTER (?e = <http://perfkb.example/site/linz/exp/2>) }`})
	for _, q := range queries {
		t.Run(q.name, func(t *testing.T) {
			format := "json"
			if q.form == "construct" || q.form == "describe" {
				format = "ntriples"
			}
			fan, fanErr, code := e.run(t, append(coord, "query", "--sites", "all", "--format", format, "-e", q.text)...)
			if code != 0 {
				t.Fatalf("fan-out: exit %d\n%s", code, fanErr)
			}
			if !strings.Contains(fanErr, "site linz-virtuoso: answered") || !strings.Contains(fanErr, "federation: complete (3 sites)") {
				t.Errorf("report: %s", fanErr)
			}
			union := e.mustRun(t, "--store", "native:union.db", "query", "--format", format, "-e", q.text)
			switch q.form {
			case "construct":
				a, b := sortedLines(fan), sortedLines(union)
				if !slices.Equal(a, b) {
					t.Errorf("fan-out %d triples, union %d triples; differ:\n%s", len(a), len(b), lineDiff(a, b))
				}
				if q.nonEmpty && len(b) == 0 {
					t.Error("the union answer is empty: the test compares nothing")
				}
			case "describe":
				compareVirtuosoDescribe(t, sortedLines(fan), sortedLines(union))
			case "ask":
				if fan != union {
					t.Errorf("fan-out %s, union %s", fan, union)
				}
			default:
				compareWithVirtuosoDoubles(t, q, fan, union)
			}
		})
	}
}

// compareVirtuosoDescribe compares a DESCRIBE fanned out to a Virtuoso
// site with the union store's. What a description holds is the site's
// choice (SPARQL 1.1 §16.4): perfkb's is each resource's triples as
// subject (following blank nodes), Virtuoso's adds the triples with the
// resource as object. So the fan-out answer must hold every triple of the
// union answer, and its other triples must all point at a described
// resource (a subject of the union answer).
func compareVirtuosoDescribe(t *testing.T, fan, union []string) {
	t.Helper()
	if len(union) == 0 {
		t.Fatal("the union answer is empty: the test compares nothing")
	}
	described := map[string]bool{}
	for _, l := range union {
		described[strings.Fields(l)[0]] = true
	}
	extra := 0
	for _, l := range lineDiff(fan, union) {
		switch {
		case strings.HasPrefix(l, "+"):
			t.Errorf("the fan-out answer lacks a triple of the union's: %s", l)
		case !described[objectOf(l)]:
			t.Errorf("the fan-out answer has a triple neither in the union's nor pointing at a described resource: %s", l)
		default:
			extra++
		}
	}
	t.Logf("%d triples of the union's DESCRIBE; the fan-out adds %d triples pointing at the described resources (Virtuoso's descriptions)", len(union), extra)
}

// objectOf returns the object of an N-Triples line written by lineDiff.
func objectOf(l string) string {
	l = strings.TrimSuffix(strings.TrimSpace(l), " .")
	return l[strings.LastIndexByte(l, ' ')+1:]
}

// compareWithVirtuosoDoubles compares two SPARQL JSON results row by row
// (sorted unless the query orders): every term exactly, except the
// xsd:double values of the columns in q.virtuosoDoubles, which may pass
// through Virtuoso and are compared within virtuosoDoubleTolerance.
func compareWithVirtuosoDoubles(t *testing.T, q fedQuery, fan, union string) {
	t.Helper()
	a, err := results.ReadJSON(strings.NewReader(fan))
	if err != nil {
		t.Fatalf("fan-out: %v", err)
	}
	b, err := results.ReadJSON(strings.NewReader(union))
	if err != nil {
		t.Fatalf("union: %v", err)
	}
	if !slices.Equal(a.Vars, b.Vars) {
		t.Fatalf("fan-out variables %v, union %v", a.Vars, b.Vars)
	}
	if q.nonEmpty && len(b.Rows) == 0 {
		t.Fatal("the union answer is empty: the test compares nothing")
	}
	if len(a.Rows) != len(b.Rows) {
		t.Fatalf("fan-out %d rows, union %d rows", len(a.Rows), len(b.Rows))
	}
	// Exact key: the columns compared exactly; rows are sorted by it.
	approx := make([]bool, len(a.Vars))
	for i, v := range a.Vars {
		approx[i] = slices.Contains(q.virtuosoDoubles, v)
	}
	key := func(row []kb.Term) string {
		var parts []string
		for i, term := range row {
			if !approx[i] {
				parts = append(parts, term.String())
			}
		}
		return strings.Join(parts, " ")
	}
	ra, rb := slices.Clone(a.Rows), slices.Clone(b.Rows)
	if !q.ordered {
		sort.SliceStable(ra, func(i, j int) bool { return key(ra[i]) < key(ra[j]) })
		sort.SliceStable(rb, func(i, j int) bool { return key(rb[i]) < key(rb[j]) })
	}
	inexact := 0
	for r := range ra {
		for i := range ra[r] {
			x, y := ra[r][i], rb[r][i]
			if x.String() == y.String() {
				continue
			}
			if approx[i] && x.IsLiteral() && y.IsLiteral() && x.Datatype == y.Datatype && strings.HasSuffix(x.Datatype, "#double") {
				fx, errx := strconv.ParseFloat(x.Value, 64)
				fy, erry := strconv.ParseFloat(y.Value, 64)
				if errx == nil && erry == nil && math.Abs(fx-fy) <= virtuosoDoubleTolerance*math.Abs(fy) {
					inexact++
					continue
				}
			}
			t.Errorf("row %d, ?%s: fan-out %s, union %s\nfan-out row %v\nunion row   %v", r, a.Vars[i], x, y, ra[r], rb[r])
		}
	}
	if inexact > 0 {
		t.Logf("%d doubles of columns %v equal within the relative %g of Virtuoso's 6-digit output, not exactly", inexact, q.virtuosoDoubles, virtuosoDoubleTolerance)
	}
}

func sortedUnique(lines []string) []string {
	sort.Strings(lines)
	return slices.Compact(lines)
}

// lineDiff lists the lines only in a ("- fan-out only: …") or only in b
// ("+ union only: …"); both are sorted.
func lineDiff(a, b []string) diffLines {
	var out diffLines
	for _, l := range a {
		if _, ok := slices.BinarySearch(b, l); !ok {
			out = append(out, "- fan-out only: "+l)
		}
	}
	for _, l := range b {
		if _, ok := slices.BinarySearch(a, l); !ok {
			out = append(out, "+ union only: "+l)
		}
	}
	return out
}

type diffLines []string

func (d diffLines) String() string { return strings.Join(d[:min(len(d), 20)], "\n") }

// heldExperiments counts the experiments of a site as a refresh does (the
// distinct instances of perfonto:Experiment, inferred ones included), from
// the union store by IRI.
func (e *fedEnv) heldExperiments(t testing.TB, site string) int {
	t.Helper()
	out := e.mustRun(t, "--store", "native:union.db", "query", "--format", "csv", "-e", fedPrefix+
		`SELECT (COUNT(DISTINCT ?e) AS ?n) { ?e a perfonto:Experiment FILTER (STRSTARTS(STR(?e), "http://perfkb.example/site/`+site+`/")) }`)
	f := strings.Fields(out)
	n, err := strconv.Atoi(f[len(f)-1])
	if err != nil || n == 0 {
		t.Fatalf("experiments of %s: %q", site, out)
	}
	return n
}
