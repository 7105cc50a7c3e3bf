package tau

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The generator writes TAU profiles in the format ParaProf reads (TAU's
// profile.N.C.T files, see doc.go), so tests do not depend on a TAU
// installation (TAU is not packaged in Debian 12).

type genFunc struct {
	name         string
	calls, subrs int64
	excl, incl   string // lexical, exactly as written
	group        string
}

type genEvent struct {
	name           string
	n              int64
	max, min, mean float64
	sumsqr         float64
}

type genProfile struct {
	metric   string // "" for plain templated_functions
	hostname string
	funcs    []genFunc
	events   []genEvent
}

func (g genProfile) write(t testing.TB, path string) {
	t.Helper()
	var b strings.Builder
	hdr := "templated_functions"
	if g.metric != "" {
		hdr += "_MULTI_" + g.metric
	}
	fmt.Fprintf(&b, "%d %s\n", len(g.funcs), hdr)
	b.WriteString("# Name Calls Subrs Excl Incl ProfileCalls #")
	if g.hostname != "" || g.metric != "" {
		b.WriteString(" <metadata>")
		if g.metric != "" {
			fmt.Fprintf(&b, "<attribute><name>Metric Name</name><value>%s</value></attribute>", g.metric)
		}
		if g.hostname != "" {
			fmt.Fprintf(&b, "<attribute><name>Hostname</name><value>%s</value></attribute>", g.hostname)
		}
		b.WriteString("<attribute><name>TAU Architecture</name><value>default</value></attribute></metadata>")
	}
	b.WriteString("\n")
	for _, f := range g.funcs {
		fmt.Fprintf(&b, "\"%s\" %d %d %s %s 0 GROUP=\"%s\"\n", f.name, f.calls, f.subrs, f.excl, f.incl, f.group)
	}
	b.WriteString("0 aggregates\n")
	if len(g.events) > 0 {
		fmt.Fprintf(&b, "%d userevents\n# eventname numevents max min mean sumsqr\n", len(g.events))
		for _, e := range g.events {
			fmt.Fprintf(&b, "\"%s\" %d %g %g %g %g\n", e.name, e.n, e.max, e.min, e.mean, e.sumsqr)
		}
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

func msgEvent(name string, n int64, size float64) genEvent {
	return genEvent{name: name, n: n, max: size, min: size, mean: size, sumsqr: float64(n) * size * size}
}

// callPathRun writes a MULTI__ run: 2 processes × 2 threads, time and
// PAPI_L2_TCM, call paths, context message-size events, names with spaces,
// "=>" and quotes. Rank 0 thread 0 sends 100000-byte messages (above the
// Fig. 6.30 threshold), rank 1 thread 0 sends 4000-byte ones; receives are
// 512 bytes.
func callPathRun(t testing.TB) (string, map[string]genProfile) {
	dir := filepath.Join(t.TempDir(), "run1")
	all := map[string]genProfile{}
	for n := range 2 {
		for th := range 2 {
			sendSize := 100000.0
			if n == 1 {
				sendSize = 4000
			}
			funcs := []genFunc{
				{"int main(int, char **) C", 1, 4, "1500.5", "90000", "TAU_DEFAULT"},
				{"MPI_Send()", 10, 0, "2000", "2000", "MPI"},
				{"MPI_Recv()", 10, 0, "3000.25", "3000.25", "MPI"},
				{"compute step a=>b", 5, 2, "80000", "83000", "TAU_USER"},
				{`say "hi" twice`, 2, 0, "1.5e2", "150", "TAU_USER"},
				{"int main(int, char **) C => MPI_Send()", 10, 0, "2000", "2000", "TAU_CALLPATH | MPI"},
				{"int main(int, char **) C => MPI_Recv()", 10, 0, "3000.25", "3000.25", "TAU_CALLPATH | MPI"},
				{"int main(int, char **) C => compute step a=>b", 5, 2, "80000", "83000", "TAU_CALLPATH | TAU_USER"},
				{`int main(int, char **) C => compute step a=>b => say "hi" twice`, 2, 0, "1.5e2", "150", "TAU_CALLPATH | TAU_USER"},
			}
			if th == 1 { // worker threads only compute
				funcs = []genFunc{
					{".TAU application", 1, 1, "10", "70010", "TAU_DEFAULT"},
					{"compute step a=>b", 4, 0, "70000", "70000", "TAU_USER"},
					{".TAU application => compute step a=>b", 4, 0, "70000", "70000", "TAU_CALLPATH | TAU_USER"},
				}
			}
			var events []genEvent
			if th == 0 {
				events = []genEvent{
					msgEvent("Message size sent to all nodes", 10, sendSize),
					msgEvent("Message size received from all nodes", 10, 512),
					msgEvent("Message size sent to all nodes : int main(int, char **) C => MPI_Send()", 10, sendSize),
					msgEvent("Message size received from all nodes : int main(int, char **) C => MPI_Recv()", 10, 512),
					msgEvent("Message size sent to node 1 : int main(int, char **) C => MPI_Send()", 10, sendSize),
				}
			}
			host := fmt.Sprintf("node%d.example", n)
			key := fmt.Sprintf("profile.%d.0.%d", n, th)
			tp := genProfile{metric: "TIME", hostname: host, funcs: funcs, events: events}
			tp.write(t, filepath.Join(dir, "MULTI__TIME", key))
			all["TIME/"+key] = tp
			cf := make([]genFunc, len(funcs))
			for i, f := range funcs {
				cf[i] = f
				cf[i].excl = fmt.Sprint(1000 * (i + 1))
				cf[i].incl = fmt.Sprint(1000*(i+1) + 7*n + th)
			}
			cp := genProfile{metric: "PAPI_L2_TCM", hostname: host, funcs: cf}
			cp.write(t, filepath.Join(dir, "MULTI__PAPI_L2_TCM", key))
			all["PAPI_L2_TCM/"+key] = cp
		}
	}
	return dir, all
}

// flatRun writes a single-metric flat profile without metadata, with a
// thread-global message-size event.
func flatRun(t testing.TB) string {
	dir := filepath.Join(t.TempDir(), "flat")
	genProfile{funcs: []genFunc{
		{"main", 1, 3, "100", "5000", "TAU_DEFAULT"},
		{"MPI_Isend()", 4, 0, "40", "40", "MPI"},
		{"MPI_Wait()", 4, 0, "60", "60", "MPI"},
		{"solve", 2, 0, "4800", "4800", "TAU_USER"},
	}, events: []genEvent{msgEvent("Message size sent to all nodes", 4, 70000)}}.write(t, filepath.Join(dir, "profile.3.0.0"))
	return dir
}
