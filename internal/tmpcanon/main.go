package main

import (
	"fmt"
	"os"
	"time"

	"github.com/piprate/json-gold/ld"
)

func main() {
	b, _ := os.ReadFile(os.Args[1])
	opts := ld.NewJsonLdOptions("")
	opts.Algorithm = ld.AlgorithmURDNA2015
	opts.InputFormat = "application/n-quads"
	opts.Format = "application/n-quads"
	t := time.Now()
	out, err := ld.NewJsonLdProcessor().Normalize(string(b), opts)
	fmt.Println(len(out.(string)), err, time.Since(t))
}
