package scalea

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

var quantity = regexp.MustCompile(`^\s*([0-9]+(?:\.[0-9]*)?|\.[0-9]+)\s*([A-Za-z]*)\s*$`)

// parseMegabytes reads a TEXT size such as "512 MB", "2GB", "1.5 GiB",
// "524288 KB" or a bare number (megabytes) and returns megabytes.
func parseMegabytes(s string) (int64, bool) {
	m := quantity.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	switch strings.ToLower(m[2]) {
	case "", "m", "mb", "mib", "mbyte", "mbytes":
	case "k", "kb", "kib", "kbyte", "kbytes":
		v /= 1024
	case "g", "gb", "gib", "gbyte", "gbytes":
		v *= 1024
	case "t", "tb", "tib":
		v *= 1024 * 1024
	default:
		return 0, false
	}
	return int64(math.Round(v)), true
}

// parseMegahertz reads a TEXT clock speed such as "2.4 GHz", "800MHz" or
// a bare number (megahertz) and returns megahertz.
func parseMegahertz(s string) (float64, bool) {
	m := quantity.FindStringSubmatch(s)
	if m == nil {
		return 0, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return 0, false
	}
	switch strings.ToLower(m[2]) {
	case "", "mhz", "m":
	case "ghz", "g":
		v *= 1000
	case "khz", "k":
		v /= 1000
	case "hz":
		v /= 1e6
	default:
		return 0, false
	}
	return v, true
}
