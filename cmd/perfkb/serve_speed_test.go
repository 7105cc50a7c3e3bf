package main

import "testing"

func TestParseByteSize(t *testing.T) {
	tests := []struct {
		in   string
		want int64
		bad  bool
	}{
		{in: "0", want: 0},
		{in: "1048576", want: 1 << 20},
		{in: "512MiB", want: 512 << 20},
		{in: "2GiB", want: 2 << 30},
		{in: "1.5 GiB", want: 3 << 29},
		{in: "2gb", want: 2e9},
		{in: "100KB", want: 100e3},
		{in: "7B", want: 7},
		{in: "-1GiB", bad: true},
		{in: "lots", bad: true},
		{in: "", bad: true},
	}
	for _, tc := range tests {
		got, err := parseByteSize(tc.in)
		if tc.bad {
			if err == nil {
				t.Errorf("parseByteSize(%q) = %d, want an error", tc.in, got)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("parseByteSize(%q) = %d, %v; want %d", tc.in, got, err, tc.want)
		}
	}
}
