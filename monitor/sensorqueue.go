package monitor

import (
	"sync"
)

// byteGate bounds the parsed bytes of the messages that readers have
// handed to the writer and it has not yet stored (queued, in the batch
// being gathered, or converted and waiting for the store). A reader whose message does not fit waits (back
// pressure: it stops reading its connection, and TCP slows the sender).
//
// Fairness: a connection may hold at most perConn bytes, a connection
// holding nothing is always admitted, and a connection sending small
// messages (at most smallMessage bytes parsed each) may hold up to
// smallReserve bytes of them whatever the others hold. Connections
// flooding the queue with large messages therefore cannot keep another
// sensor's message out, nor hold a sensor sending small measurements back
// until --max-conns evicts it for making no progress (a reader waiting
// here completes no message). The memory held is at most max plus
// smallReserve or one message per open connection, whichever is larger,
// and each reader goroutine holds one parsed message while it waits
// anyway.
type byteGate struct {
	mu      sync.Mutex
	cond    *sync.Cond
	max     int64
	perConn int64
	total   int64
	held    map[int64]int64
	closed  bool
}

// smallMessage and smallReserve: see byteGate. A bandwidth or CPU
// measurement is about 1 KiB parsed (sensor.Message.Footprint), so a
// sensor sending one a second keeps a minute of them within the reserve;
// 256 connections (the default --max-conns) reserve 16 MiB in all.
const (
	smallMessage = 4 << 10
	smallReserve = 64 << 10
)

func newByteGate(max, perConn int64) *byteGate {
	g := &byteGate{max: max, perConn: perConn, held: map[int64]int64{}}
	g.cond = sync.NewCond(&g.mu)
	return g
}

// acquire waits until conn may queue size more bytes; it returns false
// once the gate is closed (the writer has failed).
func (g *byteGate) acquire(conn, size int64) bool {
	g.mu.Lock()
	defer g.mu.Unlock()
	for !g.closed {
		h := g.held[conn]
		if h == 0 || (h+size <= g.perConn && g.total+size <= g.max) ||
			(size <= smallMessage && h+size <= smallReserve) {
			g.held[conn] = h + size
			g.total += size
			return true
		}
		g.cond.Wait()
	}
	return false
}

// release returns the bytes of a converted message.
func (g *byteGate) release(conn, size int64) {
	g.mu.Lock()
	if h := g.held[conn] - size; h > 0 {
		g.held[conn] = h
	} else {
		delete(g.held, conn)
	}
	g.total -= size
	g.mu.Unlock()
	g.cond.Broadcast()
}

// close wakes every waiting reader and refuses from then on.
func (g *byteGate) close() {
	g.mu.Lock()
	g.closed = true
	g.mu.Unlock()
	g.cond.Broadcast()
}

// bytes returns the bytes held now.
func (g *byteGate) bytes() int64 {
	g.mu.Lock()
	defer g.mu.Unlock()
	return g.total
}
