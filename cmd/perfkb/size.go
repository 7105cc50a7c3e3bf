package main

import (
	"errors"
	"strconv"
	"strings"
)

// parseByteSize reads a byte size: a number with an optional unit B, KB, MB,
// GB (powers of 1000), KiB, MiB, GiB (powers of 1024).
func parseByteSize(s string) (int64, error) {
	t := strings.TrimSpace(s)
	units := []struct {
		suffix string
		mult   int64
	}{{"KiB", 1 << 10}, {"MiB", 1 << 20}, {"GiB", 1 << 30}, {"TiB", 1 << 40},
		{"KB", 1e3}, {"MB", 1e6}, {"GB", 1e9}, {"TB", 1e12}, {"B", 1}}
	mult := int64(1)
	for _, u := range units {
		if strings.HasSuffix(strings.ToLower(t), strings.ToLower(u.suffix)) {
			t, mult = strings.TrimSpace(t[:len(t)-len(u.suffix)]), u.mult
			break
		}
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || v < 0 {
		return 0, errors.New("want a size such as 512MiB, 2GiB or a number of bytes")
	}
	return int64(v * float64(mult)), nil
}
