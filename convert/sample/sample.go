package sample

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Format is the output syntax.
type Format string

// The output formats.
const (
	// NQuads writes each site's data into its own named graph.
	NQuads Format = "nquads"
	// NTriples writes plain triples (no graphs).
	NTriples Format = "ntriples"
)

// ParseFormat accepts "nquads"/"nq" and "ntriples"/"nt".
func ParseFormat(s string) (Format, error) {
	switch strings.ToLower(s) {
	case "nquads", "nq", "n-quads":
		return NQuads, nil
	case "ntriples", "nt", "n-triples":
		return NTriples, nil
	}
	return "", fmt.Errorf("unknown format %q (want nquads or ntriples)", s)
}

// Thresholds the generator keeps clear of, so that any rule threshold
// between the "healthy" and the "problem" band classifies the data the same
// way. The Summary counts use these bands.
const (
	// BigMessageThreshold is the AvgMessageLength threshold in bytes of the
	// Fig. 6.30 rule. Big messages are >= 2*BigMessageThreshold, the others
	// <= BigMessageThreshold/2.
	BigMessageThreshold = 65536
	// PoorCacheMissRatio: poor regions have L2_TCM/L2_TCA >= 0.7, good ones
	// <= GoodCacheMissRatio.
	PoorCacheMissRatio = 0.7
	// GoodCacheMissRatio is the upper bound of the healthy L2 miss ratio.
	GoodCacheMissRatio = 0.3
	// DominantFraction is the lower bound of a dominating overhead's share
	// of wtime (identified, I/O, synchronization, communication); healthy
	// shares are <= HealthyFraction.
	DominantFraction = 0.6
	// HealthyFraction bounds the share of wtime of a non-dominating overhead
	// category on main-program region summaries; oall_ident of a healthy
	// one is below 0.1.
	HealthyFraction = 0.1
	// UnidentifiedFraction is the lower bound of oall_unid/wtime in
	// experiments with large unidentified overhead (the others are <= 0.05).
	UnidentifiedFraction = 0.5
	// ImbalanceRatio is the lower bound of max/mean wtime across processing
	// units of an imbalanced region; balanced regions stay <= BalancedRatio.
	ImbalanceRatio = 1.5
	// BalancedRatio is the upper bound of max/mean wtime of balanced regions.
	BalancedRatio = 1.1
	// LateSenderGap is the minimum time in microseconds a late sender enters
	// its send after the receiver entered the receive; on-time sends enter
	// at least OnTimeGap before the receive.
	LateSenderGap = 2000.0
	// OnTimeGap: on-time sends enter their send at least this many
	// microseconds before the receiver enters the receive.
	OnTimeGap = 100.0
	// BarrierWaitSpread is the minimum spread in microseconds of the barrier
	// enter times of a barrier with waiting; balanced barriers spread at most
	// BalancedBarrierSpread.
	BarrierWaitSpread = 10000.0
	// BalancedBarrierSpread bounds the enter-time spread of balanced barriers.
	BalancedBarrierSpread = 50.0
	// LowBandwidth (MB/s): low path bandwidth measurements are below it,
	// healthy ones at least HighBandwidth.
	LowBandwidth = 1.0
	// HighBandwidth is the lower bound of healthy bandwidth measurements.
	HighBandwidth = 3.0
)

// The dissertation's example query (Fig. 6.29) looks for region summaries
// on node "gsr410" with wtime >= 3E8 microseconds; Summary.Fig629Matches
// counts them, comparing the written (rounded) values exactly as the query
// does.
const (
	// Fig629Node is the inNode value of the Fig. 6.29 query.
	Fig629Node = "gsr410"
	// Fig629Threshold is the wtime bound of the Fig. 6.29 query.
	Fig629Threshold = 3e8
)

// DefaultGraphBase prefixes the site names to make graph IRIs.
const DefaultGraphBase = "http://perfkb.example/site/"

// Options controls Generate.
type Options struct {
	Sites   int    // number of grid sites (default 3)
	Triples int64  // target total number of triples (default 100000); reached within about 10%
	Seed    uint64 // random seed; the same options give the same bytes
	Format  Format // NQuads (default) or NTriples
	Site    string // when set, only this site (one of SiteNames(Sites)) is written
	// GraphBase prefixes site names for graph IRIs (default DefaultGraphBase):
	// site "vienna" goes into graph <GraphBase + "vienna">.
	GraphBase string
	// Scaling adds, after each site's data, scaling series of the
	// application "Stommel" (see ScalingProcesses): two versions, two
	// problem sizes, p = 1 ... 32. Off by default, so the other data and
	// its IRIs stay exactly as they are without it.
	Scaling bool
}

// Summary reports what Generate wrote and the ground truth of the problem
// and healthy cases it planted. Ratios refer to the bands documented on the
// threshold constants.
type Summary struct {
	Triples int64 // lines written
	Sites   []string
	Graphs  []string // graph IRIs (empty for N-Triples)

	Experiments      int // profiling experiments (region summaries)
	TraceExperiments int // experiments with region instances and events
	CodeRegions      int
	ProcessingUnits  int // node-, process- and thread-level units
	RegionSummaries  int
	Metrics          int // PerformanceMetric records
	RegionInstances  int
	Events           int

	// P2PRegionSummaries are region summaries of CR_MPIP2P regions (each has
	// one AvgMessageLength metric); BigMessageRegionSummaries of them have
	// AvgMessageLength >= 2*BigMessageThreshold, the rest <= half of it.
	P2PRegionSummaries        int
	BigMessageRegionSummaries int
	// Every region summary has L2_TCM and L2_TCA; PoorCache ones have a
	// ratio >= 0.7, the rest (GoodCache) <= 0.3.
	PoorCacheRegionSummaries int
	GoodCacheRegionSummaries int
	// Main program (CR_P) region summaries carry oall_ident, oall_unid,
	// oall, odata_fread, odata_fwrite, osync, odata_p2p and odata_col.
	// Counts of those where the named share of wtime is >= DominantFraction
	// (UnidentifiedFraction for unidentified); all others are <=
	// HealthyFraction (0.05 for unidentified).
	MainRegionSummaries          int
	HighIdentifiedOverhead       int // oall_ident/wtime
	LargeUnidentifiedOverhead    int // oall_unid/wtime
	IODominated                  int // (odata_fread+odata_fwrite)/wtime
	SynchronizationDominated     int // osync/wtime
	HighCommunication            int // (odata_p2p+odata_col)/wtime
	ImbalancedRegions            int // (experiment, code region) pairs with max/mean wtime >= ImbalanceRatio
	BalancedRegions              int // all other (experiment, code region) pairs
	LateSenderMessages           int // receive entered >= LateSenderGap before the matching send
	OnTimeMessages               int // send entered >= OnTimeGap before the receive
	BarriersWithWaiting          int // enter-time spread >= BarrierWaitSpread
	BalancedBarriers             int // enter-time spread <= BalancedBarrierSpread
	LowBandwidthMeasurements     int // path bandwidth < LowBandwidth MB/s
	HealthyBandwidthMeasurements int // path bandwidth >= HighBandwidth MB/s

	// Region-specific overhead metrics of other region summaries
	// (odata_send, odata_recv, osync_mpbar, osync_bar, osync_lock,
	// octrp_infl, octrp_fkjn, octrp_sched, octrp_insp, octrp_exec, oadd_dtc)
	// are likewise either >= DominantFraction or <= HealthyFraction of their
	// wtime; they are not counted here.

	// Fig629Matches counts region summaries on a processing unit with
	// inNode Fig629Node whose wtime >= Fig629Threshold.
	Fig629Matches int

	// ScalingExperiments counts the experiments of the scaling series
	// (Options.Scaling); PlantedPoorScalability lists the IRIs of the code
	// regions planted to stop scaling in them (efficiency against the
	// sequential run below 0.5 at the larger process counts); every other
	// region and every program keeps an efficiency of at least 0.5.
	ScalingExperiments     int
	PlantedPoorScalability []string

	// MetricNames and RegionTypes list the metric names and code region
	// mnemonics that occur in the data.
	MetricNames []string
	RegionTypes []string
}

var siteNames = []string{"innsbruck", "vienna", "linz", "graz", "salzburg", "klagenfurt", "leoben", "krems"}

// SiteNames returns the names of the first n sites.
func SiteNames(n int) []string {
	out := make([]string, n)
	for i := range out {
		if i < len(siteNames) {
			out[i] = siteNames[i]
		} else {
			out[i] = "site" + strconv.Itoa(i+1)
		}
	}
	return out
}

// GraphIRI returns the graph IRI of a site for the given base ("" means
// DefaultGraphBase).
func GraphIRI(base, site string) string {
	if base == "" {
		base = DefaultGraphBase
	}
	return base + site
}

func (o *Options) normalize() error {
	if o.Sites == 0 {
		o.Sites = 3
	}
	if o.Sites < 1 || o.Sites > 10000 {
		return fmt.Errorf("sites must be between 1 and 10000, not %d", o.Sites)
	}
	if o.Triples == 0 {
		o.Triples = 100000
	}
	if o.Triples < 500 {
		return fmt.Errorf("triples must be at least 500, not %d", o.Triples)
	}
	if o.Format == "" {
		o.Format = NQuads
	}
	if o.Format != NQuads && o.Format != NTriples {
		return fmt.Errorf("unknown format %q", o.Format)
	}
	if o.GraphBase == "" {
		o.GraphBase = DefaultGraphBase
	}
	return nil
}

// Generate writes deterministic, realistic PERFONTO data for grid sites to
// w, streaming, and returns what it wrote. It stops early with ctx's error
// when ctx is cancelled.
func Generate(ctx context.Context, w io.Writer, opts Options) (Summary, error) {
	if err := opts.normalize(); err != nil {
		return Summary{}, err
	}
	names := SiteNames(opts.Sites)
	selected := make([]int, 0, len(names))
	if opts.Site != "" {
		for i, n := range names {
			if n == opts.Site {
				selected = append(selected, i)
			}
		}
		if len(selected) == 0 {
			return Summary{}, fmt.Errorf("unknown site %q (sites are %s)", opts.Site, strings.Join(names, ", "))
		}
	} else {
		for i := range names {
			selected = append(selected, i)
		}
	}
	bw := bufio.NewWriterSize(w, 1<<20)
	em := newEmitter(ctx, bw)
	sum := Summary{}
	seen := newSeenSet()
	budget := opts.Triples / int64(len(selected))
	for k, i := range selected {
		graph := GraphIRI(opts.GraphBase, names[i])
		if opts.Format == NQuads {
			em.setGraph(graph)
			sum.Graphs = append(sum.Graphs, graph)
		} else {
			em.setGraph("")
		}
		sum.Sites = append(sum.Sites, names[i])
		target := budget * int64(k+1)
		if k == len(selected)-1 {
			target = opts.Triples
		}
		g := newSiteGen(em, &sum, seen, opts.Seed, i, names, graph, target)
		g.run()
		if opts.Scaling && em.err == nil {
			g.scalingSeries(opts.Seed)
		}
		if em.err != nil {
			break
		}
	}
	if em.err == nil {
		em.err = bw.Flush()
	}
	sum.Triples = em.n
	sum.MetricNames = seen.sortedMetrics()
	sum.RegionTypes = seen.sortedRegions()
	if em.err != nil {
		return sum, fmt.Errorf("sample: %w", em.err)
	}
	return sum, nil
}

// String renders the summary as one line for a terminal.
func (s Summary) String() string {
	return fmt.Sprintf("%d triples, %d sites, %d experiments (+%d traced), %d region summaries, %d metrics; big messages %d/%d p2p, poor cache %d, imbalanced regions %d, late senders %d",
		s.Triples, len(s.Sites), s.Experiments, s.TraceExperiments, s.RegionSummaries, s.Metrics,
		s.BigMessageRegionSummaries, s.P2PRegionSummaries, s.PoorCacheRegionSummaries, s.ImbalancedRegions, s.LateSenderMessages)
}
