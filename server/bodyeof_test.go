package server

import (
	"io"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/perfkb/perfkb/kb/native"
	"github.com/perfkb/perfkb/server/graphstore"
)

// TestBodyCutShortIsTheClients: a POST body that ends before its
// Content-Length (the client went away mid-body, as the soak's slow
// senders do) is the client's error, 400, not the server's 500
// "internal": it counted among the server's 5xx answers.
func TestBodyCutShortIsTheClients(t *testing.T) {
	s := New(Options{Query: &fakeQuery{}, Graphs: graphstore.New(native.OpenMemory()), Token: testToken, MinBodyRate: -1})
	base := startServer(t, s)
	host := strings.TrimPrefix(base, "http://")
	c := rawConn(t, base, "POST /sparql HTTP/1.1\r\nHost: "+host+
		"\r\nContent-Type: application/sparql-query\r\nContent-Length: 100\r\n\r\nASK {}")
	// The client stops sending: the body ends 94 bytes short.
	if err := c.(*net.TCPConn).CloseWrite(); err != nil {
		t.Fatal(err)
	}
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	got, _ := io.ReadAll(c)
	if !strings.HasPrefix(string(got), "HTTP/1.1 400") {
		t.Errorf("answered %.120q, want 400", got)
	}
}
