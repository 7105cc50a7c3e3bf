// Command scalea-gen fills an empty PostgreSQL database with a generated
// SCALEA experiment repository (package scaleatest), for measuring the
// converter:
//
//	go run ./convert/scalea/scaleatest/scalea-gen --dsn "$DSN" --experiments 60 --processes 64 --threads 8
//
// writes about 5 million metric rows (it prints the estimate).
package main

import (
	"context"
	"database/sql"
	"flag"
	"fmt"
	"os"
	"time"

	_ "github.com/lib/pq"

	"github.com/perfkb/perfkb/convert/scalea/scaleatest"
)

func main() {
	c := scaleatest.Small()
	dsn := flag.String("dsn", "", "PostgreSQL DSN of an empty database (required)")
	flag.IntVar(&c.Applications, "applications", c.Applications, "applications")
	flag.IntVar(&c.VersionsPerApp, "versions", c.VersionsPerApp, "versions per application")
	flag.IntVar(&c.Experiments, "experiments", c.Experiments, "experiments")
	flag.IntVar(&c.NodesPerCluster, "nodes", c.NodesPerCluster, "computational nodes per cluster")
	flag.IntVar(&c.Processes, "processes", c.Processes, "processes per experiment")
	flag.IntVar(&c.Threads, "threads", c.Threads, "threads per process")
	flag.Parse()
	if *dsn == "" {
		fmt.Fprintln(os.Stderr, "scalea-gen: --dsn is required")
		os.Exit(2)
	}
	db, err := sql.Open("postgres", *dsn)
	if err != nil {
		fmt.Fprintln(os.Stderr, "scalea-gen:", err)
		os.Exit(1)
	}
	defer db.Close()
	start := time.Now()
	fmt.Printf("writing about %d metric rows\n", c.MetricRows())
	if err := scaleatest.Fill(context.Background(), db, c); err != nil {
		fmt.Fprintln(os.Stderr, "scalea-gen:", err)
		os.Exit(1)
	}
	fmt.Printf("done in %.1f s\n", time.Since(start).Seconds())
}
