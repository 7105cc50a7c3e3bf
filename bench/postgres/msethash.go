//go:build ignore

// msethash prints the number of lines on standard input and an
// order-independent hash of them: the per-lane sums (mod 2^64, four
// lanes) of each line's SHA-256. Two exports of the same quads in any
// order print the same; it compares stores too large to sort comfortably:
//
//	perfkb --store "$A" export | go run bench/postgres/msethash.go
package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
	"io"
	"os"
)

func main() {
	r := bufio.NewReaderSize(os.Stdin, 1<<20)
	var acc [4]uint64
	var n int64
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 {
			s := sha256.Sum256(line)
			for i := range acc {
				acc[i] += binary.LittleEndian.Uint64(s[8*i:])
			}
			n++
		}
		if err == io.EOF {
			break
		}
		if err != nil {
			fmt.Fprintln(os.Stderr, "msethash:", err)
			os.Exit(1)
		}
	}
	fmt.Printf("%d %016x%016x%016x%016x\n", n, acc[0], acc[1], acc[2], acc[3])
}
