package main

import (
	"crypto/subtle"
	"errors"
	"fmt"
	"time"

	"github.com/spf13/pflag"

	"github.com/perfkb/perfkb/kb"
	"github.com/perfkb/perfkb/monitor"
	"github.com/perfkb/perfkb/server"
)

// listenerFlags are the limit and access flags that sensor-listen and
// otlp-listen share: monitor.ListenerLimits, and --tokens-file, whose
// users with a write scope covering the listener's graph may send.
type listenerFlags struct {
	maxMessage, maxQueue        string
	idleTimeout, messageTimeout time.Duration
	tokensFile                  string
}

// listenerDefaults are what differs between the listeners: the default
// message size and the name and meaning of the per-message deadline flag.
type listenerDefaults struct {
	maxMessage                string
	messageFlag, messageUsage string
	idleUsage                 string
}

func (f *listenerFlags) bind(fs *pflag.FlagSet, d listenerDefaults) {
	fs.StringVar(&f.maxMessage, "max-message", d.maxMessage, "largest message (bytes, or with KiB, MiB, KB, MB)")
	fs.StringVar(&f.maxQueue, "max-queue", "256MiB", "most bytes of received messages waiting to be written; beyond it senders wait (bytes, or with KiB, MiB, KB, MB)")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", 5*time.Minute, d.idleUsage+" (0: never)")
	fs.DurationVar(&f.messageTimeout, d.messageFlag, time.Minute, d.messageUsage+" (0: never)")
	fs.StringVar(&f.tokensFile, "tokens-file", "", "JSON file of users and their scopes (docs/access.md): a source must send the token of a user whose write scope covers the graph")
}

// limits checks the flags and returns the listener's limits. With
// --tokens-file, Authorize accepts the users that may write graph, and
// token (the listener's --token, when it has one) as well.
func (f *listenerFlags) limits(messageFlag string, graph kb.Term, token string) (monitor.ListenerLimits, *server.Access, error) {
	var l monitor.ListenerLimits
	for _, s := range []struct {
		flag, spec string
		v          *int64
	}{{"--max-message", f.maxMessage, &l.MaxMessage}, {"--max-queue", f.maxQueue, &l.MaxQueueBytes}} {
		v, err := parseByteSize(s.spec)
		if err == nil && v <= 0 {
			err = errors.New("must be positive")
		}
		if err != nil {
			return l, nil, usageError(fmt.Errorf("%s %q: %w", s.flag, s.spec, err))
		}
		*s.v = v
	}
	if f.idleTimeout < 0 || f.messageTimeout < 0 {
		return l, nil, usageError(fmt.Errorf("--idle-timeout and --%s must not be negative (0: never)", messageFlag))
	}
	never := func(d time.Duration) time.Duration {
		if d == 0 {
			return -1 // monitor.ListenerLimits: negative is never
		}
		return d
	}
	l.IdleTimeout, l.MessageTimeout = never(f.idleTimeout), never(f.messageTimeout)
	if f.tokensFile == "" {
		return l, nil, nil
	}
	access, err := server.ReadAccess(f.tokensFile)
	if err != nil {
		return l, nil, usageError(err)
	}
	l.Authorize = func(tok string) (string, bool) {
		if token != "" && subtle.ConstantTimeCompare([]byte(tok), []byte(token)) == 1 {
			return "token", true
		}
		return access.Writer(tok, graph.Value)
	}
	return l, access, nil
}
