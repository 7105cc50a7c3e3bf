package monitor

import (
	"bufio"
	"errors"
	"fmt"
	"strings"
	"time"
)

// ListenerLimits are the limits every listener of live data shares (the
// sensor listener, SensorOptions, and the OTLP receiver, otlp.Options):
// what one message may take, how much received data may wait for the
// writer, how long a connection may idle or take over one message, and
// who may send. Zero values take each listener's defaults.
type ListenerLimits struct {
	// MaxMessage bounds one message in bytes: a sensor message, an OTLP
	// request body (compressed and decompressed).
	MaxMessage int64
	// MaxQueueBytes bounds the received data waiting to be written: the
	// parsed size of sensor messages, the mapped size of OTLP requests.
	MaxQueueBytes int64
	// IdleTimeout closes a connection that sends nothing (between
	// messages, or inside one) for this long; negative: never.
	IdleTimeout time.Duration
	// MessageTimeout closes a connection whose message has not arrived
	// whole this long after its first byte, so a sender trickling bytes
	// cannot hold a connection; negative: never.
	MessageTimeout time.Duration
	// Authorize, when set, decides who may send: it gets the bearer token
	// a source presented and returns its user and whether that user may
	// write the listener's graph (perfkb's tokens file: a write scope
	// covering the graph). Nil: the listener's own rule (the sensor port
	// is open; OTLP needs its one Token).
	Authorize Authorizer
}

// Authorizer checks a source's bearer token; see ListenerLimits.Authorize.
// It must compare tokens in constant time.
type Authorizer func(token string) (user string, ok bool)

// maxAuthLine bounds the line a sensor connection authenticates with.
const maxAuthLine = 1024

// ErrUnauthorized is the error of a sensor connection that did not begin
// with a valid token line.
var ErrUnauthorized = errors.New("sensor: the connection did not begin with a valid \"Authorization: Bearer TOKEN\" line")

// readAuthLine reads a sensor connection's first line, which must be
// "Authorization: Bearer TOKEN" (as an HTTP header; CRLF or LF), and
// returns the token.
func readAuthLine(br *bufio.Reader) (string, error) {
	var line []byte
	for {
		frag, more, err := br.ReadLine()
		if err != nil {
			return "", fmt.Errorf("%w: %w", ErrUnauthorized, err)
		}
		line = append(line, frag...)
		if len(line) > maxAuthLine {
			return "", fmt.Errorf("%w: the line is longer than %d bytes", ErrUnauthorized, maxAuthLine)
		}
		if !more {
			break
		}
	}
	name, value, ok := strings.Cut(string(line), ":")
	if !ok || !strings.EqualFold(strings.TrimSpace(name), "Authorization") {
		return "", ErrUnauthorized
	}
	scheme, token, ok := strings.Cut(strings.TrimSpace(value), " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || strings.TrimSpace(token) == "" {
		return "", ErrUnauthorized
	}
	return strings.TrimSpace(token), nil
}
