package server

import (
	"context"
	"strconv"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// metrics holds the server's Prometheus collectors, registered on a
// registry of its own (no global state).
type metrics struct {
	registry *prometheus.Registry
	requests *prometheus.CounterVec
	latency  *prometheus.HistogramVec
	inFlight prometheus.Gauge
	rejected *prometheus.CounterVec
	timeouts prometheus.Counter
	written  prometheus.Counter
}

const metricsContextKey = "perfkb.metrics"

func newMetrics(store StoreStats) *metrics {
	m := &metrics{
		registry: prometheus.NewRegistry(),
		requests: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "perfkb_http_requests_total",
			Help: "HTTP requests served, by handler, method and status code.",
		}, []string{"handler", "method", "code"}),
		latency: prometheus.NewHistogramVec(prometheus.HistogramOpts{
			Name:    "perfkb_http_request_duration_seconds",
			Help:    "Time to serve an HTTP request, by handler.",
			Buckets: []float64{.0005, .001, .0025, .005, .01, .025, .05, .1, .25, .5, 1, 2.5, 5, 10, 30},
		}, []string{"handler"}),
		inFlight: prometheus.NewGauge(prometheus.GaugeOpts{
			Name: "perfkb_http_requests_in_flight",
			Help: "Requests being served now (limited endpoints only).",
		}),
		rejected: prometheus.NewCounterVec(prometheus.CounterOpts{
			Name: "perfkb_http_requests_rejected_total",
			Help: "Requests refused before reaching a handler, by reason (overloaded, unauthorized, forbidden, host, too_large).",
		}, []string{"reason"}),
		timeouts: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "perfkb_query_timeouts_total",
			Help: "Queries, updates and rule runs stopped by their time limit.",
		}),
		written: prometheus.NewCounter(prometheus.CounterOpts{
			Name: "perfkb_graph_store_triples_written_total",
			Help: "Triples added through the Graph Store Protocol.",
		}),
	}
	m.registry.MustRegister(m.requests, m.latency, m.inFlight, m.rejected, m.timeouts, m.written,
		// The scheduler's and the collector's histograms (runtime/metrics
		// /sched/latencies:seconds, /sched/pauses/..., /gc/pauses:seconds)
		// tell a slow light request's wait for a processor and a stop of
		// the world from its own work.
		collectors.NewGoCollector(collectors.WithGoCollectorRuntimeMetrics(collectors.MetricsScheduler, collectors.MetricsGC)),
		collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	if store != nil {
		m.registry.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
			Name: "perfkb_store_quads",
			Help: "Quads in the store (may be an estimate).",
		}, func() float64 {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
			defer cancel()
			n, err := store.Quads(ctx)
			if err != nil {
				return -1
			}
			return float64(n)
		}))
	}
	return m
}

// observe is the middleware that counts and times every request.
func (m *metrics) observe(c *gin.Context) {
	c.Set(metricsContextKey, m)
	start := time.Now()
	c.Next()
	handler := c.FullPath()
	if handler == "" {
		handler = "unmatched"
	}
	m.requests.WithLabelValues(handler, c.Request.Method, strconv.Itoa(c.Writer.Status())).Inc()
	m.latency.WithLabelValues(handler).Observe(time.Since(start).Seconds())
}

func (m *metrics) handler() gin.HandlerFunc {
	h := promhttp.HandlerFor(m.registry, promhttp.HandlerOpts{})
	return gin.WrapH(h)
}

func metricsFrom(c *gin.Context) *metrics {
	v, ok := c.Get(metricsContextKey)
	if !ok {
		return nil
	}
	m, _ := v.(*metrics)
	return m
}
