package sample

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"io"
	"math"
	"strconv"
	"strings"
	"testing"

	"github.com/knakk/rdf"

	"github.com/perfkb/perfkb/ontology"
)

func generate(t testing.TB, opts Options) ([]byte, Summary) {
	t.Helper()
	var buf bytes.Buffer
	sum, err := Generate(context.Background(), &buf, opts)
	if err != nil {
		t.Fatalf("Generate(%+v): %v", opts, err)
	}
	return buf.Bytes(), sum
}

func TestDeterministic(t *testing.T) {
	tests := []struct {
		name string
		opts Options
	}{
		{"three sites", Options{Sites: 3, Triples: 30000, Seed: 7}},
		{"one site ntriples", Options{Sites: 2, Triples: 20000, Seed: 1, Format: NTriples, Site: "vienna"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			a, sa := generate(t, tc.opts)
			b, sb := generate(t, tc.opts)
			if sha256.Sum256(a) != sha256.Sum256(b) {
				t.Fatalf("two runs with the same options differ")
			}
			if sa.Triples != sb.Triples || sa.BigMessageRegionSummaries != sb.BigMessageRegionSummaries {
				t.Fatalf("summaries differ: %v vs %v", sa, sb)
			}
			other := tc.opts
			other.Seed++
			c, _ := generate(t, other)
			if bytes.Equal(a, c) {
				t.Fatalf("seeds %d and %d give the same output", tc.opts.Seed, other.Seed)
			}
		})
	}
}

func TestScale(t *testing.T) {
	tests := []struct {
		sites   int
		triples int64
		long    bool
	}{
		{1, 3000, false},
		{3, 10000, false},
		{3, 100000, false},
		{5, 250000, false},
		{3, 1000000, true},
	}
	for _, tc := range tests {
		t.Run(strconv.Itoa(tc.sites)+"x"+strconv.FormatInt(tc.triples, 10), func(t *testing.T) {
			if tc.long && testing.Short() {
				t.Skip("1M triples: skipped in -short mode")
			}
			var lines countingWriter
			sum, err := Generate(context.Background(), &lines, Options{Sites: tc.sites, Triples: tc.triples, Seed: 1})
			if err != nil {
				t.Fatal(err)
			}
			if lines.newlines != sum.Triples {
				t.Errorf("Summary.Triples = %d, but %d lines were written", sum.Triples, lines.newlines)
			}
			dev := math.Abs(float64(sum.Triples-tc.triples)) / float64(tc.triples)
			if dev > 0.10 {
				t.Errorf("wrote %d triples for a target of %d (%.1f%% off)", sum.Triples, tc.triples, dev*100)
			}
			if len(sum.Graphs) != tc.sites {
				t.Errorf("graphs = %v, want %d", sum.Graphs, tc.sites)
			}
		})
	}
}

type countingWriter struct{ newlines int64 }

func (c *countingWriter) Write(p []byte) (int, error) {
	c.newlines += int64(bytes.Count(p, []byte{'\n'}))
	return len(p), nil
}

// dataset is the parsed output, indexed for the truth checks.
type dataset struct {
	quads  []rdf.Quad
	graphs map[string]bool
	out    map[string]map[string][]rdf.Term // subject -> predicate -> objects
}

func parseNQuads(t *testing.T, data []byte) *dataset {
	t.Helper()
	dec := rdf.NewQuadDecoder(bytes.NewReader(data), rdf.NQuads)
	d := &dataset{graphs: map[string]bool{}, out: map[string]map[string][]rdf.Term{}}
	for {
		q, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("output does not parse as N-Quads after %d quads: %v", len(d.quads), err)
		}
		d.quads = append(d.quads, q)
		d.graphs[q.Ctx.String()] = true
		s, p := q.Subj.String(), q.Pred.String()
		if d.out[s] == nil {
			d.out[s] = map[string][]rdf.Term{}
		}
		d.out[s][p] = append(d.out[s][p], q.Obj)
	}
	return d
}

func (d *dataset) one(s, p string) rdf.Term {
	if objs := d.out[s][p]; len(objs) > 0 {
		return objs[0]
	}
	return nil
}

func (d *dataset) str(s, p string) string {
	if o := d.one(s, p); o != nil {
		return o.String()
	}
	return ""
}

func (d *dataset) num(t *testing.T, s, p string) float64 {
	t.Helper()
	o := d.one(s, p)
	lit, ok := o.(rdf.Literal)
	if !ok {
		t.Fatalf("%s %s: want a literal, have %v", s, p, o)
	}
	v, err := strconv.ParseFloat(lit.String(), 64)
	if err != nil {
		t.Fatalf("%s %s %q: %v", s, p, lit.String(), err)
	}
	return v
}

func (d *dataset) subjectsOfType(class string) []string {
	var out []string
	for s, props := range d.out {
		for _, o := range props[ontology.RDFType] {
			if o.String() == class {
				out = append(out, s)
				break
			}
		}
	}
	return out
}

// metrics returns a region summary's metric values by name.
func (d *dataset) metrics(t *testing.T, rs string) map[string]float64 {
	m := map[string]float64{}
	for _, o := range d.out[rs][ontology.HasMetric] {
		name := d.str(o.String(), ontology.HasMetricName)
		m[name] = d.num(t, o.String(), ontology.HasMetricValue)
	}
	return m
}

func TestOutputParsesAndUsesDeclaredVocabulary(t *testing.T) {
	data, sum := generate(t, Options{Sites: 3, Triples: 40000, Seed: 3})
	d := parseNQuads(t, data)
	if int64(len(d.quads)) != sum.Triples {
		t.Fatalf("parsed %d quads, summary says %d", len(d.quads), sum.Triples)
	}
	for _, g := range sum.Graphs {
		if !d.graphs[g] {
			t.Errorf("graph %s from the summary not in the output", g)
		}
	}
	if len(d.graphs) != 3 {
		t.Errorf("output has %d graphs, want 3", len(d.graphs))
	}

	declared := map[string]bool{}
	dec := rdf.NewTripleDecoder(ontology.TurtleReader(), rdf.Turtle)
	for {
		tr, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		if tr.Pred.String() == ontology.RDFType {
			declared[tr.Subj.String()] = true
		}
	}
	undeclared := map[string]bool{}
	for _, q := range d.quads {
		for _, term := range []rdf.Term{q.Subj, q.Pred, q.Obj} {
			if iri, ok := term.(rdf.IRI); ok && strings.HasPrefix(iri.String(), ontology.Namespace) && !declared[iri.String()] {
				undeclared[iri.String()] = true
			}
		}
		if lit, ok := q.Obj.(rdf.Literal); ok && q.Pred.String() == ontology.HasCrType {
			if _, ok := ontology.LookupCodeRegionType(lit.String()); !ok {
				t.Errorf("unknown code region mnemonic %q", lit.String())
			}
		}
	}
	for iri := range undeclared {
		t.Errorf("%s is used in the data but not declared in perfonto.ttl", iri)
	}

	// Metric values carry the catalog's datatype.
	for _, q := range d.quads {
		if q.Pred.String() != ontology.HasMetricName {
			continue
		}
		name := q.Obj.String()
		info, ok := ontology.LookupMetric(name)
		if !ok {
			t.Fatalf("metric %q not in the catalog", name)
		}
		v := d.one(q.Subj.String(), ontology.HasMetricValue).(rdf.Literal)
		if v.DataType.String() != info.ValueDatatype {
			t.Fatalf("metric %s has datatype %s, catalog says %s", name, v.DataType, info.ValueDatatype)
		}
	}
	for _, name := range sum.MetricNames {
		if _, ok := ontology.LookupMetric(name); !ok {
			t.Errorf("Summary.MetricNames has %q, not in the catalog", name)
		}
	}
}

// TestPlantedCases recounts the planted cases from the data alone and checks
// that they agree with the Summary and stay clear of the thresholds.
func TestPlantedCases(t *testing.T) {
	data, sum := generate(t, Options{Sites: 2, Triples: 60000, Seed: 11})
	d := parseNQuads(t, data)

	var big, p2p, poor, good, mains, ident, unid, io, sync, comm, fig629 int
	type key struct{ exp, cr string }
	perRegion := map[key][]float64{}
	for _, rs := range d.subjectsOfType(ontology.RegionSummary) {
		m := d.metrics(t, rs)
		cr := d.str(rs, ontology.OfCodeRegion)
		crType := d.str(cr, ontology.HasCrType)
		if d.str(d.str(rs, ontology.InProcessingUnit), ontology.InNode) == Fig629Node && m["wtime"] >= Fig629Threshold {
			fig629++
		}
		perRegion[key{d.str(rs, ontology.InExperiment), cr}] = append(perRegion[key{d.str(rs, ontology.InExperiment), cr}], m["wtime"])
		ratio := m["L2_TCM"] / m["L2_TCA"]
		switch {
		case ratio >= PoorCacheMissRatio:
			poor++
		case ratio <= GoodCacheMissRatio:
			good++
		default:
			t.Errorf("%s: L2 miss ratio %.3f inside the gap", rs, ratio)
		}
		if crType == "CR_MPIP2P" {
			p2p++
			if !d.has(cr, ontology.RDFType, ontology.MPCodeRegion) {
				t.Errorf("%s: CR_MPIP2P region not typed MPCodeRegion", cr)
			}
			switch l := m["AvgMessageLength"]; {
			case l >= 2*BigMessageThreshold:
				big++
			case l <= BigMessageThreshold/2:
			default:
				t.Errorf("%s: AvgMessageLength %v inside the gap", rs, l)
			}
		}
		for _, name := range []string{"odata_send", "odata_recv", "osync_mpbar", "osync_bar", "osync_lock", "octrp_infl", "octrp_fkjn", "octrp_sched", "octrp_insp", "octrp_exec", "oadd_dtc"} {
			if v, ok := m[name]; ok {
				if share := v / m["wtime"]; share > HealthyFraction && share < DominantFraction {
					t.Errorf("%s: %s share %.3f inside the gap", rs, name, share)
				}
			}
		}
		if crType != "CR_P" {
			continue
		}
		mains++
		w := m["wtime"]
		classify := func(name string, share, high, low float64, n *int) {
			switch {
			case share >= high:
				*n++
			case share <= low:
			default:
				t.Errorf("%s: %s share %.3f inside the gap", rs, name, share)
			}
		}
		classify("oall_ident", m["oall_ident"]/w, DominantFraction, HealthyFraction, &ident)
		classify("oall_unid", m["oall_unid"]/w, UnidentifiedFraction, 0.05, &unid)
		classify("io", (m["odata_fread"]+m["odata_fwrite"])/w, DominantFraction, HealthyFraction, &io)
		classify("osync", m["osync"]/w, DominantFraction, HealthyFraction, &sync)
		classify("comm", (m["odata_p2p"]+m["odata_col"])/w, DominantFraction, HealthyFraction, &comm)
	}
	var imbalanced, balanced int
	for k, times := range perRegion {
		max, total := 0.0, 0.0
		for _, v := range times {
			max = math.Max(max, v)
			total += v
		}
		switch r := max / (total / float64(len(times))); {
		case r >= ImbalanceRatio:
			imbalanced++
		case r <= BalancedRatio:
			balanced++
		default:
			t.Errorf("%v: imbalance %.3f inside the gap", k, r)
		}
	}
	checks := []struct {
		name      string
		got, want int
	}{
		{"P2P region summaries", p2p, sum.P2PRegionSummaries},
		{"big messages", big, sum.BigMessageRegionSummaries},
		{"poor cache", poor, sum.PoorCacheRegionSummaries},
		{"good cache", good, sum.GoodCacheRegionSummaries},
		{"main region summaries", mains, sum.MainRegionSummaries},
		{"high identified overhead", ident, sum.HighIdentifiedOverhead},
		{"large unidentified overhead", unid, sum.LargeUnidentifiedOverhead},
		{"I/O dominated", io, sum.IODominated},
		{"sync dominated", sync, sum.SynchronizationDominated},
		{"communication", comm, sum.HighCommunication},
		{"imbalanced regions", imbalanced, sum.ImbalancedRegions},
		{"balanced regions", balanced, sum.BalancedRegions},
		{"Fig. 6.29 matches", fig629, sum.Fig629Matches},
	}
	for _, c := range checks {
		if c.got != c.want {
			t.Errorf("%s: counted %d in the data, summary says %d", c.name, c.got, c.want)
		}
		if c.got == 0 {
			t.Errorf("%s: no case planted", c.name)
		}
	}
	if good == 0 || big == p2p || io == mains {
		t.Errorf("healthy cases missing: good cache %d, big %d of %d, io %d of %d", good, big, p2p, io, mains)
	}
	checkTrace(t, d, sum)
	t.Logf("checked: p2p %d (big %d), cache poor %d good %d, mains %d (ident %d unid %d io %d sync %d comm %d), regions imbalanced %d balanced %d",
		p2p, big, poor, good, mains, ident, unid, io, sync, comm, imbalanced, balanced)
}

func (d *dataset) has(s, p, o string) bool {
	for _, x := range d.out[s][p] {
		if x.String() == o {
			return true
		}
	}
	return false
}

// eventTime returns the time of the region instance's event of a class.
func (d *dataset) eventTime(t *testing.T, ri, class string) float64 {
	for _, ev := range d.out[ri][ontology.HasEvent] {
		if d.has(ev.String(), ontology.RDFType, class) {
			return d.num(t, ev.String(), ontology.AtEventTime)
		}
	}
	t.Fatalf("%s has no %s", ri, class)
	return 0
}

func checkTrace(t *testing.T, d *dataset, sum Summary) {
	t.Helper()
	// Late senders: the receive region instance entered before the send's.
	eventOwner := map[string]string{}
	for _, q := range d.quads {
		if q.Pred.String() == ontology.HasEvent {
			eventOwner[q.Obj.String()] = q.Subj.String()
		}
	}
	var late, onTime int
	for _, msg := range d.subjectsOfType(ontology.Message) {
		var sendRI, recvRI string
		for ev, ri := range eventOwner {
			if d.has(ev, ontology.SendsMessage, msg) {
				sendRI = ri
			}
			if d.has(ev, ontology.ReceivesMessage, msg) {
				recvRI = ri
			}
		}
		gap := d.eventTime(t, sendRI, ontology.EnterEvent) - d.eventTime(t, recvRI, ontology.EnterEvent)
		switch {
		case gap >= LateSenderGap:
			late++
		case gap <= -OnTimeGap:
			onTime++
		default:
			t.Errorf("%s: send-receive gap %.1f inside the gap", msg, gap)
		}
	}
	// Barriers: spread of the enter times of the participants.
	members := map[string][]float64{}
	for _, q := range d.quads {
		if q.Pred.String() == ontology.PartOfCollective {
			members[q.Obj.String()] = append(members[q.Obj.String()], d.eventTime(t, q.Subj.String(), ontology.EnterEvent))
		}
	}
	var waiting, balanced int
	for coll, enters := range members {
		lo, hi := math.Inf(1), math.Inf(-1)
		for _, v := range enters {
			lo, hi = math.Min(lo, v), math.Max(hi, v)
		}
		switch spread := hi - lo; {
		case spread >= BarrierWaitSpread:
			waiting++
		case spread <= BalancedBarrierSpread:
			balanced++
		default:
			t.Errorf("%s: spread %.1f inside the gap", coll, spread)
		}
	}
	var low, high int
	for _, m := range d.subjectsOfType(ontology.PathBandwidthMeasurement) {
		switch bw := d.num(t, m, ontology.Bandwidth); {
		case bw < LowBandwidth:
			low++
		case bw >= HighBandwidth:
			high++
		default:
			t.Errorf("%s: bandwidth %.2f inside the gap", m, bw)
		}
	}
	checks := []struct {
		name      string
		got, want int
	}{
		{"late senders", late, sum.LateSenderMessages},
		{"on-time messages", onTime, sum.OnTimeMessages},
		{"barriers with waiting", waiting, sum.BarriersWithWaiting},
		{"balanced barriers", balanced, sum.BalancedBarriers},
		{"low bandwidth", low, sum.LowBandwidthMeasurements},
		{"healthy bandwidth", high, sum.HealthyBandwidthMeasurements},
	}
	for _, c := range checks {
		if c.got != c.want || c.got == 0 {
			t.Errorf("%s: counted %d in the data, summary says %d (want equal and > 0)", c.name, c.got, c.want)
		}
	}
}

func TestSiteSelectionAndFormats(t *testing.T) {
	data, sum := generate(t, Options{Sites: 3, Triples: 20000, Seed: 1, Site: "linz", Format: NTriples})
	if len(sum.Sites) != 1 || sum.Sites[0] != "linz" || len(sum.Graphs) != 0 {
		t.Fatalf("sites %v graphs %v, want only linz and no graphs", sum.Sites, sum.Graphs)
	}
	dec := rdf.NewTripleDecoder(bytes.NewReader(data), rdf.NTriples)
	n := 0
	for {
		tr, err := dec.Decode()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("N-Triples output does not parse after %d triples: %v", n, err)
		}
		if s := tr.Subj.String(); !strings.HasPrefix(s, DefaultGraphBase+"linz/") {
			t.Fatalf("triple about %s in linz-only output", s)
		}
		n++
	}
	if int64(n) != sum.Triples {
		t.Fatalf("parsed %d triples, summary says %d", n, sum.Triples)
	}

	errCases := []struct {
		name string
		opts Options
	}{
		{"unknown site", Options{Sites: 2, Site: "linz"}},
		{"too few triples", Options{Triples: 10}},
		{"bad format", Options{Format: "turtle"}},
		{"negative sites", Options{Sites: -1}},
	}
	for _, tc := range errCases {
		if _, err := Generate(context.Background(), io.Discard, tc.opts); err == nil {
			t.Errorf("%s: Generate(%+v) succeeded", tc.name, tc.opts)
		}
	}
}

func TestCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Generate(ctx, io.Discard, Options{Triples: 2000000})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
}

func TestParseFormat(t *testing.T) {
	tests := []struct {
		in   string
		want Format
		ok   bool
	}{
		{"nquads", NQuads, true}, {"NQ", NQuads, true}, {"ntriples", NTriples, true}, {"nt", NTriples, true}, {"turtle", "", false},
	}
	for _, tc := range tests {
		got, err := ParseFormat(tc.in)
		if (err == nil) != tc.ok || got != tc.want {
			t.Errorf("ParseFormat(%q) = %q, %v", tc.in, got, err)
		}
	}
}

func BenchmarkGenerate(b *testing.B) {
	const triples = 1000000
	var total int64
	for b.Loop() {
		sum, err := Generate(context.Background(), io.Discard, Options{Sites: 3, Triples: triples, Seed: 1})
		if err != nil {
			b.Fatal(err)
		}
		total += sum.Triples
	}
	b.ReportMetric(float64(total)/b.Elapsed().Seconds(), "triples/s")
}
