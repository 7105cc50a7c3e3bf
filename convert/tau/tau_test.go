package tau

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert"
	"github.com/perfkb/perfkb/convert/converttest"
	"github.com/perfkb/perfkb/convert/trace"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/query"
	"github.com/perfkb/perfkb/reasoner"
)

var base = convert.MustBase("http://perfkb.example/tau/")

type collect struct{ qs []kb.TermQuad }

func (c *collect) Add(_ context.Context, q kb.TermQuad) error { c.qs = append(c.qs, q); return nil }
func (c *collect) Close(context.Context, error) error         { return nil }

func (c *collect) objects(s, p string) []kb.Term {
	var out []kb.Term
	for _, q := range c.qs {
		if q.S.Value == s && q.P.Value == p {
			out = append(out, q.O)
		}
	}
	return out
}

func convertDir(t *testing.T, dir string) (*collect, convert.Report) {
	t.Helper()
	c := &collect{}
	rep, err := New(dir, base, Options{}).Convert(context.Background(), c)
	if err != nil {
		t.Fatal(err)
	}
	return c, rep
}

func rsOf(dir string, n, th int, name string) string {
	return base.IRI("exp", filepath.Base(dir)).Value + fmt.Sprintf("/rs/p%dt%d/", n, th) + trace.Segment(name)
}

func TestRoundTripEveryValue(t *testing.T) {
	dir, gen := callPathRun(t)
	c, rep := convertDir(t, dir)
	if err := rep.Check(); err != nil {
		t.Fatal(err)
	}
	value := func(rs, metric string) kb.Term {
		v := c.objects(rs+"/"+metric, ontology.HasMetricValue)
		if len(v) != 1 {
			t.Fatalf("%s of %s: %v", metric, rs, v)
		}
		return v[0]
	}
	checked := 0
	for key, g := range gen {
		var n, th int
		if _, err := fmt.Sscanf(key[strings.Index(key, "profile."):], "profile.%d.0.%d", &n, &th); err != nil {
			t.Fatal(err)
		}
		for _, f := range g.funcs {
			rs := rsOf(dir, n, th, f.name)
			if g.metric == "TIME" {
				for _, c := range []struct {
					m    string
					want kb.Term
				}{
					{"ncalls", kb.Literal(fmt.Sprint(f.calls), ontology.XSDLong)},
					{"nsubs", kb.Literal(fmt.Sprint(f.subrs), ontology.XSDLong)},
					{"wtime", kb.Literal(f.incl, ontology.XSDDouble)},
					{"excl_wtime", kb.Literal(f.excl, ontology.XSDDouble)},
				} {
					if got := value(rs, c.m); got != c.want {
						t.Errorf("%s %q %s = %v, want %v", key, f.name, c.m, got, c.want)
					}
					checked++
				}
			} else if got := value(rs, "L2_TCM"); got != kb.Literal(f.incl, ontology.XSDLong) {
				t.Errorf("%s %q L2_TCM = %v, want %s", key, f.name, got, f.incl)
			} else {
				checked++
			}
		}
	}
	if checked < 100 {
		t.Errorf("only %d values checked", checked)
	}
	// PU: hostname from the metadata, process and thread IDs.
	pu := c.objects(rsOf(dir, 1, 1, "compute step a=>b"), ontology.InProcessingUnit)
	if len(pu) != 1 || !slices.Equal(c.objects(pu[0].Value, ontology.InNode), []kb.Term{kb.String("node1.example")}) ||
		!slices.Equal(c.objects(pu[0].Value, ontology.ProcessID), []kb.Term{kb.Literal("1", ontology.XSDInteger)}) ||
		!slices.Equal(c.objects(pu[0].Value, ontology.ThreadID), []kb.Term{kb.Literal("1", ontology.XSDInteger)}) {
		t.Errorf("processing unit %v", pu)
	}
	// Region names: the TAU name, MPI ones without "()".
	region := c.objects(rsOf(dir, 0, 0, "MPI_Send()"), ontology.OfCodeRegion)
	if len(region) != 1 || !slices.Equal(c.objects(region[0].Value, ontology.RegionName), []kb.Term{kb.String("MPI_Send")}) {
		t.Errorf("MPI_Send region %v", region)
	}
	quoted := c.objects(rsOf(dir, 0, 0, `say "hi" twice`), ontology.OfCodeRegion)
	if len(quoted) != 1 || !slices.Equal(c.objects(quoted[0].Value, ontology.RegionName), []kb.Term{kb.String(`say "hi" twice`)}) {
		t.Errorf("quoted name region %v", quoted)
	}
}

func children(c *collect, rs string) []string {
	var out []string
	for _, o := range c.objects(rs, ontology.HasChildRS) {
		out = append(out, o.Value)
	}
	sort.Strings(out)
	return out
}

func TestCallPathTree(t *testing.T) {
	dir, _ := callPathRun(t)
	c, _ := convertDir(t, dir)
	const main = "int main(int, char **) C"
	rs := func(name string) string { return rsOf(dir, 0, 0, name) }
	want := map[string][]string{
		main:                           {rs(main + " => MPI_Recv()"), rs(main + " => MPI_Send()"), rs(main + " => compute step a=>b")},
		main + " => compute step a=>b": {rs(main + ` => compute step a=>b => say "hi" twice`)},
		"MPI_Send()":                   nil,
		"compute step a=>b":            nil,
	}
	for parent, kids := range want {
		sort.Strings(kids)
		if got := children(c, rs(parent)); !slices.Equal(got, kids) {
			t.Errorf("children of %q:\n got %v\nwant %v", parent, got, kids)
		}
	}
	n := 0
	for _, q := range c.qs {
		if q.P.Value == ontology.HasChildRS {
			n++
		}
	}
	// Per thread 0: 4 call-path edges; per thread 1: 1; two processes.
	if n != 2*(4+1) {
		t.Errorf("%d hasChildRS edges, want 10", n)
	}
}

func TestFlatProfile(t *testing.T) {
	dir := flatRun(t)
	c, rep := convertDir(t, dir)
	rs := func(name string) string { return rsOf(dir, 3, 0, name) }
	if got, want := children(c, rs("main")), []string{rs("MPI_Isend()"), rs("MPI_Wait()"), rs("solve")}; !slices.Equal(got, want) {
		t.Errorf("flat children %v", got)
	}
	pu := c.objects(rs("main"), ontology.InProcessingUnit)
	if len(pu) != 1 || !slices.Equal(c.objects(pu[0].Value, ontology.InNode), []kb.Term{kb.String("node 3")}) {
		t.Errorf("no-metadata PU %v", pu)
	}
	if got := c.objects(rs("MPI_Isend()")+"/AvgMessageLength", ontology.HasMetricValue); len(got) != 1 || got[0] != kb.Double(70000) {
		t.Errorf("thread-global message size on the only send region: %v", got)
	}
	if rep.WarningCount != 0 {
		t.Errorf("warnings %v", rep.Warnings)
	}
}

// memStore loads the converted quads into an in-memory store.
func memStore(t *testing.T, c *collect) *native.MemStore {
	t.Helper()
	ds := native.OpenMemory()
	i := 0
	if _, err := rdfio.LoadQuads(context.Background(), ds, func() (kb.TermQuad, error) {
		if i == len(c.qs) {
			return kb.TermQuad{}, io.EOF
		}
		i++
		return c.qs[i-1], nil
	}, rdfio.LoadOptions{}); err != nil {
		t.Fatal(err)
	}
	return ds
}

func fig630(t *testing.T, c *collect) []string {
	t.Helper()
	ds := memStore(t, c)
	prog, err := reasoner.LoadProgram([]string{"PERFONTO"}, reasoner.ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := reasoner.Run(context.Background(), ds, prog, reasoner.Options{NoDerivations: true}); err != nil {
		t.Fatal(err)
	}
	fs, err := reasoner.Findings(context.Background(), ds, reasoner.FindingFilter{Type: "BigMessage"})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, f := range fs {
		out = append(out, f.Subject.Value)
	}
	sort.Strings(out)
	return out
}

func TestFig630OnTAU(t *testing.T) {
	// Without the ontology: the region classes come with the data.
	dir, _ := callPathRun(t)
	c, _ := convertDir(t, dir)
	want := []string{rsOf(dir, 0, 0, "int main(int, char **) C => MPI_Send()")}
	if got := fig630(t, c); !slices.Equal(got, want) {
		t.Errorf("BigMessage on\n %v\nwant\n %v", got, want)
	}
	fc, _ := convertDir(t, flatRun(t))
	if got := fig630(t, fc); len(got) != 1 || !strings.HasSuffix(got[0], "/MPI_Isend%28%29") {
		t.Errorf("flat BigMessage on %v", got)
	}
}

func TestSuite(t *testing.T) {
	mutate := func(name string, f func(t testing.TB, dir string)) converttest.BadCase {
		return converttest.BadCase{Name: name, New: func(t testing.TB) convert.Converter {
			dir, _ := callPathRun(t)
			f(t, dir)
			return New(dir, base, Options{})
		}}
	}
	edit := func(t testing.TB, path, old, new string) {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		s := strings.Replace(string(b), old, new, 1)
		if s == string(b) {
			t.Fatalf("%s: %q not found", path, old)
		}
		if err := os.WriteFile(path, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	countCase := mutate("function count", func(t testing.TB, dir string) {
		edit(t, filepath.Join(dir, "MULTI__TIME", "profile.1.0.0"), "9 templated_functions", "10 templated_functions")
	})
	countCase.Want = []string{"MULTI__TIME/profile.1.0.0:12", "announces 10 functions, found 9"}
	numCase := mutate("non-numeric", func(t testing.TB, dir string) {
		edit(t, filepath.Join(dir, "MULTI__PAPI_L2_TCM", "profile.0.0.1"), "1 1 1000", "1 1 x1000")
	})
	numCase.Want = []string{"MULTI__PAPI_L2_TCM/profile.0.0.1:3", `column 4 ("x1000")`}
	missing := mutate("missing thread file", func(t testing.TB, dir string) {
		if err := os.Remove(filepath.Join(dir, "MULTI__PAPI_L2_TCM", "profile.1.0.1")); err != nil {
			t.Fatal(err)
		}
	})
	missing.Want = []string{"MULTI__PAPI_L2_TCM/profile.1.0.1:1", "file missing"}
	converttest.Run(t, converttest.Suite{
		New: func(t testing.TB) convert.Converter {
			dir, _ := callPathRun(t)
			return New(dir, base, Options{})
		},
		Bad: []converttest.BadCase{countCase, numCase, missing},
	})
}

func TestUserEventsRoundTrip(t *testing.T) {
	dir, gen := callPathRun(t)
	c, _ := convertDir(t, dir)
	checked := 0
	for key, g := range gen {
		if g.metric != "TIME" {
			continue
		}
		var n, th int
		fmt.Sscanf(key[strings.Index(key, "profile."):], "profile.%d.0.%d", &n, &th)
		for _, e := range g.events {
			name, path, ok := strings.Cut(e.name, " : ")
			target := path
			if !ok {
				target = "int main(int, char **) C" // the thread root
			}
			base := rsOf(dir, n, th, target) + "/ue/" + trace.Segment(name) + "/"
			for _, st := range []struct {
				metric string
				want   kb.Term
			}{
				{"ue_numevents", kb.Literal(fmt.Sprint(e.n), ontology.XSDLong)},
				{"ue_max", kb.Literal(fmt.Sprintf("%g", e.max), ontology.XSDDouble)},
				{"ue_min", kb.Literal(fmt.Sprintf("%g", e.min), ontology.XSDDouble)},
				{"ue_mean", kb.Literal(fmt.Sprintf("%g", e.mean), ontology.XSDDouble)},
				{"ue_sumsqr", kb.Literal(fmt.Sprintf("%g", e.sumsqr), ontology.XSDDouble)},
			} {
				got := c.objects(base+st.metric, ontology.HasMetricValue)
				if len(got) != 1 || got[0] != st.want {
					t.Errorf("%s %q %s = %v, want %v", key, e.name, st.metric, got, st.want)
				}
				if names := c.objects(base+st.metric, ontology.UserEventName); len(names) != 1 || names[0] != kb.String(name) {
					t.Errorf("userEventName %v", names)
				}
				checked++
			}
		}
	}
	if checked != 2*5*5 {
		t.Errorf("%d user event values checked, want 50", checked)
	}
}

func TestContextKeptInProcessingUnit(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "ctx")
	genProfile{funcs: []genFunc{{"main", 1, 0, "10", "10", "TAU_DEFAULT"}}}.write(t, filepath.Join(dir, "profile.2.1.3"))
	c, _ := convertDir(t, dir)
	rs := base.IRI("exp", "ctx").Value + "/rs/p2c1t3/main"
	pu := c.objects(rs, ontology.InProcessingUnit)
	if len(pu) != 1 || !strings.HasSuffix(pu[0].Value, "/pu/p2c1t3") ||
		!slices.Equal(c.objects(pu[0].Value, ontology.ProcessID), []kb.Term{kb.Literal("2", ontology.XSDInteger)}) ||
		!slices.Equal(c.objects(pu[0].Value, ontology.ThreadID), []kb.Term{kb.Literal("3", ontology.XSDInteger)}) {
		t.Errorf("context PU %v", pu)
	}
}

// TestNodeFromMetadata reads the node of each thread from the metadata TAU
// writes in the profile header (TauMetaData.cpp): uname's "Node Name"
// first, then the Blue Gene location, then "Hostname", then "node N".
func TestNodeFromMetadata(t *testing.T) {
	dir := filepath.Join("testdata", "nodes")
	c, rep := convertDir(t, dir)
	for _, tc := range []struct {
		n    int
		want string
		why  string
	}{
		{0, "gsr410", "Node Name only"},
		{1, "gsr411.example", "Hostname; a Node Name with a timer context describes a call, not the thread"},
		{2, "gsr412", "Node Name preferred to Hostname"},
		{3, "R00-M0-N04-J07 <0,0,1,0,0>", "BGQ Node Name (CDATA)"},
		{4, "node 4", "no metadata"},
	} {
		rs := rsOf(dir, tc.n, 0, "int main(int, char **) C")
		pu := c.objects(rs, ontology.InProcessingUnit)
		if len(pu) != 1 {
			t.Errorf("process %d: processing units %v", tc.n, pu)
			continue
		}
		var got []string
		for _, o := range c.objects(pu[0].Value, ontology.InNode) {
			got = append(got, o.Value)
		}
		if !slices.Equal(got, []string{tc.want}) {
			t.Errorf("process %d (%s): inNode %q, want %q", tc.n, tc.why, got, tc.want)
		}
	}
	if rep.WarningCount != 0 {
		t.Errorf("warnings %v", rep.Warnings)
	}
	// Fig. 6.29 (RDQL as printed) finds main of process 0 (4.2E8 µs on
	// gsr410); process 2's 2.5E8 µs on gsr412 is on another node and below
	// the threshold.
	res, err := query.Run(context.Background(), memStore(t, c), `SELECT ?regionsummary
WHERE
(?regionsummary perfonto:inProcessingUnit ?processingunit)
(?processingunit perfonto:inNode "gsr410")
(?regionsummary perfonto:hasMetric ?metric)
(?metric perfonto:hasMetricName "wtime")
(?metric perfonto:hasMetricValue ?value)
AND (?value >=3E8)
USING perfonto
FOR <http://www.par.univie.ac.at/project/scalea/perfonto#>`, query.Options{})
	if err != nil {
		t.Fatal(err)
	}
	rows, err := res.Rows()
	if err != nil {
		t.Fatal(err)
	}
	if want := rsOf(dir, 0, 0, "int main(int, char **) C"); len(rows) != 1 || rows[0][0].Value != want {
		t.Errorf("Fig. 6.29 rows %v, want [%s]", rows, want)
	}
}
