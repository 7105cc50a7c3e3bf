package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/kb/rdfio"
	"github.com/perfkb/perfkb/query"
)

// BenchmarkFederation compares the latency of a query fanned out to three
// loopback `perfkb serve` sites (one sample site each) with the same query
// over one in-process store holding their union. Each sub-benchmark reports
// the median of 20 runs (median-ms) besides ns/op:
//
//	go test -run '^$' -bench Federation -benchtime 1x ./cmd/perfkb
//
// FED_BENCH_TRIPLES sets the triples per site (default 30000).
func BenchmarkFederation(b *testing.B) {
	triples := "30000"
	if v := os.Getenv("FED_BENCH_TRIPLES"); v != "" {
		triples = v
	}
	dir := b.TempDir()
	e := &fedEnv{bin: buildPerfkb(b, dir), dir: dir, sites: map[string]*siteProc{}, env: os.Environ()}
	ctx := context.Background()
	union := native.OpenMemory()
	defer union.Close()
	// The sites are registered in a store of their own, which the fanned-out
	// query runs over (its WHERE pattern goes only to the sites).
	registry := native.OpenMemory()
	defer registry.Close()
	var sites []query.Site
	for _, s := range []string{"innsbruck", "vienna", "linz"} {
		nq := filepath.Join(dir, s+".nq")
		e.mustRun(b, "sample", "--triples", triples, "--site", s, "-o", nq)
		e.mustRun(b, "--store", "native:"+s+".db", "load", nq)
		if _, err := rdfio.LoadFile(ctx, union, nq, rdfio.LoadOptions{}); err != nil {
			b.Fatal(err)
		}
		p := e.serve(b, s+".db")
		site := query.Site{Name: s, Endpoint: p.url + "/sparql"}
		if err := (&query.SiteRegistry{DS: registry}).Add(ctx, site); err != nil {
			b.Fatal(err)
		}
		sites = append(sites, site)
	}
	client := query.NewSiteClient(sites)
	queries := []struct{ name, text string }{
		{"top10-wtime", fedPrefix + `SELECT ?rs ?v WHERE { ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v } ORDER BY DESC(?v) ?rs LIMIT 10`},
		{"count-per-crtype", fedPrefix + `SELECT ?type (COUNT(?rs) AS ?n) WHERE { ?rs perfonto:ofCodeRegion ?cr . ?cr perfonto:hasCrType ?type } GROUP BY ?type`},
		{"fig629", fedPrefix + `SELECT ?rs WHERE { ?rs perfonto:inProcessingUnit ?pu . ?pu perfonto:inNode "gsr410" . ?rs perfonto:hasMetric ?m . ?m perfonto:hasMetricName "wtime" ; perfonto:hasMetricValue ?v FILTER (?v >= 3E8) }`},
	}
	run := func(b *testing.B, fanOut bool, text string) time.Duration {
		p, err := query.Prepare(text, query.Options{})
		if err != nil {
			b.Fatal(err)
		}
		var ds kb.Dataset = union
		opts := query.Options{Service: client}
		if fanOut {
			ds, opts.Sites = registry, "all"
		}
		start := time.Now()
		res, err := query.Exec(ctx, ds, p, opts)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := res.Rows(); err != nil {
			b.Fatal(err)
		}
		if rep, _, _ := res.Federation(); fanOut && !rep.Complete {
			b.Fatal("a site failed")
		}
		return time.Since(start)
	}
	for _, q := range queries {
		for _, mode := range []struct {
			name   string
			fanOut bool
		}{{"union", false}, {"fanout3", true}} {
			b.Run(q.name+"/"+mode.name, func(b *testing.B) {
				run(b, mode.fanOut, q.text) // warm caches and connections
				for b.Loop() {
					var times []time.Duration
					for range 20 {
						times = append(times, run(b, mode.fanOut, q.text))
					}
					sort.Slice(times, func(i, j int) bool { return times[i] < times[j] })
					b.ReportMetric(float64((times[9]+times[10])/2)/1e6, "median-ms")
				}
			})
		}
	}
}
