package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"time"

	"github.com/spf13/cobra"

	"github.com/perfkb/perfkb/convert"
	motlp "github.com/perfkb/perfkb/monitor/otlp"
)

func init() {
	register(newOTLPListenCmd)
	// otlp-listen writes data, so it may create the store.
	creatingCommands["otlp-listen"] = true
}

// otlpListenFlags are the settings of perfkb otlp-listen.
type otlpListenFlags struct {
	addr, base, graph, experiment, token string
	listen                               listenerFlags
	queueWait                            time.Duration
	batch                                int
	memoryLimit                          memoryLimitFlag // sets --max-queue's default: memory_limit.go
}

func newOTLPListenCmd(app *App) *cobra.Command {
	var f otlpListenFlags
	cmd := &cobra.Command{
		Use:   "otlp-listen",
		Short: "Receive OpenTelemetry traces and metrics over OTLP/HTTP into the store",
		Long: `otlp-listen is an OpenTelemetry OTLP/HTTP receiver: services around the jobs
(the OpenTelemetry SDKs' OTLP/HTTP exporters, the collector's otlphttp
exporter) POST to /v1/traces and /v1/metrics on --addr (loopback by default),
protobuf or JSON, optionally gzip-compressed, with the bearer token of --token
or $PERFKB_TOKEN (without a token every request is refused). Spans become
region instances and metric data points measurements of the service's
activity unit, as 'perfkb convert otlp' maps them, in --experiment.

Requests are written in group-committed batches of at most --batch statements;
a request is answered 200 only when written, so an acknowledged span is
durable, and a resent span is stored once (its IRI is its trace and span id).
Limits: --max-message per request (compressed and decompressed), --max-queue
bytes of mapped requests waiting for the writer (a request that finds no room
within --queue-wait is answered 503, which OTLP clients retry), --read-timeout
per request, --idle-timeout for kept-alive connections. With --tokens-file, a
request may also carry the token of a user whose write scope covers --graph
(docs/access.md). SIGINT or SIGTERM stop accepting, let requests in flight
finish and exit 0.`,
		Example: `  PERFKB_TOKEN=s3cret perfkb otlp-listen --store native:./kb --base http://perfkb.example/site/innsbruck/
  OTEL_EXPORTER_OTLP_ENDPOINT=http://127.0.0.1:4318 OTEL_EXPORTER_OTLP_HEADERS="Authorization=Bearer s3cret" ./service`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if _, err := f.memoryLimit.apply(cmd.Flags()); err != nil {
				return err
			}
			return runOTLPListen(cmd.Context(), app, &f)
		},
	}
	fs := cmd.Flags()
	fs.StringVar(&f.addr, "addr", "127.0.0.1:4318", "address to receive OTLP/HTTP on (host:port); loopback unless another interface is named")
	fs.StringVar(&f.base, "base", "", "base IRI of the stored data (required; absolute, ending in / or #)")
	fs.StringVar(&f.graph, "graph", "", "graph receiving the data (default: --base without its trailing / or #)")
	fs.StringVar(&f.experiment, "experiment", "", "experiment IRI of the received data (default <base>exp/otlp)")
	fs.StringVar(&f.token, "token", "", "bearer token every request needs (default: $"+tokenEnv+"); without one, requests are refused")
	f.listen.bind(fs, listenerDefaults{maxMessage: "4MiB",
		messageFlag: "read-timeout", messageUsage: "longest time to read one request",
		idleUsage: "close a kept-alive connection idle this long"})
	fs.DurationVar(&f.queueWait, "queue-wait", 5*time.Second, "how long a request waits for room in a full queue before it is answered 503")
	fs.IntVar(&f.batch, "batch", 200000, "most statements per write")
	f.memoryLimit.bind(fs)
	return cmd
}

func runOTLPListen(ctx context.Context, app *App, f *otlpListenFlags) error {
	start := time.Now()
	if f.base == "" {
		return usageError(errors.New("--base is required: the base IRI of the stored data, e.g. --base http://perfkb.example/site/innsbruck/"))
	}
	base, err := convert.ParseBase(f.base)
	if err != nil {
		return usageError(err)
	}
	graph := base.Graph()
	if f.graph != "" {
		if graph, err = parseGraphIRI(f.graph); err != nil {
			return usageError(err)
		}
	}
	if f.token == "" {
		f.token = os.Getenv(tokenEnv)
	}
	limits, access, err := f.listen.limits("read-timeout", graph, f.token)
	if err != nil {
		return err
	}
	switch {
	case f.batch <= 0:
		return usageError(errors.New("--batch must be positive"))
	case f.queueWait <= 0:
		return usageError(errors.New("--queue-wait must be positive"))
	}
	if _, _, err := net.SplitHostPort(f.addr); err != nil {
		return usageError(fmt.Errorf("--addr %q: %v", f.addr, err))
	}
	ds, err := app.OpenStore(ctx)
	if err != nil {
		return err
	}
	defer ds.Close()
	r, err := motlp.New(ds, motlp.Options{Base: base, Graph: graph, Experiment: f.experiment, Token: f.token,
		ListenerLimits: limits, QueueWait: f.queueWait, Batch: f.batch})
	if err != nil {
		return err
	}
	ln, err := net.Listen("tcp", f.addr)
	if err != nil {
		r.Close()
		return fmt.Errorf("otlp-listen: %w", err)
	}
	fmt.Fprintf(app.Stdout, "otlp-listen: receiving OTLP/HTTP on http://%s/v1/traces and /v1/metrics into graph <%s> of %s\n", ln.Addr(), graph.Value, app.StoreSpec)
	if f.token == "" && access == nil {
		fmt.Fprintf(app.Stdout, "otlp-listen: no token: every request is refused; set $%s, --token or --tokens-file\n", tokenEnv)
	}
	err = r.Serve(ctx, ln)
	st := r.Stats()
	fmt.Fprintf(app.Stdout, "otlp-listen: %d requests, stored %d spans and %d data points (%d triples, %d writes) in graph <%s>; %d invalid, %d refused; %s\n",
		st.Requests, st.Spans, st.Points, st.Triples, st.Writes, graph.Value, st.Invalid, st.Refused, time.Since(start).Round(time.Millisecond))
	if err != nil {
		return err
	}
	return ds.Close()
}
