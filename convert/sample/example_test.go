package sample_test

import (
	"context"
	"fmt"
	"io"

	"github.com/perfkb/perfkb/convert/sample"
)

// Generate streams N-Quads to any writer and reports the planted cases, so a
// test can compare a rule engine's findings with the truth.
func ExampleGenerate() {
	sum, err := sample.Generate(context.Background(), io.Discard, sample.Options{Sites: 2, Triples: 50000, Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(sum.Sites, sum.Graphs[0])
	fmt.Println(sum.BigMessageRegionSummaries > 0, sum.BigMessageRegionSummaries < sum.P2PRegionSummaries)
	// Output:
	// [innsbruck vienna] http://perfkb.example/site/innsbruck
	// true true
}
