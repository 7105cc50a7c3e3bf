package scalea

import (
	"strings"
	"testing"
)

func TestRedactDSN(t *testing.T) {
	tests := []struct{ in, want string }{
		{"postgres://perf:s3cret@db.example:5432/scalea?sslmode=disable", "postgres://perf:xxxxx@db.example:5432/scalea?sslmode=disable"},
		{"postgres://perf@db.example/scalea?password=s3cret&sslmode=disable", "postgres://perf@db.example/scalea?password=xxxxx&sslmode=disable"},
		{"host=db.example user=perf password=s3cret dbname=scalea", "host=db.example user=perf password=xxxxx dbname=scalea"},
		{"host=db.example password='s3 cret' dbname=scalea", "host=db.example password=xxxxx dbname=scalea"},
		{"postgres:///scalea?host=/var/run/postgresql", "postgres:///scalea?host=/var/run/postgresql"},
	}
	for _, tt := range tests {
		got := RedactDSN(tt.in)
		if got != tt.want || strings.Contains(got, "s3") {
			t.Errorf("RedactDSN(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}
