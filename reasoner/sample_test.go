package reasoner

import (
	"bytes"
	"context"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/perfkb/perfkb/convert/sample"
	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/ontology"
	"github.com/perfkb/perfkb/rules"
)

// loadSample generates sample data into a memory dataset.
func loadSample(t testing.TB, triples int64) (*native.MemStore, sample.Summary) {
	t.Helper()
	var buf bytes.Buffer
	sum, err := sample.Generate(context.Background(), &buf, sample.Options{Triples: triples, Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	ds := native.OpenMemory()
	if _, err := rdfio.Load(context.Background(), ds, &buf, rdfio.LoadOptions{Format: rdfio.NQuads}); err != nil {
		t.Fatal(err)
	}
	return ds, sum
}

// fig630 is the rule of the dissertation's Fig. 6.30, line by line as
// printed (l1..l9), including the threshold's spelling in l8; only the
// @prefix line and the threshold's value are added.
const fig630 = `@prefix perfonto: <http://www.par.univie.ac.at/project/scalea/perfonto#>.
@define BIG_MESSAGES_THREADHOLD 65536.
[rule_detect_bigmessages:
(?regionsummary perfonto:ofCodeRegion ?codeRegion),
(?codeRegion rdf:type perfonto:MPCodeRegion),
(?codeRegion perfonto:hasCrType "CR_MPIP2P"),
(?regionsummary perfonto:hasMetric ?metric),
(?metric perfonto:hasMetricName "AvgMessageLength"),
(?metric perfonto:hasMetricValue ?length),
greaterThan(?length, BIG_MESSAGES_THREADHOLD)
-> print(?regionsummary,"Big message hold!")]
`

// bigMessageSummaries scans the data, without the rule engine, for region
// summaries of MPCodeRegion/CR_MPIP2P regions whose AvgMessageLength
// exceeds threshold.
func bigMessageSummaries(t *testing.T, ds kb.Dataset, threshold float64) []string {
	t.Helper()
	ctx := context.Background()
	all, err := kb.Collect(ds.Match(ctx, kb.Pattern{}))
	if err != nil {
		t.Fatal(err)
	}
	type node = kb.Term
	props := map[node]map[string][]node{}
	for _, q := range all {
		tq, err := kb.ResolveQuad(ctx, ds, q)
		if err != nil {
			t.Fatal(err)
		}
		if props[tq.S] == nil {
			props[tq.S] = map[string][]node{}
		}
		props[tq.S][tq.P.Value] = append(props[tq.S][tq.P.Value], tq.O)
	}
	const po = ontology.Namespace
	has := func(n node, p string, want node) bool {
		for _, o := range props[n][p] {
			if o == want {
				return true
			}
		}
		return false
	}
	var out []string
	for rs, ps := range props {
		for _, cr := range ps[po+"ofCodeRegion"] {
			if !has(cr, "http://www.w3.org/1999/02/22-rdf-syntax-ns#type", kb.IRI(po+"MPCodeRegion")) || !has(cr, po+"hasCrType", kb.String("CR_MPIP2P")) {
				continue
			}
			for _, m := range ps[po+"hasMetric"] {
				if !has(m, po+"hasMetricName", kb.String("AvgMessageLength")) {
					continue
				}
				for _, v := range props[m][po+"hasMetricValue"] {
					var f float64
					if _, err := fmtSscan(v.Value, &f); err == nil && f > threshold {
						out = append(out, rs.String())
					}
				}
			}
		}
	}
	sort.Strings(out)
	return out
}

func TestFig630RuleAsPrintedFlagsExactlyTheBigMessageRegions(t *testing.T) {
	ds, truth := loadSample(t, 30000)
	want := bigMessageSummaries(t, ds, 65536)
	if len(want) == 0 || len(want) != truth.BigMessageRegionSummaries {
		t.Fatalf("independent scan found %d big-message region summaries, generator planted %d", len(want), truth.BigMessageRegionSummaries)
	}
	prog, err := ParseProgram("fig6.30.rules", []byte(fig630), ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	if _, err := Run(context.Background(), ds, prog, Options{Print: &out}); err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(out.String()), "\n") {
		rs, msg, ok := strings.Cut(line, " ")
		if !ok || msg != "Big message hold!" {
			t.Fatalf("unexpected print line %q", line)
		}
		got = append(got, rs)
	}
	sort.Strings(got)
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("rule printed %d region summaries, want %d:\n%s", len(got), len(want), diff(got, want))
	}
}

func TestShippedRulesOnSampleDataMatchTheGeneratorsTruth(t *testing.T) {
	ds, truth := loadSample(t, 30000)
	prog, err := LoadProgram(rules.Default, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := Run(context.Background(), ds, prog, Options{}); err != nil {
		t.Fatal(err)
	}
	fs, err := Findings(context.Background(), ds, FindingFilter{})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]int{}
	for _, f := range fs {
		got[f.TypeName()+"/"+f.SeverityClass]++
	}
	want := map[string]int{
		"BigMessage/medium":                truth.BigMessageRegionSummaries,
		"HighCommunicationRatio/high":      truth.HighCommunication,
		"PoorCacheBehaviour/high":          truth.PoorCacheRegionSummaries,
		"HighIdentifiedOverhead/high":      truth.HighIdentifiedOverhead,
		"LargeUnidentifiedOverhead/medium": truth.LargeUnidentifiedOverhead,
		"SynchronizationDominated/high":    truth.SynchronizationDominated,
		"IODominated/high":                 truth.IODominated,
		"LoadImbalance/high":               truth.ImbalancedRegions,
		"LateSender/medium":                truth.LateSenderMessages,
		"WaitAtBarrier/medium":             truth.BarriersWithWaiting,
		"LowNetworkBandwidth/high":         truth.LowBandwidthMeasurements,
	}
	for k, v := range want {
		if v == 0 {
			t.Errorf("sample data has no %s case", k)
		}
		if got[k] != v {
			t.Errorf("%s: %d findings, generator planted %d", k, got[k], v)
		}
	}
	for k, v := range got {
		if _, ok := want[k]; !ok {
			t.Errorf("unexpected findings %s: %d", k, v)
		}
	}
}

func fmtSscan(s string, f *float64) (int, error) { return fmt.Sscan(s, f) }

func TestIncrementalOnSampleDataMatchesFromScratch(t *testing.T) {
	ctx := context.Background()
	var buf bytes.Buffer
	if _, err := sample.Generate(ctx, &buf, sample.Options{Triples: 8000, Seed: 3, Format: sample.NTriples}); err != nil {
		t.Fatal(err)
	}
	prog, err := LoadProgram(rules.Default, ParseOptions{})
	if err != nil {
		t.Fatal(err)
	}
	load := func(lines []string) *native.MemStore {
		ds := native.OpenMemory()
		if _, err := rdfio.Load(ctx, ds, strings.NewReader(strings.Join(lines, "\n")), rdfio.LoadOptions{Format: rdfio.NTriples}); err != nil {
			t.Fatal(err)
		}
		return ds
	}
	lines := strings.Split(strings.TrimSpace(buf.String()), "\n")
	scratch := load(lines)
	if _, err := Run(ctx, scratch, prog, Options{}); err != nil {
		t.Fatal(err)
	}
	want := closure(t, scratch)

	// Every third line arrives later, in two batches.
	var first, later []string
	for i, l := range lines {
		if i%3 == 0 {
			later = append(later, l)
		} else {
			first = append(first, l)
		}
	}
	inc := load(first)
	eng, err := NewEngine(ctx, inc, prog, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := eng.Run(ctx); err != nil {
		t.Fatal(err)
	}
	for _, batch := range [][]string{later[:len(later)/2], later[len(later)/2:]} {
		quads := turtleQuads(t, inc, strings.Join(batch, "\n"))
		if _, err := eng.Add(ctx, quads); err != nil {
			t.Fatal(err)
		}
	}
	if got := closure(t, inc); !slices.Equal(got, want) {
		t.Errorf("incremental closure has %d triples, from scratch %d\n%s", len(got), len(want), head(strings.Split(diff(got, want), "\n"), 20))
	}
}
