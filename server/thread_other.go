//go:build !linux

package server

import (
	"errors"
	"time"
)

// threadPriorities: elsewhere a priority belongs to the process, not to
// one thread.
const threadPriorities = false

func threadID() int { return 0 }

func setNice(tid, nice int) error { return errors.New("thread priorities are Linux only") }

func getNice(tid int) (int, error) { return 0, errors.New("thread priorities are Linux only") }

func threadCPU() (time.Duration, bool) { return 0, false }
