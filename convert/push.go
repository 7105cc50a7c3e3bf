package convert

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"

	"github.com/perfkb/perfkb/kb"
)

// PushSink sends the statements to a remote perfkb server as one Graph
// Store Protocol request (POST URL/data?graph=IRI, N-Triples body, bearer
// token), so the remote side applies all of them or none. The body
// streams through an io.Pipe while the converter runs: memory stays
// bounded and the request starts at once. A failed conversion breaks the
// request body, which the server rejects without changing the graph.
type PushSink struct {
	pw    *io.PipeWriter
	w     *bufio.Writer
	line  []byte // the line being formatted, reused
	done  chan struct{}
	err   error // the request's outcome, set before done closes
	reply string
}

// PushEndpoint returns the GSP URL for a server base URL and a graph.
func PushEndpoint(server string, graph kb.Term) (string, error) {
	u, err := url.Parse(server)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", fmt.Errorf("push URL %q is not an http(s) URL of a perfkb server (want e.g. http://127.0.0.1:7878)", server)
	}
	u.Path = strings.TrimSuffix(u.Path, "/") + "/data"
	u.RawQuery = url.Values{"graph": {graph.Value}}.Encode()
	return u.String(), nil
}

// NewPushSink starts the request. client nil means http.DefaultClient; an
// empty token sends no Authorization header.
func NewPushSink(ctx context.Context, client *http.Client, server string, graph kb.Term, token string) (*PushSink, error) {
	endpoint, err := PushEndpoint(server, graph)
	if err != nil {
		return nil, err
	}
	if client == nil {
		client = http.DefaultClient
	}
	pr, pw := io.Pipe()
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, pr)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/n-triples")
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	s := &PushSink{pw: pw, w: bufio.NewWriterSize(pw, 64<<10), done: make(chan struct{})}
	go func() {
		defer close(s.done)
		resp, err := client.Do(req)
		// Unblock a writer if the server answered before reading it all.
		pr.CloseWithError(errors.New("convert: the push request ended"))
		if err != nil {
			s.err = fmt.Errorf("push to %s: %w", endpoint, err)
			return
		}
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
		s.reply = strings.TrimSpace(string(body))
		if resp.StatusCode/100 != 2 {
			s.err = fmt.Errorf("push to %s: %s: %s", endpoint, resp.Status, s.reply)
		}
	}()
	return s, nil
}

// Add writes one statement to the request body.
func (s *PushSink) Add(_ context.Context, q kb.TermQuad) error {
	s.line = appendTriple(s.line[:0], q)
	if _, err := s.w.Write(s.line); err != nil {
		return s.requestError(err)
	}
	return nil
}

// requestError prefers the server's answer to the pipe's error.
func (s *PushSink) requestError(err error) error {
	<-s.done
	if s.err != nil {
		return s.err
	}
	return err
}

// Close ends the body and waits for the server's answer; with failed !=
// nil it breaks the body so the server discards the request.
func (s *PushSink) Close(_ context.Context, failed error) error {
	if failed != nil {
		s.pw.CloseWithError(failed)
		<-s.done
		return nil
	}
	if err := s.w.Flush(); err != nil {
		return s.requestError(err)
	}
	s.pw.Close()
	<-s.done
	return s.err
}

// Reply is the server's response body (a JSON summary), valid after Close.
func (s *PushSink) Reply() string { return s.reply }
